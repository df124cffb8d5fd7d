/**
 * What the page shows, derived from a report: failures in reading order, requirements with an
 * aggregated status, counts per class and level. Pure; the section renderers only format this.
 */
import { classificationOf } from '../gate.ts';
import { classCounts, emptyCounts, type StatusCounts } from '../class-counts.ts';
import { CONFORMANCE_CLASSES, type ConformanceClass, type Level } from '../../../spec/classes.ts';
import type { CheckResult } from '../../model/finding.ts';
import type { ConformanceReport, LevelCounts } from '../../model/report.ts';
import type { Requirement } from '../../../spec/requirement.ts';

/** Reading order of failures: what the target got wrong first, the run's own problems last. */
export type FailureGroup = 'must' | 'should' | 'environment' | 'cloudcheck';

export function failureGroup(check: CheckResult): FailureGroup {
  if (classificationOf(check) === 'environment') return 'environment';
  if (classificationOf(check) === 'cloudcheck-error') return 'cloudcheck';
  return check.level === 'MUST' ? 'must' : 'should';
}

/** A requirement's status over its checks: any target failure wins, then the run's own problems. */
export type RequirementStatus = 'failed' | 'unchecked' | 'environment' | 'passed' | 'skipped';

export interface RequirementRow {
  id: string;
  level: Level;
  class: ConformanceClass;
  statement: string;
  source: string | null;
  assumption: string | null;
  /** False when the catalogue given to the writer has no such id. */
  catalogued: boolean;
  status: RequirementStatus;
  checks: CheckResult[];
}

/** A failure the target caused (a defect or a deviation), not the run's or cloudcheck's own. */
function isTargetFailure(check: CheckResult): boolean {
  const c = classificationOf(check);
  return c === 'defect' || c === 'spec-gap';
}

export function aggregateStatus(checks: readonly CheckResult[]): RequirementStatus {
  const failed = checks.filter((c) => c.status === 'failed');
  if (failed.some((c) => isTargetFailure(c))) return 'failed';
  if (failed.some((c) => classificationOf(c) === 'cloudcheck-error')) return 'unchecked';
  if (failed.length > 0) return 'environment';
  if (checks.some((c) => c.status === 'passed')) return 'passed';
  return 'skipped';
}

const LEVEL_ORDER: Record<Level, number> = { MUST: 0, SHOULD: 1 };
const STATUS_ORDER: Record<RequirementStatus, number> = {
  failed: 0,
  unchecked: 1,
  environment: 2,
  passed: 3,
  skipped: 4,
};

export function requirementRows(
  checks: readonly CheckResult[],
  catalogue: readonly Requirement[] | undefined,
): RequirementRow[] {
  const byId = new Map((catalogue ?? []).map((r) => [r.id, r]));
  const grouped = new Map<string, CheckResult[]>();
  for (const c of checks) grouped.set(c.requirement, [...(grouped.get(c.requirement) ?? []), c]);
  const rows: RequirementRow[] = [];
  for (const [id, list] of grouped) {
    const req = byId.get(id);
    const first = list[0]!;
    rows.push({
      id,
      level: req?.level ?? first.level,
      class: req?.class ?? first.class,
      statement: req?.statement ?? first.title,
      source: req?.source ?? null,
      assumption: req?.assumption ?? null,
      catalogued: req !== undefined,
      status: aggregateStatus(list),
      checks: list,
    });
  }
  return rows.sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
      a.id.localeCompare(b.id),
  );
}

export interface ClassRow {
  name: ConformanceClass | string;
  /** Whether the run claimed (ran) this class; unclaimed classes are skipped, not failed. */
  claimed: boolean;
  must: LevelCounts;
  should: LevelCounts;
  environment: number;
  /** Failures in cloudcheck's own code: not the target's. */
  cloudcheck: number;
  /** The class's checks by status (class-counts.ts), as every other output counts them. */
  counts: StatusCounts;
  /** Milliseconds the class's checks waited for asynchronous changes of the target. */
  waitedMs: number;
}

function levelCounts(checks: readonly CheckResult[]): LevelCounts {
  return {
    passed: checks.filter((c) => c.status === 'passed').length,
    failed: checks.filter((c) => c.status === 'failed' && isTargetFailure(c)).length,
    skipped: checks.filter((c) => c.status === 'skipped').length,
  };
}

export function classRows(report: ConformanceReport): ClassRow[] {
  const claimed = new Set<string>(report.run.classes);
  const names = [...CONFORMANCE_CLASSES.filter((c) => claimed.has(c) || report.checks.some((k) => k.class === c))];
  for (const c of report.checks) if (!names.includes(c.class)) names.push(c.class);
  for (const c of CONFORMANCE_CLASSES) if (!names.includes(c)) names.push(c);
  const counts = classCounts(report.checks);
  return names.map((name) => {
    const list = report.checks.filter((c) => c.class === name);
    return {
      name,
      claimed: claimed.has(name),
      must: levelCounts(list.filter((c) => c.level === 'MUST')),
      should: levelCounts(list.filter((c) => c.level === 'SHOULD')),
      environment: list.filter((c) => c.status === 'failed' && classificationOf(c) === 'environment').length,
      cloudcheck: list.filter((c) => c.status === 'failed' && classificationOf(c) === 'cloudcheck-error').length,
      counts: counts.get(name) ?? emptyCounts(),
      waitedMs: report.waits?.[name] ?? 0,
    };
  });
}

export interface Failures {
  must: CheckResult[];
  should: CheckResult[];
  environment: CheckResult[];
  cloudcheck: CheckResult[];
}

export function failures(checks: readonly CheckResult[]): Failures {
  const out: Failures = { must: [], should: [], environment: [], cloudcheck: [] };
  for (const c of checks) if (c.status === 'failed') out[failureGroup(c)].push(c);
  const order = (a: CheckResult, b: CheckResult): number =>
    LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
    a.requirement.localeCompare(b.requirement) ||
    a.id.localeCompare(b.id);
  out.must.sort(order);
  out.should.sort(order);
  out.environment.sort(order);
  out.cloudcheck.sort(order);
  return out;
}

/** "5.4 s", "3 min 12 s", "1 h 02 min"; null when the times do not parse. */
export function formatDuration(startIso: string, endIso: string): string | null {
  const ms = Date.parse(endIso) - Date.parse(startIso);
  if (!Number.isFinite(ms) || ms < 0) return null;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** "2026-11-21 12:59:18 UTC": one fixed zone, so the page reads the same for everyone. */
export function formatTime(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  return `${new Date(t)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
}
