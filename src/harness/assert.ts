/**
 * The assertions of the conformance checks, in one place: status, body against a schema or a
 * field table, the error envelope and its code, headers, content, state, timing, prerequisites.
 * Each one that fails throws a `CheckFailed` (failure.ts) carrying what it judged as data: kind,
 * subject, expected and actual in normalised terms (src/model/failure.ts), the request and its
 * exchange, and a headline in words. Suites reach them through check.ts; the generators and
 * `cloudcheck explore` import them here.
 */
import { isDeepStrictEqual } from 'node:util';
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

/**
 * Asserts the convention's wrapper (docs/conventions.md: a resource under its singular name) and
 * returns the object under `name`. When it is not there, the failure names the wrapper that came
 * (`{"data": {...}}`: `data`) or `none` (the resource at the top), as the schema checks do
 * (wrapperFindings), so that one choice of wrapper reads as one cause.
 */
export function expectWrappedIn<T = Json>(res: ApiResponse, name: string, what?: string): T {
  const body = res.body;
  const inner = isObject(body) ? body[name] : undefined;
  if (isObject(inner)) return inner as T;
  const single = soleMember(body);
  const came = single ? quoted(single.key) : isObject(body) && Object.keys(body).length > 1 ? 'none' : undefined;
  const base = { judged: judged(res), evidence: excerpt(res.text), ...(what ? { context: what } : {}) };
  if (came === undefined)
    return fail({
      kind: 'schema',
      subject: `/${name}`,
      keyword: 'required',
      expected: 'present',
      actual: 'absent',
      ...base,
    });
  return fail({
    kind: 'schema',
    subject: '/',
    keyword: 'wrapper',
    expected: quoted(name),
    actual: came,
    says: `answered ${res.status} with ${came === 'none' ? 'the resource unwrapped' : `the body under ${came}`}, convention ${quoted(name)}`,
    ...base,
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
 * The findings of a value re-wrapped, when its top level holds (what is wrong deeper inside
 * stays a finding of its own); undefined when the top level fails too.
 */
function rewrapped(validate: Validator, value: unknown): FailureFinding[] | undefined {
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  return errors.some((e) => (e.instancePath ?? '') === '') ? undefined : schemaFindings(errors, value);
}

const quoted = (name: string): string => `\`${name}\``;

/** A body's only member when it is an object or a list: what a wrapper holds (`{"data": {...}}`). */
function soleMember(body: unknown): { key: string; value: Json | unknown[] } | undefined {
  if (!isObject(body)) return undefined;
  const keys = Object.keys(body);
  const value = keys.length === 1 ? body[keys[0]!] : undefined;
  return isObject(value) || Array.isArray(value) ? { key: keys[0]!, value } : undefined;
}

/**
 * A body that holds what the schema asks for under another wrapper, or under none: `{"data":
 * {...}}` or the bare resource where `{"volume": {...}}` is asked. Its first finding (keyword
 * `wrapper`, actual the wrapper that came or `none`) replaces the member it lacks, because the
 * wrapper is what the target chose, once for every resource: a cause names it once, not
 * `volume` missing, `project` missing and so on. Tried by re-wrapping the body and validating
 * again (the validator's errors are read before); what the re-wrapped body still lacks follows.
 */
function wrapperFindings(
  value: unknown,
  errors: readonly SchemaError[],
  validate: Validator,
): FailureFinding[] | undefined {
  if (!isObject(value)) return undefined;
  const missing = errors
    .filter((e) => (e.instancePath ?? '') === '' && e.keyword === 'required')
    .map((e) => String(e.params?.missingProperty));
  const tried = (expected: string, actual: string, body: unknown): FailureFinding[] | undefined => {
    const rest = rewrapped(validate, body);
    return rest && [{ subject: '/', keyword: 'wrapper', expected, actual }, ...rest];
  };
  const [only] = missing;
  if (only === undefined) return undefined;
  const single = soleMember(value);
  if (single && !missing.includes(single.key)) {
    const found =
      (missing.length === 1 ? tried(quoted(only), quoted(single.key), { [only]: single.value }) : undefined) ??
      tried('the members at the top', quoted(single.key), single.value);
    if (found) return found;
  }
  return missing.length === 1 && Object.keys(value).length > 1
    ? tried(quoted(only), 'none', { [only]: value })
    : undefined;
}

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
  const [first, ...rest] = wrapperFindings(value, errors, validate) ?? schemaFindings(errors, value);
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
export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'object'
  | 'array'
  | 'timestamp'
  | 'timestamp|null'
  | 'string[]'
  | 'string|null'
  | 'integer|null';

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
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'integer|null':
      return value === null || Number.isInteger(value);
    case 'timestamp|null':
      return value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
  }
}

/**
 * A field that is not what its table says, in the terms a schema validator would use
 * (findingOf), so a field wrong in a hand-written check and in a generated one is one cause:
 * `type` with JSON types (`number`, `string or null`), `format` `date-time` for a string that is
 * no timestamp, `required` for a field that is not there.
 */
function fieldFinding(record: Json, name: string, type: FieldType, at: string): FailureFinding {
  const subject = `${at}/${name}`;
  if (!(name in record)) return { subject, keyword: 'required', expected: 'present', actual: 'absent' };
  const value = record[name];
  const timestamp = type === 'timestamp' || type === 'timestamp|null';
  if (timestamp && typeof value === 'string')
    return { subject, keyword: 'format', expected: 'date-time', actual: shapeOf(value) };
  if (type === 'string[]' && Array.isArray(value)) {
    const at = value.findIndex((item) => typeof item !== 'string');
    return { subject: `${subject}/*`, keyword: 'type', expected: 'string', actual: jsonType(value[at]) };
  }
  const expected = (timestamp ? type.replace('timestamp', 'string') : type.replace('[]', '')).split('|').join(' or ');
  return { subject, keyword: 'type', expected: type === 'string[]' ? 'array' : expected, actual: jsonType(value) };
}

/**
 * Where `record` sits in `root` (the same object, found by identity), as a JSON Pointer with list
 * items as `*`: `/account`, `/wallets/*`, '' for the root itself or when it is not there.
 */
export function pointerOf(root: unknown, record: unknown, depth = 0): string | null {
  if (root === record) return '';
  if (depth > 5 || root === null || typeof root !== 'object') return null;
  const entries: Array<[string, unknown]> = Array.isArray(root)
    ? root.map((item) => ['*', item])
    : Object.entries(root as Record<string, unknown>);
  for (const [key, value] of entries) {
    if (value === null || typeof value !== 'object') continue;
    const inner = pointerOf(value, record, depth + 1);
    if (inner !== null) return `/${key}${inner}`;
  }
  return null;
}

/** Fails with schema findings of a record (the first, the rest as `also`). */
export function failFindings(
  findings: FailureFinding[],
  what: string,
  res: ApiResponse | undefined,
  says: string,
): never {
  const [first, ...rest] = findings;
  return fail({
    kind: 'schema',
    ...first!,
    ...(rest.length ? { also: rest } : {}),
    context: what,
    ...(res ? { judged: judged(res) } : {}),
    says,
  });
}

/**
 * The one member of a body that holds every field asked for at its top (`{"upload": {"upload_id":
 * ...}}` where `upload_id` is asked): the wrapper the target chose, as wrapperFindings names it.
 */
function wrapperOfFields(record: Json, fields: Record<string, FieldType>): string | undefined {
  const single = soleMember(record);
  if (!single || single.key in fields || !isObject(single.value)) return undefined;
  const inner = single.value;
  return Object.entries(fields).every(([name, type]) => fieldIs(inner, name, type)) ? single.key : undefined;
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
  const at = res ? (pointerOf(res.body, r) ?? '') : '';
  const wrong: Array<[string, FailureFinding]> = Object.entries(fields)
    .filter(([name, type]) => !fieldIs(r, name, type))
    .map(([name, type]) => [name, fieldFinding(r, name, type, at)]);
  if (wrong.length === 0) return;
  const wrapper = at === '' ? wrapperOfFields(r, fields) : undefined;
  if (wrapper)
    failFindings(
      [{ subject: '/', keyword: 'wrapper', expected: 'the members at the top', actual: quoted(wrapper) }],
      what,
      res,
      `the fields came under ${quoted(wrapper)} instead of at the top`,
    );
  failFindings(
    wrong.map(([, f]) => f),
    what,
    res,
    `${wrong.length === 1 ? 'a field' : 'fields'} absent or of another type: ${wrong
      .map(
        ([name, f]) =>
          `${name} ${f.actual === 'absent' ? 'absent' : `should be ${fields[name]}, is ${shortJson(r[name], 60)}`}`,
      )
      .join('; ')}`,
  );
}

/**
 * Asserts values of a record the specification fixes (`status: 'active'` right after a create):
 * every field that differs is a finding of keyword `const`, as a schema validator would say it.
 */
export function expectFieldValues(
  record: unknown,
  values: Record<string, unknown>,
  what: string,
  res?: ApiResponse,
): void {
  const r = isObject(record) ? record : {};
  const at = res ? (pointerOf(res.body, record) ?? '') : '';
  const wrong = Object.entries(values).filter(([name, value]) => !isDeepStrictEqual(r[name], value));
  if (wrong.length === 0) return;
  const findings: FailureFinding[] = wrong.map(([name, value]) => ({
    subject: `${at}/${name}`,
    keyword: name in r ? 'const' : 'required',
    expected: name in r ? shortJson(value) : 'present',
    actual: name in r ? shortJson(r[name], 60) : 'absent',
  }));
  failFindings(
    findings,
    what,
    res,
    wrong
      .map(
        ([name, value]) => `${name} is ${name in r ? shortJson(r[name], 60) : 'absent'}, expected ${shortJson(value)}`,
      )
      .join('; '),
  );
}

/**
 * Asserts that a resource answers what was sent for it (the fields of a create or update): each
 * field that is not there or differs is a finding of kind `state`, keyword `echo`, expected `as
 * sent` (the values themselves, the run's names among them, are the evidence, not the cause).
 */
export function expectEchoed(res: ApiResponse, record: unknown, sent: Record<string, unknown>, what?: string): void {
  const r = isObject(record) ? record : {};
  const at = pointerOf(res.body, record) ?? '';
  const wrong = Object.entries(sent).filter(([name, value]) => !isDeepStrictEqual(r[name], value));
  if (wrong.length === 0) return;
  const findings: FailureFinding[] = wrong.map(([name]) => ({
    subject: `${at}/${name}`,
    keyword: 'echo',
    expected: 'as sent',
    actual: name in r ? 'other value' : 'absent',
  }));
  const [first, ...rest] = findings;
  fail({
    kind: 'state',
    ...first!,
    ...(rest.length ? { also: rest } : {}),
    ...(what ? { context: what } : {}),
    judged: judged(res),
    says: `${wrong.length === 1 ? 'a field differs' : 'fields differ'} from what was sent: ${wrong
      .map(
        ([name, value]) =>
          `${name} ${name in r ? `is ${shortJson(r[name], 60)}` : 'is absent'}, sent ${shortJson(value, 60)}`,
      )
      .join('; ')}`,
  });
}

/**
 * Asserts that a list no longer holds a deleted resource (`ids`: what the list holds): kind
 * `state`, subject `listed after delete`, as the generated after-delete checks say it.
 */
export function expectNotListed(res: ApiResponse, listed: boolean, id: string, what?: string): void {
  if (!listed) return;
  fail({
    kind: 'state',
    subject: 'listed after delete',
    expected: 'absent',
    actual: 'listed',
    judged: judged(res),
    ...(what ? { context: what } : {}),
    says: `still lists the deleted ${id}`,
    evidence: excerpt(res.text, 400),
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
  options: {
    context?: string;
    equal?: (value: string, expected: string) => boolean;
    /** The expectation in general terms where the value is this request's own (`the uploaded size`). */
    expectedAs?: string;
  } = {},
): void {
  const { context, equal = (a: string, b: string) => a === b } = options;
  const value = res.headers[name.toLowerCase()];
  if (value !== undefined && (expected === undefined || equal(value, expected))) return;
  // A missing header is the finding, whatever value was wanted: one cause on every answer without it.
  fail({
    kind: 'header',
    subject: name.toLowerCase(),
    expected: value === undefined ? 'present' : (options.expectedAs ?? expected!),
    actual: value ?? 'absent',
    judged: judged(res),
    ...(context ? { context } : {}),
    ...(value === undefined
      ? { says: `header ${name} missing${expected !== undefined ? ` (expected ${expected})` : ''}` }
      : options.expectedAs
        ? { says: `header ${name} is ${value}, expected ${expected} (${options.expectedAs})` }
        : {}),
  });
}

/**
 * The Content-Type's media type (parameters aside). `expectedAs`: the expectation in general terms
 * where the type is this request's own (`as uploaded`), so every object served with another type
 * than its upload's is one cause.
 */
export function expectContentType(res: ApiResponse, expected: string, context?: string, expectedAs?: string): void {
  const actual = mediaType(res.headers['content-type']);
  if (actual === expected) return;
  fail({
    kind: 'header',
    subject: 'content-type',
    expected: expectedAs ?? expected,
    actual: actual || 'absent',
    judged: judged(res),
    ...(context ? { context } : {}),
    ...(expectedAs
      ? { says: `header content-type is ${actual || 'absent'}, expected ${expected} (${expectedAs})` }
      : {}),
    evidence: excerpt(res.text),
  });
}

/** The answer to a HEAD carries no body. */
export function expectNoBody(res: ApiResponse): void {
  expectBody(res.bytes.length === 0, () => ({
    subject: 'length',
    expected: '0',
    actual: String(res.bytes.length),
    judged: judged(res),
    says: `a HEAD answered with a body of ${res.bytes.length} bytes`,
  }));
}

/** A PDF download (INV-PDF-001): its media type, and a body that starts with the PDF signature. */
export function expectPdf(res: ApiResponse, context?: string): void {
  expectContentType(res, 'application/pdf', context ?? 'the invoice PDF');
  const start = res.bytes.subarray(0, 5).toString('latin1');
  expectBody(start === '%PDF-', () => ({
    subject: 'pdf signature',
    expected: '"%PDF-"',
    actual: JSON.stringify(start),
    judged: judged(res),
    says: `the PDF body starts with ${JSON.stringify(start)}, not %PDF-`,
  }));
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
