/**
 * What every executor of a load phase shares: the collector of responses (histograms, statuses,
 * the per-key sequences the invariant checks read) and how a request is labelled (key, index,
 * SMS units). The closed-model executor (run.ts, autocannon) and the arrival-rate one
 * (arrival.ts) both feed it.
 */
import { LatencyHistograms } from './histograms.ts';
import type { HeaderTracker } from '../src/rules/rate-limits.ts';
import { areaOfPath, type ObservedResponse } from '../src/rules/rate-limits.ts';
import type { RequestTemplate, ResolvedPhase } from './profile.ts';
import type { TimelineBucket } from '../src/model/load.ts';
import { expandString, expandValue } from './template.ts';

/** Fewer observations than this are kept per key for the sequence checks (memory bound). */
const MAX_KEPT_PER_KEY = 25_000;

export function errorCodeOf(status: number, text: string): string | null {
  if (status < 400 || !text.startsWith('{')) return null;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? parsed.error.code : null;
  } catch {
    return null;
  }
}

export function unitsOf(t: RequestTemplate, body: unknown): number {
  const area = areaOfPath(t.path);
  if (area !== 'messaging' || t.method !== 'POST') return 0;
  if (body && typeof body === 'object' && Array.isArray((body as { recipients?: unknown }).recipients)) {
    return (body as { recipients: unknown[] }).recipients.length;
  }
  return /^\/sms\/(send|send-template)$/.test(t.path) ? 1 : 0;
}

export interface Pending {
  keyLabel: string;
  index: number;
  sentAt: number;
  units: number;
  operation: string;
  path: string;
  token: string;
}

export interface KeyedObservation extends ObservedResponse {
  token?: string;
}

export class Collector {
  readonly hist = new LatencyHistograms();
  readonly byStatus: Record<string, number> = {};
  readonly timeline = new Map<number, TimelineBucket>();
  readonly kept = new Map<string, KeyedObservation[]>();
  readonly perKeyIndex = new Map<string, number>();
  sent = 0;
  completed = 0;
  networkErrors = 0;
  /** Arrivals an arrival-rate phase did not send: every connection was busy (arrival.ts). */
  dropped = 0;
  /** Response bytes (status line, headers and body), as autocannon counts them. */
  bytesReceived = 0;
  readonly startedMs = Date.now();

  constructor(
    readonly tracker: HeaderTracker | undefined,
    readonly keepKeys: Set<string>,
  ) {}

  nextIndex(keyLabel: string): number {
    const i = this.perKeyIndex.get(keyLabel) ?? 0;
    this.perKeyIndex.set(keyLabel, i + 1);
    return i;
  }

  observe(p: Pending, obs: KeyedObservation, latencyMs: number, expectedIntervalMs?: number): void {
    this.completed += 1;
    this.byStatus[obs.status] = (this.byStatus[obs.status] ?? 0) + 1;
    this.hist.record(obs.status, latencyMs, expectedIntervalMs);
    if (obs.status >= 200 && obs.status < 400) {
      const t = Math.floor((obs.receivedAt - this.startedMs) / 1000);
      const b = this.timeline.get(t) ?? { t, count: 0, sum_ms: 0 };
      b.count += 1;
      b.sum_ms += latencyMs;
      this.timeline.set(t, b);
    }
    this.tracker?.feed(p.keyLabel, p.path, obs);
    if (this.keepKeys.has(p.keyLabel)) {
      const list = this.kept.get(p.keyLabel) ?? [];
      if (list.length < MAX_KEPT_PER_KEY) list.push(obs);
      this.kept.set(p.keyLabel, list);
    }
  }
}

export function keyLabel(ref: ResolvedPhase['key'], i: number, freshCount: number): string {
  if (ref === 'main') return 'main';
  if (ref === 'round-robin') return `fresh-${i % freshCount}`;
  return `fresh-${ref}`;
}

/** One request of a phase made concrete: its key label, its index on that key, its token, and the template expanded. */
export interface BuiltRequest {
  label: string;
  index: number;
  token: string;
  path: string;
  body: unknown;
  /** The template's headers, expanded (the caller adds Authorization and Content-Type). */
  headers: Record<string, string>;
}

/**
 * Expands a template for the `n`-th request of a phase: which key it goes with (round-robin over
 * the fresh keys, or the phase's key), its index on that key, and a token that names it in the
 * target's data (`<runPrefix>-<label>-r000042`). Both executors build their requests here.
 */
export function buildRequest(
  t: RequestTemplate,
  phaseKey: ResolvedPhase['key'],
  n: number,
  freshCount: number,
  runPrefix: string,
  collector: Collector,
): BuiltRequest {
  const label = keyLabel(phaseKey, n, freshCount);
  const index = collector.nextIndex(label);
  const token = `${runPrefix}-${label}-r${String(index).padStart(6, '0')}`;
  const tctx = { runPrefix, requestId: token, index };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(t.headers ?? {})) headers[k] = expandString(v, tctx);
  return {
    label,
    index,
    token,
    path: expandString(t.path, tctx),
    body: t.body === undefined ? undefined : expandValue(t.body, tctx),
    headers,
  };
}
