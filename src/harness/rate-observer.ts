/**
 * Writer side of the run-wide rate-limit header invariants (the `rate-limits` class).
 *
 * Every messaging and compute response the run receives, through any client of any worker, is
 * appended as one compact NDJSON line to `rate-<pid>.ndjson` in the run's temp dir (the dir the
 * ledger journals use, CLOUDCHECK_RUN_TMP). After the run the reporter (src/report/rate-invariants.ts)
 * merges the files of all workers and judges them with `HeaderTracker` (src/rules/rate-limits.ts).
 *
 * Why files and not the exchanges attachment: attachments hold one check's exchanges, are trimmed
 * to the failed checks in the report, and carry bodies. The invariants need every response of
 * every key, including the harness's own key creation and teardown traffic, and only a handful of
 * headers. One small line per response costs little (the run sends a few thousand requests).
 *
 * Never the key itself: keys are identified by a SHA-256 prefix, enough to tell them apart.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { areaOfPath, hasRateLimitHeaders } from '../../spec/areas.ts';

/** One observed response, as written (and read back by src/report/rate-invariants.ts). */
export interface RateObservation {
  /** SHA-256 prefix of the key that was sent (hex). */
  keyId: string;
  area: 'messaging' | 'compute';
  method: string;
  /** Path below the target's base (`/sms/campaigns`), without the query. */
  path: string;
  status: number;
  /** Lower-case header names; only the rate-limit headers, Retry-After and Date. */
  headers: Record<string, string>;
  /** `error.code` of an error envelope (429s and other errors), else null. */
  errorCode: string | null;
  /** Client clock, epoch milliseconds. */
  sentAt: number;
  receivedAt: number;
  /** Writer process and its sequence number: a stable order for lines with equal times. */
  pid: number;
  seq: number;
}

/** The headers the invariants read; everything else is left out. */
export const OBSERVED_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-sms-limit',
  'x-sms-remaining',
  'retry-after',
  'date',
] as const;

export const OBSERVATION_FILE = /^rate-\d+\.ndjson$/;

export function keyIdOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** The bearer token of an Authorization header value, or null (no key, or a malformed scheme on purpose). */
export function bearerOf(authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m ? m[1]! : null;
}

export interface ObservedExchange {
  method: string;
  path: string;
  /** The Authorization header value actually sent. */
  authorization: string | undefined;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  sentAt: number;
  receivedAt: number;
}

/** The line to write for a response, or null when it is not an authenticated messaging/compute response. */
export function observationOf(x: ObservedExchange, seq: number, pid: number = process.pid): RateObservation | null {
  const area = areaOfPath(x.path);
  if (!hasRateLimitHeaders(area)) return null;
  const key = bearerOf(x.authorization);
  if (key === null) return null;
  const headers: Record<string, string> = {};
  for (const name of OBSERVED_HEADERS) {
    const v = x.headers[name];
    if (v !== undefined) headers[name] = v;
  }
  const code = (x.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return {
    keyId: keyIdOf(key),
    area,
    method: x.method,
    path: x.path.split('?')[0] ?? x.path,
    status: x.status,
    headers,
    errorCode: typeof code === 'string' ? code : null,
    sentAt: x.sentAt,
    receivedAt: x.receivedAt,
    pid,
    seq,
  };
}

/** Appends observations to this process's file in `dir`. Null dir: a no-op (unit tests, no run). */
export class RateObserver {
  private readonly file: string | null;
  private seq = 0;
  private ready = false;
  private failed = false;

  constructor(dir: string | null | undefined) {
    this.file = dir ? join(dir, `rate-${process.pid}.ndjson`) : null;
  }

  record(x: ObservedExchange): void {
    if (!this.file || this.failed) return;
    const line = observationOf(x, this.seq);
    if (!line) return;
    this.seq++;
    try {
      if (!this.ready) mkdirSync(dirname(this.file), { recursive: true });
      this.ready = true;
      appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    } catch {
      // Observation is a by-product; a full disk must not fail the check that made the request.
      // The reader reports a run with no observations as "not judged", not as passed.
      this.failed = true;
    }
  }
}

/** One observer per process and dir (all clients of a worker share its file and sequence). */
const observers = new Map<string, RateObserver>();
export function processObserver(dir: string | null | undefined): RateObserver | null {
  if (!dir) return null;
  let o = observers.get(dir);
  if (!o) observers.set(dir, (o = new RateObserver(dir)));
  return o;
}
