import { type Area } from './areas.ts';
import { fieldError } from './errors.ts';
import type { ActiveVariants } from './variants.ts';

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
export function readPageQuery(area: Area, query: Record<string, unknown>, variants?: ActiveVariants): { page: number; perPage: number } {
  const page = readPositiveInt(area, query, 'page', 1, Number.MAX_SAFE_INTEGER, false);
  const perPage = readPositiveInt(area, query, 'per_page', 25, 100, variants?.has('per-page-clamp') ?? false);
  return { page, perPage };
}

function readPositiveInt(area: Area, query: Record<string, unknown>, name: string, fallback: number, max: number, clamp: boolean): number {
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
export function paginate<T>(newestFirst: readonly T[], page: number, perPage: number, variants?: ActiveVariants): { items: T[]; meta: PageMeta } {
  const items = variants?.has('list-oldest-first') ? [...newestFirst].reverse() : newestFirst;
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    meta: { total: items.length, page, per_page: perPage, pages: Math.ceil(items.length / perPage) },
  };
}
