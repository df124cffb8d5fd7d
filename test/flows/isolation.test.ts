/**
 * The isolation flow passes against the reference server and fails against
 * `bucket-name-not-unique`, which lets the other account take this account's bucket name.
 */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['isolation'], grep: 'flow\\] isolation:' };

test('isolation passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 7);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(7);
  expect(run.report.leaks).toEqual([]);
});

test('isolation fails against bucket-name-not-unique, naming BKT-CRT-003', async () => {
  const run = await runFlow({ ...FLOW, faults: ['bucket-name-not-unique'] });
  expectFailedOn(run, 'BKT-CRT-003');
  expect(run.failed.map((c) => c.requirement)).toEqual(['BKT-CRT-003']);
  // What the faulty server let the other account create is still cleaned up.
  expect(run.report.leaks).toEqual([]);
});
