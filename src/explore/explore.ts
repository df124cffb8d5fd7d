/**
 * `cloudcheck explore`'s engine: random sequences of operations drawn by fast-check's model-based
 * testing (fc.commands), each run against the target and checked against the model after every
 * step. A failing sequence is shrunk by fast-check to a minimal one, then replayed once more on a
 * fresh namespace: the finding carries that replay's exchanges, and a sequence that does not fail
 * again is said to be flaky instead of being reported as the target's defect.
 *
 * fast-check was chosen over a hand-written generator because its commands come with preconditions,
 * a seeded generator and shrinking of whole sequences, the three things this needs.
 */
import fc from 'fast-check';
import type { Exchange } from '../model/finding.ts';
import type { ExploreFamily } from './family.ts';
import { FAMILIES, commandOf } from './families/index.ts';
import type { FailureRecord } from '../harness/failure.ts';
import { ExploreModel, ModelViolation } from './model.ts';
import type { StepRecord } from './model.ts';
import type { ExploreTarget } from './target.ts';

export interface ExploreOptions {
  seed: number;
  /** The families sequences draw from, taking turns (default: all). */
  families?: readonly ExploreFamily[];
  /** Longest sequence drawn (fast-check shrinks below it). */
  maxCommands?: number;
  /** Called after every sequence: how many ran and the requests sent so far. */
  progress?: (sequences: number, requests: number) => void;
}

export interface ExploreFinding {
  requirement: string;
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
  finding: ExploreFinding | null;
  /** An error that is not the model's (the target unreachable, a bug of cloudcheck): the run proved nothing. */
  error: Error | null;
}

/** Runs one sequence on a fresh namespace and cleans up after it, whatever happened. */
async function runSequence(
  target: ExploreTarget,
  commands: Iterable<fc.AsyncCommand<ExploreModel, ExploreTarget>>,
  failing: { steps: StepRecord[] | null },
): Promise<void> {
  target.beginSequence();
  try {
    await fc.asyncModelRun(() => ({ model: new ExploreModel(), real: target }), commands);
  } catch (error) {
    // fast-check reports the last failing sequence of its shrinking: the last one kept here.
    if (error instanceof ModelViolation) failing.steps = [...target.ranSteps];
    throw error;
  } finally {
    await target.endSequence();
  }
}

/** The fast-check seed of sequence `i` of an exploration: far apart for neighbouring seeds (seed 2 is not seed 1 shifted by one). */
export function sequenceSeed(seed: number, i: number): number {
  let x = (Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca77)) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  return (x ^ (x >>> 15)) | 0;
}

/** How long shrinking a failure may go on (seconds): each attempt replays a sequence against the target. */
const SHRINK_TIME_MS = 120_000;

/**
 * Sequence after sequence, each drawn by its own fast-check run (seed `seed + i`: the same seed
 * gives the same sequences), until the budget or the time is spent or one fails; the failing run
 * shrinks its sequence before it returns.
 */
export async function explore(target: ExploreTarget, options: ExploreOptions): Promise<ExploreOutcome> {
  const families = options.families ?? FAMILIES;
  return withFamilies(target, families, () => exploreSequences(target, families, options));
}

/** Sets the families up, runs `body`, and tears them down whatever happened (in reverse order). */
async function withFamilies<T>(
  target: ExploreTarget,
  families: readonly ExploreFamily[],
  body: () => Promise<T>,
): Promise<T> {
  const ready: ExploreFamily[] = [];
  try {
    target.exchanges = [];
    for (const family of families) {
      await family.setUp?.(target);
      ready.push(family);
    }
    target.setUpExchanges = target.exchanges;
    return await body();
  } finally {
    for (const family of ready.reverse())
      await family
        .tearDown?.(target)
        .catch((error: unknown) => target.warn(`tear-down of ${family.name}: ${String(error)}`));
  }
}

async function exploreSequences(
  target: ExploreTarget,
  families: readonly ExploreFamily[],
  options: ExploreOptions,
): Promise<ExploreOutcome> {
  const failing: { steps: StepRecord[] | null } = { steps: null };
  const outcome: ExploreOutcome = {
    sequences: 0,
    requests: 0,
    exercised: target.exercised,
    finding: null,
    error: null,
  };
  // 'medium' sizes: sequences long enough for three-step interplays (update, update, get) to come up often.
  const drawn = families.map((f) =>
    fc.commands(f.arbitraries(), { maxCommands: options.maxCommands ?? 16, size: 'medium' }),
  );
  for (let i = 0; target.canStart(); i++) {
    const commands = drawn[i % drawn.length]!;
    const property = fc.asyncProperty(commands, (sequence) => runSequence(target, sequence, failing));
    const details = await fc.check(property, {
      seed: sequenceSeed(options.seed, i),
      numRuns: 1,
      interruptAfterTimeLimit: SHRINK_TIME_MS,
    });
    outcome.sequences++;
    outcome.requests = target.requestsSent;
    options.progress?.(outcome.sequences, target.requestsSent);
    if (!details.failed) continue;
    const failure = details.errorInstance;
    if (!(failure instanceof ModelViolation)) {
      outcome.error = failure instanceof Error ? failure : new Error(String(failure));
      return outcome;
    }
    outcome.finding = await confirm(target, failing.steps ?? [], failure);
    outcome.requests = target.requestsSent;
    return outcome;
  }
  return outcome;
}

/** A violation as a finding, with the sequence that led to it and the exchanges of the run that showed it. */
export function findingOf(
  violation: ModelViolation,
  steps: StepRecord[],
  exchanges: Exchange[],
  confirmed: boolean,
): ExploreFinding {
  // A copy: the target goes on logging into its array (clean-up, tear-down), which is not the finding's.
  return {
    requirement: violation.requirement,
    message: violation.what,
    expected: violation.expected,
    actual: violation.actual,
    steps,
    exchanges: [...exchanges],
    confirmed,
    failure: violation.record,
  };
}

/** Replays the shrunk sequence once more on a fresh namespace, keeping its exchanges. */
async function confirm(target: ExploreTarget, steps: StepRecord[], original: ModelViolation): Promise<ExploreFinding> {
  try {
    await replaySteps(target, steps);
    return findingOf(original, steps, target.exchanges, false);
  } catch (error) {
    return error instanceof ModelViolation
      ? findingOf(error, steps, target.exchanges, true)
      : findingOf(original, steps, target.exchanges, false);
  }
}

/**
 * Runs a replay file's steps in order against a fresh model (`cloudcheck explore --replay`), the
 * families they belong to set up around them.
 */
export async function replay(target: ExploreTarget, steps: readonly StepRecord[]): Promise<void> {
  const resolved = steps.map(commandOf);
  const families = FAMILIES.filter((f) => resolved.some((r) => r.family === f));
  await withFamilies(target, families, () => replaySteps(target, steps));
}

/** Runs recorded steps in order against a fresh model, on a fresh namespace (the families already set up). */
export async function replaySteps(target: ExploreTarget, steps: readonly StepRecord[]): Promise<void> {
  const commands = steps.map((s) => commandOf(s).command);
  target.beginSequence();
  const exchanges: Exchange[] = [];
  try {
    const model = new ExploreModel();
    for (const command of commands) {
      if (!command.check(model))
        throw new Error(`replay: step "${command.toString()}" does not apply to the state the earlier steps made`);
      await command.run(model, target);
    }
  } finally {
    exchanges.push(...target.exchanges);
    await target.endSequence();
    target.exchanges = exchanges;
  }
}
