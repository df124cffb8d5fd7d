/**
 * The webhooks flow passes against the reference server and fails against the faults that break
 * what it checks: deliveries without network and country, and unsubscribed events delivered.
 */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['webhooks'], grep: 'flow\\] webhooks:' };

test('webhooks passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 8);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(8);
});

for (const [fault, requirement] of [
  ['webhook-data-incomplete', 'HOOK-PAY-001'],
  ['webhook-unsubscribed-delivered', 'HOOK-DLV-001'],
] as const) {
  test(`webhooks fails against ${fault}, naming ${requirement}`, async () => {
    const run = await runFlow({ ...FLOW, faults: [fault] });
    expectFailedOn(run, requirement);
    // The fault breaks one requirement: nothing else of the flow may fail.
    expect(run.failed.map((c) => c.requirement)).toEqual([requirement]);
  });
}
