/**
 * The `s3` class of the suite through the real `cloudcheck run` against the embedded server: it
 * passes on the correct server. That each S3 fault makes the run fail (exit 1) on the requirement
 * the fault breaks is proved by the fault matrix (test/trust/fault-matrix.test.ts), one run per
 * fault, so it is not repeated here.
 */
import { expect, test } from '../base.ts';
import { expectAllPassed, runFlow } from '../flows/faulty-run.ts';

test.describe.configure({ timeout: 600_000 });

test('cloudcheck run --classes s3 passes against the embedded server', async () => {
  const run = await runFlow({ classes: ['s3'], grep: 'S3-' });
  // External tools may be absent on a machine; they then skip, which is not a failure.
  const skippedNonTools = run.report.checks.filter((c) => c.status === 'skipped' && c.requirement !== 'S3-TOOL-001');
  expect(skippedNonTools.map((c) => c.id)).toEqual([]);
  expect(run.failed.map((c) => `${c.id}: ${c.message ?? ''}`)).toEqual([]);
  expect(run.code).toBe(0);
  expect(run.report.checks.length).toBeGreaterThanOrEqual(17);
  if (run.report.checks.every((c) => c.status === 'passed')) expectAllPassed(run, 17);
});
