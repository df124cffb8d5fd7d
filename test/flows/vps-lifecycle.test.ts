/**
 * The VPS lifecycle flow (suites/flows/vps-lifecycle.spec.ts) passes against the reference server
 * and fails, naming the broken requirement, against reference faults that break what it checks.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['compute'], grep: 'VPS lifecycle' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 18);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['vps-created-with-ips', 'VPS-CRT-004'],
  ['vps-update-ignored', 'VPS-UPD-001'],
  ['vps-list-filter-ignored', 'VPS-LIST-002'],
  ['snapshot-delete-ignored', 'SNAP-DEL-001'],
  ['vps-metrics-outside-window', 'VPS-MET-003'],
  ['vps-delete-ghost', 'VPS-DEL-001'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    // The use-after-delete step waits (scaled) for the deleted VPS to disappear; a small scale
    // keeps the ghost fault quick. The reference server's delays are far below it.
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault], env: { CLOUDCHECK_TIMEOUT_SCALE: '0.2' } }), requirement);
  });
}
