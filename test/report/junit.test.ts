import { expect, test } from '../base.ts';
import { XMLParser } from 'fast-xml-parser';
import { writeJunit } from '../../src/report/junit.ts';
import { writeMarkdown } from '../../src/report/markdown.ts';
import { writeJson } from '../../src/report/json.ts';
import { writeReportFiles } from '../../src/report/writers.ts';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, report } from '../harness/helpers.ts';

const checks = [
  check({ id: 'a', class: 'messaging', status: 'passed' }),
  check({ id: 'b', class: 'messaging', status: 'failed', message: 'expected <201> & got "400"\u0001' }),
  check({ id: 'c', class: 'compute', level: 'SHOULD', status: 'failed', message: 'deviation ]]> here' }),
  check({
    id: 'd',
    class: 'compute',
    status: 'failed',
    classification: 'environment',
    message: 'EnvironmentError: budget',
  }),
  check({ id: 'e', class: 'auth', status: 'skipped', message: 'needs --alt-api-key' }),
];

function parse(xml: string) {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  });
  return parser.parse(xml, true) as {
    testsuites: {
      tests: string;
      failures: string;
      errors: string;
      skipped: string;
      testsuite: Array<{
        name: string;
        tests: string;
        failures: string;
        testcase: Array<{
          name: string;
          failure?: unknown;
          error?: unknown;
          skipped?: unknown;
          'system-out'?: unknown;
        }>;
      }>;
    };
  };
}

test('junit.xml parses, one testcase per check grouped by class, counts match', () => {
  const doc = parse(writeJunit(report(checks)));
  const root = doc.testsuites;
  expect(Number(root.tests)).toBe(5);
  expect(Number(root.failures)).toBe(1); // the MUST defect only
  expect(Number(root.errors)).toBe(1); // environment
  expect(Number(root.skipped)).toBe(1);
  expect(root.testsuite.map((s) => s.name).sort()).toEqual(['auth', 'compute', 'messaging']);
  const cases = root.testsuite.flatMap((s) => s.testcase);
  expect(cases).toHaveLength(5);
  const compute = root.testsuite.find((s) => s.name === 'compute')!;
  expect(compute.testcase.find((c) => c.failure)).toBeUndefined(); // SHOULD deviation is not a failure…
  expect(compute.testcase.some((c) => c['system-out'])).toBe(true); // …but is visible
});

test('strict turns SHOULD deviations into failures', () => {
  const doc = parse(writeJunit(report(checks, { run: { ...report([]).run, strict: true } })));
  expect(Number(doc.testsuites.failures)).toBe(2);
});

test('a failing writer does not stop the others', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-writers-'));
  try {
    const outcome = writeReportFiles(report(checks), dir, [
      { file: 'report.json', write: writeJson },
      {
        file: 'broken.html',
        write: () => {
          throw new Error('boom');
        },
      },
      { file: 'summary.md', write: writeMarkdown },
    ]);
    expect(outcome.failed).toEqual([{ file: 'broken.html', error: 'boom' }]);
    expect(readdirSync(dir).sort()).toEqual(['report.json', 'summary.md']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
