import { expect, test } from '../base.ts';
import {
  causeParts,
  clusterChecks,
  clusterId,
  memberOf,
  neutral,
  signatureOf,
  withClusters,
} from '../../src/report/clusters.ts';
import { writeMarkdown } from '../../src/report/markdown.ts';
import { writeJunit } from '../../src/report/junit.ts';
import { diffReports } from '../../src/report/diff.ts';
import type { CheckFailure, CheckResult } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { fixture } from './helpers.ts';

let n = 0;
/** A failed check of the target whose failure is `failure` (the rest made up, different every time). */
function failed(
  failure: Partial<CheckFailure> & Pick<CheckFailure, 'kind' | 'subject'>,
  over: Partial<CheckResult> = {},
): CheckResult {
  n++;
  const operation = over.operation ?? `POST /thing-${n}`;
  return {
    id: `check-${n}`,
    requirement: `REQ-${n}`,
    level: 'SHOULD',
    class: 'errors',
    operation,
    title: `check ${n}`,
    status: 'failed',
    classification: over.level === 'MUST' ? 'defect' : 'spec-gap',
    message: `Error: something long and different ${n} ${Math.random()}`,
    failure: {
      headline: `${operation}: words ${n}`,
      operation,
      request: `${operation}?n=${n}`,
      evidence: `body ${n}`,
      ...failure,
    },
    ...over,
  };
}

const status = (expected: string, actual: string, over: Partial<CheckResult> = {}): CheckResult =>
  failed({ kind: 'status', subject: 'status', expected, actual }, over);

test('neutral takes out what one request or run has of its own: ids, run names, times, numbers', () => {
  expect(neutral('vps_3f2a9b10c4d5e6f7 of cc-20260115-100000-ab12-vps-3 at 2026-01-15T10:00:00.123Z')).toBe(
    '{id} of {name} at {time}',
  );
  expect(neutral('9b2c1e4a-0f3d-4c5e-8a7b-1c2d3e4f5a6b has 25 items, 1.5 GB')).toBe('{id} has N items, N GB');
  expect(neutral(undefined)).toBeUndefined();
  expect(neutral('x'.repeat(300))!.length).toBe(120);
});

test('a pointer reads as the member it names: the same field in a list item and a resource is one cause', () => {
  expect(memberOf('/wallets/*/available_balance')).toBe('available_balance');
  expect(memberOf('/wallet/available_balance')).toBe('available_balance');
  expect(memberOf('/meta')).toBe('meta');
  expect(memberOf('')).toBe('');
});

test('the signature is what the target did: never the message, operation, request, expected value or level', () => {
  const a = status('422', '400');
  const b = status('422', '400', { requirement: 'OTHER-1', class: 'projects' });
  expect(a.message).not.toBe(b.message);
  expect(signatureOf(causeParts(a))).toBe(signatureOf(causeParts(b)));
  expect(signatureOf(causeParts(a))).toBe('status|status||400|refusal');
  // What cloudcheck expected, and at which level, do not split a cause; what came back does.
  expect(signatureOf(causeParts(status('4xx', '400', { level: 'MUST' })))).toBe(signatureOf(causeParts(a)));
  expect(signatureOf(causeParts(status('422', '409')))).not.toBe(signatureOf(causeParts(a)));
  // Except whether it asked for a success or a refusal: accepting invalid input with 200 is another
  // cause than creating with 200 where the convention says 201.
  expect(signatureOf(causeParts(status('4xx', '200', { level: 'MUST' })))).not.toBe(
    signatureOf(causeParts(status('201', '200'))),
  );
  expect(signatureOf(causeParts(status('200, 201 or 204', '202', { level: 'MUST' })))).toBe(
    signatureOf(causeParts(status('204', '202'))),
  );
  // Values of one request (a run's names, ids) do not split a cause.
  const echo = (actual: string) =>
    failed({ kind: 'schema', subject: '/vps/name', keyword: 'const', expected: '"active"', actual });
  expect(signatureOf(causeParts(echo('"cc-20260115-100000-ab12-vps-1"')))).toBe(
    signatureOf(causeParts(echo('"cc-20260116-090000-zz99-vps-7"'))),
  );
  // A timing failure's deadline is the run's, never the cause's.
  const wait = (actual: string) =>
    failed({ kind: 'timing', subject: 'the VPS running', expected: 'within 300 s', actual });
  expect(signatureOf(causeParts(wait('not after 300.2 s')))).toBe(signatureOf(causeParts(wait('not after 301.9 s'))));
});

test('a plain expect is a cause of its requirement only; a check without failure data likewise', () => {
  const plain = (requirement: string) =>
    failed({ kind: 'assertion', subject: 'toBe', expected: 'true', actual: 'false' }, { requirement });
  expect(signatureOf(causeParts(plain('A-1')))).not.toBe(signatureOf(causeParts(plain('A-2'))));
  const bare: CheckResult = { ...status('1', '2'), failure: undefined, requirement: 'B-1' };
  expect(causeParts(bare)).toEqual({ level: 'SHOULD', kind: 'untyped', subject: '', requirement: 'B-1' });
});

test('one fault, one cause: 400 for every 422 over many operations and requirements is one cluster', () => {
  const checks = Array.from({ length: 30 }, (_, i) =>
    status('422', '400', { operation: `POST /op-${i % 12}`, requirement: `ERR-MAP-00${i % 3}` }),
  );
  const clusters = clusterChecks(checks);
  expect(clusters).toHaveLength(1);
  expect(clusters[0]).toMatchObject({
    level: 'SHOULD',
    cause: 'answered 400, convention 422',
    requirements: ['ERR-MAP-000', 'ERR-MAP-001', 'ERR-MAP-002'],
  });
  expect(clusters[0]!.checks).toHaveLength(30);
  expect(clusters[0]!.operations).toHaveLength(12);
  expect(clusters[0]!.id).toBe(clusterId('status|status||400|refusal'));
});

test('one wrong answer judged by a MUST check and SHOULD conventions is one cause, of level MUST, naming each expectation', () => {
  // errors-409-outside-storage: a DELETE of something gone answers 409 everywhere. One MUST check
  // ("not 409"), eleven conventions (404): one cause, not a MUST cause of 8 % and a SHOULD one.
  const checks = [
    status('not 409', '409', { level: 'MUST', requirement: 'ERR-STAT-003' }),
    ...Array.from({ length: 11 }, (_, i) =>
      status('404', '409', { operation: `DELETE /thing-${i}/{id}`, requirement: 'ERR-MAP-004' }),
    ),
    status('201', '200'),
  ];
  const clusters = clusterChecks(checks);
  expect(clusters.map((c) => `${c.level} ${c.checks.length} ${c.cause}`)).toEqual([
    'MUST 12 answered 409, expected not 409 (MUST) / 404 (convention)',
    'SHOULD 1 answered 200, convention 201',
  ]);
  expect(clusters[0]!.expectations).toEqual([
    { level: 'MUST', expected: 'not 409' },
    { level: 'SHOULD', expected: '404' },
  ]);
  expect(clusters[0]!.requirements).toEqual(['ERR-MAP-004', 'ERR-STAT-003']);
  // The id is the signature's: the same whichever levels and expectations a run's checks bring.
  expect(clusters[0]!.id).toBe(clusterChecks(checks.slice(1, 3))[0]!.id);
  expect(clusterChecks(checks.slice(1, 3))[0]!.cause).toBe('answered 409, convention 404');
});

test('MUST causes first, the most checks first; failures not the target’s are no cause', () => {
  const meta = (op: string) =>
    failed(
      { kind: 'schema', subject: '/meta', keyword: 'required', expected: 'present', actual: 'absent' },
      { level: 'MUST', operation: op },
    );
  const env = { ...status('200', '503'), classification: 'environment' as const };
  const own = { ...status('200', '500'), classification: 'cloudcheck-error' as const };
  const checks = [
    status('201', '200'),
    status('201', '200'),
    status('201', '200'),
    meta('GET /vps'),
    failed(
      { kind: 'header', subject: 'x-ratelimit-remaining', expected: 'present', actual: 'absent' },
      { level: 'MUST' },
    ),
    meta('GET /sms/messages'),
    env,
    own,
  ];
  const clusters = clusterChecks(checks);
  expect(clusters.map((c) => `${c.level} ${c.checks.length} ${c.cause}`)).toEqual([
    'MUST 2 `meta` missing',
    'MUST 1 header x-ratelimit-remaining missing',
    'SHOULD 3 answered 200, convention 201',
  ]);
  // The same failures in another order, with other ids and messages: the same ids.
  const again = clusterChecks([...checks].reverse().map((c) => ({ ...c, id: `${c.id}-b`, message: 'other' })));
  expect(again.map((c) => c.id)).toEqual(clusters.map((c) => c.id));
});

test('a flow step skipped after a failed step belongs to that step’s cause, not a cause of its own', () => {
  const step = failed(
    { kind: 'schema', subject: '/project/status', keyword: 'const', expected: '"active"', actual: '"pending"' },
    { level: 'MUST', flow: 'flow.projects' },
  );
  const skipped: CheckResult[] = [1, 2, 3].map((i) => ({
    id: `flow.projects.after-${i}`,
    requirement: `PROJ-${i}`,
    level: 'MUST',
    class: 'projects',
    operation: null,
    title: `after ${i}`,
    status: 'skipped',
    flow: 'flow.projects',
    skipped_after: step.id,
  }));
  const clusters = clusterChecks([step, ...skipped]);
  expect(clusters).toHaveLength(1);
  expect(clusters[0]!.checks).toEqual([step.id]);
  expect(clusters[0]!.cascaded).toEqual(skipped.map((s) => s.id));
  const marked = withClusters([step, ...skipped], clusters);
  expect(new Set(marked.map((c) => c.cluster))).toEqual(new Set([clusters[0]!.id]));
});

test('summary.md leads with the causes; JUnit names each check’s cause; report diff compares them', () => {
  const base = fixture('report-full.json');
  const checks = [
    ...Array.from({ length: 5 }, (_, i) => status('422', '400', { operation: `POST /op-${i}` })),
    status('201', '200', { operation: 'POST /projects' }),
  ];
  const clusters = clusterChecks(checks);
  const report: ConformanceReport = { ...base, checks: withClusters(checks, clusters), clusters };
  const md = writeMarkdown(report);
  expect(md).toContain('## 2 causes (2 SHOULD)');
  expect(md).toContain('### 1. SHOULD: answered 400, convention 422: 5 checks over 5 operations');
  expect(md).toContain('### 2. SHOULD: POST /projects: answered 200, convention 201: 1 check');
  expect(md.indexOf('## 2 causes')).toBeLessThan(md.indexOf('| class | passed'));
  const xml = writeJunit(report);
  expect(xml).toContain(`<property name="cause" value="${clusters[0]!.id}"/>`);
  expect(xml).toContain('<property name="cause_text" value="answered 400, convention 422"/>');
  const fixed = diffReports(report, {
    ...report,
    checks: checks.slice(0, 5).concat({ ...checks[5]!, status: 'passed' }),
    clusters: clusters.slice(0, 1),
  });
  expect(fixed.causes.fixed.map((c) => c.cause)).toEqual(['answered 200, convention 201']);
  expect(fixed.causes.unchanged.map((c) => c.checks_after)).toEqual([5]);
});

test('bodies under one wrapper are one cause over every resource, its words naming the wrappers asked for', () => {
  const wrapper = (name: string): CheckResult =>
    failed({ kind: 'schema', subject: '/', keyword: 'wrapper', expected: `\`${name}\``, actual: '`data`' });
  const causes = clusterChecks(['volume', 'project', 'bucket', 'webhook'].map(wrapper));
  expect(causes).toHaveLength(1);
  expect(causes[0]!.cause).toBe('bodies come under `data`, convention `bucket` / `project` / `volume` / 1 more');
  const flat = clusterChecks([
    failed({ kind: 'schema', subject: '/', keyword: 'wrapper', expected: '`vps`', actual: 'none' }),
  ]);
  expect(flat[0]!.cause).toBe('resources come unwrapped, convention `vps`');
});
