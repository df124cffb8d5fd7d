/**
 * The verdict of a run, as conformance testing names them (pass, fail, inconclusive): nothing
 * passes on no evidence. Pure; no I/O.
 *
 * - `non-conformant`: a MUST check failed on the target's answer (a defect), whatever else
 *   stayed unjudged.
 * - `inconclusive`: no defect, but MUST checks stayed unjudged: they got no answer (after the
 *   re-runs), failed in cloudcheck's own code, never ran (an interrupted run), or were skipped
 *   because such a flow step before them got no verdict; or no selected check ran at all; or a
 *   class named with `--classes` could not run at all (its checks all skipped: no `--s3-url`, no
 *   `--alt-api-key`). The gate does not pass it (exit 2) unless the user allows it
 *   (`--allow-inconclusive`), and never when the run was interrupted.
 * - `conformant`: every selected MUST check judged, none failed.
 *
 * A check skipped for a reason of its own (a prerequisite option the run was not given, a legal
 * choice of the target that leaves nothing to check) is neither judged nor unjudged: it is
 * skipped, as the report shows. Classes left to the default (every class) that could not run are
 * not claimed: the headline names them, the verdict does not depend on them.
 */
import type { CheckResult } from '../model/finding.ts';
import type { ConformanceReport, Unjudged, Verdict } from '../model/report.ts';

export interface VerdictOptions {
  /** The run was stopped by a signal: it never passes the gate. */
  interrupted?: boolean;
  /** Classes the user named (`--classes`); null or absent: the default, every class. */
  claimedClasses?: readonly string[] | null;
  /** `--allow-inconclusive`: unjudged MUST checks do not fail the gate (an interruption still does). */
  allowInconclusive?: boolean;
}

/** What a check skipped after a failed flow step says (check.ts): the step it names. */
const FLOW_SKIP = /^not run: the flow's step (\S+) failed before it/;
/** What the reporter says of a selected check that never started (the run ended first). */
const NEVER_RAN = 'not run';

/** A failed check whose failure says nothing about the target: no answer, or cloudcheck's own error. */
export function gotNoVerdict(check: CheckResult): boolean {
  return (
    check.status === 'failed' && (check.classification === 'environment' || check.classification === 'cloudcheck-error')
  );
}

/**
 * The checks `cause` picks, with what they left unjudged: the steps of their flows skipped after
 * them (by the flow's id, or by the step the skip message names), and the selected checks that
 * never started.
 */
export function withDependents(checks: readonly CheckResult[], cause: (check: CheckResult) => boolean): Set<string> {
  const ids = new Set<string>();
  const flowsCut = new Set<string>();
  for (const c of checks) {
    if (cause(c)) {
      ids.add(c.id);
      if (c.flow) flowsCut.add(c.flow);
      continue;
    }
    if (c.status !== 'skipped') continue;
    // The step the skip names: as data, or in the words of reports written before it was data.
    const step = c.skipped_after ?? FLOW_SKIP.exec(c.message ?? '')?.[1];
    if (c.message === NEVER_RAN || (step !== undefined && ids.has(step)) || (c.flow && flowsCut.has(c.flow)))
      ids.add(c.id);
  }
  return ids;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The reasons the checks of a list were skipped, most frequent first: `needs X (12)`. */
function skipReasons(checks: readonly CheckResult[]): string {
  const counts = new Map<string, number>();
  for (const c of checks) {
    const reason = c.message ?? 'skipped';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([reason, n]) => `${reason} (${n})`)
    .join('; ');
}

/** The MUST checks a run could not judge and why, or null when it judged every one it selected. */
export function unjudgedOf(checks: readonly CheckResult[], options: VerdictOptions = {}): Unjudged | null {
  const must = checks.filter((c) => c.level === 'MUST');
  const without = withDependents(checks, gotNoVerdict);
  const unjudged = new Set(must.filter((c) => without.has(c.id)).map((c) => c.id));
  const reasons: string[] = [];
  if (options.interrupted) reasons.push('the run was interrupted');
  const ran = (list: readonly CheckResult[]): boolean => list.some((c) => c.status !== 'skipped');
  if (checks.length > 0 && !ran(checks)) {
    reasons.push(`no selected check ran: ${skipReasons(checks)}`);
    for (const c of must) unjudged.add(c.id);
  } else {
    for (const cls of options.claimedClasses ?? []) {
      const ofClass = checks.filter((c) => c.class === cls);
      if (ofClass.length === 0 || ran(ofClass)) continue;
      reasons.push(`class ${cls} could not run: ${skipReasons(ofClass)}`);
      for (const c of ofClass) if (c.level === 'MUST') unjudged.add(c.id);
    }
  }
  const noAnswer = must.filter((c) => unjudged.has(c.id) && c.status === 'failed');
  const environment = noAnswer.filter((c) => c.classification === 'environment').length;
  const ownErrors = noAnswer.length - environment;
  const reruns = Math.max(0, ...must.map((c) => (c.attempt ?? 1) - 1));
  if (environment)
    reasons.push(
      `${plural(environment, 'MUST check')} got no answer${reruns ? ` (after ${plural(reruns, 're-run')})` : ''}`,
    );
  if (ownErrors) reasons.push(`${plural(ownErrors, 'MUST check')} failed in cloudcheck's own code`);
  const cut = must.filter((c) => unjudged.has(c.id) && c.status === 'skipped' && c.message !== NEVER_RAN).length;
  if (cut && !reasons.some((r) => r.startsWith('no selected') || r.startsWith('class ')))
    reasons.push(`${plural(cut, 'MUST flow step')} did not run after a step without a verdict`);
  const neverRan = must.filter((c) => unjudged.has(c.id) && c.message === NEVER_RAN).length;
  if (neverRan && !options.interrupted) reasons.push(`${plural(neverRan, 'MUST check')} never ran`);
  if (unjudged.size === 0 && reasons.length === 0) return null;
  const judged = must.filter((c) => !unjudged.has(c.id) && c.status !== 'skipped').length;
  return {
    must_judged: judged,
    must_total: must.length,
    checks: must.filter((c) => unjudged.has(c.id)).map((c) => c.id),
    requirements: [...new Set(must.filter((c) => unjudged.has(c.id)).map((c) => c.requirement))].sort(),
    reasons,
  };
}

export function verdictOf(mustDefects: number, unjudged: Unjudged | null): Verdict {
  if (mustDefects > 0) return 'non-conformant';
  return unjudged ? 'inconclusive' : 'conformant';
}

/** `A, B, C, +9 more`: the first few of a list, and how many more. */
export function listed(ids: readonly string[], shown = 8): string {
  const head = ids.slice(0, shown).join(', ');
  return ids.length > shown ? `${head}, +${ids.length - shown} more` : head;
}

/** The start of an inconclusive run's headline: how many MUST checks were judged, and what was not. */
export function inconclusiveHeadline(unjudged: Unjudged): string {
  const parts = [`inconclusive: ${unjudged.must_judged} of ${unjudged.must_total} MUST checks judged`];
  if (unjudged.requirements.length)
    parts.push(`not judged: ${plural(unjudged.requirements.length, 'requirement')} (${listed(unjudged.requirements)})`);
  const classes = unjudged.reasons.filter((r) => r.startsWith('class ') || r.startsWith('no selected'));
  return [...parts, ...classes].join('; ');
}

/** The gate of a run with unjudged MUST checks: it does not pass unless allowed, and never when interrupted. */
export function gateWithUnjudged<G extends { passed: boolean; reason: string }>(
  gate: G,
  unjudged: Unjudged | null,
  options: VerdictOptions,
): G {
  if (options.interrupted) return { ...gate, passed: false, reason: `interrupted; ${gate.reason}` };
  if (!unjudged || !gate.passed) return gate;
  const why = unjudged.reasons.join('; ');
  const what = unjudged.checks.length ? `${plural(unjudged.checks.length, 'MUST check')} not judged (${why})` : why;
  return options.allowInconclusive
    ? { ...gate, reason: `${gate.reason}; ${what}, allowed by --allow-inconclusive` }
    : { ...gate, passed: false, reason: `inconclusive: ${gate.reason}, but ${what}` };
}

/**
 * The verdict's options of reports joined into one (`report merge`): interrupted if any was,
 * allowed only if all were, and the classes any of them named.
 */
export function verdictOptionsOfRuns(runs: ReadonlyArray<ConformanceReport['run']>): VerdictOptions {
  const named = runs.filter((r) => r.classes_named === true);
  return {
    interrupted: runs.some((r) => r.interrupted === true),
    allowInconclusive: runs.length > 0 && runs.every((r) => r.allow_inconclusive === true),
    claimedClasses: named.length ? [...new Set(named.flatMap((r) => r.classes))] : null,
  };
}
