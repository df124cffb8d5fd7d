/**
 * Request budget: keeps the suite's own traffic under the API's limits so that a 429 in a report
 * means "the target limited a check on purpose", never "the suite flooded itself".
 *
 * Limits (specification, Limits; docs/conventions.md): per API key, fixed windows aligned to the
 * epoch; 1000/h shared by all areas, plus 100/min on messaging and compute, 100/h on billing,
 * 500/h on projects. Messaging and compute answer `X-RateLimit-*` headers (the window nearest
 * exhaustion); the other areas do not, so the budget keeps its own counts there (and everywhere,
 * taking whichever of the two is more pessimistic).
 *
 * The pacing logic (`KeyPool`) is pure: time comes in as an argument, so it is unit-tested with
 * fake headers and a fake clock. The async wrapper (`Budget`) adds waiting and key creation.
 */
import { type PathArea, areaOfPath } from '../../spec/areas.ts';
import { BudgetExhaustedError } from './errors.ts';

/** A request's area for the budget: the contract's path areas (spec/areas.ts), 'other' for the rest. */
export type Area = PathArea | 'other';
export { areaOfPath };

interface WindowRule {
  name: string;
  limit: number;
  lengthMs: number;
  areas: Area[] | 'all';
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The limits of the specification, per key. */
export const WINDOW_RULES: readonly WindowRule[] = [
  { name: 'hour', limit: 1000, lengthMs: HOUR, areas: 'all' },
  { name: 'burst', limit: 100, lengthMs: MINUTE, areas: ['messaging', 'compute'] },
  { name: 'billing', limit: 100, lengthMs: HOUR, areas: ['billing'] },
  { name: 'projects', limit: 500, lengthMs: HOUR, areas: ['projects'] },
];

function rulesFor(area: Area): WindowRule[] {
  return WINDOW_RULES.filter((r) => r.areas === 'all' || r.areas.includes(area));
}

interface KeyState {
  key: string;
  /** Own counts: rule name → { window start, count }. */
  counts: Map<string, { start: number; count: number }>;
  /** From headers (messaging/compute): area → remaining until resetAt (ms). */
  headers: Map<Area, { remaining: number; resetAt: number }>;
  /** After a 429: the key is not used for that area until this time (ms). */
  blockedUntil: Map<Area, number>;
}

export type Selection = { key: string } | { waitMs: number };

export interface KeyPoolOptions {
  /** Requests kept back in every window, so teardown can still delete what the run created. */
  reserve?: number;
  /** A larger reserve for some keys: a key other processes use too (concurrency.ts sharedKeyReserve). */
  reserveOf?: Readonly<Record<string, number>>;
  /**
   * Keys never selected for an area. The run's own key is kept out of `billing` when the run has
   * keys of its own: its billing window (100/h) is reserved for creating and revoking those keys.
   */
  keptOut?: Partial<Record<Area, readonly string[]>>;
}

/** Parses a header value that may be missing or junk. */
function num(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

export class KeyPool {
  private readonly states: KeyState[] = [];
  private readonly reserve: number;
  private readonly reserveOf: Readonly<Record<string, number>>;
  private readonly keptOut: Partial<Record<Area, readonly string[]>>;
  /** Round-robin cursor so work spreads over keys even when all have room. */
  private cursor = 0;

  constructor(keys: string[] = [], options: KeyPoolOptions = {}) {
    this.reserve = options.reserve ?? 2;
    this.reserveOf = options.reserveOf ?? {};
    this.keptOut = options.keptOut ?? {};
    for (const key of keys) this.add(key);
  }

  add(key: string): void {
    if (!key || this.states.some((s) => s.key === key)) return;
    this.states.push({ key, counts: new Map(), headers: new Map(), blockedUntil: new Map() });
  }

  remove(key: string): void {
    const i = this.states.findIndex((s) => s.key === key);
    if (i >= 0) this.states.splice(i, 1);
  }

  get keys(): string[] {
    return this.states.map((s) => s.key);
  }

  /** Earliest time (ms) at which this key may be used for the area; `now` when it is free. */
  availableAt(key: string, area: Area, now: number): number {
    const state = this.states.find((s) => s.key === key);
    if (!state || this.keptOut[area]?.includes(key)) return Number.POSITIVE_INFINITY;
    let at = now;
    const reserve = this.reserveOf[key] ?? this.reserve;
    const blocked = state.blockedUntil.get(area);
    if (blocked !== undefined && blocked > now) at = Math.max(at, blocked);
    const header = state.headers.get(area);
    if (header && header.resetAt > now && header.remaining <= reserve) at = Math.max(at, header.resetAt);
    for (const rule of rulesFor(area)) {
      const start = Math.floor(now / rule.lengthMs) * rule.lengthMs;
      const c = state.counts.get(rule.name);
      const count = c && c.start === start ? c.count : 0;
      if (count >= rule.limit - reserve) at = Math.max(at, start + rule.lengthMs);
    }
    return at;
  }

  /** Picks the key to use now, or says how long to wait for the first one to free up. */
  select(area: Area, now: number): Selection {
    if (this.states.length === 0) return { waitMs: Number.POSITIVE_INFINITY };
    let bestWait = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.states.length; i++) {
      const state = this.states[(this.cursor + i) % this.states.length]!;
      const at = this.availableAt(state.key, area, now);
      if (at <= now) {
        this.cursor = (this.cursor + i + 1) % this.states.length;
        return { key: state.key };
      }
      bestWait = Math.min(bestWait, at - now);
    }
    return { waitMs: bestWait };
  }

  /** Counts a request about to be sent (a 429 is uncounted again in `observe`). */
  count(key: string, area: Area, now: number): void {
    const state = this.states.find((s) => s.key === key);
    if (!state) return;
    for (const rule of rulesFor(area)) {
      const start = Math.floor(now / rule.lengthMs) * rule.lengthMs;
      const c = state.counts.get(rule.name);
      if (c && c.start === start) c.count++;
      else state.counts.set(rule.name, { start, count: 1 });
    }
  }

  /** Learns from a response: rate-limit headers, and 429s (which the API does not count). */
  observe(key: string, area: Area, status: number, headers: Record<string, string>, now: number): void {
    const state = this.states.find((s) => s.key === key);
    if (!state) return;
    const remaining = num(headers['x-ratelimit-remaining']);
    const reset = num(headers['x-ratelimit-reset']);
    if (remaining !== undefined && reset !== undefined) {
      // Reset is epoch seconds by convention; tolerate milliseconds and "seconds from now".
      let resetAt = reset * 1000;
      if (reset > 1e12) resetAt = reset;
      else if (reset < 1e9) resetAt = now + reset * 1000;
      state.headers.set(area, { remaining, resetAt });
    }
    if (status === 429) {
      for (const rule of rulesFor(area)) {
        const c = state.counts.get(rule.name);
        if (c && c.count > 0) c.count--;
      }
      const retryAfter = num(headers['retry-after']);
      let until = now + 60_000;
      if (retryAfter !== undefined) until = now + Math.max(1, retryAfter) * 1000;
      else if (reset !== undefined) until = Math.max(now + 1000, reset > 1e12 ? reset : reset * 1000);
      state.blockedUntil.set(area, until);
    }
  }
}

export interface BudgetOptions {
  /** Longest single wait for a key to free up before giving up with an environment error. */
  maxWaitMs?: number;
  reserve?: number;
  reserveOf?: KeyPoolOptions['reserveOf'];
  keptOut?: KeyPoolOptions['keptOut'];
  /** Creates one more key for the pool; returns null when it cannot (permission, limit, disabled). */
  createKey?: () => Promise<string | null>;
  maxCreatedKeys?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The async side: waits, creates keys on demand, and gives up with BudgetExhaustedError. */
export class Budget {
  readonly pool: KeyPool;
  private readonly maxWaitMs: number;
  private readonly createKey?: () => Promise<string | null>;
  private readonly maxCreatedKeys: number;
  private created = 0;
  private creating: Promise<string | null> | null = null;
  private creationFailed = false;
  readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(keys: string[], options: BudgetOptions = {}) {
    this.pool = new KeyPool(keys, { reserve: options.reserve, reserveOf: options.reserveOf, keptOut: options.keptOut });
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    this.createKey = options.createKey;
    this.maxCreatedKeys = options.maxCreatedKeys ?? 0;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  get createdKeys(): number {
    return this.created;
  }

  /** Creates a key now if none was created yet (spreads work from the first request on). */
  async warmUp(): Promise<void> {
    if (this.created === 0) await this.grow();
  }

  private async grow(): Promise<boolean> {
    if (!this.createKey || this.creationFailed || this.created >= this.maxCreatedKeys) return false;
    if (!this.creating) {
      this.creating = this.createKey().finally(() => {
        this.creating = null;
      });
    }
    const key = await this.creating;
    if (!key) {
      this.creationFailed = true;
      return false;
    }
    if (!this.pool.keys.includes(key)) {
      this.created++;
      this.pool.add(key);
    }
    return true;
  }

  /** A key with room for one more request in the area; counts the request. */
  async acquire(area: Area): Promise<string> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const selection = this.pool.select(area, this.now());
      if ('key' in selection) {
        this.pool.count(selection.key, area, this.now());
        return selection.key;
      }
      if (await this.grow()) continue;
      if (selection.waitMs > this.maxWaitMs) {
        throw new BudgetExhaustedError(
          `request budget exhausted for ${area}: every key of the run is at its limit for another ${Math.ceil(selection.waitMs / 1000)} s (waits up to ${Math.round(this.maxWaitMs / 1000)} s)`,
        );
      }
      await this.sleep(selection.waitMs);
    }
    throw new BudgetExhaustedError(`request budget exhausted for ${area}: no key became free`);
  }

  observe(key: string, area: Area, status: number, headers: Record<string, string>): void {
    this.pool.observe(key, area, status, headers, this.now());
  }
}
