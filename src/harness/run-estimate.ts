/**
 * How long a run's request budget makes it last, before it starts and while it runs. Each key may
 * send so many requests per window (budget.ts WINDOW_RULES: 1,000 an hour, 100 a minute to
 * messaging and compute, ...), and windows are fixed and aligned to the epoch. A run of R requests
 * to a rule's areas over keys that allow C per window sends C at once, then waits for the next
 * window's boundary for each further C: a wait the clock alone decides, whatever the checks do.
 * An estimate from the checks done so far misses it (it said "about 1253 s left" of a run that
 * took over an hour on one key); the budget does not.
 *
 * Pure: time comes in as an argument. The reporter prints the estimate in the run's first lines
 * and the time left on its progress lines.
 */
import type { ConformanceClass } from '../../spec/classes.ts';
import { WINDOW_RULES } from './budget.ts';
import type { Area } from './budget.ts';

type AreaCounts = Partial<Record<Area, number>>;

/**
 * Requests a check of each class sends to each area, on average, its teardown and the run's key
 * management included. Measured on a full run against the reference server (2026-11-28, 1,230
 * checks): the server's request log gave each area's total (2,048 requests), shared out over the
 * classes as the run's recorded exchanges (--har all) were. The rate-limit checks' bursts are left
 * out: they go to keys those checks create for themselves, outside the budget.
 */
export const REQUESTS_PER_CHECK: Readonly<Record<ConformanceClass, AreaCounts>> = {
  auth: { billing: 0.49, compute: 0.36, messaging: 0.42, projects: 0.17, storage: 0.77 },
  errors: { billing: 0.21, compute: 0.17, messaging: 0.21, projects: 0.09, storage: 0.33 },
  pagination: { billing: 0.29, compute: 0.31, messaging: 0.78 },
  'rate-limits': { billing: 0.08 },
  messaging: { messaging: 1.21 },
  compute: { compute: 1.59 },
  billing: { billing: 1.34, compute: 0.08 },
  projects: { compute: 0.29, projects: 1.28 },
  'api-keys': { billing: 1.48, projects: 0.08 },
  webhooks: { compute: 0.45, messaging: 0.64 },
  'storage-objects': { compute: 0.03, storage: 1.49 },
  'storage-volumes': { compute: 0.18, storage: 1.59 },
  isolation: { billing: 0.71, compute: 1.57, messaging: 0.85, projects: 1.08, storage: 3.57 },
  'test-mode': { messaging: 5.69 },
  s3: { compute: 1.06, storage: 1.33 },
};

/** Requests kept back in every window by the budget (budget.ts KeyPool `reserve`). */
const RESERVE = 2;

/** The requests `checks` of each class send, by area. */
export function requestsOf(checks: Iterable<[cls: string, count: number]>): AreaCounts {
  const out: AreaCounts = {};
  for (const [cls, count] of checks) {
    const per = REQUESTS_PER_CHECK[cls as ConformanceClass] ?? {};
    for (const [area, n] of Object.entries(per) as Array<[Area, number]>) out[area] = (out[area] ?? 0) + n * count;
  }
  return out;
}

export function totalOf(requests: AreaCounts): number {
  return Object.values(requests).reduce((sum, n) => sum + n, 0);
}

/** The keys the run paces over: all of them, and those allowed billing (the run's key is kept out when others exist). */
export interface PacingKeys {
  all: number;
  billing: number;
}

export function pacingKeys(budgetKeys: number): PacingKeys {
  return { all: budgetKeys + 1, billing: budgetKeys > 0 ? budgetKeys : 1 };
}

export interface BudgetWait {
  /** Milliseconds the run must wait for windows, at least. */
  waitMs: number;
  /** The limit that makes it wait longest (budget.ts WINDOW_RULES name), or null when none binds. */
  rule: string | null;
  /** That limit per key and its window ("1000 an hour"). */
  limit: string | null;
}

const WINDOW_WORDS: Record<number, string> = { 60_000: 'a minute', 3_600_000: 'an hour' };

/**
 * The wait the windows impose on `requests` still to send at `now`, given what was sent in each
 * rule's current window already (`sentInWindow(rule name, window start)`).
 */
export function budgetWait(
  requests: AreaCounts,
  keys: PacingKeys,
  now: number,
  sentInWindow: (rule: string, windowStart: number) => number = () => 0,
): BudgetWait {
  let worst: BudgetWait = { waitMs: 0, rule: null, limit: null };
  for (const rule of WINDOW_RULES) {
    const wanted =
      rule.areas === 'all' ? totalOf(requests) : rule.areas.reduce((sum, area) => sum + (requests[area] ?? 0), 0);
    const perWindow =
      (rule.areas !== 'all' && rule.areas.includes('billing') ? keys.billing : keys.all) * (rule.limit - RESERVE);
    const start = Math.floor(now / rule.lengthMs) * rule.lengthMs;
    const room = Math.max(0, perWindow - sentInWindow(rule.name, start));
    if (wanted <= room || perWindow <= 0) continue;
    const windows = Math.ceil((wanted - room) / perWindow);
    const waitMs = start + rule.lengthMs - now + (windows - 1) * rule.lengthMs;
    if (waitMs > worst.waitMs)
      worst = { waitMs, rule: rule.name, limit: `${rule.limit} ${WINDOW_WORDS[rule.lengthMs] ?? 'a window'}` };
  }
  return worst;
}

/** "1 h 12 min", "4 min", "40 s". */
export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.ceil(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** The run's first word on its duration: its requests, its keys, and what the windows make it wait. */
export function describeBudget(requests: AreaCounts, keys: PacingKeys, wait: BudgetWait): string {
  const total = Math.round(totalOf(requests) / 10) * 10;
  const over = `about ${total.toLocaleString('en-US')} requests over ${keys.all} key${keys.all === 1 ? '' : 's'} of the account`;
  if (!wait.rule) return `budget: ${over}; no key's limit makes it wait`;
  return `budget: ${over}; the per-key limit of ${wait.limit} (${wait.rule}) makes this run last at least ${formatDuration(wait.waitMs)}${keys.all === 1 ? ' (more keys of the account spread it: --api-key, repeated)' : ''}`;
}

/**
 * The run's budget as it goes: what is left to send, what each rule's current window has seen,
 * and the time the windows still impose. The reporter feeds it each finished check.
 */
export class RunEstimate {
  private readonly left: Map<string, number>;
  /** Per rule: the window start and the requests estimated sent in it. */
  private readonly sent = new Map<string, { start: number; count: number }>();

  constructor(
    checksByClass: Iterable<[string, number]>,
    readonly keys: PacingKeys,
  ) {
    this.left = new Map(checksByClass);
  }

  /** A check of `cls` ended at `now`: its requests are no longer to send, and count in the current windows. */
  finished(cls: string, now: number): void {
    this.left.set(cls, Math.max(0, (this.left.get(cls) ?? 0) - 1));
    const requests = requestsOf([[cls, 1]]);
    for (const rule of WINDOW_RULES) {
      const n = rule.areas === 'all' ? totalOf(requests) : rule.areas.reduce((sum, a) => sum + (requests[a] ?? 0), 0);
      const start = Math.floor(now / rule.lengthMs) * rule.lengthMs;
      const cur = this.sent.get(rule.name);
      this.sent.set(rule.name, { start, count: (cur?.start === start ? cur.count : 0) + n });
    }
  }

  remainingRequests(): AreaCounts {
    return requestsOf(this.left);
  }

  /** What the windows still make the run wait at `now`. */
  wait(now: number): BudgetWait {
    return budgetWait(this.remainingRequests(), this.keys, now, (rule, start) => {
      const cur = this.sent.get(rule);
      return cur?.start === start ? cur.count : 0;
    });
  }
}
