import { type Area } from './areas.ts';
import { fieldError } from './errors.ts';

export interface PageMeta {
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

/** Reads `page` (default 1) and `per_page` (default 25, at most 100) from a query. */
export function readPageQuery(area: Area, query: Record<string, unknown>): { page: number; perPage: number } {
  const page = readPositiveInt(area, query, 'page', 1, Number.MAX_SAFE_INTEGER);
  const perPage = readPositiveInt(area, query, 'per_page', 25, 100);
  return { page, perPage };
}

function readPositiveInt(area: Area, query: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw fieldError(area, name, `${name} must be an integer from 1 to ${max}.`, 'validation_error', { value: raw });
  }
  return value;
}

export function paginate<T>(items: readonly T[], page: number, perPage: number): { items: T[]; meta: PageMeta } {
  const start = (page - 1) * perPage;
  return {
    items: items.slice(start, start + perPage),
    meta: { total: items.length, page, per_page: perPage, pages: Math.ceil(items.length / perPage) },
  };
}
