/**
 * Fixed values and name rules of object storage. Storage keeps its own region list (the same
 * slugs as compute's catalogue) so it does not depend on the compute area.
 */

export const REGIONS = ['nyc1', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1', 'blr1', 'syd1'] as const;

export const ENCRYPTIONS = ['AES256', 'KMS'] as const;

/** Values of the `x-cloud-acl` header (the canned ACLs of S3). */
export const ACLS = ['private', 'public-read', 'public-read-write', 'authenticated-read'] as const;
export type Acl = (typeof ACLS)[number];

export const ACCESS_KEY_PERMISSIONS = ['read', 'write'] as const;

export const STORAGE_CLASS = 'STANDARD';
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** S3's multipart limits (docs/conventions.md, Storage). */
export const MIN_PART_NUMBER = 1;
export const MAX_PART_NUMBER = 10_000;
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export const MAX_KEYS_DEFAULT = 1000;
export const MAX_KEY_BYTES = 1024;

export const PRESIGN_DEFAULT_SECONDS = 3600;
/** Seven days, S3's longest presigned lifetime. */
export const PRESIGN_MAX_SECONDS = 604_800;

export const CDN_DEFAULT_TTL = 3600;
/** One year. */
export const CDN_MAX_TTL = 31_536_000;
export const CDN_DOMAIN = 'cdn.example.net';

/** Prices used for usage cost (USD): per GB-month stored and per GB downloaded. */
export const PRICE_PER_GB_MONTH = 0.02;
export const PRICE_PER_GB_TRANSFER = 0.01;
export const GB = 1024 ** 3;

/** S3 bucket naming rules; returns the problem or undefined. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'name must be 3 to 63 characters.';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) {
    return 'name may hold lowercase letters, digits, hyphens and dots, and must start and end with a letter or digit.';
  }
  if (name.includes('..')) return 'name must not contain two adjacent dots.';
  // Each dot-separated label is a DNS label: it neither starts nor ends with a hyphen.
  if (name.includes('.-') || name.includes('-.')) return 'name must not have a hyphen next to a dot.';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return 'name must not be an IP address.';
  return undefined;
}

/**
 * Object key rules. Keys are free-form UTF-8 like S3's, but this server refuses the ones that
 * only ever appear as path tricks: NUL and `.`/`..` segments. Files are stored by id anyway.
 */
export function objectKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'object_key must not be empty.';
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `object_key must be at most ${MAX_KEY_BYTES} bytes.`;
  if (key.includes('\u0000')) return 'object_key must not contain NUL.';
  if (key.split('/').some((segment) => segment === '.' || segment === '..'))
    return 'object_key must not contain "." or ".." segments.';
  // A lone surrogate cannot be stored as UTF-8; it only comes from a broken percent-encoding.
  if (LONE_SURROGATE.test(key)) return 'object_key must be valid UTF-8.';
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export function isHostname(value: string): boolean {
  return HOSTNAME.test(value);
}
