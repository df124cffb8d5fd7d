/**
 * Reader side of the run-wide rate-limit header invariants (`rate-limits` class): reads the
 * per-worker observation files that src/harness/rate-observer.ts wrote into the run's temp dir,
 * feeds every response of every key to `HeaderTracker` (src/rules/rate-limits.ts) and turns what it
 * reports into one CheckResult per invariant, so a `Remaining` that never moves, a `Reset` in the
 * wrong unit or a missing header anywhere in the run fails the run, not only inside the
 * rate-limit checks themselves.
 *
 * Pure apart from `readObservations`: the reporter calls `rateInvariantChecks(readObservations(dir))`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { HeaderTracker } from '../rules/rate-limits.ts';
import type { InvariantName, ObservedResponse, Violation } from '../rules/rate-limits.ts';
import { OBSERVATION_FILE, keyIdOf } from '../harness/rate-observer.ts';
import type { RateObservation } from '../harness/rate-observer.ts';
import type { Level } from '../../spec/classes.ts';
import type { CheckResult, Exchange } from '../model/finding.ts';

/** Reads and merges every worker's observation file; torn or foreign lines are skipped. */
export function readObservations(dir: string | null | undefined): RateObservation[] {
  if (!dir || !existsSync(dir)) return [];
  const out: RateObservation[] = [];
  for (const name of readdirSync(dir)) {
    if (!OBSERVATION_FILE.test(name)) continue;
    let text: string;
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const o = JSON.parse(line) as RateObservation;
        if (
          typeof o.keyId === 'string' &&
          typeof o.status === 'number' &&
          typeof o.path === 'string' &&
          o.headers &&
          typeof o.headers === 'object'
        )
          out.push(o);
      } catch {
        // A worker killed mid-write leaves a torn last line.
      }
    }
  }
  return out;
}

/** What one run-wide check judges. */
interface RunCheckDef {
  id: string;
  requirement: string;
  level: Level;
  title: string;
  invariant: InvariantName;
}

const H_RATE = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

/**
 * One check per invariant. `headers-present` is split three ways, because three requirements
 * state it: on successes the X-RateLimit-* headers are the specification's (MUST), so are the
 * X-SMS-* headers on messaging successes; on errors and 429s only the conventions ask for them.
 */
export const RUN_CHECKS = {
  headersOk: {
    id: 'rate-limits.run.headers-present',
    requirement: 'RATE-HEADERS-001',
    level: 'MUST',
    title:
      'every successful messaging and compute response of the run carries X-RateLimit-Limit, -Remaining and -Reset',
    invariant: 'headers-present',
  },
  smsHeaders: {
    id: 'rate-limits.run.sms-headers-present',
    requirement: 'RATE-HEADERS-004',
    level: 'MUST',
    title: 'every successful messaging response of the run carries X-SMS-Limit and X-SMS-Remaining',
    invariant: 'headers-present',
  },
  headersOnErrors: {
    id: 'rate-limits.run.headers-on-errors',
    requirement: 'RATE-HEADERS-005',
    level: 'SHOULD',
    title: 'messaging and compute error responses and 429s of the run carry the rate-limit headers too',
    invariant: 'headers-present',
  },
  remaining: {
    id: 'rate-limits.run.remaining-decrements',
    requirement: 'RATE-HEADERS-002',
    level: 'MUST',
    title:
      'X-RateLimit-Remaining of every key falls as the key is used and never rises within a window, across the whole run',
    invariant: 'remaining-decrements',
  },
  reset: {
    id: 'rate-limits.run.reset-epoch',
    requirement: 'RATE-HEADERS-003',
    level: 'MUST',
    title:
      'X-RateLimit-Reset is epoch seconds, within the window after the response Date, on every response of the run',
    invariant: 'reset-epoch',
  },
  limit: {
    id: 'rate-limits.run.limit-constant',
    requirement: 'RATE-HEADERS-005',
    level: 'SHOULD',
    title: 'X-RateLimit-Limit stays constant within a window of a key, across the whole run',
    invariant: 'limit-constant',
  },
  shape429: {
    id: 'rate-limits.run.429-shape',
    requirement: 'RATE-HEADERS-006',
    level: 'SHOULD',
    title: 'every 429 of the run carries Retry-After',
    invariant: '429-shape',
  },
  code429: {
    id: 'rate-limits.run.429-code',
    requirement: 'ERR-CODE-005',
    level: 'MUST',
    title: 'every 429 of the run carries the code rate_limit_exceeded',
    invariant: '429-code',
  },
} as const satisfies Record<string, RunCheckDef>;

/** Violations (of one check) shown in its message; the rest are counted. */
const SHOWN = 5;

function toObserved(o: RateObservation, index: number): ObservedResponse {
  return {
    index,
    sentAt: o.sentAt,
    receivedAt: o.receivedAt,
    status: o.status,
    headers: o.headers,
    errorCode: o.errorCode,
    operation: `${o.method} ${o.path}`,
  };
}

/**
 * The most requests of one key that were in flight at once (client clock), at least 1. A response
 * can carry a Remaining computed before that of a response received earlier by at most this many
 * steps, which is the tolerance `HeaderTracker` needs; computed from the data rather than guessed
 * from the worker count, because the run's main key is shared by all workers.
 */
export function maxInFlight(list: readonly RateObservation[]): number {
  const events: Array<[number, number]> = [];
  for (const o of list) events.push([o.sentAt, 1], [o.receivedAt, -1]);
  // Ends before starts at the same millisecond: touching intervals do not overlap.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 1;
  for (const [, d] of events) {
    now += d;
    max = Math.max(max, now);
  }
  return max;
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

interface Found {
  def: RunCheckDef;
  violation: Violation;
  obs: RateObservation;
}

export interface RateInvariantOptions {
  /** Base URL, for the exchanges shown in a failed check. */
  target?: string;
  /** The run's main key, so its exchanges say `$CLOUDCHECK_API_KEY` (the key itself is never shown). */
  mainKey?: string;
  altKey?: string | null;
}

/** Judges every observation of the run; returns one CheckResult per run-wide check. */
export function rateInvariantChecks(
  observations: readonly RateObservation[],
  options: RateInvariantOptions = {},
): CheckResult[] {
  // 403 is left out: the key was authenticated but refused (permissions, IP list) before any limit
  // was counted, and the conventions' "authenticated" means admitted; the reference server, like
  // most, answers it from the auth layer without rate-limit headers. 401 the tracker skips itself.
  const usable = observations.filter((o) => o.status !== 403 && o.status !== 0);
  const ordered = [...usable].sort((a, b) => a.receivedAt - b.receivedAt || a.pid - b.pid || a.seq - b.seq);
  const byKey = new Map<string, RateObservation[]>();
  for (const o of ordered) {
    let list = byKey.get(o.keyId);
    if (!list) byKey.set(o.keyId, (list = []));
    list.push(o);
  }

  const found: Found[] = [];
  for (const [keyId, list] of byKey) {
    const inFlight = maxInFlight(list);
    // `all` sees every response and judges everything; `successes` sees only 2xx and is used for
    // header presence only, so a missing header on a success is never hidden behind an earlier
    // one on an error (the tracker reports each invariant once per key).
    const all = new HeaderTracker({ maxInFlight: inFlight });
    const successes = new HeaderTracker({ maxInFlight: inFlight });
    list.forEach((o, i) => {
      const r = toObserved(o, i);
      all.feed(keyId, o.path, r);
      if (ok(o.status)) successes.feed(keyId, o.path, r);
    });
    for (const v of successes.result()) {
      if (v.invariant !== 'headers-present') continue;
      const obs = list[v.index]!;
      const rateMissing = H_RATE.some((h) => obs.headers[h] === undefined || obs.headers[h] === '');
      found.push({ def: rateMissing ? RUN_CHECKS.headersOk : RUN_CHECKS.smsHeaders, violation: v, obs });
    }
    for (const v of all.result()) {
      const obs = list[v.index]!;
      if (v.invariant === 'headers-present') {
        if (!ok(obs.status)) found.push({ def: RUN_CHECKS.headersOnErrors, violation: v, obs });
        continue;
      }
      const def = Object.values(RUN_CHECKS).find((d) => d.invariant === v.invariant);
      if (def) found.push({ def, violation: v, obs });
    }
  }

  // Keys that were only ever refused (bad keys of auth checks) say nothing about rate limits.
  const keys = [...byKey.values()].filter((list) => list.some((o) => o.status !== 401)).length;
  const responses = usable.length;
  return Object.values(RUN_CHECKS).map((def): CheckResult => {
    const base = {
      id: def.id,
      requirement: def.requirement,
      level: def.level,
      class: 'rate-limits' as const,
      operation: null,
      title: def.title,
      location: 'src/report/rate-invariants.ts',
    };
    if (responses === 0) {
      return {
        ...base,
        status: 'skipped',
        message: 'no messaging or compute responses were observed in this run (nothing to judge)',
      };
    }
    const mine = found.filter((f) => f.def === def);
    if (mine.length === 0) {
      return {
        ...base,
        status: 'passed',
        message: `invariant ${def.invariant}: held for ${responses} messaging/compute responses of ${keys} keys`,
      };
    }
    const lines = mine.slice(0, SHOWN).map((f) => `key ${f.obs.keyId}: ${f.violation.message} [${describe(f.obs)}]`);
    const more = mine.length > SHOWN ? `; and ${mine.length - SHOWN} more keys` : '';
    const exchanges = mine.slice(0, SHOWN).map((f) => exchangeOf(f.obs, options));
    return {
      ...base,
      status: 'failed',
      classification: def.level === 'MUST' ? 'defect' : 'spec-gap',
      message: `invariant ${def.invariant} violated for ${mine.length} of ${keys} keys (run-wide, ${responses} responses): ${lines.join('; ')}${more}`,
      expected: 'holds',
      actual: 'violated',
      failure: {
        kind: 'invariant',
        subject: def.invariant,
        expected: 'holds',
        actual: 'violated',
        headline: `rate-limit headers, run-wide: invariant ${def.invariant} violated for ${mine.length} of ${keys} keys (first: ${mine[0]!.violation.message})`,
        operation: null,
        exchanges: exchanges.map((_, i) => i),
      },
      exchanges,
    };
  });
}

function describe(o: RateObservation): string {
  const h = o.headers;
  const parts = [`${o.method} ${o.path} → ${o.status}`];
  for (const name of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'retry-after',
    'date',
  ] as const) {
    if (h[name] !== undefined) parts.push(`${name}: ${h[name]}`);
  }
  return parts.join(', ');
}

/** A minimal exchange (no bodies: only headers were observed) so the report shows the response. */
function exchangeOf(o: RateObservation, options: RateInvariantOptions): Exchange {
  const url = `${options.target ?? ''}${o.path}`;
  const keyVar =
    options.mainKey && keyIdOf(options.mainKey) === o.keyId
      ? 'CLOUDCHECK_API_KEY'
      : options.altKey && keyIdOf(options.altKey) === o.keyId
        ? 'CLOUDCHECK_ALT_API_KEY'
        : `KEY_${o.keyId}`;
  return {
    request: { method: o.method, url, headers: { authorization: `Bearer $${keyVar}` } },
    response: { status: o.status, headers: { ...o.headers } },
    started_at: new Date(o.sentAt).toISOString(),
    duration_ms: Math.max(0, o.receivedAt - o.sentAt),
    curl: `curl -sS -i -X ${o.method} '${url}' -H "Authorization: Bearer $${keyVar}"`,
  };
}
