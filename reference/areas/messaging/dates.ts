/**
 * The `from_date` / `to_date` query range of the messaging lists and analytics. A bare date
 * covers that whole UTC day, so `to_date=2026-01-31` includes messages of the 31st.
 */
import type { Fields } from '../../core/validation.ts';

const DAY_MS = 86_400_000;

export interface DateRange {
  /** Inclusive, epoch ms. */
  fromMs: number;
  /** Exclusive, epoch ms. */
  toMs: number;
}

function isDateOnly(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value);
}

export function readDateRange(fields: Fields): DateRange {
  const from = fields.timestamp('from_date', { allowDate: true });
  const to = fields.timestamp('to_date', { allowDate: true });
  const fromMs = from === undefined ? -Infinity : Date.parse(isDateOnly(from) ? `${from}T00:00:00Z` : from);
  const toMs =
    to === undefined ? Infinity : Date.parse(isDateOnly(to) ? `${to}T00:00:00Z` : to) + (isDateOnly(to) ? DAY_MS : 1);
  if (fromMs >= toMs) fields.fail('to_date', 'to_date must not be before from_date.');
  return { fromMs, toMs };
}

export function inRange(range: DateRange, ms: number): boolean {
  return ms >= range.fromMs && ms < range.toMs;
}

/** First day (YYYY-MM-DD, UTC) of the day, ISO week (Monday) or month holding `ms`. */
export function groupStart(ms: number, groupBy: 'day' | 'week' | 'month'): string {
  const date = new Date(ms);
  if (groupBy === 'month')
    return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString().slice(0, 10);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (groupBy === 'day') return new Date(day).toISOString().slice(0, 10);
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}
