/**
 * Date ranges and calendar buckets for history filters, usage, analytics and trends. All
 * calendars are UTC: the account's timezone is a display preference, and a UTC month is the
 * same for every client that checks the numbers.
 */
import type { Area } from '../../core/areas.ts';
import { Fields } from '../../core/validation.ts';

const DAY = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export interface Range {
  fromMs: number;
  toMs: number;
}

/**
 * Reads optional `from_date` / `to_date` (ISO date or date-time). A date-only `to_date` means
 * the whole of that day, so `from_date=to_date=2025-01-31` selects one day.
 */
export function readRange(area: Area, query: unknown, defaults: Range): Range {
  const fields = new Fields(area, query);
  const from = fields.timestamp('from_date', { allowDate: true });
  const to = fields.timestamp('to_date', { allowDate: true });
  const fromMs = from === undefined ? defaults.fromMs : Date.parse(DATE_ONLY.test(from) ? `${from}T00:00:00Z` : from);
  const toMs =
    to === undefined ? defaults.toMs : DATE_ONLY.test(to) ? Date.parse(`${to}T00:00:00Z`) + DAY - 1 : Date.parse(to);
  if (fromMs > toMs) fields.fail('to_date', 'to_date must not be before from_date.');
  return { fromMs, toMs };
}

export function monthStart(ms: number, offset = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
}

/** The current calendar month: [first instant, last millisecond]. */
export function currentMonth(now: number): Range {
  return { fromMs: monthStart(now), toMs: monthStart(now, 1) - 1 };
}

export type Interval = 'day' | 'week' | 'month';

function intervalStart(ms: number, interval: Interval): number {
  const d = new Date(ms);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (interval === 'day') return day;
  if (interval === 'month') return monthStart(ms);
  // ISO weeks start on Monday.
  return day - ((d.getUTCDay() + 6) % 7) * DAY;
}

function nextStart(start: number, interval: Interval): number {
  if (interval === 'day') return start + DAY;
  if (interval === 'week') return start + 7 * DAY;
  return monthStart(start, 1);
}

export interface Bucket extends Range {
  /** First day of the bucket, YYYY-MM-DD. */
  label: string;
}

/** Calendar buckets covering the range, each clipped to it; at most `max` (else null). */
export function buckets(range: Range, interval: Interval, max: number): Bucket[] | null {
  const result: Bucket[] = [];
  for (let start = intervalStart(range.fromMs, interval); start <= range.toMs; start = nextStart(start, interval)) {
    if (result.length >= max) return null;
    const end = nextStart(start, interval) - 1;
    result.push({
      label: new Date(start).toISOString().slice(0, 10),
      fromMs: Math.max(start, range.fromMs),
      toMs: Math.min(end, range.toMs),
    });
  }
  return result;
}
