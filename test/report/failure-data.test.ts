/**
 * The reporter reads failures as data (src/report/playwright-reporter.ts): the failure the check
 * wrapper recorded becomes the check's `failure` (its exchanges placed among the check's), its
 * expected and actual; whose fault it is comes from annotations and statuses, never from the text
 * of a message. Console, summary.md and JUnit say the failure's headline.
 */
import { expect, test } from '../base.ts';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { checkFromTest } from '../../src/report/playwright-reporter.ts';
import { ANNOTATION, EXCHANGES_ATTACHMENT } from '../../src/harness/fixtures.ts';
import type { FailureRecord } from '../../src/harness/failure.ts';
import type { Exchange } from '../../src/model/finding.ts';
import { writeJunit } from '../../src/report/junit.ts';
import { writeMarkdown } from '../../src/report/markdown.ts';
import { check, report } from '../harness/helpers.ts';

const exchange = (path: string, at: string): Exchange => ({
  request: { method: 'GET', url: `http://127.0.0.1:1/v1${path}`, headers: {} },
  response: { status: 200, headers: {}, body: '{}' },
  started_at: at,
  duration_ms: 1,
  curl: `curl 'http://127.0.0.1:1/v1${path}'`,
});

type Annotation = { type: string; description?: string };

function testCase(level: 'MUST' | 'SHOULD', annotations: Annotation[] = []): TestCase {
  return {
    title: '[VPS-LIST-001] the list',
    titlePath: () => ['', 'conformance', '[VPS-LIST-001] the list'],
    location: { file: '/x/suites/flows/x.spec.ts', line: 1, column: 1 },
    annotations: [
      { type: ANNOTATION.id, description: 'flow.x.list' },
      { type: ANNOTATION.requirement, description: 'VPS-LIST-001' },
      { type: ANNOTATION.level, description: level },
      { type: ANNOTATION.class, description: 'compute' },
      { type: ANNOTATION.operation, description: 'GET /vps' },
      ...annotations,
    ],
  } as unknown as TestCase;
}

function result(status: TestResult['status'], annotations: Annotation[], extra: Partial<TestResult> = {}): TestResult {
  return { status, annotations, attachments: [], errors: [], duration: 12, ...extra } as unknown as TestResult;
}

const record: FailureRecord = {
  failure: {
    kind: 'schema',
    subject: '/meta',
    keyword: 'required',
    expected: 'present',
    actual: 'absent',
    headline: 'GET /vps: `meta` missing from the body',
    operation: 'GET /vps',
    request: 'GET /vps',
  },
  // Recorded by an earlier step of the flow: not among this check's own exchanges.
  judged: [exchange('/vps', '2026-01-01T00:00:01.000Z')],
};

test("a recorded failure is the check's failure, its judged exchange kept among the check's", () => {
  const own = [exchange('/regions', '2026-01-01T00:00:02.000Z')];
  const c = checkFromTest(
    testCase('MUST'),
    result(
      'passed',
      [
        // A message that looks like Playwright's: nothing is read out of it.
        { type: ANNOTATION.failure, description: 'Expected: 201\nReceived: 200' },
        { type: ANNOTATION.failureData, description: JSON.stringify(record) },
      ],
      {
        attachments: [
          { name: EXCHANGES_ATTACHMENT, contentType: 'application/json', body: Buffer.from(JSON.stringify(own)) },
        ],
      },
    ),
    undefined,
  );
  expect(c).toMatchObject({ status: 'failed', classification: 'defect', expected: 'present', actual: 'absent' });
  expect(c.failure).toMatchObject({ ...record.failure, exchanges: [1] });
  expect(c.exchanges!.map((e) => e.request.url)).toEqual([
    'http://127.0.0.1:1/v1/regions',
    'http://127.0.0.1:1/v1/vps',
  ]);
});

test('a SHOULD deviation is a spec-gap with its failure; the level decides, not the words', () => {
  const c = checkFromTest(
    testCase('SHOULD'),
    result('passed', [
      { type: ANNOTATION.deviation, description: 'EnvironmentError: looks like one, is not' },
      { type: ANNOTATION.failureData, description: JSON.stringify(record) },
    ]),
    undefined,
  );
  expect(c).toMatchObject({ status: 'failed', classification: 'spec-gap' });
  expect(c.failure?.kind).toBe('schema');
});

test("whose fault: annotations and statuses only; an error outside the check's body is cloudcheck's own", () => {
  const failedOutside = (annotations: Annotation[], status: TestResult['status'], message: string) =>
    checkFromTest(testCase('MUST'), result(status, annotations, { errors: [{ message }] }), undefined);
  // Named like an environment error, but nobody classified it: it judged nothing of the target.
  const unclassified = failedOutside([], 'failed', 'EnvironmentError: no route to host');
  expect(unclassified.classification).toBe('cloudcheck-error');
  expect(unclassified.failure).toMatchObject({ kind: 'error', subject: 'error', operation: 'GET /vps' });
  expect(unclassified.failure?.headline).toBe('GET /vps: EnvironmentError: no route to host');
  const annotated = failedOutside([{ type: ANNOTATION.classification, description: 'environment' }], 'failed', 'x');
  expect(annotated.classification).toBe('environment');
  const timedOut = failedOutside([], 'timedOut', 'Test timeout of 30000ms exceeded.');
  expect(timedOut.classification).toBe('environment');
  expect(timedOut.failure).toMatchObject({ kind: 'error', subject: 'timeout' });
  // The check wrapper's own classification of a crash in the check's code.
  const crash = checkFromTest(
    testCase('MUST'),
    result('passed', [
      { type: ANNOTATION.failure, description: 'TypeError: x is undefined' },
      { type: ANNOTATION.classification, description: 'cloudcheck-error' },
      {
        type: ANNOTATION.failureData,
        description: JSON.stringify({
          failure: { kind: 'error', subject: 'TypeError', headline: 'GET /vps: TypeError', operation: 'GET /vps' },
          judged: [],
        }),
      },
    ]),
    undefined,
  );
  expect(crash).toMatchObject({ classification: 'cloudcheck-error', failure: { kind: 'error', subject: 'TypeError' } });
});

test('console lines, summary.md and JUnit say the headline; the reproduction is the judged exchange', () => {
  const judged = exchange('/vps', '2026-01-01T00:00:01.000Z');
  const failed = check({
    id: 'flow.x.list',
    requirement: 'VPS-LIST-001',
    status: 'failed',
    classification: 'defect',
    message: 'expect(received).toEqual(expected) // deep equality',
    failure: { ...record.failure, exchanges: [0] },
    exchanges: [judged, exchange('/regions', '2026-01-01T00:00:02.000Z')],
  });
  const r = report([failed]);
  expect(writeMarkdown(r)).toContain('- GET /vps: `meta` missing from the body');
  expect(writeMarkdown(r)).toContain("curl 'http://127.0.0.1:1/v1/vps'");
  expect(writeJunit(r)).toContain('message="GET /vps: `meta` missing from the body"');
});
