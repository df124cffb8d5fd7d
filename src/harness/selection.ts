/**
 * Which checks a run selects (`--classes`, `--grep`, `--grep-invert`), decided where checks are
 * defined (check.ts) rather than by Playwright's own filters, for two reasons:
 *
 * - a flow step needs the steps before it (a serial describe runs only the selected tests, so
 *   `--grep` of one step ran it without the steps that create its state, and the suite blamed the
 *   target for its own `undefined`). Here a flow with any selected step is defined up to its last
 *   selected step; the earlier steps run as setup (annotated, not reported when they pass);
 * - a check's class is its requirement's class (spec/requirements.yaml): `--classes auth` selects
 *   the generated auth checks of every operation, wherever they are defined.
 *
 * Sharding stays Playwright's: it never splits a serial describe, so a flow stays whole in one shard.
 */
import type { ConformanceClass } from '../../spec/classes.ts';
import type { RunSettings } from './settings.ts';

export interface Selection {
  /** null: every class. */
  classes: ReadonlySet<string> | null;
  grep: RegExp | null;
  grepInvert: RegExp | null;
  /** `--last-failed`: only these check ids (an id ending in `*` is a prefix); null: any. */
  ids?: ReadonlySet<string> | null;
}

/** What a selection looks at: the text Playwright's own --grep would match, and the class. */
export interface Candidate {
  /** Suite file relative to suites/ (`flows/billing.spec.ts`). */
  file: string;
  /** `[flow] VPS lifecycle` for flow steps. */
  describe: string | null;
  /** `[REQ-ID] title`. */
  title: string;
  tags: readonly string[];
  class: ConformanceClass;
  /** The check id (absent in indexes written before ids were recorded: such an index is never used for `ids`). */
  id?: string;
}

/**
 * A pattern as Playwright's --grep reads one: `/source/flags`, or a plain case-insensitive
 * regular expression. A pattern that does not compile is a usage error, said by the caller.
 */
export function parsePattern(pattern: string): RegExp {
  const literal = /^\/(.*)\/([imsu]*)$/s.exec(pattern);
  return literal ? new RegExp(literal[1]!, literal[2]) : new RegExp(pattern, 'i');
}

export const NO_SELECTION: Selection = { classes: null, grep: null, grepInvert: null };

/**
 * The selection of a run `cloudcheck run` drives. Run directly, Playwright's projects and its
 * own --grep select (playwright.config.ts), and every definition is made.
 */
export function selectionOf(settings: Pick<RunSettings, 'driven' | 'classes' | 'selection'>): Selection {
  if (!settings.driven) return NO_SELECTION;
  const { grep, grepInvert, onlyIds } = settings.selection;
  return {
    classes: new Set(settings.classes),
    grep: grep ? parsePattern(grep) : null,
    grepInvert: grepInvert ? parsePattern(grepInvert) : null,
    ids: onlyIds ? new Set(onlyIds) : null,
  };
}

/** The text a pattern is matched against, as Playwright's --grep matches a test's. */
function textOf(candidate: Candidate): string {
  return [candidate.file, candidate.describe ?? '', candidate.title, ...candidate.tags].filter(Boolean).join(' ');
}

export function isSelected(selection: Selection, candidate: Candidate): boolean {
  if (selection.classes && !selection.classes.has(candidate.class)) return false;
  const text = textOf(candidate);
  if (selection.grep && !selection.grep.test(text)) return false;
  if (selection.grepInvert && selection.grepInvert.test(text)) return false;
  if (selection.ids && !idSelected(selection.ids, candidate.id)) return false;
  return true;
}

function idSelected(ids: ReadonlySet<string>, id: string | undefined): boolean {
  if (id === undefined) return false;
  if (ids.has(id)) return true;
  for (const entry of ids) if (entry.endsWith('*') && id.startsWith(entry.slice(0, -1))) return true;
  return false;
}

/**
 * The ids `--last-failed` selects from a report's checks: each failed check, and for a failed
 * run-wide rate-limit invariant (judged on the whole run's responses, not a check of its own) the
 * burst flows that exercise the limits.
 */
export function lastFailedIds(checks: ReadonlyArray<{ id: string; status: string }>): string[] {
  const failed = checks.filter((c) => c.status === 'failed').map((c) => c.id);
  return [...new Set(failed.map((id) => (id.startsWith('rate-limits.run.') ? 'rate-limits.burst-*' : id)))];
}

/**
 * The steps of a flow to define: none when no step is selected, else every step up to the last
 * selected one; `setup` marks the unselected ones among them (they run for their state only).
 */
export function planFlow(selected: readonly boolean[]): Array<{ index: number; setup: boolean }> {
  const last = selected.lastIndexOf(true);
  return selected.slice(0, last + 1).map((chosen, index) => ({ index, setup: !chosen }));
}

// ---------------------------------------------------------------------------------------------
// Repetitions (hidden switch of the suite's own tests).

/**
 * `CLOUDCHECK_REPETITIONS`: a JSON array of patterns, one per repetition of the run. Repetition k
 * defines the checks the run's selection and pattern k both select, under the ids `<id>#k` (the
 * first keeps the plain ids), each a test of its own with its own requests, flow state and result.
 * The fault matrix puts several of its shared runs into one `cloudcheck run` this way: a fault
 * limited to `<unit>#k` bends repetition k only (reference/core/faults.ts), so faults of one flow
 * share a run, each seen by its own repetition of the flow, and 21 runs' start-up is paid 4 times.
 * Not an option: the --grep must still select every file a repetition needs (the union).
 */
export const REPETITIONS_VARIABLE = 'CLOUDCHECK_REPETITIONS';

export interface Repetition {
  /** Appended to the ids (and titles) of this repetition's checks: '' for the first. */
  suffix: string;
  /** null: the run's selection alone. */
  pattern: RegExp | null;
}

/** The run's repetitions: one, the plain selection, unless the variable names several. Throws on a malformed value. */
export function repetitionsOf(env: NodeJS.ProcessEnv): Repetition[] {
  const text = env[REPETITIONS_VARIABLE]?.trim();
  if (!text) return [{ suffix: '', pattern: null }];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${REPETITIONS_VARIABLE} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string' && p !== '')) {
    throw new Error(`${REPETITIONS_VARIABLE} must be a JSON array of patterns (one per repetition), not empty`);
  }
  return parsed.map((pattern: string, k) => ({ suffix: repetitionSuffix(k), pattern: parsePattern(pattern) }));
}

/** Whether a repetition defines a candidate that the run's selection selects. */
export function inRepetition(repetition: Repetition, candidate: Candidate): boolean {
  return repetition.pattern === null || repetition.pattern.test(textOf(candidate));
}

export function repetitionSuffix(k: number): string {
  return k === 0 ? '' : `#${k}`;
}

/** `id` of `id#k`: the check a repetition repeats (a plain id is its own). */
export function repeatedId(id: string): string {
  return id.replace(/#\d+$/, '');
}

/** `#k` of `id#k` ('' for a plain id): what tells two repetitions of one check apart. */
export function repetitionOfId(id: string): string {
  return /#\d+$/.exec(id)?.[0] ?? '';
}
