/**
 * The `rate-limits` class through the real `cloudcheck run`: it passes against the embedded
 * reference server, with every burst step and run-wide invariant reported.
 *
 * The faults are proved by the fault matrix (test/trust/fault-matrix.test.ts): each rate-limit
 * fault fails a `cloudcheck run` on its requirement, the header faults through the run-wide
 * invariants too (MUST_DETECT in test/trust/matrix.ts); the two only load can show go through
 * `cloudcheck load` there.
 */
import { expect, test } from '../base.ts';
import { type FlowRun as Run, runFlow } from '../flows/faulty-run.ts';

function runClass(faults: string[], extraArgs: string[] = []): Promise<Run> {
  return runFlow({ classes: ['rate-limits'], faults, args: extraArgs });
}

function summary(run: Run): string {
  return run.report.checks
    .map((c) => `${c.status} ${c.id} [${c.requirement}]${c.message ? `: ${c.message.slice(0, 200)}` : ''}`)
    .join('\n');
}

// Each case starts the reference server and Playwright: allow for a wait for a fresh minute window
// (up to 16 s) and for a busy machine.
test.describe.configure({ timeout: 240_000 });

test('the rate-limits class passes against the reference server', async () => {
  const run = await runClass([]);
  const s = summary(run);
  expect(
    run.report.checks.filter((c) => c.status === 'failed'),
    s,
  ).toEqual([]);
  expect(
    run.report.checks.filter((c) => c.status === 'skipped'),
    s,
  ).toEqual([]);
  // The flows' steps and the run-wide invariants are all there.
  const ids = run.report.checks.map((c) => c.id);
  for (const id of [
    'rate-limits.burst-messaging.onset',
    'rate-limits.burst-compute.onset',
    'rate-limits.burst-messaging.sms-headers',
    'rate-limits.run.remaining-decrements',
    'rate-limits.run.reset-epoch',
  ]) {
    expect(ids, s).toContain(id);
  }
  expect(
    run.report.checks.every((c) => c.class === 'rate-limits'),
    s,
  ).toBe(true);
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
});
