/**
 * `cloudcheck explore`'s engine: random sequences of operations drawn by fast-check's model-based
 * testing (fc.commands), each run against the target and checked against the model after every
 * step. A failing sequence is shrunk by fast-check to a minimal one, then replayed once more on a
 * fresh namespace: the finding carries that replay's exchanges, and a sequence that does not fail
 * again is said to be flaky instead of being reported as the target's defect.
 *
 * Sequences of several families run at once (a target across a network spends most of a sequence
 * waiting for answers), each family's one after another, in the order of the seed: the k-th
 * sequence of a family is drawn from the same seed whichever families are explored beside it and
 * however fast the target answers, so a seed finds the same faults anywhere. Families whose
 * sequences would see each other in a list of the whole account (ExploreFamily.observes) take
 * turns, and no family runs more than a few sequences ahead of another.
 *
 * A MUST finding ends its family's exploration (the other families go on: one exploration reports
 * one finding per family at most); a SHOULD finding is reported once and ends nothing: later
 * sequences that meet the same deviation end there quietly, as the model cannot go past it.
 *
 * fast-check was chosen over a hand-written generator because its commands come with preconditions,
 * a seeded generator and shrinking of whole sequences, the three things this needs.
 */
import fc from 'fast-check';
import type { Exchange } from '../model/finding.ts';
import type { Level } from '../../spec/classes.ts';
import { requirementById } from '../../spec/requirements.ts';
import type { ExploreFamily } from './family.ts';
import { FAMILIES, commandOf } from './families/index.ts';
import type { FailureRecord } from '../harness/failure.ts';
import { ExploreModel, ModelViolation } from './model.ts';
import type { StepRecord } from './model.ts';
import type { ExploreTarget, SequenceTarget } from './target.ts';

export interface ExploreOptions {
  seed: number;
  /** The families sequences draw from (default: all). */
  families?: readonly ExploreFamily[];
  /** Longest sequence drawn (fast-check shrinks below it). */
  maxCommands?: number;
  /** Sequences running at once at most (default: as many as the families allow; 1 runs them one after another). */
  parallel?: number;
  /** Called after every sequence: how many ran and the requests sent so far. */
  progress?: (sequences: number, requests: number) => void;
}

export interface ExploreFinding {
  /** The family whose sequence it is. */
  family: string;
  requirement: string;
  level: Level;
  message: string;
  expected: string;
  actual: string;
  /** The shrunk sequence, as data (a replay file holds it). */
  steps: StepRecord[];
  /** The exchanges of the confirming replay, in order. */
  exchanges: Exchange[];
  /** The replay of the shrunk sequence failed the same way: the finding is reproducible. */
  confirmed: boolean;
  /** The violation as a typed failure (src/harness/failure.ts), with the exchanges it judged. */
  failure: FailureRecord;
}

export interface ExploreOutcome {
  sequences: number;
  requests: number;
  /** Requirements whose rules some step exercised (a passed rule is only as good as this). */
  exercised: Set<string>;
  /** In the order they were found: at most one MUST finding a family, each SHOULD requirement once. */
  findings: ExploreFinding[];
  /** An error that is not the model's (the target unreachable, a bug of cloudcheck): the run proved nothing. */
  error: Error | null;
}

/** A requirement's level (the catalogue's; a rule citing no requirement of it is a MUST, as test/explore holds every rule to one). */
export function levelOf(requirement: string): Level {
  return requirementById(requirement)?.level ?? 'MUST';
}

/** The fast-check seed of sequence `i` of an exploration: far apart for neighbouring seeds (seed 2 is not seed 1 shifted by one). */
export function sequenceSeed(seed: number, i: number): number {
  let x = (Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca77)) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  return (x ^ (x >>> 15)) | 0;
}

/**
 * The place of a family's k-th sequence in the exploration's order: families take turns in the
 * order of the table, so the index (and the seed drawn from it) does not depend on which of them
 * are explored.
 */
export function sequenceIndex(family: ExploreFamily, k: number): number {
  const position = FAMILIES.indexOf(family);
  return k * FAMILIES.length + (position < 0 ? FAMILIES.length - 1 : position);
}

/**
 * The longest sequence drawn ('medium' sizes draw half as many steps on average). Long enough for
 * the interplays of four or five steps (three keys, then a listing by prefix a page at a time) to
 * come up within a family's first few sequences: a family has a share of the budget only.
 */
const MAX_COMMANDS = 24;
/** How long shrinking a failure may go on (seconds): each attempt replays a sequence against the target. */
const SHRINK_TIME_MS = 120_000;
/** How many sequences a family may run ahead of the family that has run fewest: the families explore at one pace. */
const AHEAD = 2;

/**
 * Family after family, each sequence drawn by its own fast-check run, until the budget or the time
 * is spent; a failing run shrinks its sequence before it returns.
 */
export async function explore(target: ExploreTarget, options: ExploreOptions): Promise<ExploreOutcome> {
  const families = options.families ?? FAMILIES;
  return withFamilies(target, families, () => new Exploration(target, families, options).run());
}

/** Sets the families up, runs `body`, and tears them down whatever happened (in reverse order). */
async function withFamilies<T>(
  target: ExploreTarget,
  families: readonly ExploreFamily[],
  body: () => Promise<T>,
): Promise<T> {
  const ready: ExploreFamily[] = [];
  try {
    target.setUpExchanges = [];
    for (const family of families) {
      const setUp = target.sequence(family.name);
      try {
        await family.setUp?.(setUp);
      } finally {
        target.setUpExchanges.push(...setUp.exchanges);
      }
      ready.push(family);
    }
    return await body();
  } finally {
    for (const family of ready.reverse())
      await family
        .tearDown?.(target.sequence(family.name))
        .catch((error: unknown) => target.warn(`tear-down of ${family.name}: ${String(error)}`));
  }
}

interface Lane {
  family: ExploreFamily;
  commands: fc.Arbitrary<Iterable<fc.AsyncCommand<ExploreModel, SequenceTarget>>>;
  /** Sequences started. */
  started: number;
  running: boolean;
  /** A MUST finding ended the family's exploration. */
  stopped: boolean;
}

/** What one fast-check run (a sequence and its shrinking) is after: the first violation's requirement, and the last failing run's steps. */
interface Failing {
  /** Runs of the property so far: the first is the sequence itself, the others shrink it. */
  runs: number;
  requirement: string | null;
  /** The steps of the first failing run (the sequence as drawn), in case the shrunk one does not fail again. */
  original: StepRecord[] | null;
  steps: StepRecord[] | null;
  /** An error that is not the model's: every later run of the property ends on it at once (nothing to shrink). */
  error: unknown;
}

class Exploration {
  private readonly lanes: Lane[];
  private readonly outcome: ExploreOutcome;
  private readonly parallel: number;

  constructor(
    private readonly target: ExploreTarget,
    families: readonly ExploreFamily[],
    private readonly options: ExploreOptions,
  ) {
    this.lanes = families.map((family) => ({
      family,
      commands: fc.commands(family.arbitraries(), { maxCommands: options.maxCommands ?? MAX_COMMANDS, size: 'medium' }),
      started: 0,
      running: false,
      stopped: false,
    }));
    this.parallel = Math.max(1, options.parallel ?? families.length);
    this.outcome = { sequences: 0, requests: 0, exercised: target.exercised, findings: [], error: null };
  }

  async run(): Promise<ExploreOutcome> {
    const running = new Set<Promise<void>>();
    for (;;) {
      for (let lane = this.next(running.size); lane; lane = this.next(running.size)) {
        const done: Promise<void> = this.runLane(lane).finally(() => running.delete(done));
        running.add(done);
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
    this.outcome.requests = this.target.requestsSent;
    return this.outcome;
  }

  /** The lane to start next, if any may: the earliest sequence in the exploration's order among the families free to run. */
  private next(runningCount: number): Lane | undefined {
    if (runningCount >= this.parallel || this.outcome.error || !this.target.canStart()) return undefined;
    const active = this.lanes.filter((l) => !l.stopped);
    const fewest = Math.min(...active.map((l) => l.started));
    const busy = active.filter((l) => l.running);
    return active
      .filter((l) => !l.running && l.started <= fewest + AHEAD && !busy.some((b) => conflicts(l.family, b.family)))
      .sort((a, b) => sequenceIndex(a.family, a.started) - sequenceIndex(b.family, b.started))[0];
  }

  private async runLane(lane: Lane): Promise<void> {
    const k = lane.started++;
    lane.running = true;
    try {
      await this.runSequenceOf(lane, k);
    } catch (error) {
      // A bug of the engine itself (never the target's): the exploration stops and says so.
      this.outcome.error ??= error instanceof Error ? error : new Error(String(error));
    } finally {
      lane.running = false;
    }
  }

  private async runSequenceOf(lane: Lane, k: number): Promise<void> {
    const failing: Failing = { runs: 0, requirement: null, original: null, steps: null, error: undefined };
    const property = fc.asyncProperty(lane.commands, (sequence) => this.runOnce(lane.family, sequence, failing));
    const details = await fc.check(property, {
      seed: sequenceSeed(this.options.seed, sequenceIndex(lane.family, k)),
      numRuns: 1,
      interruptAfterTimeLimit: SHRINK_TIME_MS,
    });
    this.outcome.sequences++;
    this.outcome.requests = this.target.requestsSent;
    this.options.progress?.(this.outcome.sequences, this.target.requestsSent);
    if (!details.failed) return;
    const failure = details.errorInstance;
    if (!(failure instanceof ModelViolation)) {
      this.outcome.error ??= failure instanceof Error ? failure : new Error(String(failure));
      return;
    }
    const level = levelOf(failure.requirement);
    if (level === 'MUST') lane.stopped = true;
    this.outcome.findings.push(
      await confirm(this.target, lane.family, failing.steps ?? [], failing.original ?? [], failure, level),
    );
    this.outcome.requests = this.target.requestsSent;
  }

  /** One run of a sequence on a fresh namespace, cleaned up after it whatever happened. */
  private async runOnce(
    family: ExploreFamily,
    commands: Iterable<fc.AsyncCommand<ExploreModel, SequenceTarget>>,
    failing: Failing,
  ): Promise<void> {
    if (failing.error !== undefined) throw failing.error;
    const sequence = this.target.sequence(family.name);
    sequence.shrinking = failing.runs++ > 0;
    sequence.forFinding = sequence.shrinking;
    sequence.pursuing = failing.requirement;
    try {
      await fc.asyncModelRun(() => ({ model: new ExploreModel(), real: sequence }), commands);
    } catch (error) {
      if (!(error instanceof ModelViolation)) {
        failing.error = error;
        throw error;
      }
      if (failing.requirement === null) {
        // A deviation another finding reports: the model cannot go past it, and that is no news.
        if (levelOf(error.requirement) === 'SHOULD' && this.target.deviations.has(error.requirement)) return;
        failing.requirement = error.requirement;
        if (levelOf(error.requirement) === 'SHOULD') this.target.deviations.add(error.requirement);
      }
      // Shrinking one finding: a shorter sequence that breaks another rule does not reproduce it.
      if (error.requirement !== failing.requirement) return;
      // fast-check reports the last failing sequence of its shrinking: the last one kept here.
      failing.steps = [...sequence.ranSteps];
      failing.original ??= failing.steps;
      throw error;
    } finally {
      await sequence.end();
    }
  }
}

/** Whether two families' sequences may not run at once: one lists whole what the other creates or deletes. */
export function conflicts(a: ExploreFamily, b: ExploreFamily): boolean {
  if (a === b) return true;
  const sees = (x: ExploreFamily, y: ExploreFamily): boolean =>
    (x.observes ?? []).some((what) => (y.changes ?? []).includes(what));
  return sees(a, b) || sees(b, a);
}

/** A violation as a finding, with the sequence that led to it and the exchanges of the run that showed it. */
export function findingOf(
  violation: ModelViolation,
  family: string,
  steps: StepRecord[],
  exchanges: Exchange[],
  confirmed: boolean,
): ExploreFinding {
  // A copy: the target goes on logging into its array (clean-up, tear-down), which is not the finding's.
  return {
    family,
    requirement: violation.requirement,
    level: levelOf(violation.requirement),
    message: violation.what,
    expected: violation.expected,
    actual: violation.actual,
    steps,
    exchanges: [...exchanges],
    confirmed,
    failure: violation.record,
  };
}

/**
 * Replays the shrunk sequence once more on a fresh namespace, waiting in full for what may take a
 * moment, and keeps its exchanges. When it does not fail again (shrinking waits less: a slow
 * target may have shown a passing delay), the sequence as first drawn is replayed instead, and
 * reported whole if it fails again.
 */
async function confirm(
  target: ExploreTarget,
  family: ExploreFamily,
  steps: StepRecord[],
  drawn: StepRecord[],
  original: ModelViolation,
  level: Level,
): Promise<ExploreFinding> {
  let last: ExploreFinding | undefined;
  for (const candidate of drawn.length > steps.length ? [steps, drawn] : [steps]) {
    const sequence = target.sequence(family.name);
    sequence.pursuing = original.requirement;
    sequence.forFinding = true;
    try {
      await replaySteps(sequence, candidate);
      last ??= { ...findingOf(original, family.name, candidate, sequence.exchanges, false), level };
    } catch (error) {
      if (error instanceof ModelViolation && error.requirement === original.requirement)
        return findingOf(error, family.name, candidate, sequence.exchanges, true);
      last ??= { ...findingOf(original, family.name, candidate, sequence.exchanges, false), level };
    }
  }
  return last!;
}

/**
 * Runs a replay file's steps in order against a fresh model (`cloudcheck explore --replay`), the
 * families they belong to set up around them; the replay's exchanges are left in `target.exchanges`.
 */
export async function replay(target: ExploreTarget, steps: readonly StepRecord[]): Promise<void> {
  const resolved = steps.map(commandOf);
  const families = FAMILIES.filter((f) => resolved.some((r) => r.family === f));
  await withFamilies(target, families, async () => {
    const sequence = target.sequence(resolved[0]?.family.name ?? 'replay');
    try {
      await replaySteps(sequence, steps);
    } finally {
      target.exchanges = [...sequence.exchanges];
    }
  });
}

/**
 * Runs recorded steps in order against a fresh model on the sequence's namespace (the families
 * already set up), and cleans up after them; the sequence's exchanges stop before the clean-up.
 */
export async function replaySteps(sequence: SequenceTarget, steps: readonly StepRecord[]): Promise<void> {
  const commands = steps.map((s) => commandOf(s).command);
  const exchanges: Exchange[] = [];
  try {
    const model = new ExploreModel();
    for (const command of commands) {
      if (!command.check(model))
        throw new Error(`replay: step "${command.toString()}" does not apply to the state the earlier steps made`);
      await command.run(model, sequence);
    }
  } finally {
    exchanges.push(...sequence.exchanges);
    await sequence.end();
    sequence.exchanges.splice(0, sequence.exchanges.length, ...exchanges);
  }
}
