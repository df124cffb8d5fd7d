/** Which area a request path belongs to (docs/conventions.md, "Areas"). */
export type Area = 'messaging' | 'compute' | 'storage' | 'billing' | 'projects';

export function areaOf(pathAfterVersion: string): Area | undefined {
  switch (firstSegment(pathAfterVersion)) {
    case 'sms':
    case 'messaging':
      return 'messaging';
    case 'vps':
    case 'images':
    case 'sizes':
    case 'regions':
    case 'ssh-keys':
    case 'snapshots':
      return 'compute';
    case 'storage':
      return 'storage';
    case 'account':
      return 'billing';
    case 'projects':
      return 'projects';
    default:
      return undefined;
  }
}

/** What lies between the first and second '/' of the path, query left out (no arrays: every request asks). */
function firstSegment(path: string): string {
  const query = path.indexOf('?');
  const end = query < 0 ? path.length : query;
  const start = path.indexOf('/');
  if (start < 0 || start >= end) return '';
  const next = path.indexOf('/', start + 1);
  return path.slice(start + 1, next < 0 || next > end ? end : next);
}

/** The areas whose responses carry X-RateLimit-* headers (specification, "Limits"). */
export function hasRateLimitHeaders(area: Area | undefined): boolean {
  return area === 'messaging' || area === 'compute';
}
