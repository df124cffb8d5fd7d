/**
 * The messaging-consistency flow passes against the reference server and fails against the
 * faults that break what it checks: an ignored status filter, a campaign left out of the list,
 * and a default page size of 20 instead of 25.
 */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['messaging'], grep: 'flow\\] messaging consistency:' };

test('messaging consistency passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 17);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(17);
});

for (const [fault, requirement] of [
  ['msg-status-filter-ignored', 'MSG-LIST-002'],
  ['msg-campaign-not-listed', 'MSG-CMP-001'],
  ['msg-page-size-default-20', 'PAGE-SIZE-001'],
] as const) {
  test(`messaging consistency fails against ${fault}, naming ${requirement}`, async () => {
    const run = await runFlow({ ...FLOW, faults: [fault] });
    expectFailedOn(run, requirement);
    // The fault breaks one requirement: nothing else of the flow may fail.
    expect(run.failed.map((c) => c.requirement)).toEqual([requirement]);
  });
}
