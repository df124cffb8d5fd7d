/**
 * The objects-and-listing flow (suites/flows/objects-listing.spec.ts) passes against the
 * reference server and fails, naming the broken requirement, against reference faults.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['storage-objects'], grep: 'objects and listing' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 12);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['object-listing-prefix-ignored', 'OBJ-LIST-003'],
  ['object-listing-marker-ignored', 'OBJ-LIST-005'],
  ['bucket-delete-non-empty', 'BKT-DEL-001'],
  ['bucket-name-not-unique', 'BKT-CRT-003'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault] }), requirement);
  });
}
