/**
 * The assertions of the conformance checks, in one place: status, body against a schema or a
 * field table, the error envelope and its code, headers, content, state, timing, prerequisites.
 * Each one that fails throws a `CheckFailed` (failure.ts) carrying what it judged as data: kind,
 * subject, expected and actual in normalised terms (src/model/failure.ts), the request and its
 * exchange, and a headline in words. Suites reach them through check.ts; the generators and
 * `cloudcheck explore` import them here.
 */
import type { ApiResponse } from './client.ts';
import { isObject, shortText } from './body-shape.ts';
import type { Json } from './body-shape.ts';
import { resourceOf } from './body-shape.ts';
import { fail, runningLevel, shortJson } from './failure.ts';
import type { FailureFinding, FailureInput, Judged } from './failure.ts';

/** The response as a failure sees it. */
export function judged(res: Pick<ApiResponse, 'status' | 'exchange'> & { requestLine?: string }): Judged {
  return { requestLine: res.requestLine, exchange: res.exchange, status: res.status };
}

/** A body excerpt for a failure's evidence (redacted by the check wrapper with the rest). */
export const excerpt = (text: string, max = 300): string => shortText(text, max);

// ---------------------------------------------------------------------------------------------
// Status

/**
 * What a MUST check may demand of a status the check names: the specification lists the codes
 * (200, 201, 204; 400, 401, 403, 404, 409, 422) but maps none of them to an operation or an error
 * ("not shown"), so at MUST level a named success stands for any 2xx and a named client error
 * (other than 429, which the limits state) for any 4xx. The exact code is a SHOULD check's
 * business (ERR-OK-*, ERR-MAP-*, AUTH-KEY-004), where expectStatus stays exact.
 */
function classAtMust(allowed: readonly number[]): 200 | 400 | null {
  for (const low of [200, 400] as const) if (allowed.every((s) => s >= low && s < low + 100 && s !== 429)) return low;
  return null;
}

const inClass = (status: number, low: number): boolean => status >= low && status < low + 100 && status !== 429;

/**
 * Asserts the status. In a MUST check the status class is what counts (see classAtMust); in a
 * SHOULD check, the exact code.
 */
export function expectStatus(res: ApiResponse, expected: number | number[], hint?: string): void {
  const allowed = Array.isArray(expected) ? expected : [expected];
  if (allowed.includes(res.status)) return;
  const low = runningLevel() === 'MUST' ? classAtMust(allowed) : null;
  if (low !== null && inClass(res.status, low)) return;
  fail({
    kind: 'status',
    subject: 'status',
    expected: low !== null ? `${low / 100}xx` : allowed.join(' or '),
    actual: String(res.status),
    judged: judged(res),
    ...(hint ? { context: hint } : {}),
    evidence: excerpt(res.text),
  });
}

/** Asserts the exact status at any level (a SHOULD's convention, or a MUST the specification states exactly). */
export function expectStatusExactly(res: ApiResponse, expected: number, hint?: string): void {
  if (res.status === expected) return;
  fail({
    kind: 'status',
    subject: 'status',
    expected: String(expected),
    actual: String(res.status),
    judged: judged(res),
    ...(hint ? { context: hint } : {}),
    evidence: excerpt(res.text),
  });
}

/** Asserts a success answer: any 2xx status (the exact one is a SHOULD, docs/conventions.md). */
export function expectSuccess(res: ApiResponse, hint?: string): void {
  if (res.status >= 200 && res.status < 300) return;
  fail({
    kind: 'status',
    subject: 'status',
    expected: '2xx',
    actual: String(res.status),
    judged: judged(res),
    ...(hint ? { context: hint } : {}),
    evidence: excerpt(res.text),
  });
}

/**
 * Asserts a refusal: a 4xx status (the specification lists 400, 401, 403, 404, 409 and 422 but
 * maps none to a condition, so which one is a SHOULD check's business).
 */
export function expectRefused(
  res: { status: number; text: string; exchange?: ApiResponse['exchange']; requestLine?: string },
  what: string,
): void {
  if (res.status >= 400 && res.status < 500) return;
  fail({
    kind: 'status',
    subject: 'status',
    expected: '4xx',
    actual: String(res.status),
    judged: { requestLine: res.requestLine, exchange: res.exchange, status: res.status },
    context: what,
    says: `answered ${res.status}, expected a refusal (4xx)`,
    evidence: excerpt(res.text),
  });
}

/**
 * Asserts a success answer (any 2xx) and returns the resource under `name` as `resourceOf` finds
 * it (flat, wrapped or under a generic key: body-shape.ts). Fails when there is no such object.
 */
export function expectResource<T = Json>(res: ApiResponse, name: string, key = 'id'): T {
  expectSuccess(res);
  const resource = resourceOf<T>(res.body, name, key);
  if (resource !== undefined && isObject(resource) && key in resource) return resource;
  return fail({
    kind: 'schema',
    subject: `/${name}/${key}`,
    keyword: 'required',
    expected: 'present',
    actual: 'absent',
    judged: judged(res),
    says: `answered ${res.status} without a ${name} carrying "${key}"`,
    evidence: excerpt(res.text),
  });
}

// ---------------------------------------------------------------------------------------------
// Body against a schema or a field table

/** The JSON type of a value as a schema names it. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A string's shape without its particulars (digits as 9), so the same wrong form reads the same everywhere. */
export function shapeOf(value: unknown): string {
  if (typeof value !== 'string') return jsonType(value);
  return JSON.stringify(value.replace(/[0-9]/g, '9').slice(0, 40));
}

/** A JSON Pointer with array indices as `*`: the same place in every item reads the same. */
export function normalisePointer(pointer: string): string {
  return pointer
    .split('/')
    .map((segment) => (/^\d+$/.test(segment) ? '*' : segment))
    .join('/');
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A validator's error, as ajv reports it (only the fields read here). */
export interface SchemaError {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

const join = (pointer: string, name: unknown): string => `${pointer}/${String(name)}`;

function findingOf(e: SchemaError, value: unknown): FailureFinding {
  const at = e.instancePath ?? '';
  const params = e.params ?? {};
  const here = valueAt(value, at);
  const keyword = e.keyword ?? 'schema';
  const base = { subject: normalisePointer(at), keyword };
  switch (keyword) {
    case 'required':
      return {
        ...base,
        subject: normalisePointer(join(at, params.missingProperty)),
        expected: 'present',
        actual: 'absent',
      };
    case 'additionalProperties':
      return {
        ...base,
        subject: normalisePointer(join(at, params.additionalProperty)),
        expected: 'absent',
        actual: 'present',
      };
    case 'type':
      return {
        ...base,
        expected: Array.isArray(params.type) ? params.type.join(' or ') : String(params.type),
        actual: jsonType(here),
      };
    case 'enum':
      return {
        ...base,
        expected: (Array.isArray(params.allowedValues) ? params.allowedValues : []).map((v) => shortJson(v)).join(', '),
        actual: shortJson(here, 60),
      };
    case 'const':
      return { ...base, expected: shortJson(params.allowedValue), actual: shortJson(here, 60) };
    case 'format':
    case 'pattern':
      return { ...base, expected: String(params[keyword]), actual: shapeOf(here) };
    case 'oneOf':
    case 'anyOf':
      return {
        ...base,
        expected: keyword === 'oneOf' ? 'exactly one alternative' : 'an alternative',
        actual: params.passingSchemas ? 'several' : 'none',
      };
    default:
      if (typeof params.limit === 'number')
        return {
          ...base,
          expected: `${String(params.comparison ?? keyword)} ${params.limit}`,
          actual: typeof here === 'number' ? String(here) : shortJson(here, 60),
        };
      return { ...base, expected: e.message ?? keyword, actual: shortJson(here, 60) };
  }
}

/** A validator's errors as normalised findings, the same finding once (every item of a list missing one field is one). */
export function schemaFindings(errors: readonly SchemaError[], value: unknown): FailureFinding[] {
  const seen = new Set<string>();
  const out: FailureFinding[] = [];
  for (const e of errors) {
    const f = findingOf(e, value);
    const key = JSON.stringify(f);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

const sentences = (errors: readonly SchemaError[]): string =>
  errors
    .slice(0, 6)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword ?? ''}`.trim())
    .join('; ');

/** A compiled schema validator (ajv's ValidateFunction shape). */
export type Validator = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

/**
 * Validates a value (a response body, by default) with a compiled schema validator, failing with
 * each of the validator's errors as a finding (keyword and pointer) on `res`'s request.
 */
export function expectSchema(
  value: unknown,
  validate: Validator,
  options: { res?: ApiResponse; what?: string; context?: string; kind?: 'schema' | 'envelope'; says?: string } = {},
): void {
  if (validate(value)) return;
  const errors = validate.errors ?? [];
  const [first, ...rest] = schemaFindings(errors, value);
  const body = options.res ? `: ${excerpt(options.res.text, 400)}` : '';
  fail({
    kind: options.kind ?? 'schema',
    ...(first ?? { subject: '', keyword: 'schema', expected: 'valid', actual: 'invalid' }),
    ...(rest.length ? { also: rest } : {}),
    ...(options.res ? { judged: judged(options.res) } : {}),
    ...(options.context ? { context: options.context } : {}),
    ...(options.says ? { says: options.says } : {}),
    evidence: `${options.what ?? 'the body'} does not match the schema: ${sentences(errors)}${body}`,
  });
}

/** A field's type as the specification's resource tables give it. */
export type FieldType = 'string' | 'integer' | 'number' | 'timestamp' | 'timestamp|null' | 'string[]' | 'string|null';

function fieldIs(record: Json, name: string, type: FieldType): boolean {
  if (!(name in record)) return false;
  const value = record[name];
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'timestamp':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'timestamp|null':
      return value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
  }
}

/**
 * Asserts that a record carries each field with its type (Resources and their fields); fields it
 * carries beyond these are its business. Every wrong or absent field is a finding, at once.
 */
export function expectFields(
  record: unknown,
  fields: Record<string, FieldType>,
  what: string,
  res?: ApiResponse,
): void {
  if (!isObject(record))
    fail({
      kind: 'schema',
      subject: '',
      keyword: 'type',
      expected: 'object',
      actual: jsonType(record),
      context: what,
      ...(res ? { judged: judged(res) } : {}),
      says: `${what} should be a JSON object, is ${jsonType(record)}`,
    });
  const r = record;
  const wrong: FailureFinding[] = Object.entries(fields)
    .filter(([name, type]) => !fieldIs(r, name, type))
    .map(([name, type]) =>
      name in r
        ? { subject: `/${name}`, keyword: 'type', expected: type, actual: shapeOf(r[name]) }
        : { subject: `/${name}`, keyword: 'required', expected: 'present', actual: 'absent' },
    );
  if (wrong.length === 0) return;
  const [first, ...rest] = wrong;
  fail({
    kind: 'schema',
    ...first!,
    ...(rest.length ? { also: rest } : {}),
    context: what,
    ...(res ? { judged: judged(res) } : {}),
    says: `fields absent or of another type: ${wrong
      .map(
        (f) => `${f.subject.slice(1)} ${f.actual === 'absent' ? 'absent' : `should be ${f.expected}, is ${f.actual}`}`,
      )
      .join('; ')}`,
  });
}

// ---------------------------------------------------------------------------------------------
// The error envelope

/** The eight error codes the specification lists (Errors); every other code is a convention. */
export const SPEC_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_phone_number',
  'sender_id_not_approved',
  'insufficient_balance',
  'message_too_long',
  'rate_limit_exceeded',
  'invalid_template',
  'validation_error',
  'bucket_already_exists',
]);

export interface ErrorBody {
  code: string;
  message: string;
  details?: unknown;
  resource?: unknown;
}

/** The `error` object of an answer, whatever it holds. */
export function errorOf(res: Pick<ApiResponse, 'body'>): Partial<Record<keyof ErrorBody, unknown>> | undefined {
  const error = (res.body as { error?: unknown } | undefined)?.error;
  return isObject(error) ? error : undefined;
}

/**
 * The standard error envelope `{"error": {"code", "message"}}`, optionally with a given code. In a
 * MUST check only a code the specification lists is compared; others are SHOULD checks' business.
 */
export function expectErrorEnvelope(res: ApiResponse, code?: string, context?: string): ErrorBody {
  const error = errorOf(res);
  const missing = !error
    ? '/error'
    : typeof error.code !== 'string'
      ? '/error/code'
      : typeof error.message !== 'string'
        ? '/error/message'
        : null;
  if (missing)
    fail({
      kind: 'envelope',
      subject: missing,
      keyword: missing === '/error' ? 'required' : 'type',
      expected: missing === '/error' ? 'present' : 'string',
      actual:
        missing === '/error' ? (res.body === undefined ? 'absent' : 'invalid') : jsonType(valueAt(res.body, missing)),
      judged: judged(res),
      ...(context ? { context } : {}),
      says: `answered ${res.status} without the error envelope {"error": {"code", "message"}}`,
      evidence: excerpt(res.text, 400),
    });
  if (code !== undefined && (runningLevel() !== 'MUST' || SPEC_ERROR_CODES.has(code)))
    expectErrorCode(res, code, context);
  return error as unknown as ErrorBody;
}

/** The envelope's `error.code`, exactly (any level). */
export function expectErrorCode(res: ApiResponse, code: string, context?: string): void {
  const actual = errorOf(res)?.code;
  if (actual === code) return;
  fail({
    kind: 'envelope',
    subject: '/error/code',
    expected: code,
    actual: typeof actual === 'string' ? actual : actual === undefined ? 'absent' : shortJson(actual, 60),
    judged: judged(res),
    ...(context ? { context } : {}),
    says: `answered ${res.status} ${actual === undefined ? 'without error.code' : `with error.code ${typeof actual === 'string' ? actual : shortJson(actual, 60)}`}, ${runningLevel() === 'SHOULD' ? 'convention' : 'expected'} ${code}`,
    evidence: excerpt(res.text, 400),
  });
}

/** A member of the envelope beyond code and message (`details`, `resource`) that must be there. */
export function expectErrorMember(
  res: ApiResponse,
  member: 'details' | 'resource',
  ok: (value: unknown) => boolean,
  expected: string,
  context?: string,
): void {
  const value = errorOf(res)?.[member];
  if (ok(value)) return;
  fail({
    kind: 'envelope',
    subject: `/error/${member}`,
    expected,
    actual: value === undefined ? 'absent' : shapeOf(value),
    judged: judged(res),
    ...(context ? { context } : {}),
    says: `error.${member} should be ${expected}, got ${value === undefined ? 'none' : shortJson(value, 80)}`,
    evidence: excerpt(res.text, 400),
  });
}

// ---------------------------------------------------------------------------------------------
// Headers, content, state, timing, prerequisites

/** The media type of a header value without its parameters, lower case. */
export const mediaType = (value: string | undefined): string => (value ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * A response header: present, or (with `expected`) equal to a value, as `equal` compares them
 * (default: the same string).
 */
export function expectHeader(
  res: ApiResponse,
  name: string,
  expected?: string,
  options: { context?: string; equal?: (value: string, expected: string) => boolean } = {},
): void {
  const { context, equal = (a: string, b: string) => a === b } = options;
  const value = res.headers[name.toLowerCase()];
  if (value !== undefined && (expected === undefined || equal(value, expected))) return;
  fail({
    kind: 'header',
    subject: name.toLowerCase(),
    expected: expected ?? 'present',
    actual: value ?? 'absent',
    judged: judged(res),
    ...(context ? { context } : {}),
    ...(value === undefined ? { says: `header ${name} missing` } : {}),
  });
}

/** The Content-Type's media type (parameters aside). */
export function expectContentType(res: ApiResponse, expected: string, context?: string): void {
  const actual = mediaType(res.headers['content-type']);
  if (actual === expected) return;
  fail({
    kind: 'header',
    subject: 'content-type',
    expected,
    actual: actual || 'absent',
    judged: judged(res),
    ...(context ? { context } : {}),
    evidence: excerpt(res.text),
  });
}

type Claim = Omit<FailureInput, 'kind'>;

/** The body's content beyond its shape (the bytes of a download, a PDF's signature, no body on HEAD). */
export function expectBody(ok: boolean, claim: () => Claim): void {
  if (!ok) fail({ kind: 'body', ...claim() });
}

/** What the API shows across requests (a deleted resource gone, a value kept, a creation listed). */
export function expectState(ok: boolean, claim: () => Claim): void {
  if (!ok) fail({ kind: 'state', ...claim() });
}

/**
 * A request a check needs before it can judge anything (a prerequisite, a setting to restore)
 * must succeed; otherwise the check cannot judge, which is not this check's defect (classified
 * `environment`): the operation's own checks report it.
 */
export function expectPrerequisite(res: ApiResponse, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  fail({
    kind: 'prerequisite',
    subject: what,
    expected: '2xx',
    actual: String(res.status),
    judged: judged(res),
    evidence: excerpt(res.text),
  });
}
