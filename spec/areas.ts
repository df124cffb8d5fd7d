/**
 * Which area a request path belongs to, as the specification's limits group them
 * (docs/conventions.md, "Areas"), and which areas answer with X-RateLimit-* headers
 * (specification, "Limits"). Part of the contract's vocabulary: the harness's budgets, the
 * rate-limit rules and load/ all read it from here. The reference server keeps its own mapping
 * (reference/core/areas.ts) on purpose: a test double that shared the suite's code could not
 * catch the suite's mistakes.
 */

/** The areas a path can belong to (the four of the OpenAPI tags, with projects apart: they have limits of their own). */
export const PATH_AREAS = ['messaging', 'compute', 'storage', 'billing', 'projects'] as const;
export type PathArea = (typeof PATH_AREAS)[number];

const BY_FIRST_SEGMENT: Readonly<Record<string, PathArea>> = {
  sms: 'messaging',
  messaging: 'messaging',
  vps: 'compute',
  images: 'compute',
  sizes: 'compute',
  regions: 'compute',
  'ssh-keys': 'compute',
  snapshots: 'compute',
  storage: 'storage',
  account: 'billing',
  projects: 'projects',
};

/**
 * The area of a path (`/sms/send`), of a path with its version (`/v1/vps`) or of a whole URL
 * (`http://h/v1/vps?page=2`); 'other' for anything else (the health check, an unknown path).
 */
export function areaOfPath(path: string): PathArea | 'other' {
  const rest = path.replace(/^https?:\/\/[^/]+/, '').replace(/^\/v\d+(?=\/|$)/, '');
  const first = /^\/([^/?#]*)/.exec(rest)?.[1] ?? '';
  return Object.hasOwn(BY_FIRST_SEGMENT, first) ? BY_FIRST_SEGMENT[first]! : 'other';
}

/** The areas that answer every authenticated request with the rate-limit headers. */
export type RateLimitedArea = 'messaging' | 'compute';

export function hasRateLimitHeaders(area: PathArea | 'other'): area is RateLimitedArea {
  return area === 'messaging' || area === 'compute';
}
