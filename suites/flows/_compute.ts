/**
 * Small helpers the compute-related flows share (VPS lifecycle, volumes, projects): picking a
 * region, images and sizes the target offers, and waiting for a VPS to boot. Not a spec file:
 * Playwright only loads `*.spec.ts`.
 *
 * The choices come from the target's own catalogue (GET /regions, /images, /sizes), never from
 * the reference server's, so the flows work against any implementation.
 */
import { expect, expectStatus, resourceOf } from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, CheckContext } from '../../src/harness/check.ts';

export interface Vps {
  id: string;
  name: string;
  status: string;
  region: string;
  image: string;
  size: string;
  vcpus: number;
  memory: number;
  disk: number;
  ip_address: string | null;
  private_ip: string | null;
  created_at: string;
  tags: string[];
}

export interface Size {
  slug: string;
  vcpus: number;
  memory: number;
  disk: number;
  price_monthly: number;
  available: boolean;
}

interface Region {
  slug: string;
  available: boolean;
  features?: string[];
}

interface Image {
  id: string;
  type?: string;
  min_disk_size?: number;
}

export interface ComputeCatalogue {
  /** A region that is available and offers VPS. */
  region: string;
  /** A second such region, for negative filters (null when the target has only one). */
  otherRegion: string | null;
  /** The cheapest available size that fits `image` and `otherImage`. */
  size: Size;
  /** An available size larger than `size` (more disk), for resize; null when there is none. */
  largerSize: Size | null;
  image: string;
  /** Another image that fits `size`, for rebuild; null when there is only one. */
  otherImage: string | null;
}

function listOf<T>(res: ApiResponse, name: string): T[] {
  expectStatus(res, 200);
  const list = (res.body as Record<string, unknown> | undefined)?.[name];
  expect(Array.isArray(list), `${name} should be an array`).toBe(true);
  return list as T[];
}

/** Reads the target's regions, images and sizes and picks what a flow needs. */
export async function computeCatalogue(api: ApiClient): Promise<ComputeCatalogue> {
  const [regionsRes, imagesRes, sizesRes] = await Promise.all([
    api.get('/regions'),
    api.get('/images', { query: { type: 'linux' } }),
    api.get('/sizes'),
  ]);
  const regions = listOf<Region>(regionsRes, 'regions').filter(
    (r) => r.available && (!r.features || r.features.includes('vps')),
  );
  const images = listOf<Image>(imagesRes, 'images');
  const sizes = listOf<Size>(sizesRes, 'sizes')
    .filter((s) => s.available)
    .sort((a, b) => a.price_monthly - b.price_monthly || a.disk - b.disk);
  expect(regions.length, 'GET /regions should list at least one available region offering vps').toBeGreaterThan(0);
  expect(images.length, 'GET /images?type=linux should list at least one image').toBeGreaterThan(0);
  expect(sizes.length, 'GET /sizes should list at least one available size').toBeGreaterThan(0);
  const fits = (image: Image, size: Size): boolean => (image.min_disk_size ?? 0) <= size.disk;
  const size =
    sizes.find((s) => images.filter((i) => fits(i, s)).length >= 2) ??
    sizes.find((s) => images.some((i) => fits(i, s))) ??
    sizes[0]!;
  const fitting = images.filter((i) => fits(i, size));
  const largerSize =
    sizes.find((s) => s.slug !== size.slug && s.disk > size.disk && s.vcpus >= size.vcpus && s.memory >= size.memory) ??
    null;
  return {
    region: regions[0]!.slug,
    otherRegion: regions[1]?.slug ?? null,
    size,
    largerSize,
    image: fitting[0]?.id ?? images[0]!.id,
    otherImage: fitting[1]?.id ?? null,
  };
}

/**
 * Polls GET /vps/{id} until `accept` says yes (staging boots take minutes and every request
 * counts against the hourly budget; the reference server boots in a fraction of a second).
 */
export async function waitForVps(
  api: ApiClient,
  ctx: CheckContext,
  id: string,
  what: string,
  accept: (vps: Vps) => boolean,
): Promise<Vps> {
  let last: Vps | undefined;
  try {
    // ctx.poll backs off from 100 ms to 5 s until the run's --async-timeout deadline.
    return await ctx.poll(what, async () => {
      const res = await api.get(`/vps/${encodeURIComponent(id)}`);
      expectStatus(res, 200);
      // GET /vps/{vps_id}'s body is not shown: wrapped (the convention) or not.
      last = resourceOf<Vps>(res.body, 'vps');
      return last && accept(last) ? last : undefined;
    });
  } catch (error) {
    if (last) {
      throw new Error(
        `${(error as Error).message}; last seen: status ${JSON.stringify(last.status)}, ip_address ${JSON.stringify(last.ip_address)}, private_ip ${JSON.stringify(last.private_ip)}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

export const isRunningWithIps = (vps: Vps): boolean =>
  vps.status === 'running' &&
  typeof vps.ip_address === 'string' &&
  vps.ip_address !== '' &&
  typeof vps.private_ip === 'string' &&
  vps.private_ip !== '';
