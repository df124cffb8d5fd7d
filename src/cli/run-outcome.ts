/**
 * How `cloudcheck run` ends: the exit code of its finished report, said in a line for each reason
 * (docs: "Verdict and exit codes"), the report of a run interrupted before its runner wrote one,
 * and the removal of its temp dir.
 *
 * Exit codes, first match: 130/143 interrupted (SIGINT/SIGTERM); 1 stopped by --max-failures, or a
 * failure that fails the gate (a MUST defect, a SHOULD deviation with --strict, not in the
 * baseline); 2 cloudcheck's own errors, a target that answered no check (only the probe), or an
 * inconclusive verdict not allowed (--allow-inconclusive); 1 a gate failed for another reason;
 * 0 the gate passed.
 */
import { rmSync } from 'node:fs';
import type { RunSettings } from '../harness/settings.ts';
import type { ConformanceReport } from '../model/report.ts';
import type { DraftReport } from '../report/finalise.ts';
import { cloudcheckErrors } from '../report/gate.ts';
import { listed } from '../report/verdict.ts';
import { err } from './output.ts';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function exitCodeOfRun(
  report: ConformanceReport,
  options: { interruptedExit: number | null; target: string },
): number {
  const s = report.summary;
  if (options.interruptedExit !== null) return options.interruptedExit;
  if (report.run.stopped_after_failures) {
    const n = report.run.stopped_after_failures;
    err(
      `cloudcheck run: stopped after ${plural(n, 'failure')} (--max-failures): the checks that did not run were not checked`,
    );
    return 1;
  }
  if ((s.gate?.new_failures ?? []).length > 0) return 1;
  // The suite's own failures never blame the target, but the requirements they stood for went
  // unchecked: a gate that passed on them would pass on no evidence.
  const suiteErrors = cloudcheckErrors(report.checks);
  if (suiteErrors.length > 0) {
    const reqs = [...new Set(suiteErrors.map((c) => c.requirement))];
    err(
      `cloudcheck could not check ${plural(reqs.length, 'requirement')} (${listed(reqs)}): ${plural(suiteErrors.length, 'cloudcheck error')}, listed with their stacks in the report. This is cloudcheck's failure, not the target's.`,
    );
    return 2;
  }
  const unjudged = s.unjudged;
  // A target that answered the probe and then nothing proved nothing, allowed or not: as unreachable.
  if (s.passed === 0 && (s.environment ?? 0) > 0) {
    err(
      `cloudcheck: no check passed and ${s.environment} failed for environment reasons: ${options.target} is unusable from here (see the report)`,
    );
    return 2;
  }
  if (unjudged && s.verdict === 'inconclusive' && !s.gate?.passed) {
    err(
      `cloudcheck run: inconclusive: ${unjudged.must_judged} of ${unjudged.must_total} MUST checks judged (${unjudged.reasons.join('; ')})`,
    );
    if (unjudged.requirements.length)
      err(`  MUST requirements not judged (${unjudged.requirements.length}): ${unjudged.requirements.join(', ')}`);
    err('  (--allow-inconclusive lets such a run pass the gate)');
    return 2;
  }
  return s.gate?.passed ? 0 : 1;
}

/** The report of a run interrupted before its runner wrote one: nothing was judged, and it says so. */
export function emptyDraft(settings: RunSettings, leaks: DraftReport['leaks']): DraftReport {
  return {
    schema_version: 1,
    run: {
      id: settings.runId,
      target: settings.target || 'unknown',
      s3_url: settings.s3Url,
      started_at: settings.startedAt ?? new Date().toISOString(),
      finished_at: new Date().toISOString(),
      seed: settings.seed,
      classes: settings.classes,
      strict: settings.strict,
      embedded: settings.embedded,
    },
    checks: [],
    coverage: { operations: [] },
    leaks,
  };
}

/**
 * Removes a run's temp dir. Retried: a process that still writes into it (a worker ending) makes
 * one removal fail with ENOTEMPTY; a dir that cannot go is said, never an internal error.
 */
export function removeTree(dir: string | null): void {
  if (!dir) return;
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (error) {
    err(`cloudcheck: could not remove ${dir}: ${(error as Error).message}`);
  }
}
