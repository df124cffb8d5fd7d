/**
 * Joins the reports of `--shard` runs into one. Shards do not overlap, so a check id seen twice
 * is an anomaly: the worse outcome is kept and a note says so. The summary (verdict, headline,
 * gate) is recomputed with the gate's own logic; load sections merge through the load module
 * (histograms summed, percentiles recomputed, never averaged). Pure; no I/O.
 */
import { classificationOf, isGateRelevant, summarize } from './gate.ts';
import { verdictOptionsOfRuns } from './verdict.ts';
import { CONFORMANCE_CLASSES, type ConformanceClass } from '../../spec/classes.ts';
import type { CheckResult } from '../model/finding.ts';
import type { LoadReport } from '../model/load.ts';
import type { ConformanceReport, Leak, OperationCoverage, ThirdPartyLine } from '../model/report.ts';

/** report.json additions a merged report carries (fields are only ever added to schema_version 1). */
export interface MergedRunFields {
  /** Run ids of the merged reports, in input order. */
  merged_from: string[];
  /** Anomalies found while merging, for people: duplicate checks, different targets, missing shards. */
  merge_notes: string[];
  /** The anomalies that make the merge incomplete (missing or duplicated shards, other targets...). */
  merge_problems?: string[];
  /** True when the merge was made with --allow-partial despite them. */
  partial?: boolean;
}

export interface MergeResult {
  report: ConformanceReport;
  notes: string[];
  /** What makes the merge incomplete (mergeProblems); the gate fails on them unless allowPartial. */
  problems: string[];
}

/** Worst first: a target failure beats a run problem, which beats a pass, which beats a skip. */
function severity(c: CheckResult): number {
  if (c.status === 'failed') {
    const cls = classificationOf(c);
    return cls === 'defect' ? 5 : cls === 'spec-gap' ? 4 : 3;
  }
  return c.status === 'passed' ? 2 : 1;
}

function mergeChecks(reports: readonly ConformanceReport[], notes: string[]): CheckResult[] {
  const byId = new Map<string, { check: CheckResult; from: string }>();
  const order: string[] = [];
  const sameOutcome: string[] = [];
  for (const r of reports) {
    for (const c of r.checks) {
      const seen = byId.get(c.id);
      if (!seen) {
        byId.set(c.id, { check: c, from: r.run.id });
        order.push(c.id);
        continue;
      }
      const keep = severity(c) > severity(seen.check) ? { check: c, from: r.run.id } : seen;
      if (severity(c) === severity(seen.check)) sameOutcome.push(c.id);
      else
        notes.push(
          `check ${c.id} appears in runs ${seen.from} (${seen.check.status}) and ${r.run.id} (${c.status}); kept the worse: ${keep.check.status} from ${keep.from}`,
        );
      byId.set(c.id, keep);
    }
  }
  if (sameOutcome.length) {
    const shown =
      sameOutcome.slice(0, 5).join(', ') + (sameOutcome.length > 5 ? `, and ${sameOutcome.length - 5} more` : '');
    notes.push(
      `${sameOutcome.length} check id${sameOutcome.length === 1 ? '' : 's'} appear in more than one report with the same outcome (shards should not overlap): ${shown}`,
    );
  }
  return order.map((id) => byId.get(id)!.check);
}

/** "4XX" covers 404; "default" covers anything; "404" covers 404 only. */
function statusCovers(pattern: string, status: number): boolean {
  if (pattern === 'default') return false;
  if (/^[1-5]XX$/i.test(pattern)) return Math.floor(status / 100) === Number(pattern[0]);
  return Number(pattern) === status;
}

export function mergeCoverage(lists: ReadonlyArray<readonly OperationCoverage[]>): OperationCoverage[] {
  const rows = new Map<
    string,
    {
      checks: number;
      passed: number;
      failed: number;
      hasCounts: boolean;
      seen: Set<number>;
      unexercised: Set<string> | null;
    }
  >();
  for (const list of lists) {
    for (const op of list) {
      const row = rows.get(op.operation) ?? {
        checks: 0,
        passed: 0,
        failed: 0,
        hasCounts: false,
        seen: new Set<number>(),
        unexercised: null,
      };
      row.checks += op.checks;
      if (op.passed !== undefined || op.failed !== undefined) row.hasCounts = true;
      row.passed += op.passed ?? 0;
      row.failed += op.failed ?? 0;
      for (const s of op.statuses_seen) row.seen.add(s);
      if (op.statuses_unexercised) {
        row.unexercised ??= new Set();
        for (const s of op.statuses_unexercised) row.unexercised.add(s);
      }
      rows.set(op.operation, row);
    }
  }
  const out: OperationCoverage[] = [];
  for (const [operation, row] of rows) {
    const seen = [...row.seen].sort((a, b) => a - b);
    const entry: OperationCoverage = { operation, checks: row.checks, statuses_seen: seen };
    // A status one shard did not exercise may have been seen by another.
    if (row.unexercised)
      entry.statuses_unexercised = [...row.unexercised].filter((p) => !seen.some((s) => statusCovers(p, s)));
    if (row.hasCounts) {
      entry.passed = row.passed;
      entry.failed = row.failed;
    }
    out.push(entry);
  }
  const pathOf = (op: string): string => op.split(' ')[1] ?? op;
  return out.sort(
    (a, b) => pathOf(a.operation).localeCompare(pathOf(b.operation)) || a.operation.localeCompare(b.operation),
  );
}

/** Leaks of several runs, each resource once. */
export function distinctLeaks(lists: ReadonlyArray<readonly Leak[] | undefined>): Leak[] {
  const seen = new Set<string>();
  const out: Leak[] = [];
  for (const l of lists.flatMap((list) => list ?? [])) {
    const key = `${l.kind}\u0000${l.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(l);
  }
  return out;
}

/**
 * The load sections of the reports as one. Merged by the load module when the command passes its
 * merge (histograms summed); without it, or when it fails, the profiles are kept side by side in
 * one section (each with its own figures), and a note says so.
 */
function mergeLoad(
  reports: readonly ConformanceReport[],
  notes: string[],
  mergeSections: MergeOptions['mergeLoad'],
): LoadReport | undefined {
  const loads = reports.map((r) => r.load).filter((l): l is LoadReport => l !== undefined);
  if (loads.length <= 1) return loads[0];
  if (mergeSections) {
    try {
      return mergeSections(loads);
    } catch (error) {
      notes.push(
        `load sections could not be merged (${(error as Error).message}); their profiles are kept side by side`,
      );
    }
  } else notes.push('several load sections and no merge for them; their profiles are kept side by side');
  const profiles = loads.flatMap((l) => l.profiles);
  return {
    schema_version: 1,
    target: loads[0]!.target,
    started_at: loads.map((l) => l.started_at).sort()[0]!,
    finished_at: loads
      .map((l) => l.finished_at)
      .sort()
      .at(-1)!,
    passed: loads.every((l) => l.passed),
    profiles,
  };
}

/** `{index, total}` (or `"2/3"` from older reports) → [2, 3]. */
function parseShard(shard: ConformanceReport['run']['shard']): [number, number] | null {
  if (shard && typeof shard === 'object') return [shard.index, shard.total];
  const m = /^(\d+)\/(\d+)$/.exec(shard ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

const shardText = (r: ConformanceReport): string => {
  const s = parseShard(r.run.shard);
  return s ? `${s[0]}/${s[1]}` : 'unsharded';
};

/**
 * What makes a merge incomplete or a mix of unrelated runs: shards missing or duplicated, shards of
 * different splits, targets, cloudcheck versions or selections. Each one fails the merged gate
 * unless the merge is told `--allow-partial`.
 */
export function mergeProblems(reports: readonly ConformanceReport[]): string[] {
  const problems: string[] = [];
  const distinct = (values: Array<string | null | undefined>): string[] => [
    ...new Set(values.map((v) => v ?? 'unknown')),
  ];
  const targets = distinct(reports.map((r) => r.run.target));
  if (targets.length > 1) problems.push(`the reports ran against different targets: ${targets.join(', ')}`);
  const versions = distinct(reports.map((r) => r.run.cloudcheck_version).filter((v) => v !== undefined));
  if (versions.length > 1) problems.push(`the reports come from different cloudcheck versions: ${versions.join(', ')}`);
  const shards = reports.map((r) => parseShard(r.run.shard));
  if (shards.every((s) => s === null)) return problems;
  const totals = new Set(shards.map((s) => (s ? s[1] : 0)));
  if (totals.size > 1) {
    problems.push(`the shards come from different splits: ${reports.map(shardText).join(', ')}`);
    return problems;
  }
  const selections = distinct(reports.map((r) => (r.run.selection ? JSON.stringify(r.run.selection) : undefined)));
  if (selections.length > 1) problems.push(`the shards selected different checks: ${selections.join(' vs ')}`);
  const total = [...totals][0]!;
  const counts = new Map<number, number>();
  for (const s of shards) if (s) counts.set(s[0], (counts.get(s[0]) ?? 0) + 1);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !counts.has(i));
  if (missing.length)
    problems.push(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${total}`).join(', ')} missing: the merged report covers only part of the suite`,
    );
  const twice = [...counts].filter(([, n]) => n > 1).map(([i]) => `${i}/${total}`);
  if (twice.length) problems.push(`shard${twice.length > 1 ? 's' : ''} ${twice.join(', ')} given more than once`);
  return problems;
}

export interface MergeOptions {
  /** Merge an incomplete or mixed set anyway: the gate is judged on what is there, and says so. */
  allowPartial?: boolean;
  /**
   * How several `load` sections become one (the load tool's merge: histograms summed, never
   * percentiles averaged). Given by the caller, so the report layer needs nothing of load/;
   * without it, several sections are kept side by side.
   */
  mergeLoad?: (sections: LoadReport[]) => LoadReport;
}

export function mergeReportsWithNotes(reports: readonly ConformanceReport[], options: MergeOptions = {}): MergeResult {
  const first = reports[0];
  if (!first) throw new Error('mergeReports: no report to merge');
  const notes: string[] = [];
  const problems = mergeProblems(reports);
  const seeds = [...new Set(reports.map((r) => r.run.seed))];
  if (seeds.length > 1) notes.push(`the reports used different seeds: ${seeds.join(', ')}; the first is shown`);

  const checks = mergeChecks(reports, notes);
  const strict = reports.some((r) => r.run.strict === true);
  // The baseline itself is not in report.json, but each shard's gate lists the failures it did
  // NOT excuse: the gate-relevant failures missing from those lists are the ones it excused.
  const baselineSources = [...new Set(reports.map((r) => r.summary.gate?.baseline).filter((b): b is string => !!b))];
  let baseline: Set<string> | null = null;
  if (baselineSources.length > 0) {
    const fresh = new Set(reports.flatMap((r) => r.summary.gate?.new_failures ?? []));
    baseline = new Set(checks.filter((c) => isGateRelevant(c, strict) && !fresh.has(c.id)).map((c) => c.id));
  }
  const verdictOptions = verdictOptionsOfRuns(reports.map((r) => r.run));
  const summary = summarize(checks, {
    strict,
    baseline,
    baselineSource: baselineSources.join(', ') || null,
    ...verdictOptions,
  });
  if (problems.length > 0 && summary.gate) {
    // An incomplete merge proves nothing about what is missing: the gate fails unless the user
    // accepted a partial verdict, and both say why.
    const why = problems.join('; ');
    if (options.allowPartial) {
      summary.gate = { ...summary.gate, reason: `${summary.gate.reason} (partial merge, --allow-partial: ${why})` };
      summary.headline = `${summary.headline ?? summary.verdict} (partial: ${why})`;
    } else {
      summary.gate = { ...summary.gate, passed: false, reason: `incomplete merge: ${why}` };
      summary.headline = `${summary.headline ?? summary.verdict} (incomplete merge)`;
    }
  }

  const classes = new Set<string>(reports.flatMap((r) => r.run.classes));
  const orderedClasses: ConformanceClass[] = CONFORMANCE_CLASSES.filter((c) => classes.has(c));
  const started = reports.map((r) => r.run.started_at).sort()[0]!;
  const finished = reports
    .map((r) => r.run.finished_at)
    .sort()
    .at(-1)!;
  const load = mergeLoad(reports, notes, options.mergeLoad);

  const run: ConformanceReport['run'] & MergedRunFields = {
    ...first.run,
    id: `merged-${first.run.id}`,
    started_at: started,
    finished_at: finished,
    classes: orderedClasses,
    strict,
    shard: null,
    embedded: reports.every((r) => r.run.embedded === true) ? true : first.run.embedded,
    interrupted: verdictOptions.interrupted ? true : undefined,
    allow_inconclusive: verdictOptions.allowInconclusive ? true : undefined,
    classes_named: verdictOptions.claimedClasses ? true : undefined,
    merged_from: reports.map((r) => r.run.id),
    merge_notes: [...problems, ...notes],
    ...(problems.length ? { merge_problems: problems, partial: options.allowPartial === true } : {}),
  };
  const report: ConformanceReport = {
    schema_version: 1,
    run,
    summary,
    checks,
    coverage: { operations: mergeCoverage(reports.map((r) => r.coverage.operations)) },
    leaks: distinctLeaks(reports.map((r) => r.leaks)),
  };
  if (load !== undefined) report.load = load;
  const thirdParty = mergeThirdParty(reports.map((r) => r.third_party_output));
  if (thirdParty.length) report.third_party_output = thirdParty;
  return { report, notes: [...problems, ...notes], problems };
}

/** The merged report; anomalies are in `run.merge_notes` (see mergeReportsWithNotes). */
export function mergeReports(reports: ConformanceReport[], options: MergeOptions = {}): ConformanceReport {
  return mergeReportsWithNotes(reports, options).report;
}

/** Third-party output of several runs: each distinct line once, counts summed. */
export function mergeThirdParty(lists: ReadonlyArray<readonly ThirdPartyLine[] | undefined>): ThirdPartyLine[] {
  const lines = new Map<string, ThirdPartyLine>();
  for (const line of lists.flatMap((list) => list ?? [])) {
    const key = `${line.stream}\u0000${line.text}`;
    const seen = lines.get(key);
    if (seen) seen.count += line.count;
    else lines.set(key, { ...line });
  }
  return [...lines.values()];
}
