/**
 * The presigned-URL flow (suites/flows/presigned-urls.spec.ts) passes against the reference
 * server and fails, naming the broken requirement, against reference faults.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['storage-objects'], grep: 'presigned URLs' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 9);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['presigned-signature-unchecked', 'PRE-URL-007'],
  ['presigned-expiry-unchecked', 'PRE-URL-006'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault] }), requirement);
  });
}
