/**
 * The multipart-upload flow (suites/flows/multipart-upload.spec.ts) passes against the reference
 * server and fails, naming the broken requirement, against reference faults that break it.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['storage-objects'], grep: 'multipart upload' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 11);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['multipart-parts-out-of-order', 'MPU-CMP-002'],
  ['multipart-content-type-lost', 'MPU-INIT-002'],
  ['object-head-no-length', 'OBJ-HEAD-001'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault] }), requirement);
  });
}
