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
import type { ExploreTarget } from './target.ts';

export type ExploreCommand = fc.AsyncCommand<ExploreModel, ExploreTarget> & { readonly record: StepRecord };

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
  /** Once before the first sequence (a bucket to work in); a refusal throws ExploreSetupError. */
  setUp?(target: ExploreTarget): Promise<void>;
  /** Once after the last sequence, whatever happened. */
  tearDown?(target: ExploreTarget): Promise<void>;
}

/** The target refused what the exploration needs to start: no finding, nothing proved. */
export class ExploreSetupError extends Error {
  override readonly name = 'ExploreSetupError';
}

/** Runs a step: recorded before it runs (a failing step is part of the finding), its rules noted once the model agreed. */
export async function step(
  family: ExploreFamily,
  command: ExploreCommand,
  target: ExploreTarget,
  body: () => Promise<void>,
): Promise<void> {
  target.ranSteps.push(command.record);
  await body();
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
 * Whether a deleted resource still answers after a few more looks (a second and three quarters
 * in all): deletion may take a moment on a real platform (the fixed flows poll for it too), so
 * only one that stays is a finding.
 */
export async function stillThere(target: ExploreTarget, answers: () => Promise<boolean>): Promise<boolean> {
  for (const ms of [0, 250, 500, 1000]) {
    if (ms) await target.pause(ms);
    if (!(await answers())) return false;
  }
  return true;
}

/** Reads a replay step's argument as a string / a number (a missing one is empty / 0, which preconditions then refuse). */
export const argString = (v: string | number | undefined): string => String(v ?? '');
export const argNumber = (v: string | number | undefined): number => Number(v ?? 0);
