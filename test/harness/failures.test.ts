/**
 * Failures are data (src/harness/failure.ts, assert.ts): every assertion throws a typed failure
 * whose kind, subject, expected and actual are normalised so the same cause reads the same on
 * every operation (what issue 36's causes group by), with a headline naming the operation, the
 * expectation and what came back. A plain `expect` failure is data from the matcher's call and
 * result, and an error is kind `error`: nothing is read back out of a message.
 */
import { expect, test } from '../base.ts';
import type { ApiResponse } from '../../src/harness/client.ts';
import {
  expectErrorCode,
  expectErrorEnvelope,
  expectFields,
  expectHeader,
  expectPrerequisite,
  expectRefused,
  expectResource,
  expectSchema,
  expectStatus,
  expectWrappedIn,
  schemaFindings,
} from '../../src/harness/assert.ts';
import type { Validator } from '../../src/harness/assert.ts';
import { CloudcheckError, EnvironmentError, isEnvironmentError } from '../../src/harness/errors.ts';
import { expect as checkExpect } from '../../src/harness/expect.ts';
import { CheckFailed, failureOf, setRunningCheck } from '../../src/harness/failure.ts';
import type { FailureRecord } from '../../src/harness/failure.ts';
import { compileSchema } from '../../src/generate/model.ts';
import type { JsonSchema } from '../../src/generate/model.ts';
import { ModelViolation } from '../../src/explore/model.ts';
import { expectOk } from '../../src/explore/family.ts';

function response(
  status: number,
  body: unknown,
  requestLine: string,
  headers: Record<string, string> = {},
): ApiResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  const [method, path] = requestLine.split(' ');
  return {
    status,
    headers,
    text,
    bytes: Buffer.from(text),
    body,
    json: <T>() => body as T,
    durationMs: 1,
    requestLine,
    exchange: {
      request: { method: method!, url: `http://127.0.0.1:1/v1${path}`, headers: {} },
      response: { status, headers, body: text },
      started_at: '2026-01-01T00:00:00.000Z',
      duration_ms: 1,
      curl: `curl -X ${method} 'http://127.0.0.1:1/v1${path}'`,
    },
  };
}

/** The record of what `run` threw (a typed failure or anything else, as the check wrapper sees it). */
function recorded(run: () => unknown): FailureRecord {
  return failureOf(thrownBy(run));
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

function inCheck<T>(level: 'MUST' | 'SHOULD', operation: string | null, run: () => T): T {
  setRunningCheck({ level, operation });
  try {
    return run();
  } finally {
    setRunningCheck(undefined);
  }
}

test('a status: the class a MUST may demand, the exact code a SHOULD holds, the operation of the request judged', () => {
  const created = response(200, { project: { id: 'p1' } }, 'POST /projects');
  // MUST: a named 201 stands for any 2xx, so 200 passes; a refusal where a refusal is named, likewise.
  inCheck('MUST', 'POST /projects', () => expectStatus(created, 201));
  const must = recorded(() => inCheck('MUST', null, () => expectStatus(response(500, {}, 'GET /vps/vps_1'), 200)));
  expect(must.failure).toMatchObject({
    kind: 'status',
    subject: 'status',
    expected: '2xx',
    actual: '500',
    operation: 'GET /vps/{vps_id}',
    request: 'GET /vps/vps_1',
    headline: 'GET /vps/{vps_id}: answered 500, expected 2xx',
  });
  expect(must.judged).toHaveLength(1);
  const should = recorded(() => inCheck('SHOULD', 'POST /projects', () => expectStatus(created, 201)));
  expect(should.failure).toMatchObject({ expected: '201', actual: '200' });
  expect(should.failure.headline).toBe('POST /projects: answered 200, convention 201');
  const refused = recorded(() => expectRefused(response(200, {}, 'GET /account'), 'no Authorization header'));
  expect(refused.failure).toMatchObject({
    kind: 'status',
    expected: '4xx',
    actual: '200',
    context: 'no Authorization header',
  });
  expect(refused.failure.headline).toBe(
    'GET /account (no Authorization header): answered 200, expected a refusal (4xx)',
  );
});

test('a body against the schema: keyword and JSON pointer, array items as *, the same finding once', () => {
  const schema = {
    type: 'object',
    required: ['vps_instances', 'meta'],
    properties: {
      vps_instances: {
        type: 'array',
        items: { type: 'object', required: ['id'], properties: { memory: { type: 'integer' } } },
      },
      meta: { type: 'object' },
    },
  };
  const body = { vps_instances: [{ memory: '1' }, { memory: '2' }] };
  const res = response(200, body, 'GET /vps?page=1');
  const { failure } = recorded(() => expectSchema(res.body, compileSchema(schema) as Validator, { res }));
  const findings = [failure, ...(failure.also ?? [])].map((f) => [f.keyword, f.subject, f.expected, f.actual]);
  expect(findings).toEqual(
    expect.arrayContaining([
      ['required', '/meta', 'present', 'absent'],
      ['required', '/vps_instances/*/id', 'present', 'absent'],
      ['type', '/vps_instances/*/memory', 'integer', 'string'],
    ]),
  );
  expect(findings).toHaveLength(3);
  expect(failure.kind).toBe('schema');
  expect(failure.operation).toBe('GET /vps');
  // A format reads the value's shape, not the value: every offset timestamp is one finding.
  const formats = schemaFindings([{ instancePath: '/a/0', keyword: 'format', params: { format: 'date-time' } }], {
    a: ['2026-01-01T10:00:00+02:00'],
  });
  expect(formats).toEqual([
    { subject: '/a/*', keyword: 'format', expected: 'date-time', actual: '"9999-99-99T99:99:99+99:99"' },
  ]);
});

test('a body under another wrapper, or none: one `wrapper` finding naming what came, not the member it lacks', () => {
  const volume = {
    type: 'object',
    required: ['volume'],
    properties: { volume: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
  };
  const list = {
    type: 'object',
    required: ['volumes', 'meta'],
    properties: { volumes: { type: 'array' }, meta: { type: 'object' } },
  };
  const findingOf = (schema: JsonSchema, body: unknown, line: string): unknown[] => {
    const { failure } = recorded(() =>
      inCheck('SHOULD', null, () =>
        expectSchema(body, compileSchema(schema) as Validator, { res: response(201, body, line) }),
      ),
    );
    return [failure.keyword, failure.subject, failure.expected, failure.actual, failure.headline];
  };
  expect(findingOf(volume, { data: { id: 'vol_1' } }, 'POST /storage/volumes')).toEqual([
    'wrapper',
    '/',
    '`volume`',
    '`data`',
    'POST /storage/volumes: the body comes under `data`, convention `volume`',
  ]);
  expect(findingOf(volume, { id: 'vol_1', size_gb: 10 }, 'GET /storage/volumes/vol_1')).toEqual([
    'wrapper',
    '/',
    '`volume`',
    'none',
    'GET /storage/volumes/{volume_id}: the resource comes unwrapped, convention `volume`',
  ]);
  // Members that stayed where they were are not a wrapper: a list without `meta` lacks `meta`...
  expect(findingOf(list, { volumes: [] }, 'GET /storage/volumes').slice(0, 4)).toEqual([
    'required',
    '/meta',
    'present',
    'absent',
  ]);
  // ...and what a re-wrapped body still lacks follows the wrapper.
  const { failure: lacking } = recorded(() =>
    inCheck('SHOULD', null, () =>
      expectSchema({ data: { name: 'x' } }, compileSchema(volume) as Validator, {
        res: response(201, { data: { name: 'x' } }, 'POST /storage/volumes'),
      }),
    ),
  );
  expect([lacking, ...(lacking.also ?? [])].map((f) => [f.keyword, f.subject, f.actual])).toEqual([
    ['wrapper', '/', '`data`'],
    ['required', '/volume/id', 'absent'],
  ]);
  // A field table asked at the top of a body that came wrapped says the same.
  const initiated = response(200, { upload: { upload_id: 'u1' } }, 'POST /storage/buckets/b/objects/k?uploads');
  const fields = recorded(() => expectFields(initiated.body, { upload_id: 'string' }, 'the initiation', initiated));
  expect([fields.failure.keyword, fields.failure.actual]).toEqual(['wrapper', '`upload`']);
  // The hand-written checks of a wrapper say the same.
  const topUp = response(200, { data: { transaction: {}, wallet: {} } }, 'POST /account/wallets/topup');
  const hand = recorded(() => inCheck('SHOULD', null, () => expectWrappedIn(topUp, 'transaction')));
  expect([hand.failure.keyword, hand.failure.expected, hand.failure.actual]).toEqual([
    'wrapper',
    '`transaction`',
    '`data`',
  ]);
  const flat = response(200, { id: 'act_1', status: 'completed' }, 'POST /vps/vps_1/actions');
  expect(recorded(() => expectWrappedIn(flat, 'action')).failure.actual).toBe('none');
  expect(expectWrappedIn(response(200, { action: { id: 'a' } }, 'POST /vps/vps_1/actions'), 'action')).toEqual({
    id: 'a',
  });
});

test('the field table, the resource, the envelope, its code and a header: each its own kind and subject', () => {
  const fields = recorded(() =>
    expectFields({ id: 'x', size: '1' }, { id: 'string', size: 'integer', created_at: 'timestamp' }, 'GET /volumes'),
  );
  expect(
    [fields.failure, ...(fields.failure.also ?? [])].map((f) => [f.subject, f.keyword, f.expected, f.actual]),
  ).toEqual([
    // The JSON type, as a schema validator says it: a string where an integer belongs is one cause whatever its value.
    ['/size', 'type', 'integer', 'string'],
    ['/created_at', 'required', 'present', 'absent'],
  ]);
  const resource = recorded(() => expectResource(response(201, { data: {} }, 'POST /ssh-keys'), 'ssh_key'));
  expect(resource.failure).toMatchObject({
    kind: 'schema',
    subject: '/ssh_key/id',
    keyword: 'required',
    actual: 'absent',
  });
  const envelope = recorded(() => expectErrorEnvelope(response(404, { err: { code: 'x' } }, 'GET /vps/v1')));
  expect(envelope.failure).toMatchObject({
    kind: 'envelope',
    subject: '/error',
    expected: 'present',
    actual: 'invalid',
  });
  expect(envelope.failure.headline).toContain('answered 404 without the error envelope');
  const code = recorded(() =>
    inCheck('SHOULD', null, () =>
      expectErrorCode(response(400, { error: { code: 'bad', message: 'm' } }, 'POST /vps'), 'validation_error'),
    ),
  );
  expect(code.failure).toMatchObject({
    kind: 'envelope',
    subject: '/error/code',
    expected: 'validation_error',
    actual: 'bad',
  });
  // A MUST compares only the codes the specification lists.
  inCheck('MUST', null, () =>
    expectErrorEnvelope(response(404, { error: { code: 'gone', message: 'm' } }, 'GET /vps/v1'), 'not_found'),
  );
  const header = recorded(() => expectHeader(response(200, {}, 'GET /vps'), 'X-RateLimit-Remaining'));
  expect(header.failure).toMatchObject({
    kind: 'header',
    subject: 'x-ratelimit-remaining',
    expected: 'present',
    actual: 'absent',
  });
  expect(header.failure.headline).toBe('GET /vps: header X-RateLimit-Remaining missing');
});

test('a failed prerequisite is the environment, not the target, and a typed failure all the same', () => {
  const thrown = thrownBy(() => expectPrerequisite(response(503, {}, 'GET /regions'), 'GET /regions'));
  expect(thrown).toBeInstanceOf(CheckFailed);
  expect(isEnvironmentError(thrown)).toBe(true);
  expect(failureOf(thrown).failure).toMatchObject({ kind: 'prerequisite', expected: '2xx', actual: '503' });
});

test("a plain expect's failure is data from its call and matcher result, never from its message", () => {
  const equal = recorded(() => checkExpect(['docs/a.txt'], 'keys listed').toEqual(['docs/a.txt', 'docs/b.txt']));
  expect(equal.failure).toMatchObject({
    kind: 'assertion',
    subject: 'toEqual',
    expected: '["docs/a.txt","docs/b.txt"]',
    actual: '["docs/a.txt"]',
    context: 'keys listed',
  });
  // The check wrapper records a failure while its check runs (check.ts): the check's operation names it.
  const inFlow = inCheck('MUST', 'GET /storage/buckets/{bucket_name}/objects', () =>
    recorded(() => checkExpect(['a']).toEqual([])),
  );
  expect(inFlow.failure.headline).toBe('GET /storage/buckets/{bucket_name}/objects: toEqual: expected [], got ["a"]');
  // Matchers whose result carries no expected value: the call's own argument, or what the matcher implies.
  expect(recorded(() => checkExpect(3).toBeGreaterThan(5)).failure).toMatchObject({
    subject: 'toBeGreaterThan',
    expected: '5',
    actual: '3',
  });
  expect(recorded(() => checkExpect(null, 'a token').toBeTruthy()).failure).toMatchObject({
    expected: 'truthy',
    actual: 'null',
  });
  expect(recorded(() => checkExpect(['x']).not.toContain('x')).failure).toMatchObject({
    subject: 'not.toContain',
    expected: 'not "x"',
  });
});

test("an error is kind error with its name; a check's own error in words is an assertion", () => {
  expect(failureOf(new TypeError("cannot read properties of undefined (reading 'id')")).failure).toMatchObject({
    kind: 'error',
    subject: 'TypeError',
  });
  expect(failureOf(new CloudcheckError('built a path from a missing value')).failure).toMatchObject({
    kind: 'error',
    subject: 'CloudcheckError',
  });
  expect(failureOf(new EnvironmentError('no route')).failure).toMatchObject({
    kind: 'error',
    subject: 'EnvironmentError',
  });
  expect(failureOf(new Error('the worker was replaced')).failure).toMatchObject({
    kind: 'assertion',
    subject: 'thrown',
    headline: 'the worker was replaced',
  });
});

test("explore's model violations are typed failures: state by default, a status where the model asked for a success", () => {
  const violation = new ModelViolation('PROJ-DEL-001', 'GET /projects', 'the deleted p1 not listed', 'listed');
  expect(violation).toBeInstanceOf(CheckFailed);
  expect(violation.message).toBe('[PROJ-DEL-001] GET /projects: expected the deleted p1 not listed, got listed');
  expect(violation.record.failure).toMatchObject({
    kind: 'state',
    subject: 'GET /projects',
    expected: 'the deleted p1 not listed',
    actual: 'listed',
  });
  const thrown = thrownBy(() =>
    expectOk(response(500, { error: {} }, 'GET /projects/p1'), 'PROJ-GET-001', 'reading the project'),
  );
  expect(thrown).toBeInstanceOf(ModelViolation);
  expect((thrown as ModelViolation).record.failure).toMatchObject({
    kind: 'status',
    expected: '2xx',
    actual: '500',
    operation: 'GET /projects/{project_id}',
    headline: 'GET /projects/{project_id} (reading the project): answered 500, expected 2xx',
  });
});
