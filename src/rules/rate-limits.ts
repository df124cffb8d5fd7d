/**
 * Rate-limit invariant checker. PURE: no I/O, no clock, no randomness. The runner records what
 * came back; this module judges it against the specification ("Limits") and the conventions
 * (docs/conventions.md: fixed epoch-aligned windows per key, headers on every authenticated
 * messaging/compute response describing the window nearest exhaustion, Reset in epoch seconds,
 * Retry-After on 429, a 429 has no side effect, SMS counted per recipient).
 *
 * The specification names the headers but not which of a key's limits they describe, so the
 * invariants of the specification (`headers-present`, `remaining-decrements`, `reset-epoch`,
 * `429-code`) hold for ANY window the headers may name: a target whose headers describe the
 * key's hour while the minute's burst refuses passes them. That they describe the window under
 * test, the one nearest exhaustion (Limit = L, Remaining L-1 ... 0, Reset that window's end,
 * Remaining 0 on its 429), is the convention's invariant `nearest-window`.
 *
 * Two entry points:
 * - `checkRateLimitSequence`: a planned sequence of ONE key (burst, quota, race, isolation
 *   profiles) against a known limit L and window;
 * - `HeaderTracker`: a streaming checker fed every response of a run (any number of keys) that
 *   reports the header invariants that need no plan.
 *
 * Times: the server's clock is what counts. A window is identified from `X-RateLimit-Reset` when
 * that header is well-formed for the expected window, otherwise from the response's `Date` header
 * (floored to the window), and only as a last resort from the client's receive time.
 */
import { areaOfPath, hasRateLimitHeaders } from '../../spec/areas.ts';

/** Stable invariant names; reports, tests and exit messages use exactly these strings. */
export const INVARIANTS = [
  'onset',
  'remaining-decrements',
  'limit-constant',
  'reset-epoch',
  'headers-present',
  '429-shape',
  '429-code',
  'no-side-effect',
  'recovery',
  'sms-remaining',
  'isolation',
  'nearest-window',
] as const;
export type InvariantName = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: InvariantName;
  /** The `index` of the response concerned (request order of the key), -1 for the whole sequence. */
  index: number;
  message: string;
  /** Which key the violation belongs to, when the caller knows (tracker, runner). */
  key?: string;
}

/** One response as the runner observed it. Header names are lower-case. */
export interface ObservedResponse {
  /** Order in which this key's requests were SENT (0-based). */
  index: number;
  /** Client clock, epoch milliseconds. */
  sentAt: number;
  receivedAt: number;
  /** HTTP status; 0 when the request failed at the network level. */
  status: number;
  headers: Record<string, string | undefined>;
  /** `error.code` of the error envelope, when the body was one. */
  errorCode?: string | null;
  /** True when the request is known to have had a side effect (created something); undefined = unknown. */
  sideEffect?: boolean;
  /** SMS recipients this request asks to send (messaging sends); 0 or undefined for other requests. */
  units?: number;
  /** `METHOD /path` sent, for messages and area detection. */
  operation?: string;
}

export type WindowName = 'minute' | 'hour';
export const WINDOW_SECONDS: Record<WindowName, number> = { minute: 60, hour: 3600 };

export interface RateLimitExpectation {
  /** L: the number of units the window allows. */
  limit: number;
  window: WindowName;
  /** What L counts: requests (default) or SMS recipients (`X-SMS-*`). */
  counter?: 'requests' | 'sms';
  /** Whether `X-RateLimit-*` must be on every authenticated response (messaging, compute). */
  headers?: boolean;
  /** Whether `X-SMS-Limit`/`X-SMS-Remaining` must be present too (messaging). */
  smsHeaders?: boolean;
  /** The SMS hourly limit, for `sms-remaining` (default 10000). */
  smsLimit?: number;
}

export interface SequenceOptions {
  /**
   * `sequential`: one request in flight at a time, send order == server order.
   * `concurrent`: many in flight; the server's order is unknown, so the checker judges counts and
   * the set of Remaining values instead of their order.
   */
  ordering?: 'sequential' | 'concurrent';
  /**
   * True when the sequence holds EVERY request this key ever made (a fresh key): the first window
   * starts at zero usage, so exact Remaining values can be expected.
   */
  completeHistory?: boolean;
  /** Allowed difference, in seconds, between Retry-After and Reset - Date (default 2). */
  retryAfterToleranceSeconds?: number;
  /** Subset of invariants to evaluate (default: all that apply). */
  only?: readonly InvariantName[];
}

const H_LIMIT = 'x-ratelimit-limit';
const H_REMAINING = 'x-ratelimit-remaining';
const H_RESET = 'x-ratelimit-reset';
const H_SMS_LIMIT = 'x-sms-limit';
const H_SMS_REMAINING = 'x-sms-remaining';

/** Epoch seconds below this are deltas, above the upper bound milliseconds (years 2001..5138). */
const EPOCH_SECONDS_MIN = 1_000_000_000;
const EPOCH_SECONDS_MAX = 100_000_000_000;

function header(r: ObservedResponse, name: string): string | undefined {
  const v = r.headers[name];
  return v === undefined || v === '' ? undefined : v;
}

/** Parses a non-negative decimal integer header; undefined when absent or not an integer. */
export function intHeader(r: ObservedResponse, name: string): number | undefined {
  const v = header(r, name);
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  return Number(v.trim());
}

/** Server time of a response in epoch seconds (Date header), or the client receive time. */
export function serverSeconds(r: ObservedResponse): { seconds: number; fromDate: boolean } {
  const d = header(r, 'date');
  if (d !== undefined) {
    const ms = Date.parse(d);
    if (Number.isFinite(ms)) return { seconds: Math.floor(ms / 1000), fromDate: true };
  }
  return { seconds: Math.floor(r.receivedAt / 1000), fromDate: false };
}

/** Whether the request reached the rate limiter as an authenticated, counted request. */
function isCounted(r: ObservedResponse): boolean {
  return r.status !== 0 && r.status !== 429 && r.status !== 401;
}

function isAuthenticated(r: ObservedResponse): boolean {
  return r.status !== 0 && r.status !== 401;
}

/**
 * Why a Reset value is not an epoch-seconds timestamp in the window, or null when it is.
 * `dateSeconds` is the response's own Date (server clock), `windowSeconds` the longest window
 * the header may describe.
 */
export function resetProblem(raw: string | undefined, dateSeconds: number, windowSeconds: number): string | null {
  if (raw === undefined) return 'X-RateLimit-Reset missing';
  if (!/^\s*\d+\s*$/.test(raw)) return `X-RateLimit-Reset "${raw}" is not an integer`;
  const v = Number(raw.trim());
  if (v >= EPOCH_SECONDS_MAX) return `X-RateLimit-Reset ${v} looks like epoch milliseconds, not seconds`;
  if (v < EPOCH_SECONDS_MIN) return `X-RateLimit-Reset ${v} looks like a delta in seconds, not an epoch timestamp`;
  const delta = v - dateSeconds;
  // Date has one-second resolution and may be stamped a moment after the limiter ran: allow Reset
  // to equal Date (the window ends within this second) and to exceed it by window + 1 s.
  if (delta < 0) return `X-RateLimit-Reset ${v} is ${-delta}s in the past of the response's Date`;
  if (delta > windowSeconds + 1) {
    return `X-RateLimit-Reset ${v} is ${delta}s after the response's Date, more than the ${windowSeconds}s window`;
  }
  return null;
}

/**
 * A window key: its end in epoch seconds. Reset is trusted when it is a plausible end of a window
 * of the expected length (aligned to the epoch or not: a window that opens with the key's first
 * request is one too); otherwise, as when the headers describe a longer window, Date floored to
 * the window.
 */
function windowEnd(r: ObservedResponse, windowSeconds: number): number {
  const { seconds } = serverSeconds(r);
  const reset = intHeader(r, H_RESET);
  if (reset !== undefined && reset - seconds >= 0 && reset - seconds <= windowSeconds + 1) return reset;
  return (Math.floor(seconds / windowSeconds) + 1) * windowSeconds;
}

function unitsOf(r: ObservedResponse, counter: 'requests' | 'sms'): number {
  return counter === 'sms' ? Math.max(0, r.units ?? 0) : 1;
}

function groupByWindow(rs: ObservedResponse[], windowSeconds: number): Map<number, ObservedResponse[]> {
  const out = new Map<number, ObservedResponse[]>();
  for (const r of rs) {
    const w = windowEnd(r, windowSeconds);
    let list = out.get(w);
    if (!list) out.set(w, (list = []));
    list.push(r);
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}

/**
 * Server order inside one window for concurrent sequences: counted responses by Remaining
 * descending (the limiter hands out Remaining in decreasing order), ties and 429s by receive time.
 * Tolerance: two responses with the same Remaining cannot be ordered; that is itself a
 * `remaining-decrements` violation (non-atomic counting), reported separately.
 */
function concurrentOrder(rs: ObservedResponse[]): ObservedResponse[] {
  const counted = rs.filter(isCounted);
  const rest = rs.filter((r) => !isCounted(r));
  counted.sort((a, b) => {
    const ra = intHeader(a, H_REMAINING) ?? -1;
    const rb = intHeader(b, H_REMAINING) ?? -1;
    return rb - ra || a.receivedAt - b.receivedAt || a.index - b.index;
  });
  rest.sort((a, b) => a.receivedAt - b.receivedAt || a.index - b.index);
  return [...counted, ...rest];
}

/** Reports one violation; the orchestrator filters it by `options.only`. */
type Report = (invariant: InvariantName, index: number, message: string) => void;

/** The expectation and options resolved to their defaults once, shared by every stage of the check. */
interface SequenceCheck {
  expectation: RateLimitExpectation;
  ordering: 'sequential' | 'concurrent';
  counter: 'requests' | 'sms';
  /** Window length in seconds. */
  W: number;
  L: number;
  smsLimit: number;
  /** Retry-After tolerance in seconds. */
  tol: number;
  add: Report;
}

/** Checks one key's planned sequence. Returns violations sorted by index, then invariant. */
export function checkRateLimitSequence(
  responses: readonly ObservedResponse[],
  expectation: RateLimitExpectation,
  options: SequenceOptions = {},
): Violation[] {
  const out: Violation[] = [];
  const want = (n: InvariantName) => !options.only || options.only.includes(n);
  const check: SequenceCheck = {
    expectation,
    ordering: options.ordering ?? 'sequential',
    counter: expectation.counter ?? 'requests',
    W: WINDOW_SECONDS[expectation.window],
    L: expectation.limit,
    smsLimit: expectation.smsLimit ?? 10_000,
    tol: options.retryAfterToleranceSeconds ?? 2,
    add: (invariant, index, message) => {
      if (want(invariant)) out.push({ invariant, index, message });
    },
  };

  const sorted = [...responses].sort((a, b) => a.index - b.index);

  // headers-present, reset-epoch, 429-shape, no-side-effect: per response, order-free.
  for (const r of sorted) {
    if (!isAuthenticated(r)) continue;
    const date = serverSeconds(r);
    if (expectation.headers) checkHeadersPresent(r, check);
    checkResetEpoch(r, date, check);
    if (r.status === 429) check429(r, date, check);
  }

  // Per window: onset, remaining-decrements, limit-constant, sms-remaining.
  let firstWindow = true;
  for (const [end, list] of groupByWindow(sorted, check.W)) {
    // Usage before this window's first observed request is known only for a complete history:
    // the first window of a fresh key and every later one (all the key's requests are here).
    const knownStart = options.completeHistory === true || !firstWindow;
    firstWindow = false;
    checkWindow(end, list, knownStart, check);
  }

  if (check.counter === 'requests') checkRemaining(sorted, check.ordering, check.add);

  checkRecovery(sorted, check);

  return out.sort((a, b) => a.index - b.index || a.invariant.localeCompare(b.invariant));
}

/** `headers-present`: messaging and compute answer every authenticated request with the rate-limit headers. */
function checkHeadersPresent(r: ObservedResponse, { expectation, add }: SequenceCheck): void {
  const missing = [H_LIMIT, H_REMAINING, H_RESET].filter((h) => header(r, h) === undefined);
  if (expectation.smsHeaders) missing.push(...[H_SMS_LIMIT, H_SMS_REMAINING].filter((h) => header(r, h) === undefined));
  if (missing.length > 0) add('headers-present', r.index, `status ${r.status} response lacks ${missing.join(', ')}`);
  for (const h of [H_LIMIT, H_REMAINING]) {
    const v = header(r, h);
    if (v !== undefined && !/^\s*\d+\s*$/.test(v))
      add('headers-present', r.index, `${h} "${v}" is not a non-negative integer`);
  }
}

/** `reset-epoch`: a Reset, wherever present, is an epoch-seconds end of a window. */
function checkResetEpoch(
  r: ObservedResponse,
  date: { seconds: number; fromDate: boolean },
  { add }: SequenceCheck,
): void {
  // The longest window the X-RateLimit-* headers may describe (nearest exhaustion may be the hour).
  const headerWindow = 3600;
  const rawReset = header(r, H_RESET);
  if (rawReset === undefined) return;
  const problem = resetProblem(rawReset, date.seconds, headerWindow);
  if (problem)
    add('reset-epoch', r.index, problem + (date.fromDate ? '' : ' (no Date header; judged by the client clock)'));
}

/** `429-code`, `429-shape` and `no-side-effect`: what a rejection must look like and must not do. */
function check429(r: ObservedResponse, date: { seconds: number; fromDate: boolean }, check: SequenceCheck): void {
  const { add } = check;
  // The code is an invariant of its own: it is ERR-CODE-005's, the shape RATE-HEADERS-006's.
  if (r.errorCode !== 'rate_limit_exceeded')
    add(
      '429-code',
      r.index,
      `429 with error code ${JSON.stringify(r.errorCode ?? null)} instead of "rate_limit_exceeded"`,
    );
  const retryProblem = retryAfterProblem(r, date.seconds, check);
  if (retryProblem) add('429-shape', r.index, `429 ${retryProblem}`);
  if (r.sideEffect === true)
    add('no-side-effect', r.index, `request ${r.index} was rejected with 429 but its side effect happened`);
}

/**
 * The Retry-After part of `429-shape`: present, whole seconds, and pointing at the exhausted
 * window's end. That is Reset when the headers describe the exhausted window (Remaining 0 of a
 * request counter); otherwise (the headers describe another of the key's windows, or the SMS
 * hour, which no header carries) the end of the window under test, computed from Date.
 */
function retryAfterProblem(
  r: ObservedResponse,
  dateSeconds: number,
  { counter, W, tol }: SequenceCheck,
): string | undefined {
  const retryRaw = header(r, 'retry-after');
  const retry = intHeader(r, 'retry-after');
  if (retryRaw === undefined) return 'no Retry-After';
  if (retry === undefined || retry < 1) return `Retry-After "${retryRaw}" is not an integer number of seconds >= 1`;
  const reset = intHeader(r, H_RESET);
  const describesExhausted =
    counter === 'requests' &&
    intHeader(r, H_REMAINING) === 0 &&
    reset !== undefined &&
    reset < EPOCH_SECONDS_MAX &&
    reset >= EPOCH_SECONDS_MIN;
  const target = describesExhausted ? reset : (Math.floor(dateSeconds / W) + 1) * W;
  const expected = Math.max(1, target - dateSeconds);
  if (Math.abs(retry - expected) > tol) {
    return `Retry-After ${retry}s disagrees with the window end (${expected}s after Date) by more than ${tol}s`;
  }
  return undefined;
}

/** The per-window invariants, judged on the window's responses in server order. */
function checkWindow(end: number, list: ObservedResponse[], knownStart: boolean, check: SequenceCheck): void {
  const { ordering, counter } = check;
  const ordered = ordering === 'sequential' ? list : concurrentOrder(list);
  const windowLabel = `window ending ${new Date(end * 1000).toISOString()}`;

  // onset: with `used` units counted so far, a request needing `u` units must be rejected
  // exactly when used + u > L. Report the first disagreement of each window only.
  // Usage before the first observed request is unknown without knownStart: onset cannot be judged then.
  if (knownStart) {
    if (ordering === 'sequential') checkOnsetSequential(ordered, windowLabel, check);
    else checkOnsetConcurrent(ordered, windowLabel, check);
  }

  checkLimitConstant(ordered, windowLabel, check);

  if (counter === 'requests' && check.expectation.headers) checkNearestWindow(ordered, knownStart, windowLabel, check);

  if (
    knownStart &&
    check.expectation.smsHeaders &&
    ordering === 'sequential' &&
    counter === 'sms' &&
    check.W === 3600
  ) {
    checkSmsRemaining(ordered, check);
  }
}

/** `onset` when send order is server order: replays the counter request by request. */
function checkOnsetSequential(
  ordered: ObservedResponse[],
  windowLabel: string,
  { counter, L, add }: SequenceCheck,
): void {
  let used = 0;
  for (const r of ordered) {
    if (!isAuthenticated(r)) continue;
    const u = unitsOf(r, counter);
    const should429 = used + u > L;
    if (r.status === 429 && !should429) {
      add(
        'onset',
        r.index,
        `early 429: request ${r.index} rejected after ${used} of ${L} ${counter} in the ${windowLabel}`,
      );
      return;
    }
    if (r.status !== 429 && should429) {
      add(
        'onset',
        r.index,
        `missing 429: request ${r.index} accepted (status ${r.status}) after ${used} of ${L} ${counter} in the ${windowLabel}`,
      );
      return;
    }
    if (r.status !== 429) used += u;
  }
}

/** `onset` when the server's order is unknown: judges the accepted and rejected totals only. */
function checkOnsetConcurrent(
  ordered: ObservedResponse[],
  windowLabel: string,
  { counter, L, add }: SequenceCheck,
): void {
  const accepted = ordered.filter(isCounted);
  const rejected = ordered.filter((r) => r.status === 429);
  const acceptedUnits = accepted.reduce((s, r) => s + unitsOf(r, counter), 0);
  if (acceptedUnits > L) {
    add(
      'onset',
      accepted[accepted.length - 1]?.index ?? -1,
      `missing 429: ${acceptedUnits} ${counter} accepted in the ${windowLabel}, limit ${L} (${accepted.length} accepted, ${rejected.length} rejected)`,
    );
  } else if (rejected.length > 0) {
    // Any rejection is early unless the remaining room could not fit the smallest rejected request.
    const minRejected = Math.min(...rejected.map((r) => unitsOf(r, counter)));
    if (acceptedUnits + minRejected <= L) {
      add(
        'onset',
        rejected[0]?.index ?? -1,
        `early 429: only ${acceptedUnits} of ${L} ${counter} accepted in the ${windowLabel} before ${rejected.length} rejections`,
      );
    }
  }
}

/** `limit-constant`: X-RateLimit-Limit constant inside the window (which value it has is `nearest-window`'s). */
function checkLimitConstant(ordered: ObservedResponse[], windowLabel: string, { add }: SequenceCheck): void {
  const limits = new Map<string, number>();
  for (const r of ordered) {
    const v = header(r, H_LIMIT);
    if (v !== undefined && !limits.has(v)) limits.set(v, r.index);
  }
  if (limits.size > 1) {
    const [, idx] = [...limits.entries()][1] ?? ['', -1];
    add(
      'limit-constant',
      idx,
      `X-RateLimit-Limit took ${limits.size} values (${[...limits.keys()].join(', ')}) in the ${windowLabel}`,
    );
  }
}

/**
 * `nearest-window` (the convention, not the specification): the headers describe the window under
 * test while it is the one nearest exhaustion: Limit is L, Reset that window's end, Remaining 0 on
 * its 429 and, with the key's whole history known, exactly L-1, L-2, ... as requests are counted.
 * What the specification's invariants already report (a Reset that is no epoch timestamp, a
 * Remaining that rises) is left to them. First disagreement only.
 */
function checkNearestWindow(
  ordered: ObservedResponse[],
  knownStart: boolean,
  windowLabel: string,
  { expectation, ordering, L, W, add }: SequenceCheck,
): void {
  const which = `the ${expectation.window} window, the one nearest exhaustion`;
  for (const r of ordered) {
    if (!isAuthenticated(r)) continue;
    const limit = intHeader(r, H_LIMIT);
    if (limit !== undefined && limit !== L) {
      add(
        'nearest-window',
        r.index,
        `X-RateLimit-Limit is ${limit}, expected ${L}: the headers should describe ${which}`,
      );
      return;
    }
    const raw = header(r, H_RESET);
    const date = serverSeconds(r).seconds;
    const problem = raw !== undefined && resetProblem(raw, date, 3600) === null ? resetProblem(raw, date, W) : null;
    if (problem) {
      add('nearest-window', r.index, `${problem}: the headers should describe ${which}`);
      return;
    }
    const remaining = intHeader(r, H_REMAINING);
    if (r.status === 429 && remaining !== undefined && remaining !== 0) {
      add('nearest-window', r.index, `X-RateLimit-Remaining is ${remaining} on a 429 of ${which} (expected 0)`);
      return;
    }
  }
  if (!knownStart) return;
  const counted = ordered.filter((r) => isCounted(r) && intHeader(r, H_REMAINING) !== undefined);
  if (ordering === 'sequential') {
    let n = 0;
    for (const r of counted) {
      const rem = intHeader(r, H_REMAINING)!;
      const expected = Math.max(0, L - 1 - n);
      if (rem !== expected) {
        add(
          'nearest-window',
          r.index,
          `X-RateLimit-Remaining ${rem}; expected ${expected} after ${n + 1} counted requests in the ${windowLabel} (${which})`,
        );
        return;
      }
      n += 1;
    }
  } else {
    const top = Math.max(-1, ...counted.map((r) => intHeader(r, H_REMAINING)!));
    if (counted.length > 0 && top !== L - 1)
      add(
        'nearest-window',
        counted[0]!.index,
        `the highest X-RateLimit-Remaining in the ${windowLabel} is ${top}, expected ${L - 1} for a fresh window (${which})`,
      );
  }
}

/** `sms-remaining`: X-SMS-Remaining = smsLimit - recipients accepted so far (sequential only). */
function checkSmsRemaining(ordered: ObservedResponse[], { smsLimit, add }: SequenceCheck): void {
  let used = 0;
  for (const r of ordered) {
    if (!isAuthenticated(r)) continue;
    if (isCounted(r) && r.status < 300) used += Math.max(0, r.units ?? 0);
    const lim = intHeader(r, H_SMS_LIMIT);
    const rem = intHeader(r, H_SMS_REMAINING);
    if (lim !== undefined && lim !== smsLimit) {
      add('sms-remaining', r.index, `X-SMS-Limit is ${lim}, expected ${smsLimit}`);
      return;
    }
    if (rem !== undefined && rem !== Math.max(0, smsLimit - used)) {
      add(
        'sms-remaining',
        r.index,
        `X-SMS-Remaining is ${rem} after ${used} recipients, expected ${Math.max(0, smsLimit - used)} (one per recipient)`,
      );
      return;
    }
  }
}

/**
 * `recovery`: once a 429's Reset has passed (by the server's Date), the key is accepted again.
 * The earliest announced-and-still-pending resume time is kept; an accepted request clears it.
 * One second of slack: Date is stamped a moment after the limiter decided.
 */
function checkRecovery(sorted: ObservedResponse[], { counter, add }: SequenceCheck): void {
  let pendingResume: number | undefined;
  let announcedBy = -1;
  for (const r of sorted) {
    if (!isAuthenticated(r)) continue;
    const now = serverSeconds(r).seconds;
    if (r.status === 429) {
      if (pendingResume !== undefined && now >= pendingResume + 1) {
        add(
          'recovery',
          r.index,
          `still 429 at ${now}, after the Reset ${pendingResume} announced by request ${announcedBy}`,
        );
        return;
      }
      const reset = intHeader(r, H_RESET);
      const retryAfter = intHeader(r, 'retry-after');
      const resume =
        counter === 'requests' && reset !== undefined && reset >= EPOCH_SECONDS_MIN && reset < EPOCH_SECONDS_MAX
          ? reset
          : retryAfter !== undefined
            ? now + retryAfter
            : undefined;
      if (resume !== undefined && (pendingResume === undefined || resume < pendingResume)) {
        pendingResume = resume;
        announcedBy = r.index;
      }
    } else {
      pendingResume = undefined;
    }
  }
}

/**
 * `remaining-decrements`, for any window the headers may describe: responses are grouped by the
 * window their own Limit and Reset name, and within one Remaining never rises and falls with every
 * counted request (it may fall by more: the window may be shared with other keys or areas), or
 * stays at 0. Concurrent sequences: the values handed out are distinct and contiguous.
 */
function checkRemaining(sorted: readonly ObservedResponse[], ordering: 'sequential' | 'concurrent', add: Report): void {
  for (const r of sorted) {
    const v = header(r, H_REMAINING);
    if (v !== undefined && /^\s*-/.test(v)) {
      add('remaining-decrements', r.index, `X-RateLimit-Remaining is negative (${v})`);
      return;
    }
  }
  const windows = new Map<string, ObservedResponse[]>();
  for (const r of sorted) {
    const reset = header(r, H_RESET);
    if (!isCounted(r) || reset === undefined || intHeader(r, H_REMAINING) === undefined) continue;
    const key = `${header(r, H_LIMIT) ?? '?'}|${reset}`;
    const list = windows.get(key);
    if (list) list.push(r);
    else windows.set(key, [r]);
  }
  for (const [key, list] of windows) {
    const [limit, reset] = key.split('|');
    const label = `the window the headers name (Limit ${limit}, Reset ${reset})`;
    const problem =
      ordering === 'sequential' ? sequentialProblem(list, label) : concurrentProblem(concurrentOrder(list), label);
    if (problem) {
      add('remaining-decrements', problem.index, problem.message);
      return;
    }
  }
}

function sequentialProblem(counted: ObservedResponse[], label: string): { index: number; message: string } | undefined {
  let previous: ObservedResponse | undefined;
  for (const r of counted) {
    const rem = intHeader(r, H_REMAINING)!;
    const before = previous === undefined ? undefined : intHeader(previous, H_REMAINING)!;
    if (before !== undefined && rem >= before && !(rem === 0 && before === 0)) {
      const how = rem > before ? `rose from ${before} to ${rem}` : `stayed ${rem}`;
      return {
        index: r.index,
        message: `X-RateLimit-Remaining ${how} over counted request ${r.index + 1} in ${label}; it falls with every counted request`,
      };
    }
    previous = r;
  }
  return undefined;
}

function concurrentProblem(counted: ObservedResponse[], label: string): { index: number; message: string } | undefined {
  const seen = new Map<number, ObservedResponse>();
  for (const r of counted) {
    const rem = intHeader(r, H_REMAINING)!;
    const prior = seen.get(rem);
    if (prior)
      return {
        index: r.index,
        message: `X-RateLimit-Remaining ${rem} given to requests ${prior.index} and ${r.index} in ${label}: two counted requests did not each decrement it (non-atomic counting)`,
      };
    seen.set(rem, r);
  }
  const values = [...seen.keys()].sort((a, b) => b - a);
  const top = values[0] ?? 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== top - i) {
      const r = seen.get(values[i]!)!;
      return {
        index: r.index,
        message: `X-RateLimit-Remaining values in ${label} are not ${top} down to ${top - values.length + 1} (found ${values[i]} at rank ${i + 1})`,
      };
    }
  }
  return undefined;
}

/**
 * `isolation`: a key that nobody used in the window is untouched by another key's exhaustion:
 * none of its requests is rejected and its first Remaining is Limit - 1.
 */
export function checkUntouchedKey(
  responses: readonly ObservedResponse[],
  expectation: RateLimitExpectation,
): Violation[] {
  const out: Violation[] = [];
  const sorted = [...responses].sort((a, b) => a.index - b.index);
  const rejected = sorted.find((r) => r.status === 429);
  if (rejected)
    out.push({
      invariant: 'isolation',
      index: rejected.index,
      message: `an unused key was rejected with 429 at its request ${rejected.index}: limits are not per key`,
    });
  const first = sorted.find(isCounted);
  if (first && expectation.headers) {
    const rem = intHeader(first, H_REMAINING);
    const lim = intHeader(first, H_LIMIT);
    if (rem !== undefined && lim !== undefined && rem !== lim - 1) {
      out.push({
        invariant: 'isolation',
        index: first.index,
        message: `the unused key's first X-RateLimit-Remaining is ${rem}, expected ${lim - 1}: another key's usage was counted against it`,
      });
    }
  }
  return out;
}

export { areaOfPath };

export interface TrackerOptions {
  /**
   * Upper bound on requests of one key in flight at once (the run's connections). A response can
   * carry a Remaining computed before that of a response received earlier by at most this many
   * steps, so Remaining may "rise" by up to this much without a violation.
   */
  maxInFlight?: number;
  /** Counted responses with one unchanged Remaining (same window) before it is called frozen. */
  frozenAfter?: number;
}

interface KeyState {
  /** Per Reset value: first Limit seen, lowest Remaining seen, count and distinct Remaining. */
  byReset: Map<
    string,
    { limit: string | undefined; minRemaining: number; counted: number; values: Set<number>; frozenReported: boolean }
  >;
  reported: Set<string>;
}

/**
 * Streaming header invariants for a whole run. Feed every response (any key, any order); it keeps
 * O(keys x windows) state. Reports each (invariant, key) pair at most once, so a broken server
 * produces a short list, not one line per request.
 */
export class HeaderTracker {
  private readonly keys = new Map<string, KeyState>();
  private readonly violations: Violation[] = [];
  private readonly maxInFlight: number;
  private readonly frozenAfter: number;

  constructor(options: TrackerOptions = {}) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 1);
    this.frozenAfter = Math.max(options.frozenAfter ?? 10, 2 * this.maxInFlight + 2);
  }

  /** `path` is the request path without the base (`/sms/send`). */
  feed(key: string, path: string, r: ObservedResponse): void {
    const area = areaOfPath(path);
    if (!hasRateLimitHeaders(area)) return;
    if (!isAuthenticated(r)) return;
    let st = this.keys.get(key);
    if (!st) this.keys.set(key, (st = { byReset: new Map(), reported: new Set() }));
    const report = (invariant: InvariantName, message: string) => {
      if (st.reported.has(invariant)) return;
      st.reported.add(invariant);
      this.violations.push({ invariant, index: r.index, message, key });
    };

    const missing = [H_LIMIT, H_REMAINING, H_RESET].filter((h) => header(r, h) === undefined);
    if (area === 'messaging') missing.push(...[H_SMS_LIMIT, H_SMS_REMAINING].filter((h) => header(r, h) === undefined));
    if (missing.length > 0)
      report('headers-present', `${r.operation ?? path} answered ${r.status} without ${missing.join(', ')}`);

    const rawReset = header(r, H_RESET);
    if (rawReset !== undefined) {
      const problem = resetProblem(rawReset, serverSeconds(r).seconds, 3600);
      if (problem) report('reset-epoch', `${r.operation ?? path}: ${problem}`);
    }
    if (r.status === 429) {
      if (r.errorCode !== 'rate_limit_exceeded')
        report(
          '429-code',
          `429 with error code ${JSON.stringify(r.errorCode ?? null)} instead of "rate_limit_exceeded"`,
        );
      if (header(r, 'retry-after') === undefined) report('429-shape', '429 without Retry-After');
    }

    const rem = intHeader(r, H_REMAINING);
    if (rawReset === undefined || rem === undefined) return;
    const limit = header(r, H_LIMIT);
    // The per-minute burst is counted per area (docs/conventions.md: messaging and compute each
    // allow 100), and both windows end on the same minute: group by area as well as by Reset.
    const group = `${area}|${rawReset}`;
    let w = st.byReset.get(group);
    if (!w) {
      st.byReset.set(group, (w = { limit, minRemaining: rem, counted: 0, values: new Set(), frozenReported: false }));
    }
    if (limit !== undefined && w.limit !== undefined && limit !== w.limit) {
      report(
        'limit-constant',
        `X-RateLimit-Limit changed from ${w.limit} to ${limit} within the window resetting at ${rawReset}`,
      );
    }
    if (rem > w.minRemaining + this.maxInFlight) {
      report(
        'remaining-decrements',
        `X-RateLimit-Remaining rose from ${w.minRemaining} to ${rem} within the window resetting at ${rawReset} (tolerance ${this.maxInFlight} for out-of-order responses)`,
      );
    }
    w.minRemaining = Math.min(w.minRemaining, rem);
    if (isCounted(r)) {
      w.counted += 1;
      if (w.values.size < 2) w.values.add(rem);
      if (!w.frozenReported && w.counted >= this.frozenAfter && w.values.size === 1 && rem > 0) {
        w.frozenReported = true;
        report(
          'remaining-decrements',
          `X-RateLimit-Remaining stayed ${rem} across ${w.counted} counted responses in the window resetting at ${rawReset}`,
        );
      }
    }
    // Windows whose Reset lies well in the past are finished; drop them to bound memory.
    if (st.byReset.size > 8) {
      const now = serverSeconds(r).seconds;
      for (const k of st.byReset.keys()) if (Number(k.split('|')[1]) < now - 3600) st.byReset.delete(k);
    }
  }

  result(): Violation[] {
    return [...this.violations];
  }
}
