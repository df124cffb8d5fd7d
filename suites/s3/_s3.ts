/**
 * Helpers the S3 checks share: storage access keys made through the REST API (in the ledger),
 * S3 clients configured the usual way (path-style, a region slug of the API), buckets and
 * objects tracked in the ledger so teardown empties a bucket before deleting it. Not a spec file.
 */
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { request } from 'undici';
import { expect, expectStatus, resourceOf } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext, Ledger } from '../../src/harness/check.ts';
import { storageRegion } from '../flows/_storage.ts';

export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Both checksum behaviours of the AWS SDKs: the 2025 default (CRC32 on every upload, aws-chunked with trailers) and the older one. */
export const CHECKSUM_MODES = ['default', 'when-required'] as const;
export type ChecksumMode = (typeof CHECKSUM_MODES)[number];

export async function createAccessKey(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
  input: { permissions?: string[]; bucket_access?: string[]; account?: 'main' | 'alt' } = {},
): Promise<KeyPair> {
  const { account = 'main', ...fields } = input;
  const res = await api.post(
    '/storage/access-keys',
    { name: ctx.name('s3key'), permissions: fields.permissions ?? ['read', 'write'], ...fields },
    { account },
  );
  expectStatus(res, [200, 201], 'create a storage access key');
  // The creation body is not shown: `access_key` (the convention), flat or under `data`.
  const record = resourceOf<Record<string, unknown>>(res.body, 'access_key') ?? {};
  if (typeof record.id === 'string') ledger.track('access-key', record.id, { account });
  const accessKeyId = record.access_key_id ?? record.access_key;
  const secretAccessKey = record.secret_access_key ?? record.secret_key;
  expect(typeof accessKeyId, 'access key id in the creation response').toBe('string');
  expect(typeof secretAccessKey, 'secret access key in the creation response').toBe('string');
  return { accessKeyId: accessKeyId as string, secretAccessKey: secretAccessKey as string };
}

export function s3Client(
  endpoint: string,
  region: string,
  credentials: KeyPair,
  mode: ChecksumMode = 'default',
  extra: Partial<S3ClientConfig> = {},
): S3Client {
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region,
    credentials,
    // One attempt: a retry would hide the first answer, which is what is being checked.
    maxAttempts: 1,
    ...(mode === 'when-required'
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
    ...extra,
  });
}

export interface S3Setup {
  s3: S3Client;
  pair: KeyPair;
  region: string;
  endpoint: string;
}

/** A fresh key pair and a client for it. Skips the check when the run has no S3 endpoint. */
export async function s3Setup(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
  mode: ChecksumMode = 'default',
): Promise<S3Setup> {
  const endpoint = ctx.requireS3();
  const region = await storageRegion(api);
  const pair = await createAccessKey(api, ledger, ctx);
  return { s3: s3Client(endpoint, region, pair, mode), pair, region, endpoint };
}

/** Creates a bucket through S3 and records it the moment it exists. */
export async function s3Bucket(s3: S3Client, ledger: Ledger, ctx: CheckContext, label = 's3'): Promise<string> {
  const name = ctx.name(label);
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  ledger.track('bucket', name);
  return name;
}

/** Objects are tracked so that teardown (objects before buckets) can delete the bucket. */
export function trackObject(ledger: Ledger, bucket: string, key: string): void {
  ledger.track('object', `${bucket}/${key}`);
}

/** The S3 error code of a call expected to fail (`no error` when it succeeded). */
export async function s3ErrorCode(promise: Promise<unknown>): Promise<{ code: string; status: number | undefined }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
    return { code: e.Code ?? e.name ?? 'unknown', status: e.$metadata?.httpStatusCode };
  }
  return { code: 'no error', status: undefined };
}

export async function bytesOf(body: { transformToByteArray(): Promise<Uint8Array> } | undefined): Promise<Buffer> {
  expect(body, 'a response body').toBeTruthy();
  return Buffer.from(await body!.transformToByteArray());
}

/** A bucket made through the REST API with its optional settings (versioning, public), in the ledger. */
export async function createRestBucket(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
  label: string,
  settings: { versioning?: boolean; public?: boolean },
): Promise<string> {
  const name = ctx.name(label);
  const res = await api.post('/storage/buckets', { name, region: await storageRegion(api), ...settings });
  expectStatus(res, [200, 201], `create a bucket with ${JSON.stringify(settings)}`);
  ledger.track('bucket', name);
  return name;
}

/** A bucket's record as GET /storage/buckets/{name} shows it (the body's wrapper is not shown). */
export async function restBucket(api: ApiClient, name: string): Promise<Record<string, unknown>> {
  const res = await api.get(`/storage/buckets/${encodeURIComponent(name)}`);
  expectStatus(res, 200, `GET the bucket ${name}`);
  const record = resourceOf<Record<string, unknown>>(res.body, 'bucket');
  expect(record, `the bucket record of ${name}`).toBeTruthy();
  return record!;
}

/**
 * Every version and delete marker of a bucket deleted by id (a versioning bucket's older
 * versions are out of the REST API's reach, so its teardown cannot). Best effort: the ledger's
 * teardown still reports what stays.
 */
export async function deleteAllVersions(s3: S3Client, bucket: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket })).catch(() => undefined);
    const all = [...(listed?.Versions ?? []), ...(listed?.DeleteMarkers ?? [])];
    if (all.length === 0) return;
    for (const v of all)
      await s3
        .send(new DeleteObjectCommand({ Bucket: bucket, Key: v.Key, VersionId: v.VersionId }))
        .catch(() => undefined);
  }
}

/** An unsigned request to the S3 endpoint (what anyone on the network can send), tagged with the check. */
export async function unsigned(
  endpoint: string,
  api: ApiClient,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const res = await request(`${endpoint}${path}`, {
    method: method as 'GET',
    headers: { ...api.checkHeaders, ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

/** `/<bucket>/<key>` with each part percent-encoded as S3 clients send it. */
export function objectUrlPath(bucket: string, key: string): string {
  return `/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
