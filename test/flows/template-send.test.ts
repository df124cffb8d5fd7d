/** The template-send flow passes against the reference server and fails against `msg-template-not-substituted`. */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['messaging'], grep: 'flow\\] template send:' };

test('template send passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 6);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(6);
});

for (const [fault, requirement] of [
  ['msg-template-not-substituted', 'MSG-TPL-005'],
] as const) {
  test(`template send fails against ${fault}, naming ${requirement}`, async () => {
    const run = await runFlow({ ...FLOW, faults: [fault] });
    expectFailedOn(run, requirement);
    // The fault breaks one requirement: nothing else of the flow may fail.
    expect(run.failed.map((c) => c.requirement)).toEqual([requirement]);
  });
}
