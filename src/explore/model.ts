/**
 * The executable model `cloudcheck explore` checks a target against: what the specification
 * states about the state behind the API after any sequence of operations, written apart from the
 * reference server's code (a model that shared it would only ever agree with it).
 *
 * The model knows only what the sequence itself did, inside its own namespace (object keys under
 * the sequence's prefix, resources it created). Every expectation cites the requirement it
 * enforces, so a failed sequence becomes a finding on that requirement; where the specification
 * is silent (status codes, wrappers, order) the model asks nothing. Each family of operations
 * (src/explore/families/) keeps its own part of the state here.
 */
import { CheckFailed } from '../harness/failure.ts';
import type { FailureInput } from '../harness/failure.ts';

/**
 * Thrown by a command when the target's answer contradicts the model: a typed failure
 * (src/harness/failure.ts) of kind `state` unless `typed` says otherwise, citing a requirement.
 * `expected` and `actual` are the model's words for the finding; `typed` may give the failure's
 * normalised terms (a status `2xx` against `500`) and the response judged.
 */
export class ModelViolation extends CheckFailed {
  override readonly name: string = 'ModelViolation';
  constructor(
    readonly requirement: string,
    /** What was asked ("GET /projects"), without the verdict. */
    readonly what: string,
    readonly expected: string,
    readonly actual: string,
    typed: Partial<FailureInput> = {},
  ) {
    super({
      kind: 'state',
      subject: what,
      expected,
      actual,
      ...(typed.judged ? { context: what } : { says: `${what}: expected ${expected}, got ${actual}` }),
      ...typed,
    });
    this.message = `[${requirement}] ${what}: expected ${expected}, got ${actual}`;
  }
}

/** The state one sequence made, one part per family, each created on first use. */
export class ExploreModel {
  private readonly parts = new Map<string, unknown>();

  /** The part of family `name` (created by `create` the first time a command asks for it). */
  part<S>(name: string, create: () => S): S {
    if (!this.parts.has(name)) this.parts.set(name, create());
    return this.parts.get(name) as S;
  }
}

/** Keys compare as the listing orders them: by UTF-8 bytes (as S3 does), which for ASCII keys is code-unit order. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** One command of a sequence as data: what a replay file holds and what a report shows. */
export interface StepRecord {
  op: string;
  args: Record<string, string | number>;
}
