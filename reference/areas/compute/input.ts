/**
 * Request reading for the compute area: field types first (through `Fields`, which answers the
 * first problem as a 422 `validation_error` with array `details`), then the references into the
 * catalogue and the account's SSH keys. Kept apart from the routes so each handler reads as
 * "validate, act, answer".
 */
import type { ReferenceContext } from '../../core/context.ts';
import { fieldError } from '../../core/errors.ts';
import { Fields } from '../../core/validation.ts';
import { IMAGES, type Image, REGIONS, type Size, findImage, findRegion, findSize } from './catalog.ts';
import type { CreateVpsInput } from './service.ts';
import { computeState } from './store.ts';

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, 253 chars at most. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
/** cloud-init accepts up to 64 KiB of user data. */
const USER_DATA_MAX_BYTES = 64 * 1024;
const TAG = /^.{1,255}$/su;

export function fail(field: string, message: string): never {
  throw fieldError('compute', field, message);
}

/** Query parameters with empty values dropped: `?status=` means no filter, not an invalid one. */
export function queryFields(query: unknown): Fields {
  const cleaned: Record<string, unknown> = {};
  if (query && typeof query === 'object') {
    for (const [key, value] of Object.entries(query)) if (value !== '') cleaned[key] = value;
  }
  return new Fields('compute', cleaned);
}

export function readName(f: Fields, required: boolean): string | undefined {
  const name = f.string('name', { required, max: 253 });
  if (name !== undefined && !HOSTNAME.test(name))
    fail('name', 'name must be a valid host name: letters, digits, hyphens and dots, 1 to 253 characters.');
  return name;
}

export function readTags(f: Fields): string[] | undefined {
  return f.stringArray('tags', { maxItems: 100, itemPattern: TAG });
}

export function readSize(field: string, slug: string, image?: Image): Size {
  const size = findSize(slug);
  if (!size) fail(field, `${field} ${JSON.stringify(slug)} is not a size of GET /sizes.`);
  if (!size.available) fail(field, `Size ${slug} is not available.`);
  if (image && size.disk < image.min_disk_size)
    fail(field, `Size ${slug} has a ${size.disk} GB disk; image ${image.id} needs at least ${image.min_disk_size} GB.`);
  return size;
}

export function readImage(field: string, id: string): Image {
  const image = findImage(id);
  if (!image) fail(field, `${field} ${JSON.stringify(id)} is not an image of GET /images.`);
  return image;
}

export function readCreateVps(ctx: ReferenceContext, accountId: string, body: unknown): CreateVpsInput {
  const f = new Fields('compute', body);
  // Types and presence of every field first, in the order of the specification.
  const name = readName(f, true) as string;
  const regionSlug = f.string('region', { required: true });
  const imageId = f.string('image', { required: true });
  const sizeSlug = f.string('size', { required: true });
  const sshKeys = f.stringArray('ssh_keys', { maxItems: 100 }) ?? [];
  const privateNetworking = f.boolean('private_networking') ?? false;
  const backups = f.boolean('backups') ?? false;
  const monitoring = f.boolean('monitoring') ?? false;
  const userData = f.string('user_data');
  const tags = readTags(f) ?? [];
  const projectId = f.string('project_id', { min: 1, max: 100 }) ?? null;
  if (userData !== undefined && Buffer.byteLength(userData, 'utf8') > USER_DATA_MAX_BYTES)
    fail('user_data', 'user_data must be at most 64 KiB.');

  // Then what the values refer to.
  const region = findRegion(regionSlug) ?? (ctx.faults.has('vps-unknown-region-accepted') ? REGIONS[0] : undefined);
  if (!region) fail('region', `region ${JSON.stringify(regionSlug)} is not a region of GET /regions.`);
  if (!region.available || !region.features.includes('vps'))
    fail('region', `Region ${regionSlug} does not accept new instances.`);
  // Fault `vps-image-by-name-only`: the image is looked up by its name, so the listed ids are refused.
  const image = ctx.faults.has('vps-image-by-name-only')
    ? readImage('image', IMAGES.find((i) => i.name === imageId)?.id ?? `name:${imageId}`)
    : readImage('image', imageId);
  const size = readSize('size', sizeSlug, image);
  // SSH keys by id or by fingerprint (both identify a key of the account); stored as ids.
  const keys = [...computeState(ctx, accountId).sshKeys.values()];
  const keyIds = sshKeys.map((ref) => {
    // Fault `vps-ssh-key-ids-refused`: only fingerprints are looked up.
    const byId = !ctx.faults.has('vps-ssh-key-ids-refused');
    const key = keys.find((k) => (byId && k.id === ref) || k.fingerprint === ref);
    if (!key) fail('ssh_keys', `ssh_keys: ${JSON.stringify(ref)} is not an SSH key of this account.`);
    return key.id;
  });
  return {
    name,
    region: region.slug,
    image,
    size,
    sshKeys: [...new Set(keyIds)],
    privateNetworking,
    backups,
    monitoring,
    tags,
    projectId,
  };
}
