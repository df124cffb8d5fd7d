/**
 * Fixed-window rate limits per API key, exactly as the specification's "Limits" table gives them.
 * Windows are aligned to the epoch (a minute window ends on the minute), so `X-RateLimit-Reset`
 * is the same for every request of a window. JavaScript runs one handler step at a time, and
 * `take` checks and counts in one synchronous step: that is what makes the count exact under
 * any concurrency (2L simultaneous requests: exactly L pass).
 */
import type { Area } from './areas.ts';

export interface WindowRule {
  /** Stable name, used in 429 details and counters. */
  name: string;
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

export const RULES = {
  hour: { name: 'requests-per-hour', limit: 1000, windowMs: HOUR },
  burst: { name: 'requests-per-minute', limit: 100, windowMs: MINUTE },
  billing: { name: 'billing-per-hour', limit: 100, windowMs: HOUR },
  projects: { name: 'projects-per-hour', limit: 500, windowMs: HOUR },
  sms: { name: 'sms-per-hour', limit: 10_000, windowMs: HOUR },
} as const satisfies Record<string, WindowRule>;

/** Request-counting rules that apply to one request of an area (SMS volume is counted apart). */
export function requestRules(area: Area): WindowRule[] {
  switch (area) {
    case 'messaging':
    case 'compute':
      return [RULES.hour, RULES.burst];
    case 'billing':
      return [RULES.hour, RULES.billing];
    case 'projects':
      return [RULES.hour, RULES.projects];
    case 'storage':
      return [RULES.hour];
  }
}

export interface WindowState {
  rule: WindowRule;
  used: number;
  windowStart: number;
  /** Epoch milliseconds at which the window ends. */
  resetAt: number;
  remaining: number;
}

interface Counter {
  windowStart: number;
  used: number;
}

export type TakeResult =
  | { ok: true; states: WindowState[] }
  | { ok: false; blocking: WindowState; states: WindowState[] };

export class FixedWindowLimiter {
  private readonly counters = new Map<string, Counter>();

  constructor(private readonly now: () => number) {}

  /**
   * Counts `cost` against every rule, all or nothing. `scope` separates per-area windows of the
   * same rule (the per-minute burst is counted per area: messaging and compute each have 100).
   */
  take(
    keyId: string,
    rules: readonly WindowRule[],
    cost = 1,
    scope?: (rule: WindowRule) => string,
    anchored = false,
  ): TakeResult {
    const now = this.now();
    const states = rules.map((rule) => this.state(keyId, rule, now, scope?.(rule), anchored));
    const blocking = states.find((s) => s.used + cost > s.rule.limit);
    if (blocking) return { ok: false, blocking, states };
    for (const state of states) {
      this.counter(keyId, state.rule, now, scope?.(state.rule), anchored).used += cost;
      state.used += cost;
      state.remaining = state.rule.limit - state.used;
    }
    return { ok: true, states };
  }

  /** Gives back what a request took when a later stage rejected it (a rejected request is not counted). */
  refund(keyId: string, states: readonly WindowState[], cost = 1, scope?: (rule: WindowRule) => string): void {
    for (const state of states) {
      const counter = this.counters.get(counterKey(keyId, state.rule, scope?.(state.rule)));
      if (counter && counter.windowStart === state.windowStart) counter.used = Math.max(0, counter.used - cost);
    }
  }

  /** Reads one window without counting (used for headers and by the non-atomic fault). */
  peek(keyId: string, rule: WindowRule, scopeName?: string, anchored = false): WindowState {
    return this.state(keyId, rule, this.now(), scopeName, anchored);
  }

  /** Sets a window's count directly (only the `ratelimit-non-atomic` fault does this). */
  write(keyId: string, rule: WindowRule, used: number, scopeName?: string): void {
    this.counter(keyId, rule, this.now(), scopeName).used = used;
  }

  /**
   * `anchored`: the window opens with the key's first request and lasts its length, instead of
   * being aligned to the epoch (variant `ratelimit-anchored-windows`, fault
   * `ratelimit-window-from-first-request`).
   */
  private counter(keyId: string, rule: WindowRule, now: number, scopeName?: string, anchored = false): Counter {
    const key = counterKey(keyId, rule, scopeName);
    let counter = this.counters.get(key);
    const stale = anchored
      ? !counter || now >= counter.windowStart + rule.windowMs
      : !counter || counter.windowStart !== Math.floor(now / rule.windowMs) * rule.windowMs;
    if (stale) {
      counter = { windowStart: anchored ? now : Math.floor(now / rule.windowMs) * rule.windowMs, used: 0 };
      this.counters.set(key, counter);
    }
    return counter!;
  }

  private state(keyId: string, rule: WindowRule, now: number, scopeName?: string, anchored = false): WindowState {
    const counter = this.counter(keyId, rule, now, scopeName, anchored);
    return {
      rule,
      used: counter.used,
      windowStart: counter.windowStart,
      resetAt: counter.windowStart + rule.windowMs,
      remaining: rule.limit - counter.used,
    };
  }
}

function counterKey(keyId: string, rule: WindowRule, scopeName?: string): string {
  return scopeName ? `${keyId}|${rule.name}|${scopeName}` : `${keyId}|${rule.name}`;
}

/** The window the headers describe: least remaining, then earliest reset (docs/conventions.md). */
export function nearestExhaustion(states: readonly WindowState[]): WindowState | undefined {
  return [...states].sort((a, b) => a.remaining - b.remaining || a.resetAt - b.resetAt)[0];
}
