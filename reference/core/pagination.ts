import { type Area } from './areas.ts';
import { fieldError } from './errors.ts';
import type { ActiveFaults, FaultDefinition } from './faults.ts';
import type { ActiveVariants } from './variants.ts';

/** Faults of the paginated lists (GET /sms/messages, GET /vps, GET /account/billing/history). */
export const PAGINATION_FAULTS = [
  {
    name: 'per-page-unbounded',
    requirement: 'PAGE-SIZE-002',
    description: 'A per_page above 100 is honoured: pages of up to 10000 items.',
  },
  {
    name: 'page-zero-based-default',
    requirement: 'PAGE-NUM-001',
    description: 'Without `page`, lists answer page 0 (meta.page 0, no items).',
  },
  {
    name: 'page-walk-overlap',
    requirement: 'PAGE-NUM-002',
    description: 'Every page after the first starts one item early, repeating the last item of the page before.',
  },
  { name: 'page-meta-total-string', requirement: 'PAGE-META-001', description: '`meta.total` is a string.' },
  {
    name: 'page-order-oldest-first',
    requirement: 'PAGE-ORD-001',
    description: 'Paginated lists are ordered oldest first.',
  },
  {
    name: 'page-meta-per-page-default',
    requirement: 'PAGE-SIZE-003',
    description: '`meta.per_page` always says 25, whatever per_page the page was cut with.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module './faults.ts' {
  interface FaultNames extends Record<(typeof PAGINATION_FAULTS)[number]['name'], true> {}
}

export interface PageMeta {
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

/**
 * Reads `page` (default 1) and `per_page` (default 25, at most 100) from a query. Under the
 * variant `per-page-clamp` a `per_page` above 100 is served as 100 instead of refused.
 */
export function readPageQuery(
  area: Area,
  query: Record<string, unknown>,
  variants?: ActiveVariants,
  faults?: ActiveFaults,
): { page: number; perPage: number } {
  const firstPage = faults?.has('page-zero-based-default') ? 0 : 1;
  const page = readPositiveInt(area, query, 'page', firstPage, Number.MAX_SAFE_INTEGER, false);
  const maxPerPage = faults?.has('per-page-unbounded') ? 10_000 : 100;
  const perPage = readPositiveInt(area, query, 'per_page', 25, maxPerPage, variants?.has('per-page-clamp') ?? false);
  return { page, perPage };
}

function readPositiveInt(
  area: Area,
  query: Record<string, unknown>,
  name: string,
  fallback: number,
  max: number,
  clamp: boolean,
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (clamp && Number.isSafeInteger(value) && value > max) return max;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw fieldError(area, name, `${name} must be an integer from 1 to ${max}.`, 'validation_error', { value: raw });
  }
  return value;
}

/**
 * One page of `newestFirst` (the order of docs/conventions.md). Under the variant
 * `list-oldest-first` the whole list is reversed before it is cut, so the order holds across pages.
 */
export function paginate<T>(
  newestFirst: readonly T[],
  page: number,
  perPage: number,
  variants?: ActiveVariants,
  faults?: ActiveFaults,
): { items: T[]; meta: PageMeta | Record<keyof PageMeta, number | string> } {
  const oldestFirst = variants?.has('list-oldest-first') || faults?.has('page-order-oldest-first');
  const items = oldestFirst ? [...newestFirst].reverse() : newestFirst;
  const overlap = faults?.has('page-walk-overlap') && page > 1 ? 1 : 0;
  // Page 0 (fault page-zero-based-default) is empty, not the tail of the list.
  const start = Math.max(0, (page - 1) * perPage - overlap);
  const meta = { total: items.length, page, per_page: perPage, pages: Math.ceil(items.length / perPage) };
  if (faults?.has('page-meta-per-page-default')) meta.per_page = 25;
  return {
    items: page < 1 ? [] : items.slice(start, start + perPage),
    meta: faults?.has('page-meta-total-string') ? { ...meta, total: String(meta.total) } : meta,
  };
}
