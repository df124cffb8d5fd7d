/**
 * What changed between two reports, by check id: fixed, broken, still failing, new and removed
 * checks. Pure; `formatDiff` renders it for a terminal.
 */
import { classificationOf } from './gate.ts';
import type { Level } from '../model/classes.ts';
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
}

function ref(c: CheckResult, before: CheckResult | undefined, after: CheckResult | undefined): CheckRef {
  const r: CheckRef = { id: c.id, requirement: c.requirement, level: c.level, class: c.class, title: c.title, operation: c.operation };
  if (before) r.before = before.status;
  if (after) r.after = after.status;
  const failed = after?.status === 'failed' ? after : before?.status === 'failed' ? before : undefined;
  if (failed) r.classification = classificationOf(failed);
  return r;
}

function side(r: ConformanceReport): ReportDiff['a'] {
  return { id: r.run.id, target: r.run.target, started_at: r.run.started_at, verdict: r.summary.verdict, headline: r.summary.headline ?? r.summary.verdict };
}

const bySeverity = (x: CheckRef, y: CheckRef): number => (x.level === y.level ? 0 : x.level === 'MUST' ? -1 : 1) || x.requirement.localeCompare(y.requirement) || x.id.localeCompare(y.id);

export function diffReports(a: ConformanceReport, b: ConformanceReport): ReportDiff {
  const before = new Map(a.checks.map((c) => [c.id, c]));
  const after = new Map(b.checks.map((c) => [c.id, c]));
  const diff: ReportDiff = { a: side(a), b: side(b), fixed: [], broken: [], still_failing: [], new_checks: [], removed_checks: [], other_changes: [] };
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
  for (const list of [diff.fixed, diff.broken, diff.still_failing, diff.new_checks, diff.removed_checks, diff.other_changes]) list.sort(bySeverity);
  return diff;
}

function line(mark: string, r: CheckRef, showTransition: boolean): string {
  const cls = r.classification && r.classification !== 'defect' ? ` [${r.classification}]` : '';
  const transition = showTransition ? ` (${r.before ?? '-'} → ${r.after ?? '-'})` : r.after && r.before === undefined ? ` (${r.after})` : r.before && r.after === undefined ? ` (was ${r.before})` : '';
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
  return `${out.join('\n')}\n`;
}
