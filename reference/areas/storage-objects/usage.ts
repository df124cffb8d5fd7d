/**
 * Real usage counters of one account, per UTC day and bucket: net change of bytes stored, bytes
 * downloaded and requests. GET /storage/usage, GET /account/usage and cost analytics all read
 * these, so their numbers agree with what the account actually did.
 */
import { GB, PRICE_PER_GB_MONTH, PRICE_PER_GB_TRANSFER } from './catalog.ts';

interface DayCounters {
  storageDelta: number;
  bandwidth: number;
  requests: number;
}

export interface UsageRecord {
  date: string;
  storage_used: number;
  bandwidth_used: number;
  requests: number;
  cost: number;
}

export interface UsageSummary {
  total_storage: number;
  total_bandwidth: number;
  total_requests: number;
  total_cost: number;
}

/** Requests not about one bucket (bucket listing, access keys, usage) are kept under ''. */
export const NO_BUCKET = '';

const DAY_MS = 86_400_000;

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Cost of one day: storage priced per GB-month (a 30-day month), transfer per GB. */
export function dayCost(storageBytes: number, bandwidthBytes: number): number {
  return round6((storageBytes / GB) * (PRICE_PER_GB_MONTH / 30) + (bandwidthBytes / GB) * PRICE_PER_GB_TRANSFER);
}

export function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

export class UsageLedger {
  /** day → bucket → counters. */
  private readonly days = new Map<string, Map<string, DayCounters>>();

  private counters(ms: number, bucket: string): DayCounters {
    const day = dayOf(ms);
    let buckets = this.days.get(day);
    if (!buckets) this.days.set(day, (buckets = new Map()));
    let counters = buckets.get(bucket);
    if (!counters) buckets.set(bucket, (counters = { storageDelta: 0, bandwidth: 0, requests: 0 }));
    return counters;
  }

  storage(ms: number, bucket: string, delta: number): void {
    if (delta !== 0) this.counters(ms, bucket).storageDelta += delta;
  }

  download(ms: number, bucket: string, bytes: number): void {
    this.counters(ms, bucket).bandwidth += bytes;
  }

  request(ms: number, bucket: string): void {
    this.counters(ms, bucket).requests += 1;
  }

  /** Whether the ledger has seen this bucket (usage of a deleted bucket stays readable). */
  knows(bucket: string): boolean {
    for (const buckets of this.days.values()) if (buckets.has(bucket)) return true;
    return false;
  }

  /**
   * One record per day from `fromMs` to `toMs` (inclusive, UTC days). `storage_used` is the bytes
   * stored at the end of the day; the summary is the sum of the records.
   */
  report(fromMs: number, toMs: number, bucket?: string): { usage: UsageRecord[]; summary: UsageSummary } {
    const from = dayOf(fromMs);
    const to = dayOf(toMs);
    const matches = (name: string) => bucket === undefined || name === bucket;
    // Bytes stored before the first day of the report.
    let stored = 0;
    for (const [day, buckets] of this.days) {
      if (day >= from) continue;
      for (const [name, c] of buckets) if (matches(name)) stored += c.storageDelta;
    }
    const usage: UsageRecord[] = [];
    for (let ms = Date.parse(`${from}T00:00:00Z`); dayOf(ms) <= to; ms += DAY_MS) {
      const day = dayOf(ms);
      let bandwidth = 0;
      let requests = 0;
      for (const [name, c] of this.days.get(day) ?? []) {
        if (!matches(name)) continue;
        stored += c.storageDelta;
        bandwidth += c.bandwidth;
        requests += c.requests;
      }
      usage.push({
        date: day,
        storage_used: stored,
        bandwidth_used: bandwidth,
        requests,
        cost: dayCost(stored, bandwidth),
      });
    }
    const summary: UsageSummary = {
      total_storage: usage.reduce((sum, r) => sum + r.storage_used, 0),
      total_bandwidth: usage.reduce((sum, r) => sum + r.bandwidth_used, 0),
      total_requests: usage.reduce((sum, r) => sum + r.requests, 0),
      total_cost: round6(usage.reduce((sum, r) => sum + r.cost, 0)),
    };
    return { usage, summary };
  }

  /** Bytes downloaded from one bucket between two instants (whole days), for billing's usage. */
  bandwidthBetween(fromMs: number, toMs: number, bucket: string): number {
    const from = dayOf(fromMs);
    const to = dayOf(toMs);
    let total = 0;
    for (const [day, buckets] of this.days) if (day >= from && day <= to) total += buckets.get(bucket)?.bandwidth ?? 0;
    return total;
  }
}
