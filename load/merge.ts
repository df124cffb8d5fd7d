/**
 * Merging load results from several machines (or several runs): histograms are SUMMED and the
 * percentiles recomputed from the sum; percentiles are never averaged (the mean of two p99s is not
 * a p99 of anything). Counts and timelines add up; violations are concatenated; a merged profile
 * passes only when every run's invariants passed and the merged latency thresholds pass.
 */
import { LatencyHistograms } from './histograms.ts';
import { invariantLines, measuredThresholds, recomputeLatency } from './result.ts';
import type { LoadReport, ProfileResult, TimelineBucket } from '../src/model/load.ts';

export function mergeProfileResults(results: readonly ProfileResult[]): ProfileResult {
  const first = results[0];
  if (!first) throw new Error('nothing to merge');
  for (const r of results) {
    if (r.profile !== first.profile) throw new Error(`cannot merge profile "${r.profile}" into "${first.profile}"`);
  }
  const hist = new LatencyHistograms();
  const byStatus: Record<string, number> = {};
  const timeline = new Map<number, TimelineBucket>();
  let sent = 0;
  let completed = 0;
  let networkErrors = 0;
  // Summed only when every shard measured it (an older report may lack bytes); dropped arrivals always.
  let bytes: number | undefined = 0;
  let dropped = 0;
  for (const r of results) {
    const h = LatencyHistograms.deserialize(r.histograms);
    hist.add(h);
    h.destroy();
    sent += r.requests.sent;
    completed += r.requests.completed;
    networkErrors += r.requests.network_errors;
    bytes =
      bytes === undefined || r.requests.bytes_received === undefined ? undefined : bytes + r.requests.bytes_received;
    dropped += r.requests.dropped ?? 0;
    for (const [s, n] of Object.entries(r.requests.by_status)) byStatus[s] = (byStatus[s] ?? 0) + n;
    for (const b of r.timeline) {
      const cur = timeline.get(b.t) ?? { t: b.t, count: 0, sum_ms: 0 };
      cur.count += b.count;
      cur.sum_ms += b.sum_ms;
      timeline.set(b.t, cur);
    }
  }
  const histograms = hist.serialize();
  hist.destroy();
  const startedAt = results.map((r) => r.started_at).sort()[0] ?? first.started_at;
  const finishedAt =
    results
      .map((r) => r.finished_at)
      .sort()
      .reverse()[0] ?? first.finished_at;
  const checked = [...new Set(results.flatMap((r) => r.invariants_checked))];
  const violations = results.flatMap((r) => r.violations);
  const merged: ProfileResult = {
    ...first,
    started_at: startedAt,
    finished_at: finishedAt,
    duration_ms: Date.parse(finishedAt) - Date.parse(startedAt),
    runs: results.reduce((s, r) => s + r.runs, 0),
    requests: {
      sent,
      completed,
      network_errors: networkErrors,
      by_status: byStatus,
      ...(bytes !== undefined ? { bytes_received: bytes } : {}),
      ...(dropped ? { dropped } : {}),
    },
    histograms,
    latency_ms: recomputeLatency(histograms),
    timeline: [...timeline.values()].sort((a, b) => a.t - b.t),
    invariants_checked: checked,
    violations,
    notes: [...new Set(results.flatMap((r) => r.notes))],
    error: results.find((r) => r.error)?.error,
    thresholds: [],
    passed: false,
  };
  merged.thresholds = [...measuredThresholds(merged), ...invariantLines(checked, violations)];
  merged.passed = merged.error === undefined && merged.thresholds.every((t) => t.passed);
  return merged;
}

/** Merges whole `load` sections: profiles of the same name merge, others are kept side by side. */
export function mergeLoadReports(reports: readonly LoadReport[]): LoadReport {
  const first = reports[0];
  if (!first) throw new Error('nothing to merge');
  const byName = new Map<string, ProfileResult[]>();
  for (const rep of reports) for (const p of rep.profiles) byName.set(p.profile, [...(byName.get(p.profile) ?? []), p]);
  const profiles = [...byName.values()].map((list) => (list.length === 1 ? list[0]! : mergeProfileResults(list)));
  return {
    schema_version: 1,
    target: first.target,
    started_at: reports.map((r) => r.started_at).sort()[0] ?? first.started_at,
    finished_at:
      reports
        .map((r) => r.finished_at)
        .sort()
        .reverse()[0] ?? first.finished_at,
    passed: profiles.every((p) => p.passed),
    profiles,
  };
}
