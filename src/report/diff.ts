/**
 * What changed between two reports, by check id: fixed, broken, still failing, new and removed
 * checks; and, when both hold load results, the latency of each profile both ran. Pure;
 * `formatDiff` renders it for a terminal.
 */
import { classificationOf } from './gate.ts';
import type { Level } from '../../spec/classes.ts';
import type { CheckResult, CheckStatus, Classification } from '../model/finding.ts';
import type { ConformanceReport } from '../model/report.ts';

export interface CheckRef {
  id: string;
  requirement: string;
  level: Level;
  class: string;
  title: string;
  operation: string | null;
  /** Status in the old report (A); absent for new checks. */
  before?: CheckStatus;
  /** Status in the new report (B); absent for removed checks. */
  after?: CheckStatus;
  /** Classification of the failure, where the check failed (in B, else in A). */
  classification?: Classification;
}

export interface ReportDiff {
  a: { id: string; target: string; started_at: string; verdict: string; headline: string };
  b: { id: string; target: string; started_at: string; verdict: string; headline: string };
  /** Failed in A, passed in B. */
  fixed: CheckRef[];
  /** Not failing in A (passed or skipped), failed in B. */
  broken: CheckRef[];
  /** Failed in both. */
  still_failing: CheckRef[];
  /** Only in B. */
  new_checks: CheckRef[];
  /** Only in A. */
  removed_checks: CheckRef[];
  /** Other status changes: passed ↔ skipped, failed → skipped (not judged any more). */
  other_changes: CheckRef[];
  /** Latency of the load profiles both reports ran, per status class (ms). */
  load_latency: LatencyChange[];
}

export interface LatencyFigures {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface LatencyChange {
  profile: string;
  status_class: string;
  before: LatencyFigures;
  after: LatencyFigures;
}

/** `report.load`'s latency per profile and status class (src/model/load.ts). */
function loadLatency(report: ConformanceReport): Map<string, LatencyFigures> {
  const out = new Map<string, LatencyFigures>();
  for (const p of report.load?.profiles ?? []) {
    for (const [cls, summary] of Object.entries(p.latency_ms)) {
      if (!summary) continue;
      const { count, p50, p95, p99, max } = summary;
      out.set(`${p.profile}\u0000${cls}`, { count, p50, p95, p99, max });
    }
  }
  return out;
}

function latencyChanges(a: ConformanceReport, b: ConformanceReport): LatencyChange[] {
  const before = loadLatency(a);
  const after = loadLatency(b);
  return [...after]
    .filter(([key]) => before.has(key))
    .map(([key, figures]) => {
      const [profile, status_class] = key.split('\u0000') as [string, string];
      return { profile, status_class, before: before.get(key)!, after: figures };
    })
    .sort((x, y) => x.profile.localeCompare(y.profile) || x.status_class.localeCompare(y.status_class));
}

function ref(c: CheckResult, before: CheckResult | undefined, after: CheckResult | undefined): CheckRef {
  const r: CheckRef = {
    id: c.id,
    requirement: c.requirement,
    level: c.level,
    class: c.class,
    title: c.title,
    operation: c.operation,
  };
  if (before) r.before = before.status;
  if (after) r.after = after.status;
  const failed = after?.status === 'failed' ? after : before?.status === 'failed' ? before : undefined;
  if (failed) r.classification = classificationOf(failed);
  return r;
}

function side(r: ConformanceReport): ReportDiff['a'] {
  return {
    id: r.run.id,
    target: r.run.target,
    started_at: r.run.started_at,
    verdict: r.summary.verdict,
    headline: r.summary.headline ?? r.summary.verdict,
  };
}

const bySeverity = (x: CheckRef, y: CheckRef): number =>
  (x.level === y.level ? 0 : x.level === 'MUST' ? -1 : 1) ||
  x.requirement.localeCompare(y.requirement) ||
  x.id.localeCompare(y.id);

export function diffReports(a: ConformanceReport, b: ConformanceReport): ReportDiff {
  const before = new Map(a.checks.map((c) => [c.id, c]));
  const after = new Map(b.checks.map((c) => [c.id, c]));
  const diff: ReportDiff = {
    a: side(a),
    b: side(b),
    fixed: [],
    broken: [],
    still_failing: [],
    new_checks: [],
    removed_checks: [],
    other_changes: [],
    load_latency: latencyChanges(a, b),
  };
  for (const [id, nb] of after) {
    const na = before.get(id);
    if (!na) {
      diff.new_checks.push(ref(nb, undefined, nb));
      continue;
    }
    const r = ref(nb, na, nb);
    if (na.status === 'failed' && nb.status === 'failed') diff.still_failing.push(r);
    else if (na.status === 'failed' && nb.status === 'passed') diff.fixed.push(r);
    else if (na.status !== 'failed' && nb.status === 'failed') diff.broken.push(r);
    else if (na.status !== nb.status) diff.other_changes.push(r);
  }
  for (const [id, na] of before) if (!after.has(id)) diff.removed_checks.push(ref(na, na, undefined));
  for (const list of [
    diff.fixed,
    diff.broken,
    diff.still_failing,
    diff.new_checks,
    diff.removed_checks,
    diff.other_changes,
  ])
    list.sort(bySeverity);
  return diff;
}

function line(mark: string, r: CheckRef, showTransition: boolean): string {
  const cls = r.classification && r.classification !== 'defect' ? ` [${r.classification}]` : '';
  const transition = showTransition
    ? ` (${r.before ?? '-'} → ${r.after ?? '-'})`
    : r.after && r.before === undefined
      ? ` (${r.after})`
      : r.before && r.after === undefined
        ? ` (was ${r.before})`
        : '';
  return `  ${mark} ${r.level.padEnd(6)} ${r.requirement.padEnd(16)} ${r.id}${transition}${cls}\n      ${r.title}${r.operation ? `  [${r.operation}]` : ''}`;
}

/** Plain text for a terminal: the two runs, then each non-empty group with its count. */
export function formatDiff(diff: ReportDiff): string {
  const out: string[] = [];
  out.push(`A: ${diff.a.id}  ${diff.a.started_at}  ${diff.a.target}`, `   ${diff.a.headline}`);
  out.push(`B: ${diff.b.id}  ${diff.b.started_at}  ${diff.b.target}`, `   ${diff.b.headline}`);
  if (diff.a.verdict !== diff.b.verdict) out.push(`verdict changed: ${diff.a.verdict} → ${diff.b.verdict}`);
  out.push(
    `fixed ${diff.fixed.length}, broken ${diff.broken.length}, still failing ${diff.still_failing.length}, new ${diff.new_checks.length}, removed ${diff.removed_checks.length}, other changes ${diff.other_changes.length}`,
  );
  const group = (title: string, mark: string, list: CheckRef[], transition = false): void => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const r of list) out.push(line(mark, r, transition));
  };
  group('broken', '✗', diff.broken, true);
  group('fixed', '✓', diff.fixed, true);
  group('still failing', '·', diff.still_failing);
  group('new checks', '+', diff.new_checks);
  group('removed checks', '-', diff.removed_checks);
  group('other changes', '~', diff.other_changes, true);
  if (diff.load_latency.length) {
    out.push('', `load latency, A → B (ms; ${diff.load_latency.length} profile and status pairs in both):`);
    const change = (x: number, y: number): string =>
      `${fmtMs(x)} → ${fmtMs(y)}${x > 0 ? ` (${y >= x ? '+' : ''}${Math.round(((y - x) / x) * 100)}%)` : ''}`;
    for (const l of diff.load_latency) {
      out.push(
        `  ${l.profile} ${l.status_class}: p50 ${change(l.before.p50, l.after.p50)}, p95 ${change(l.before.p95, l.after.p95)}, p99 ${change(l.before.p99, l.after.p99)}, max ${change(l.before.max, l.after.max)}; ${l.before.count} → ${l.after.count} responses`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

function fmtMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}
