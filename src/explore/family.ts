/**
 * A family of operations `cloudcheck explore` draws from (objects, projects, ...): its commands,
 * the requirements its model rules cite, how a replay file's step becomes its command again, and
 * what it needs set up once per exploration. Families never import each other; families whose
 * operations interplay (a volume attached to a VPS) are one family, so a sequence mixes them.
 */
import type fc from 'fast-check';
import type { ApiResponse } from '../harness/client.ts';
import { shortText } from '../harness/body-shape.ts';
import { judged } from '../harness/assert.ts';
import { ModelViolation } from './model.ts';
import type { ExploreModel, StepRecord } from './model.ts';
import type { SequenceTarget } from './target.ts';

export type ExploreCommand = fc.AsyncCommand<ExploreModel, SequenceTarget> & { readonly record: StepRecord };

export interface ExploreFamily {
  /** Its name on the command line (`--families objects,projects`). */
  readonly name: string;
  /** What its sequences do, in a line (`cloudcheck explore --help` lists the families with it). */
  readonly summary: string;
  /** Requirement → what the family's rules check about it (the report has one check per requirement). */
  readonly rules: Readonly<Record<string, string>>;
  /** Operation → the requirements a step of it exercised once the model agreed. */
  readonly rulesOf: Readonly<Record<string, readonly string[]>>;
  /** The commands a sequence is drawn from (an arbitrary listed twice is drawn twice as often). */
  arbitraries(): Array<fc.Arbitrary<ExploreCommand>>;
  /** A replay file's step back into its command; undefined when the operation is not the family's. */
  commandOf(step: StepRecord): ExploreCommand | undefined;
  /**
   * What of the account the family's sequences list whole (`observes`: a walk that counts every
   * instance of the account) and what they create or delete (`changes`). Two families whose
   * sequences would see each other's changes in such a list never run at once; the others do.
   */
  readonly observes?: readonly string[];
  readonly changes?: readonly string[];
  /** Once before the first sequence (a bucket to work in); a refusal throws ExploreSetupError. */
  setUp?(target: SequenceTarget): Promise<void>;
  /** Once after the last sequence, whatever happened. */
  tearDown?(target: SequenceTarget): Promise<void>;
}

/** The target refused what the exploration needs to start: no finding, nothing proved. */
export class ExploreSetupError extends Error {
  override readonly name = 'ExploreSetupError';
}

/** Runs a step: recorded before it runs (a failing step is part of the finding), its rules noted once the model agreed. */
export async function step(
  family: ExploreFamily,
  command: ExploreCommand,
  target: SequenceTarget,
  body: () => Promise<void>,
): Promise<void> {
  target.ranSteps.push(command.record);
  await body();
  const deviated = target.takeDeviation();
  if (deviated) throw deviated;
  target.stepPassed(family.rulesOf[command.record.op] ?? []);
}

export const ok = (res: ApiResponse): boolean => res.status >= 200 && res.status < 300;
export const short = (text: string): string => shortText(text, 200);

/** A response that must be a success: anything else is a finding on `requirement`. */
export function expectOk(res: ApiResponse, requirement: string, what: string): void {
  if (!ok(res))
    throw new ModelViolation(requirement, what, 'a 2xx answer', `${res.status} ${short(res.text)}`, {
      kind: 'status',
      subject: 'status',
      expected: '2xx',
      actual: String(res.status),
      judged: judged(res),
      evidence: short(res.text),
    });
}

/**
 * How long the model waits for what may take a moment on a real platform (a deletion, a list
 * catching up with a change): 250, 500 and 1000 ms, a second and three quarters in all. While a
 * finding is being shrunk it does not wait (the sequence that found it waited in full, and the
 * shrunk one is confirmed waiting in full, or else the sequence as drawn is reported).
 */
const SETTLE_WAITS_MS = [250, 500, 1000];
const SETTLE_WAITS_SHRINKING_MS: readonly number[] = [];

const settleWaits = (target: SequenceTarget): readonly number[] =>
  target.shrinking ? SETTLE_WAITS_SHRINKING_MS : SETTLE_WAITS_MS;

/**
 * Whether a deleted resource still answers after a few more looks: deletion may take a moment on
 * a real platform (the fixed flows poll for it too), so only one that stays is a finding.
 */
export async function stillThere(target: SequenceTarget, answers: () => Promise<boolean>): Promise<boolean> {
  for (const ms of [0, ...settleWaits(target)]) {
    if (ms) await target.pause(ms);
    if (!(await answers())) return false;
  }
  return true;
}

/**
 * Compares with the model what the specification shows without saying how soon it follows a
 * change (a list, a filtered list, a count): `compare` reads and throws a ModelViolation on a
 * difference. A difference is read again a few times, as deletions are, before it counts, and the
 * finding says the model waited.
 */
export async function compareSettled(target: SequenceTarget, compare: () => Promise<void>): Promise<void> {
  const waits = settleWaits(target);
  const waited = (attempts: number, v: ModelViolation): ModelViolation =>
    attempts === 1
      ? v
      : new ModelViolation(
          v.requirement,
          `${v.what} (the same on ${attempts} reads over ${waits.reduce((sum, ms) => sum + ms, 0) / 1000} s: how soon it follows a change is not shown, so the model waited)`,
          v.expected,
          v.actual,
        );
  for (let attempt = 0; ; attempt++) {
    let violation: ModelViolation | null = null;
    try {
      await compare();
    } catch (error) {
      if (!(error instanceof ModelViolation)) throw error;
      violation = error;
    }
    // A deviation from a SHOULD rule the read met counts only when it stays too.
    const deviated = target.takeDeviation();
    const wait = waits[attempt];
    if (wait === undefined) {
      if (violation) throw waited(attempt + 1, violation);
      if (deviated) target.deviation(waited(attempt + 1, deviated));
      return;
    }
    if (!violation && !deviated) return;
    await target.pause(wait);
  }
}

/** A media type without its parameters, lowercased (`text/plain; charset=utf-8` is `text/plain`). */
export const mediaType = (value: unknown): string =>
  typeof value === 'string' ? value.split(';')[0]!.trim().toLowerCase() : '';

/** Reads a replay step's argument as a string / a number (a missing one is empty / 0, which preconditions then refuse). */
export const argString = (v: string | number | undefined): string => String(v ?? '');
export const argNumber = (v: string | number | undefined): number => Number(v ?? 0);
