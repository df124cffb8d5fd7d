/**
 * `--rerun-unanswered N`: a check that got no answer is run again, whole, at the end of the run
 * (Playwright's retries are the model, limited to this case). Which checks, and how a re-run's
 * results join the run's report. Pure; no I/O (the CLI runs the re-runs).
 *
 * What is run again: every check that failed as `environment` (no answer: connection refused,
 * reset, timed out; and also a 429 of the run's own pacing, or a prerequisite that got no usable
 * answer), except a prerequisite the run was not given (no second account, no --allow-charges:
 * as missing the next time). Every such check is unjudged, so a verdict needs it judged; a
 * re-run costs only these checks, and at the end of the run the request budget has the most
 * room (the other checks are done, their minute windows have passed). A check creates its own
 * resources under new names (ctx.name draws a fresh tail), so running it whole again is safe
 * where resending a POST is not. A flow step runs again with its flow: the step, and the steps
 * after it that were skipped for it (the selection brings the steps before them as setup).
 * `cloudcheck-error`s are not run again: cloudcheck's own failure is no less so the next time.
 */
import type { CheckResult, EarlierAttempt } from '../model/finding.ts';
import type { OperationCoverage } from '../model/report.ts';
import type { DraftReport } from './finalise.ts';
import { distinctLeaks, mergeCoverage, mergeThirdParty } from './merge.ts';
import { withDependents } from './verdict.ts';

/** A failed check that got no answer, which running it again may judge. */
export function wantsRerun(check: CheckResult): boolean {
  if (check.status !== 'failed' || check.classification !== 'environment') return false;
  // A prerequisite the run was not given is missing the next time too (read from the failure's
  // data; reports written before failures were typed say it in the message only).
  if (check.failure) return !(check.failure.kind === 'error' && check.failure.subject === 'PrerequisiteMissingError');
  return !/^PrerequisiteMissingError:/.test(check.message ?? '');
}

/**
 * The ids to run again: each check that wants a re-run, the flow steps skipped after one, and
 * the selected checks that never started (a worker that died).
 */
export function rerunIds(checks: readonly CheckResult[]): string[] {
  return [...withDependents(checks, wantsRerun)];
}

function earlier(check: CheckResult): EarlierAttempt[] {
  const attempt: EarlierAttempt = {
    status: check.status,
    ...(check.classification ? { classification: check.classification } : {}),
    ...(check.message ? { message: check.message.split('\n')[0]!.slice(0, 500) } : {}),
    ...(check.duration_ms !== undefined ? { duration_ms: check.duration_ms } : {}),
  };
  return [...(check.earlier_attempts ?? []), attempt];
}

/** Coverage after a re-run: the statuses it saw join the run's, and the replaced checks' counts move. */
function coverageAfter(
  first: readonly OperationCoverage[],
  again: readonly OperationCoverage[],
  replaced: ReadonlyArray<[before: CheckResult, after: CheckResult]>,
): OperationCoverage[] {
  // The re-run's checks are counted already (as the attempts they replace): only its statuses join.
  const seen = again.map((o) => ({ operation: o.operation, checks: 0, statuses_seen: o.statuses_seen }));
  const rows = mergeCoverage([first, seen]);
  const byOperation = new Map(rows.map((o) => [o.operation, o]));
  for (const [before, after] of replaced) {
    const row = before.operation ? byOperation.get(before.operation) : undefined;
    if (!row || row.passed === undefined || row.failed === undefined) continue;
    for (const [check, step] of [
      [before, -1],
      [after, 1],
    ] as const) {
      if (check.status === 'passed') row.passed += step;
      if (check.status === 'failed') row.failed += step;
    }
  }
  return rows;
}

/**
 * The run's draft with a re-run's results in place of the checks it ran again (`ids`), each
 * carrying the attempt that gave it and what the earlier ones gave. A flow step that ran again as
 * setup and failed this time is taken too: the steps after it were not judged for it.
 */
export function withRerun(
  first: DraftReport,
  again: DraftReport,
  ids: readonly string[],
  attempt: number,
): DraftReport {
  const wanted = new Set(ids);
  const flows = new Set(first.checks.filter((c) => wanted.has(c.id) && c.flow).map((c) => c.flow!));
  const results = new Map(again.checks.map((c) => [c.id, c]));
  const replaced: Array<[CheckResult, CheckResult]> = [];
  const checks = first.checks.map((before) => {
    const after = results.get(before.id);
    const takes =
      after !== undefined &&
      (wanted.has(before.id) || (after.status === 'failed' && before.flow !== undefined && flows.has(before.flow)));
    if (!takes) return before;
    const joined: CheckResult = { ...after, attempt, earlier_attempts: earlier(before) };
    replaced.push([before, joined]);
    return joined;
  });
  const waits = { ...first.waits };
  for (const [cls, ms] of Object.entries(again.waits ?? {}) as Array<[keyof typeof waits, number]>)
    waits[cls] = (waits[cls] ?? 0) + ms;
  const kept = distinctLeaks([first.kept, again.kept]);
  const thirdParty = mergeThirdParty([first.third_party_output, again.third_party_output]);
  return {
    ...first,
    run: { ...first.run, finished_at: again.run.finished_at, reruns: attempt - 1 },
    checks,
    coverage: { operations: coverageAfter(first.coverage.operations, again.coverage.operations, replaced) },
    leaks: distinctLeaks([first.leaks, again.leaks]),
    ...(kept.length ? { kept } : {}),
    waits,
    ...(thirdParty.length ? { third_party_output: thirdParty } : {}),
  };
}

/**
 * Runs the checks that got no answer again, up to `times` times (each attempt a runner of its own,
 * `runAgain`; null when it could not run: interrupted, no report), and joins each result in.
 */
export async function rerunUnanswered(
  first: DraftReport,
  times: number,
  runAgain: (ids: string[], attempt: number) => Promise<DraftReport | null>,
  say: (line: string) => void,
): Promise<DraftReport> {
  // A target that answered no check (only the probe) gives a re-run nothing either: it is unusable from here.
  if (!first.checks.some((c) => c.status === 'passed')) return first;
  let draft = first;
  for (let attempt = 2; attempt <= times + 1; attempt++) {
    const ids = rerunIds(draft.checks);
    if (ids.length === 0) break;
    const requirements = [...new Set(draft.checks.filter((c) => ids.includes(c.id)).map((c) => c.requirement))];
    say(
      `cloudcheck: ${ids.length} check${ids.length === 1 ? '' : 's'} got no answer (${requirements.slice(0, 6).join(', ')}${requirements.length > 6 ? ', …' : ''}): running ${ids.length === 1 ? 'it' : 'them'} again, attempt ${attempt} of ${times + 1} (--rerun-unanswered)`,
    );
    const again = await runAgain(ids, attempt);
    if (!again) break;
    draft = withRerun(draft, again, ids, attempt);
  }
  return draft;
}
