/**
 * The `load` section of a report (src/model/load.ts) turned into what the page shows: per profile
 * a threshold table, counts, and the data of three charts.
 *
 * Percentiles are read from the serialised HDR histograms (exact and mergeable), falling back to
 * the p50/p95/p99/max summary when a histogram cannot be decoded.
 */
import { createRequire } from 'node:module';
import type * as HdrHistogram from 'hdr-histogram-js';
import { STATUS_CLASSES } from '../../model/load.ts';
import type {
  LatencySummary,
  LoadReport,
  LoadViolation,
  ProfileResult,
  RateLimitSeries,
  SerializedHistograms,
  StatusClass,
  TimelineBucket,
} from '../../model/load.ts';

type StatusClassName = StatusClass;

export interface LatencyRow {
  cls: StatusClassName;
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

export interface ThresholdRow {
  name: string;
  expected: string;
  actual: string;
  passed: boolean;
}

/** x: "nines" = -log10(1 - p), so 1 = p90, 2 = p99, 3 = p99.9; one y series per status class. */
export interface SpectrumChart {
  x: number[];
  series: Array<{ cls: StatusClassName; values: Array<number | null> }>;
  /** Where the data came from: exact histograms, or the four summary percentiles. */
  source: 'histogram' | 'summary';
}

export interface ThroughputChart {
  /** Seconds since the profile started. */
  t: number[];
  count: number[];
  meanMs: Array<number | null>;
}

export interface RemainingChart {
  keys: string[];
  /** Request index of the key (send order). */
  x: number[];
  /** One series per key, aligned to `x`, null where that key has no sample. */
  ys: Array<Array<number | null>>;
}

export interface LoadProfileView {
  name: string;
  description: string | null;
  passed: boolean;
  error: string | null;
  durationMs: number;
  runs: number;
  sent: number;
  completed: number;
  networkErrors: number;
  byStatus: Array<[string, number]>;
  latency: LatencyRow[];
  thresholds: ThresholdRow[];
  violations: LoadViolation[];
  notes: string[];
  spectrum: SpectrumChart | null;
  throughput: ThroughputChart | null;
  remaining: RemainingChart | null;
}

export interface LoadView {
  passed: boolean;
  profiles: LoadProfileView[];
}

/**
 * hdr-histogram-js takes about 40 ms to load: loaded for a report that has load histograms, not
 * with every report (every `cloudcheck run` writes one).
 */
let hdr: typeof HdrHistogram | undefined;
const loadHdr = (): typeof HdrHistogram =>
  (hdr ??= createRequire(import.meta.url)('hdr-histogram-js') as typeof HdrHistogram);

/** Percentile points from p0 to p99.999 in tenths of a nine (smooth enough, 51 points). */
const NINES = Array.from({ length: 51 }, (_, i) => i / 10);

function spectrumFromHistograms(histograms: SerializedHistograms): SpectrumChart | null {
  const unitScale = 1 / 1000;
  const series: SpectrumChart['series'] = [];
  let maxCount = 0;
  const decoded: Array<{ cls: StatusClassName; values: number[] }> = [];
  for (const cls of STATUS_CLASSES) {
    const encoded = histograms.classes[cls];
    if (!encoded) continue;
    try {
      const h = loadHdr().decodeFromCompressedBase64(encoded);
      try {
        if (h.totalCount === 0) continue;
        maxCount = Math.max(maxCount, h.totalCount);
        decoded.push({ cls, values: NINES.map((n) => h.getValueAtPercentile(100 * (1 - 10 ** -n)) * unitScale) });
      } finally {
        h.destroy();
      }
    } catch {
      return null;
    }
  }
  if (decoded.length === 0) return null;
  // Past log10(count) nines every percentile is the maximum; showing that flat tail says nothing.
  const last = Math.min(NINES.length - 1, Math.max(10, Math.ceil(Math.log10(maxCount) * 10) + 5));
  const x = NINES.slice(0, last + 1);
  for (const d of decoded)
    series.push({ cls: d.cls, values: d.values.slice(0, last + 1).map((v) => Math.round(v * 1000) / 1000) });
  return { x, series, source: 'histogram' };
}

function spectrumFromSummary(latency: LatencyRow[]): SpectrumChart | null {
  const rows = latency.filter((r) => r.count > 0);
  if (rows.length === 0) return null;
  const x = [Math.log10(2), Math.log10(20), 2, 3];
  return {
    x,
    series: rows.map((r) => ({ cls: r.cls, values: [r.p50, r.p95, r.p99, r.max] })),
    source: 'summary',
  };
}

function latencyRows(latency: Partial<Record<StatusClass, LatencySummary>>): LatencyRow[] {
  const rows: LatencyRow[] = [];
  for (const cls of STATUS_CLASSES) {
    const l = latency[cls];
    if (l) rows.push({ cls, count: l.count, p50: l.p50, p95: l.p95, p99: l.p99, max: l.max, mean: l.mean });
  }
  return rows;
}

function throughput(buckets: readonly TimelineBucket[]): ThroughputChart | null {
  if (buckets.length === 0) return null;
  const byT = new Map<number, { count: number; sum: number }>();
  for (const b of buckets) {
    const cur = byT.get(b.t) ?? { count: 0, sum: 0 };
    cur.count += b.count;
    cur.sum += b.sum_ms;
    byT.set(b.t, cur);
  }
  const ts = [...byT.keys()];
  const lo = Math.min(...ts);
  const hi = Math.max(...ts);
  // Seconds with no 2xx at all are real zeros of throughput, not gaps; cap the span defensively.
  if (hi - lo > 86_400) return null;
  const out: ThroughputChart = { t: [], count: [], meanMs: [] };
  for (let t = lo; t <= hi; t++) {
    const b = byT.get(t);
    out.t.push(t);
    out.count.push(b?.count ?? 0);
    out.meanMs.push(b && b.count > 0 ? Math.round((b.sum / b.count) * 1000) / 1000 : null);
  }
  return out;
}

const MAX_POINTS_PER_KEY = 4000;

/** X-RateLimit-Remaining per request index, per key (by its label, never the key itself). */
function remaining(series: readonly RateLimitSeries[]): RemainingChart | null {
  const perKey = series.map((s) => ({ key: s.label, points: s.points }));
  const usable = perKey.filter((k) => k.points.length > 0);
  if (usable.length === 0) return null;
  for (const k of usable) {
    if (k.points.length > MAX_POINTS_PER_KEY) {
      const step = k.points.length / MAX_POINTS_PER_KEY;
      k.points = Array.from({ length: MAX_POINTS_PER_KEY }, (_, i) => k.points[Math.floor(i * step)]!);
    }
  }
  const x = [...new Set(usable.flatMap((k) => k.points.map((p) => p[0])))].sort((a, b) => a - b);
  const pos = new Map(x.map((v, i) => [v, i]));
  const ys = usable.map((k) => {
    const y: Array<number | null> = new Array<number | null>(x.length).fill(null);
    for (const [i, r] of k.points) y[pos.get(i)!] = r;
    return y;
  });
  return { keys: usable.map((k) => k.key), x, ys };
}

function profileView(p: ProfileResult): LoadProfileView {
  const latency = latencyRows(p.latency_ms);
  return {
    name: p.profile,
    description: p.description ?? null,
    passed: p.passed,
    error: p.error ?? null,
    durationMs: p.duration_ms,
    runs: p.runs,
    sent: p.requests.sent,
    completed: p.requests.completed,
    networkErrors: p.requests.network_errors,
    byStatus: Object.entries(p.requests.by_status).sort((a, b) => a[0].localeCompare(b[0])),
    latency,
    thresholds: p.thresholds.map(({ name, expected, actual, passed }) => ({ name, expected, actual, passed })),
    violations: p.violations,
    notes: p.notes,
    spectrum: spectrumFromHistograms(p.histograms) ?? spectrumFromSummary(latency),
    throughput: throughput(p.timeline),
    remaining: remaining(p.rate_limit_series ?? []),
  };
}

/** Null when the report has no load section (then the page emits no chart code). */
export function loadView(load: LoadReport | undefined): LoadView | null {
  if (!load) return null;
  return { passed: load.passed, profiles: load.profiles.map(profileView) };
}
