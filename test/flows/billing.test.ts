/**
 * The billing flow (suites/flows/billing.spec.ts) passes against the reference server and fails,
 * naming the broken requirement, against reference faults that break it.
 */
import { test } from '@playwright/test';
import { expectAllPassed, expectFailedOn, runFlow } from './faulty-run.ts';

const FLOW = { classes: ['billing'], grep: 'billing and account' };

test('passes against the reference server', async () => {
  expectAllPassed(await runFlow(FLOW), 13);
});

const FAULTS: Array<[fault: string, requirement: string]> = [
  ['account-update-ignored', 'ACCT-UPD-001'],
  ['topup-payment-method-unchecked', 'WAL-TOP-001'],
  ['history-type-filter-ignored', 'BILL-HIST-003'],
  ['payment-method-delete-ignored', 'BILL-PM-004'],
  ['invoice-pdf-not-pdf', 'INV-PDF-001'],
];

for (const [fault, requirement] of FAULTS) {
  test(`fails on ${requirement} with fault ${fault}`, async () => {
    expectFailedOn(await runFlow({ ...FLOW, faults: [fault] }), requirement);
  });
}
