/**
 * Helpers the object-storage flows share: a bucket of the run (in the ledger the moment it
 * exists), object paths, deterministic bytes and digests. Not a spec file.
 */
import { createHash } from 'node:crypto';
import { expect, expectStatus } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext, Ledger } from '../../src/harness/check.ts';

/** A region slug for storage: the first available region offering storage in GET /regions. */
export async function storageRegion(api: ApiClient): Promise<string> {
  const res = await api.get('/regions');
  expectStatus(res, 200);
  const regions = res.json<{ regions: Array<{ slug: string; available?: boolean; features?: string[] }> }>().regions;
  const region = regions.find((r) => r.available !== false && (!r.features || r.features.includes('storage')));
  expect(region, 'GET /regions should list an available region offering storage').toBeTruthy();
  return region!.slug;
}

/** Creates a bucket named with the run prefix and records it in the ledger. */
export async function createBucket(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
  label = 'bkt',
  region?: string,
): Promise<string> {
  const name = ctx.name(label);
  const res = await api.post('/storage/buckets', { name, region: region ?? (await storageRegion(api)) });
  expectStatus(res, [200, 201], 'create the flow bucket');
  ledger.track('bucket', name);
  return name;
}

/** `/storage/buckets/{bucket}/objects/{key}` with each key segment encoded (keys may hold `/`). */
export function objectPath(bucket: string, key: string): string {
  return `/storage/buckets/${encodeURIComponent(bucket)}/objects/${key.split('/').map(encodeURIComponent).join('/')}`;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Deterministic pseudo-random bytes (xorshift32 seeded from `seed`): same seed, same bytes. */
export function deterministicBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed | 0 || 0x9e3779b9;
  let i = 0;
  const words = length >>> 2;
  if (LITTLE_ENDIAN && out.byteOffset % 4 === 0) {
    // Whole words through a typed view: a 20 MiB object took a quarter of a second of a worker's
    // CPU through writeInt32LE. Same bytes (the words are stored little-endian either way).
    const view = new Int32Array(out.buffer, out.byteOffset, words);
    for (let w = 0; w < words; w++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      view[w] = x;
    }
    i = words * 4;
  } else {
    for (; i + 4 <= length; i += 4) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out.writeInt32LE(x | 0, i);
    }
  }
  for (; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
export const md5 = (data: Uint8Array): Buffer => createHash('md5').update(data).digest();

/** An ETag without quotes and in lower case, for comparison. */
export const bareEtag = (etag: string | undefined): string =>
  (etag ?? '')
    .trim()
    .replace(/^W\//, '')
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();

export interface ListedObject {
  key: string;
  size: number;
  etag: string;
  content_type: string;
  last_modified: string;
  storage_class: string;
}

export interface Listing {
  objects: ListedObject[];
  is_truncated: boolean;
  next_marker: string | null;
  common_prefixes?: string[];
}

export async function listObjects(
  api: ApiClient,
  bucket: string,
  query: Record<string, string | number> = {},
): Promise<Listing> {
  const res = await api.get(`/storage/buckets/${encodeURIComponent(bucket)}/objects`, { query });
  expectStatus(res, 200);
  const listing = res.json<Listing>();
  expect(Array.isArray(listing.objects), 'the listing should carry an array `objects`').toBe(true);
  return listing;
}
