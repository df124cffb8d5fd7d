/**
 * The projects flow (suites/flows/projects.spec.ts) passes against the reference server and
 * fails, naming the broken requirement, against reference faults that break it.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['projects'], grep: 'projects and their resources' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 8);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['project-budget-limit-returned', 'PROJ-FLD-002'],
  ['project-update-ignored', 'PROJ-UPD-001'],
  ['project-delete-keeps-resources', 'PROJ-DEL-001'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    // The delete step waits (scaled) for the project's VPS to disappear; a small scale keeps the
    // keeps-resources fault quick. The reference server's own delays are far below it.
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault], env: { CLOUDCHECK_TIMEOUT_SCALE: '0.2' } }), requirement);
  });
}
