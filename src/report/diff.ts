/**
 * What changed between two reports: first by cause (report.json `clusters`, matched by id, which
 * the same failure keeps in every run): fixed, new and unchanged causes with their check counts;
 * then by check id: fixed, broken, still failing, new and removed checks; the load profiles'
 * thresholds and invariants by name; and, when both hold load results, the latency of each profile
 * both ran. Pure; `formatDiff` renders it for a terminal.
 */
import { classificationOf } from './gate.ts';
import { clustersOf } from './clusters.ts';
import { loadOutcome } from './load-lines.ts';
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

/** A cause in either report, with how many checks it held in each (0: not a cause there). */
export interface CauseRef {
  id: string;
  level: Level;
  cause: string;
  checks_before: number;
  checks_after: number;
}

/** A threshold or invariant of a load profile both reports ran, whose outcome changed. */
export interface LoadLineChange {
  profile: string;
  name: string;
  before: 'passed' | 'failed';
  after: 'passed' | 'failed';
  expected: string;
  actual: string;
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
  /**
   * Causes of A that are gone in B although B ran some of their checks; causes of B that A did
   * not have; causes in both (their counts may differ); causes of A whose checks B did not run.
   */
  causes: { fixed: CauseRef[]; new: CauseRef[]; unchanged: CauseRef[]; not_run: CauseRef[] };
  /** Load thresholds and invariants (by profile and name) that went from passed to failed, or back. */
  load_fixed: LoadLineChange[];
  load_broken: LoadLineChange[];
}

function causeChanges(a: ConformanceReport, b: ConformanceReport): ReportDiff['causes'] {
  const before = new Map(clustersOf(a).map((c) => [c.id, c]));
  const after = new Map(clustersOf(b).map((c) => [c.id, c]));
  const ranInB = new Set(b.checks.map((c) => c.id));
  const out: ReportDiff['causes'] = { fixed: [], new: [], unchanged: [], not_run: [] };
  for (const [id, c] of after) {
    const was = before.get(id);
    const ref = {
      id,
      level: c.level,
      cause: c.cause,
      checks_before: was?.checks.length ?? 0,
      checks_after: c.checks.length,
    };
    (was ? out.unchanged : out.new).push(ref);
  }
  for (const [id, c] of before) {
    if (after.has(id)) continue;
    const ref = { id, level: c.level, cause: c.cause, checks_before: c.checks.length, checks_after: 0 };
    (c.checks.some((check) => ranInB.has(check)) ? out.fixed : out.not_run).push(ref);
  }
  const order = (x: CauseRef, y: CauseRef): number =>
    (x.level === y.level ? 0 : x.level === 'MUST' ? -1 : 1) ||
    Math.max(y.checks_before, y.checks_after) - Math.max(x.checks_before, x.checks_after) ||
    x.id.localeCompare(y.id);
  for (const list of Object.values(out)) list.sort(order);
  return out;
}

function loadLineChanges(a: ConformanceReport, b: ConformanceReport): Pick<ReportDiff, 'load_fixed' | 'load_broken'> {
  const key = (profile: string, name: string): string => `${profile}\u0000${name}`;
  const before = new Map<string, boolean>();
  for (const p of loadOutcome(a.load)?.profiles ?? [])
    for (const l of p.lines) before.set(key(p.profile, l.name), l.passed);
  const out: Pick<ReportDiff, 'load_fixed' | 'load_broken'> = { load_fixed: [], load_broken: [] };
  for (const p of loadOutcome(b.load)?.profiles ?? [])
    for (const l of p.lines) {
      const was = before.get(key(p.profile, l.name));
      if (was === undefined || was === l.passed) continue;
      const change: LoadLineChange = {
        profile: p.profile,
        name: l.name,
        before: was ? 'passed' : 'failed',
        after: l.passed ? 'passed' : 'failed',
        expected: l.expected,
        actual: l.actual,
      };
      (l.passed ? out.load_fixed : out.load_broken).push(change);
    }
  return out;
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
    causes: causeChanges(a, b),
    ...loadLineChanges(a, b),
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

/** Checks only one report ran are listed one by one up to this many; more read as one line. */
const LISTED_ALONE = 20;

function causeLine(mark: string, r: CauseRef): string {
  const counts =
    r.checks_before && r.checks_after
      ? `${r.checks_before} → ${r.checks_after} checks`
      : `${Math.max(r.checks_before, r.checks_after)} check${Math.max(r.checks_before, r.checks_after) === 1 ? '' : 's'}`;
  return `  ${mark} ${r.level.padEnd(6)} ${r.cause} (${counts})  ${r.id}`;
}

/** Plain text for a terminal: the two runs, the causes, then each non-empty group with its count. */
export function formatDiff(diff: ReportDiff): string {
  const out: string[] = [];
  out.push(`A: ${diff.a.id}  ${diff.a.started_at}  ${diff.a.target}`, `   ${diff.a.headline}`);
  out.push(`B: ${diff.b.id}  ${diff.b.started_at}  ${diff.b.target}`, `   ${diff.b.headline}`);
  if (diff.a.verdict !== diff.b.verdict) out.push(`verdict changed: ${diff.a.verdict} → ${diff.b.verdict}`);
  const c = diff.causes;
  out.push(
    `causes: fixed ${c.fixed.length}, new ${c.new.length}, unchanged ${c.unchanged.length}${c.not_run.length ? `, not run in B ${c.not_run.length}` : ''}`,
  );
  out.push(
    `checks: fixed ${diff.fixed.length}, broken ${diff.broken.length}, still failing ${diff.still_failing.length}, new ${diff.new_checks.length}, removed ${diff.removed_checks.length}, other changes ${diff.other_changes.length}`,
  );
  if (diff.load_fixed.length + diff.load_broken.length)
    out.push(`load thresholds and invariants: fixed ${diff.load_fixed.length}, broken ${diff.load_broken.length}`);
  const causeGroup = (title: string, mark: string, list: CauseRef[]): void => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const r of list) out.push(causeLine(mark, r));
  };
  causeGroup('new causes', '✗', c.new);
  causeGroup('fixed causes', '✓', c.fixed);
  causeGroup('unchanged causes', '·', c.unchanged);
  causeGroup('causes whose checks B did not run', '-', c.not_run);
  const loadGroup = (title: string, mark: string, list: LoadLineChange[]): void => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const l of list)
      out.push(`  ${mark} ${l.profile}: ${l.name} (${l.before} → ${l.after}; expected ${l.expected}, got ${l.actual})`);
  };
  loadGroup('load: broken', '✗', diff.load_broken);
  loadGroup('load: fixed', '✓', diff.load_fixed);
  const group = (title: string, mark: string, list: CheckRef[], transition = false): void => {
    if (list.length === 0) return;
    out.push('', `${title} (${list.length}):`);
    for (const r of list) out.push(line(mark, r, transition));
  };
  // Checks only one report ran (a partial run against a full one): one line, not one per check.
  const ranOnce = (title: string, list: CheckRef[]): void => {
    if (list.length === 0) return;
    if (list.length <= LISTED_ALONE) return group(title, title.startsWith('new') ? '+' : '-', list);
    const classes = [...new Set(list.map((r) => r.class))].sort();
    out.push(
      '',
      `${title} (${list.length}): in ${classes.length} class${classes.length === 1 ? '' : 'es'}: ${classes.join(', ')} (--json lists them)`,
    );
  };
  group('broken', '✗', diff.broken, true);
  group('fixed', '✓', diff.fixed, true);
  group('still failing', '·', diff.still_failing);
  ranOnce('new checks (only in B)', diff.new_checks);
  ranOnce('removed checks (only in A: not run in B)', diff.removed_checks);
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
