/**
 * Typed failures in the worker: `CheckFailed`, the error every assertion of assert.ts throws,
 * carrying the failure as data (src/model/failure.ts); `failureOf`, which turns whatever a check
 * ended with (a typed failure, a failed Playwright `expect`, an error) into that data; and the
 * headline, one sentence naming the operation, the expectation and what came back.
 *
 * The check wrapper (check.ts) records the data as an annotation; the reporter reads it as data
 * and never parses a message to classify a failure or to find what was expected and what came.
 */
import type { Level } from '../../spec/classes.ts';
import { rowOfRequest } from '../../spec/operation-of.ts';
import type { CheckFailure, FailureFinding, FailureKind } from '../model/failure.ts';

export type { FailureFinding } from '../model/failure.ts';
import type { Exchange } from '../model/finding.ts';
import { isEnvironmentError, isSuiteError } from './errors.ts';

/** A response as a failure sees it: the request line below the target's base (client.ts) and the exchange. */
export interface Judged {
  requestLine?: string;
  exchange?: Exchange;
  status?: number;
}

/** What an assertion knows when it fails; the operation and the headline follow from it. */
export interface FailureInput extends FailureFinding {
  kind: FailureKind;
  /** The response (or responses) judged: the first names the operation. */
  judged?: Judged | readonly Judged[];
  /** Words of the check's author about what was judged. */
  context?: string;
  /** The headline's sentence after the operation, where the kind's default would say less. */
  says?: string;
  also?: FailureFinding[];
  evidence?: string;
}

/** A failure as the worker hands it to the reporter: the report's CheckFailure without indices, with the exchanges it judged. */
export interface FailureRecord {
  failure: Omit<CheckFailure, 'exchanges'>;
  judged: Exchange[];
}

/** The check running in this worker (one at a time): its level and operation, for the words of its failures. */
let running: { level: Level; operation: string | null } | undefined;

/** Called by the check wrapper around each check body (check.ts). */
export function setRunningCheck(check: { level: Level; operation: string | null } | undefined): void {
  running = check;
}

export function runningLevel(): Level | undefined {
  return running?.level;
}

/** The error every assertion throws: the failure is its data, the message its headline (and evidence). */
export class CheckFailed extends Error {
  override readonly name: string = 'CheckFailed';
  readonly record: FailureRecord;
  /** What the assertion said, for a restatement (`restated`). */
  readonly input: FailureInput;
  /** A prerequisite that failed is not the target's defect in this check (errors.ts, isEnvironmentError). */
  readonly environment: boolean;
  constructor(input: FailureInput) {
    const record = recordOf(input);
    super(record.failure.evidence ? `${record.failure.headline}\n${record.failure.evidence}` : record.failure.headline);
    this.record = record;
    this.input = input;
    this.environment = input.kind === 'prerequisite';
  }
}

export function fail(input: FailureInput): never {
  throw new CheckFailed(input);
}

/** The same failure in other words around it (the input `--examples` drew, the story of its shrinking). */
export function restated(error: CheckFailed, words: { context?: string; evidence?: string }): CheckFailed {
  return new CheckFailed({ ...error.input, ...words });
}

const judgedList = (judged: FailureInput['judged']): readonly Judged[] =>
  judged === undefined ? [] : Array.isArray(judged) ? judged : [judged as Judged];

function recordOf(input: FailureInput): FailureRecord {
  const judged = judgedList(input.judged);
  const line = judged.find((j) => j.requestLine)?.requestLine;
  const operation = line ? operationOfLine(line) : (running?.operation ?? null);
  const failure: Omit<CheckFailure, 'exchanges'> = {
    kind: input.kind,
    subject: input.subject,
    ...(input.keyword !== undefined ? { keyword: input.keyword } : {}),
    ...(input.expected !== undefined ? { expected: input.expected } : {}),
    ...(input.actual !== undefined ? { actual: input.actual } : {}),
    headline: headline(operation ?? requestWithoutQuery(line), input),
    operation,
    ...(line ? { request: line } : {}),
    ...(input.context ? { context: input.context } : {}),
    ...(input.also?.length ? { also: input.also } : {}),
    ...(input.evidence ? { evidence: input.evidence } : {}),
  };
  return { failure, judged: judged.flatMap((j) => (j.exchange ? [j.exchange] : [])) };
}

/** The specification's row of a request line (`GET /vps/vps_1` → `GET /vps/{vps_id}`), or null. */
function operationOfLine(line: string): string | null {
  const space = line.indexOf(' ');
  return space > 0 ? rowOfRequest(line.slice(0, space), line.slice(space + 1)) : null;
}

function requestWithoutQuery(line: string | undefined): string | null {
  return line ? line.split('?')[0]! : null;
}

// ---------------------------------------------------------------------------------------------
// Headlines

/** `/vps/memory` → `` `vps.memory` ``; the whole body for an empty pointer. */
export function nameOf(pointer: string): string {
  const path = pointer.replace(/^\//, '').split('/').join('.');
  return path ? `\`${path}\`` : 'the body';
}

function headline(operation: string | null, input: FailureInput): string {
  const where = operation ? `${operation}${input.context ? ` (${input.context})` : ''}` : (input.context ?? '');
  const says = input.says ?? defaultSays(input);
  return where ? `${where}: ${says}` : says;
}

const more = (input: FailureInput): string => (input.also?.length ? ` (and ${input.also.length} more)` : '');
const demanded = (): string => (running?.level === 'SHOULD' ? 'convention' : 'expected');

/** One finding in words (`` `meta` missing ``, `` `vps.memory` is string, expected integer ``). */
export function findingSays(f: FailureFinding): string {
  const name = nameOf(f.subject);
  if (f.keyword === 'required') return `${name} missing`;
  if (f.keyword === 'wrapper')
    return `${f.actual === 'none' ? 'the resource comes unwrapped' : `the body comes under ${f.actual}`}, ${demanded()} ${f.expected}`;
  if (f.keyword === 'additionalProperties') return `${name} is not allowed`;
  if (f.keyword === 'type') return `${name} is ${f.actual}, expected ${f.expected}`;
  return `${name} fails ${f.keyword ?? 'the schema'}: expected ${f.expected}, got ${f.actual}`;
}

function defaultSays(input: FailureInput): string {
  const { kind, subject, expected, actual } = input;
  switch (kind) {
    case 'status':
      return `answered ${actual}, ${demanded()} ${expected}`;
    case 'schema':
      return `${findingSays(input)}${input.keyword === 'required' ? ' from the body' : ''}${more(input)}`;
    case 'envelope':
      return `error envelope: ${findingSays(input)}${more(input)}`;
    case 'header':
      return actual === 'absent'
        ? `header ${subject} missing`
        : `header ${subject} is ${actual}, ${demanded()} ${expected}`;
    case 'timing':
      return `waited in vain for ${subject} (${actual})`;
    case 'invariant':
      return `${subject} violated: ${actual}`;
    case 'prerequisite':
      return `the prerequisite ${subject} answered ${actual} (its own checks judge it)`;
    case 'error':
      return `${subject}${input.evidence ? `: ${input.evidence.split('\n')[0]}` : ''}`;
    default:
      return expected === undefined && actual === undefined
        ? subject
        : `${subject}: ${demanded()} ${expected}, got ${actual}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Whatever a check ended with, as data

/** What expect.ts attaches to a failed Playwright matcher: the call as the check made it. */
export interface ExpectCall {
  matcher: string;
  negated: boolean;
  actual: unknown;
  args: unknown[];
  message?: string;
}

/** Playwright's ExpectError carries the matcher's result as data (`matcherResult`). */
interface MatcherResult {
  name?: string;
  expected?: unknown;
  actual?: unknown;
}

/** A value as one short line of JSON (the normalised terms of an `assertion`). */
export function shortJson(value: unknown, max = 200): string {
  let text: string;
  if (value === undefined) text = 'undefined';
  else if (typeof value === 'string') text = JSON.stringify(value);
  else if (Buffer.isBuffer(value)) text = `<${value.length} bytes>`;
  else if (value instanceof RegExp) text = String(value);
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The matcher's own expectation where it has no expected value (`toBeTruthy` → truthy). */
const IMPLIED: Record<string, string> = {
  toBeTruthy: 'truthy',
  toBeFalsy: 'falsy',
  toBeNull: 'null',
  toBeUndefined: 'undefined',
  toBeDefined: 'defined',
  toBeNaN: 'NaN',
};

function assertionOf(error: Error, call: ExpectCall | undefined, result: MatcherResult | undefined): FailureInput {
  const matcher = call?.matcher ?? result?.name ?? 'expect';
  const expected =
    result && 'expected' in result
      ? result.expected
      : call && call.args.length > 0
        ? call.args[0]
        : (IMPLIED[matcher] ?? undefined);
  const actual = result && 'actual' in result ? result.actual : call?.actual;
  const expectedText = typeof expected === 'string' && IMPLIED[matcher] === expected ? expected : shortJson(expected);
  return {
    kind: 'assertion',
    subject: `${call?.negated ? 'not.' : ''}${matcher}`,
    expected: `${call?.negated ? 'not ' : ''}${expectedText}`,
    actual: shortJson(actual),
    ...(call?.message ? { context: call.message } : {}),
    says: `${call?.message ?? matcher}: expected ${call?.negated ? 'not ' : ''}${expectedText}, got ${shortJson(actual)}`,
    evidence: error.message,
  };
}

/**
 * The failure data of whatever a check ended with: a typed failure as it is; a failed `expect`
 * from its matcher's result and call (never from its message); an error the check threw in words
 * (`assertion`, subject `thrown`); an environment or cloudcheck error (`error`, its name).
 */
export function failureOf(error: unknown): FailureRecord {
  if (error instanceof CheckFailed) return error.record;
  const carried = (error as { record?: FailureRecord } | null)?.record;
  if (carried && typeof carried === 'object' && 'failure' in carried) return carried;
  const e = error instanceof Error ? error : new Error(String(error));
  const call = (e as { cloudcheckCall?: ExpectCall }).cloudcheckCall;
  const result = (e as { matcherResult?: MatcherResult }).matcherResult;
  if (call || result) return recordOf(assertionOf(e, call, result));
  if (isEnvironmentError(e) || isSuiteError(e))
    return recordOf({ kind: 'error', subject: e.name, evidence: e.message });
  return recordOf({ kind: 'assertion', subject: 'thrown', says: e.message.split('\n')[0]!, evidence: e.message });
}

/**
 * The exchanges a failure judged, as indices into a check's exchanges: found there (the same
 * request, sent at the same moment) or appended, so a failure shows its exchanges wherever they
 * were recorded (an earlier step of its flow, a shared scenario).
 */
export function placeJudged(exchanges: Exchange[], judged: readonly Exchange[]): number[] {
  const key = (e: Exchange): string => `${e.started_at} ${e.request.method} ${e.request.url} ${e.attempt ?? 1}`;
  return judged.map((j) => {
    const at = exchanges.findIndex((e) => key(e) === key(j));
    if (at >= 0) return at;
    exchanges.push(j);
    return exchanges.length - 1;
  });
}
