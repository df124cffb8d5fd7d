/** The test-mode-numbers flow passes against the reference server and fails against `msg-fail-number-delivered`. */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['test-mode'], grep: 'flow\\] test-mode numbers:' };

test('test-mode numbers passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 7);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(7);
});

for (const [fault, requirement] of [
  ['msg-fail-number-delivered', 'TEST-NUM-002'],
] as const) {
  test(`test-mode numbers fails against ${fault}, naming ${requirement}`, async () => {
    const run = await runFlow({ ...FLOW, faults: [fault] });
    expectFailedOn(run, requirement);
    // The fault breaks one requirement: nothing else of the flow may fail.
    expect(run.failed.map((c) => c.requirement)).toEqual([requirement]);
  });
}
