/**
 * What the families of instances and volumes share (compute, volumes, snapshots, projects;
 * families never import each other): the target's own catalogue (regions, an image, a size),
 * creating a VPS with a run-prefixed name, waiting for its boot, its clean-up, and reading a VPS
 * or a volume out of a body whose wrapper the specification does not show.
 */
import { isObject, listOf, resourceOf } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import { ExploreSetupError, expectOk, ok, short } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreTarget, SequenceTarget } from '../target.ts';

export interface VpsCatalogue {
  /** Up to two regions offering VPS and block storage (two make the region filter meaningful). */
  regions: string[];
  image: string;
  size: string;
}

/** One read of the catalogue per exploration, whichever family sets up first. */
const catalogues = new WeakMap<ExploreTarget, VpsCatalogue>();

export const vpsPath = (id: string): string => `/vps/${encodeURIComponent(id)}`;
export const volumePath = (id: string): string => `/storage/volumes/${encodeURIComponent(id)}`;
/** A volume from an answer whose body is not shown: under `volume`, a generic envelope, or flat. */
export const volumeOf = (body: unknown): Json | undefined => resourceOf(body, 'volume');
/** A VPS from a create, get or update answer: under `vps` (the creation's shape), a generic envelope, or flat. */
export const vpsOf = (body: unknown): Json | undefined => resourceOf(body, 'vps');
export const stringsOf = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;

const listed = (body: unknown, plural: string): Json[] =>
  (listOf(body, plural) ?? []).map((x) => (isObject(x) ? x : {}));

/** Reads GET /regions, /images and /sizes once; a target offering nothing to create a VPS with is a set-up error, not a finding. */
export async function vpsCatalogue(target: SequenceTarget): Promise<VpsCatalogue> {
  const known = catalogues.get(target.exploration);
  if (known) return known;
  const [regions, images, sizes] = [
    await target.send('GET', '/regions'),
    await target.send('GET', '/images', { query: { type: 'linux' } }),
    await target.send('GET', '/sizes'),
  ];
  const offers = (r: Json, feature: string): boolean => !Array.isArray(r.features) || r.features.includes(feature);
  const slugs = listed(regions.body, 'regions')
    .filter((r) => r.available !== false && offers(r, 'vps') && offers(r, 'storage'))
    .map((r) => r.slug)
    .filter((s): s is string => typeof s === 'string');
  const imageList = listed(images.body, 'images');
  const image = imageList.find((i) => typeof i.id === 'string');
  // The cheapest available size the image fits: exploration creates many short-lived instances.
  const size = listed(sizes.body, 'sizes')
    .filter(
      (s) =>
        s.available !== false &&
        typeof s.slug === 'string' &&
        (typeof image?.min_disk_size !== 'number' || typeof s.disk !== 'number' || s.disk >= image.min_disk_size),
    )
    .sort((a, b) => Number(a.price_monthly ?? 0) - Number(b.price_monthly ?? 0))[0];
  if (!slugs.length || typeof image?.id !== 'string' || typeof size?.slug !== 'string') {
    throw new ExploreSetupError(
      `the target's catalogue offers no region with vps and storage, linux image or size (GET /regions ${regions.status}, /images ${images.status}, /sizes ${sizes.status})`,
    );
  }
  const catalogue = { regions: slugs.slice(0, 2), image: image.id, size: size.slug };
  catalogues.set(target.exploration, catalogue);
  return catalogue;
}

export function catalogueOf(target: SequenceTarget): VpsCatalogue {
  const catalogue = catalogues.get(target.exploration);
  if (!catalogue) throw new Error('explore: the compute catalogue was not read (the family was not set up)');
  return catalogue;
}

/**
 * POST /vps with the catalogue's image and size; the instance is tracked for clean-up at once.
 * A refusal of what GET /regions, /images and /sizes offer breaks VPS-CRT-006; an accepted create
 * without an id, VPS-CRT-003.
 */
export async function createVps(
  target: SequenceTarget,
  name: string,
  region: string,
  tags: readonly string[],
): Promise<{ id: string; created: Json }> {
  const { image, size } = catalogueOf(target);
  const res = await target.send('POST', '/vps', { json: { name, region, image, size, tags } });
  expectOk(res, 'VPS-CRT-006', `POST /vps (region ${region}, image ${image}, size ${size})`);
  const created = vpsOf(res.body);
  const id = created?.id;
  if (typeof id !== 'string')
    throw new ModelViolation('VPS-CRT-003', 'POST /vps', 'the created VPS with its id', short(res.text));
  target.track(vpsPath(id), () => removeVps(target, id));
  return { id, created: created! };
}

/**
 * DELETE /vps/{id} as a step of a sequence. A refusal is no finding (whether an instance still
 * `creating`, or with a volume attached, may be deleted is not shown): its existence is then
 * unknown and it stays tracked for the clean-up. An accepted delete ends the tracking.
 */
export async function deleteVps(
  target: SequenceTarget,
  vps: { id: string; existence: 'live' | 'deleted' | 'unknown' },
): Promise<boolean> {
  const res = await target.send('DELETE', vpsPath(vps.id));
  if (!ok(res)) {
    vps.existence = 'unknown';
    return false;
  }
  vps.existence = 'deleted';
  target.untrack(vpsPath(vps.id));
  return true;
}

/** Waits before each retry of a clean-up: a real cloud may refuse to delete an instance still booting. */
const CLEAN_UP_WAITS_MS = [1_000, 3_000, 8_000];

/**
 * Clean-up of a VPS: DELETE, retried a few times while the target refuses it (whether an instance
 * still `creating` may be deleted is not shown). What stays is for `cloudcheck sweep`.
 */
export async function removeVps(target: SequenceTarget, id: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await target.send('DELETE', vpsPath(id));
    if (ok(res) || res.status === 404) return;
    const wait = CLEAN_UP_WAITS_MS[attempt];
    if (wait === undefined) {
      target.warn(`could not delete the VPS ${id} (${res.status}); cloudcheck sweep removes cc- leftovers`);
      return;
    }
    await target.pause(wait);
  }
}

/** Polls for a VPS leaving `creating` (a real cloud may refuse an attach or an action before): a few requests, a few seconds. */
const BOOT_WAITS_MS = [100, 200, 400, 800, 1_600, 3_200];

/** Waits a few seconds at most for the instance to leave `creating`; what it is then is the caller's to find out. */
export async function waitUntilBooted(target: SequenceTarget, id: string): Promise<void> {
  for (const wait of BOOT_WAITS_MS) {
    const res = await target.send('GET', vpsPath(id));
    if (ok(res) && vpsOf(res.body)?.status !== 'creating') return;
    await target.pause(wait);
  }
}
