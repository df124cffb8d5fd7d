/**
 * The volumes flow (suites/flows/volumes.spec.ts) passes against the reference server and fails,
 * naming the broken requirement, against reference faults that break it.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['storage-volumes'], grep: '\\[flow\\] volumes' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 10);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['volume-min-size-unchecked', 'VOL-CRT-002'],
  ['volume-shrink-accepted', 'VOL-RSZ-001'],
  ['volume-restore-smaller-accepted', 'VOL-RST-002'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault] }), requirement);
  });
}
