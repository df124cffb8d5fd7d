/**
 * The `load` section of a report turned into what the page shows: per profile a threshold table,
 * counts, and the data of three charts. report.json is read defensively: `load` is typed
 * `unknown` in the model, may come from an older or newer load stage, or be an array (a merge that
 * kept loads side by side). Anything that does not look right is skipped, never thrown.
 *
 * Percentiles are read from the serialised HDR histograms (exact and mergeable), falling back to
 * the p50/p95/p99/max summary when a histogram cannot be decoded.
 */
import { createRequire } from 'node:module';
import type * as HdrHistogram from 'hdr-histogram-js';

export const STATUS_CLASSES = ['2xx', '4xx', '429', '5xx'] as const;
export type StatusClassName = (typeof STATUS_CLASSES)[number];

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
  passed: boolean | null;
  error: string | null;
  durationMs: number | null;
  runs: number | null;
  sent: number | null;
  completed: number | null;
  networkErrors: number | null;
  byStatus: Array<[string, number]>;
  latency: LatencyRow[];
  thresholds: ThresholdRow[];
  violations: Array<{ invariant: string; index: number | null; key: string | null; message: string }>;
  notes: string[];
  spectrum: SpectrumChart | null;
  throughput: ThroughputChart | null;
  remaining: RemainingChart | null;
}

export interface LoadView {
  passed: boolean | null;
  profiles: LoadProfileView[];
  /** Said when the section had a shape this page does not know. */
  problems: string[];
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function bool(v: unknown): boolean | null {
  return typeof v === 'boolean' ? v : null;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
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

function spectrumFromHistograms(histograms: unknown): SpectrumChart | null {
  if (!isObj(histograms) || !isObj(histograms.classes)) return null;
  const unitScale = histograms.unit === 'ms' ? 1 : 1 / 1000;
  const series: SpectrumChart['series'] = [];
  let maxCount = 0;
  const decoded: Array<{ cls: StatusClassName; values: number[] }> = [];
  for (const cls of STATUS_CLASSES) {
    const encoded = str(histograms.classes[cls]);
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

function latencyRows(latency: unknown): LatencyRow[] {
  if (!isObj(latency)) return [];
  const rows: LatencyRow[] = [];
  for (const cls of STATUS_CLASSES) {
    const l = latency[cls];
    if (!isObj(l)) continue;
    rows.push({
      cls,
      count: num(l.count) ?? 0,
      p50: num(l.p50),
      p95: num(l.p95),
      p99: num(l.p99),
      max: num(l.max),
      mean: num(l.mean),
    });
  }
  return rows;
}

function throughput(timeline: unknown): ThroughputChart | null {
  const buckets = arr(timeline)
    .filter(isObj)
    .map((b) => ({ t: num(b.t), count: num(b.count) ?? 0, sum: num(b.sum_ms) ?? 0 }))
    .filter((b): b is { t: number; count: number; sum: number } => b.t !== null);
  if (buckets.length === 0) return null;
  const byT = new Map<number, { count: number; sum: number }>();
  for (const b of buckets) {
    const cur = byT.get(b.t) ?? { count: 0, sum: 0 };
    cur.count += b.count;
    cur.sum += b.sum;
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

/**
 * X-RateLimit-Remaining per request index, per key. Read from `rate_limit_series` of a profile
 * result, in any of the shapes `[{label, points: [[index, remaining], ...]}]`,
 * `[{label, index: [...], remaining: [...]}]` or `{label: [[index, remaining], ...]}`. The key is
 * named by a label (`main`, `k1`), never the key itself; a field named `key` is accepted too but
 * report redaction blanks short `key` values, so `label` is what a writer should use.
 */
function remaining(series: unknown): RemainingChart | null {
  const perKey: Array<{ key: string; points: Array<[number, number]> }> = [];
  const pairs = (v: unknown): Array<[number, number]> =>
    arr(v)
      .map((p) =>
        Array.isArray(p) ? [num(p[0]), num(p[1])] : isObj(p) ? [num(p.index), num(p.remaining)] : [null, null],
      )
      .filter((p): p is [number, number] => p[0] !== null && p[1] !== null);
  if (Array.isArray(series)) {
    for (const s of series) {
      if (!isObj(s)) continue;
      const key = str(s.label) ?? str(s.key) ?? `key ${perKey.length + 1}`;
      if (Array.isArray(s.points)) perKey.push({ key, points: pairs(s.points) });
      else if (Array.isArray(s.index) && Array.isArray(s.remaining)) {
        const idx = s.index;
        const rem = s.remaining;
        perKey.push({ key, points: pairs(idx.map((i, n) => [i, rem[n]])) });
      }
    }
  } else if (isObj(series)) {
    for (const [key, v] of Object.entries(series)) perKey.push({ key, points: pairs(v) });
  }
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

function profileView(p: Obj, index: number): LoadProfileView {
  const requests = isObj(p.requests) ? p.requests : {};
  const byStatus = isObj(requests.by_status)
    ? Object.entries(requests.by_status)
        .map(([s, n]): [string, number] => [s, num(n) ?? 0])
        .sort((a, b) => a[0].localeCompare(b[0]))
    : [];
  const latency = latencyRows(p.latency_ms);
  return {
    name: str(p.profile) ?? `profile ${index + 1}`,
    description: str(p.description),
    passed: bool(p.passed),
    error: str(p.error),
    durationMs: num(p.duration_ms),
    runs: num(p.runs),
    sent: num(requests.sent),
    completed: num(requests.completed),
    networkErrors: num(requests.network_errors),
    byStatus,
    latency,
    thresholds: arr(p.thresholds)
      .filter(isObj)
      .map((t) => ({
        name: str(t.name) ?? '?',
        expected: str(t.expected) ?? '',
        actual: str(t.actual) ?? '',
        passed: t.passed === true,
      })),
    violations: arr(p.violations)
      .filter(isObj)
      .map((v) => ({
        invariant: str(v.invariant) ?? '?',
        index: num(v.index),
        key: str(v.key),
        message: str(v.message) ?? '',
      })),
    notes: arr(p.notes).filter((n): n is string => typeof n === 'string'),
    spectrum: spectrumFromHistograms(p.histograms) ?? spectrumFromSummary(latency),
    throughput: throughput(p.timeline),
    remaining: remaining(p.rate_limit_series),
  };
}

/** Null when the report has no load data at all (then the page emits no chart code). */
export function loadView(load: unknown): LoadView | null {
  if (load === undefined || load === null) return null;
  const problems: string[] = [];
  const sections = Array.isArray(load) ? load : [load];
  const profiles: LoadProfileView[] = [];
  let passed: boolean | null = null;
  for (const section of sections) {
    if (!isObj(section)) {
      problems.push('a load section that is not an object was ignored');
      continue;
    }
    const list = Array.isArray(section.profiles) ? section.profiles : 'profile' in section ? [section] : null;
    if (!list) {
      problems.push('a load section without "profiles" was ignored');
      continue;
    }
    for (const p of list) if (isObj(p)) profiles.push(profileView(p, profiles.length));
    const sp = bool(section.passed);
    if (sp !== null) passed = (passed ?? true) && sp;
  }
  if (profiles.length === 0 && problems.length === 0) return null;
  if (passed === null && profiles.length > 0 && profiles.every((p) => p.passed !== null))
    passed = profiles.every((p) => p.passed);
  return { passed, profiles, problems };
}
