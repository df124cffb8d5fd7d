/**
 * The threshold table of a load profile's result (its wire shape: src/model/load.ts), computed from
 * its counts and histograms: by the runner, and again by the merge.
 */
import { LatencyHistograms } from './histograms.ts';
import { STATUS_CLASSES } from '../src/model/load.ts';
import type {
  LatencySummary,
  LoadViolation,
  ProfileResult,
  SerializedHistograms,
  StatusClass,
  ThresholdLine,
  TimelineBucket,
} from '../src/model/load.ts';

/** Most points of one key's series in report.json (the HTML chart draws at most 4000). */
export const MAX_SERIES_POINTS = 2000;

/**
 * Bounds one series (points sorted by index) for the report. First losslessly: inside a run of
 * equal values only the first and last point are kept (the chart draws the same line). Then, if
 * still longer than `max` (at least 2), evenly spaced points, always the first and the last.
 */
export function boundSeries(points: ReadonlyArray<[number, number]>, max = MAX_SERIES_POINTS): Array<[number, number]> {
  max = Math.max(2, Math.floor(max));
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    const prev = points[i - 1];
    const next = points[i + 1];
    // Interior of a run of equal values: the neighbours on both sides carry the same value.
    if (prev && next && prev[1] === p[1] && next[1] === p[1]) continue;
    runs.push(p);
  }
  if (runs.length <= max) return runs;
  const out: Array<[number, number]> = [];
  const step = (runs.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(runs[Math.round(i * step)]!);
  return out;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

/** Latency, error-rate and drift lines computed from counts and histograms (recomputed after a merge). */
export function measuredThresholds(
  r: Pick<ProfileResult, 'requests' | 'latency_ms' | 'timeline' | 'expectations'>,
): ThresholdLine[] {
  const out: ThresholdLine[] = [];
  const e = r.expectations;
  for (const cls of STATUS_CLASSES) {
    const want = e.latency?.[cls];
    if (!want) continue;
    const got = r.latency_ms[cls];
    for (const p of ['p50', 'p95', 'p99'] as const) {
      const limit = want[p];
      if (limit === undefined) continue;
      // No response of that class: nothing to judge, the line passes (the count says so).
      const actual = got?.[p];
      out.push({
        name: `latency ${cls} ${p}`,
        expected: `<= ${fmt(limit)} ms`,
        actual: actual === undefined ? 'no responses' : `${fmt(actual)} ms`,
        passed: actual === undefined || actual <= limit,
      });
    }
  }
  const total = r.requests.sent;
  let errors = r.requests.network_errors;
  let count5xx = 0;
  let count429 = 0;
  for (const [status, n] of Object.entries(r.requests.by_status)) {
    const s = Number(status);
    if (s === 429) count429 += n;
    else if (s >= 400) errors += n;
    if (s >= 500) count5xx += n;
  }
  if (e.max_error_rate !== undefined) {
    const rate = total === 0 ? 0 : errors / total;
    out.push({
      name: 'non-429 error rate',
      expected: `<= ${(e.max_error_rate * 100).toFixed(2)}%`,
      actual: `${(rate * 100).toFixed(2)}% (${errors}/${total})`,
      passed: rate <= e.max_error_rate,
    });
  }
  if (e.max_5xx !== undefined)
    out.push({
      name: '5xx responses',
      expected: `<= ${e.max_5xx}`,
      actual: String(count5xx),
      passed: count5xx <= e.max_5xx,
    });
  if (e.max_429 !== undefined)
    out.push({
      name: '429 responses',
      expected: `<= ${e.max_429}`,
      actual: String(count429),
      passed: count429 <= e.max_429,
    });
  if (e.latency_drift !== undefined) {
    const drift = latencyDrift(r.timeline);
    out.push({
      name: 'latency drift (mean 2xx, last/first quarter)',
      expected: `<= ${fmt(e.latency_drift)}x`,
      actual: drift === undefined ? 'too few samples' : `${drift.toFixed(2)}x`,
      passed: drift === undefined || drift <= e.latency_drift,
    });
  }
  return out;
}

/**
 * Ratio of mean 2xx latency in the last quarter of the run to the first. Means under 2 ms are
 * raised to 2 ms first: on loopback, 0.3 ms vs 0.9 ms is noise, not a trend.
 */
export function latencyDrift(timeline: readonly TimelineBucket[]): number | undefined {
  if (timeline.length < 4) return undefined;
  const sorted = [...timeline].sort((a, b) => a.t - b.t);
  const first = sorted[0]?.t ?? 0;
  const last = sorted[sorted.length - 1]?.t ?? 0;
  const span = last - first + 1;
  const mean = (lo: number, hi: number) => {
    let c = 0;
    let s = 0;
    for (const b of sorted) {
      if (b.t < lo || b.t >= hi) continue;
      c += b.count;
      s += b.sum_ms;
    }
    return c === 0 ? undefined : s / c;
  };
  const a = mean(first, first + span / 4);
  const b = mean(last + 1 - span / 4, last + 1);
  if (a === undefined || b === undefined) return undefined;
  return Math.max(b, 2) / Math.max(a, 2);
}

/** One line per invariant checked: passed when no violation carries its name. */
export function invariantLines(checked: readonly string[], violations: readonly LoadViolation[]): ThresholdLine[] {
  return checked.map((name) => {
    const vs = violations.filter((v) => v.invariant === name);
    return {
      name: `invariant ${name}`,
      invariant: name,
      expected: 'no violation',
      actual: vs.length === 0 ? 'ok' : `${vs.length} violation${vs.length > 1 ? 's' : ''}: ${vs[0]?.message ?? ''}`,
      passed: vs.length === 0,
    };
  });
}

export function recomputeLatency(histograms: SerializedHistograms): Partial<Record<StatusClass, LatencySummary>> {
  const h = LatencyHistograms.deserialize(histograms);
  const s = h.summary();
  h.destroy();
  return s;
}
