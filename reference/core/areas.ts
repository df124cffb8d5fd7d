/** Which area a request path belongs to (docs/conventions.md, "Areas"). */
export type Area = 'messaging' | 'compute' | 'storage' | 'billing' | 'projects';

export function areaOf(pathAfterVersion: string): Area | undefined {
  const first = pathAfterVersion.split('?')[0]?.split('/')[1] ?? '';
  switch (first) {
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

/** The areas whose responses carry X-RateLimit-* headers (specification, "Limits"). */
export function hasRateLimitHeaders(area: Area | undefined): boolean {
  return area === 'messaging' || area === 'compute';
}
