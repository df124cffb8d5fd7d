/**
 * The API-keys flow passes against the reference server and fails against each fault that breaks
 * what it checks: revoked keys accepted, expired keys accepted, the IP whitelist ignored, and the
 * full secret shown in the listing.
 */
import { expect, test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['api-keys'], grep: 'flow\\] API keys:' };

test('API keys passes against the reference server', async () => {
  const run = await runFlow(FLOW);
  expectAllPassed(run, 10);
  expect(run.report.checks.filter((c) => c.status === 'passed').length).toBe(10);
  expect(run.report.leaks).toEqual([]);
});

for (const [fault, requirement] of [
  ['auth-revoked-accepted', 'KEY-REVOKE-001'],
  ['auth-expired-accepted', 'KEY-EXPIRE-001'],
  ['auth-ip-whitelist-ignored', 'KEY-IP-001'],
  ['key-secret-in-listing', 'KEY-LIST-002'],
  ['key-revoke-ignored', 'KEY-DEL-001'],
] as const) {
  test(`API keys fails against ${fault}, naming ${requirement}`, async () => {
    const run = await runFlow({ ...FLOW, faults: [fault] });
    expectFailedOn(run, requirement);
    // The fault breaks one requirement: nothing else of the flow may fail.
    expect(run.failed.map((c) => c.requirement)).toEqual([requirement]);
  });
}
