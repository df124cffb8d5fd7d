/**
 * The `rate-limits` class through the real `cloudcheck run`: it passes against the embedded
 * reference server, and each rate-limit fault it can check cheaply fails the gate with a failed
 * check naming the fault's requirement id (as `listFaults()` gives it). Faults come in through the
 * hidden CLOUDCHECK_EMBEDDED_FAULTS switch (src/harness/embedded.ts).
 *
 * Not covered here: `ratelimit-sms-volume-ignored` (needs 10000 SMS in an hour: the `sms-volume`
 * load profile checks it) and `ratelimit-non-atomic` (needs concurrency: the `concurrency-race`
 * load profile).
 */
import { expect, test } from '@playwright/test';
import { listFaults } from '../../reference/server.ts';
import { type FlowRun as Run, runFlow } from '../flows/faulty-run.ts';

function runClass(faults: string[], extraArgs: string[] = []): Promise<Run> {
  return runFlow({ classes: ['rate-limits'], faults, args: extraArgs });
}

function summary(run: Run): string {
  return run.report.checks.map((c) => `${c.status} ${c.id} [${c.requirement}]${c.message ? `: ${c.message.slice(0, 200)}` : ''}`).join('\n');
}

// Each case starts the reference server and Playwright: allow for a wait for a fresh minute window
// (up to 16 s) and for a busy machine.
test.describe.configure({ timeout: 240_000 });

test('the rate-limits class passes against the reference server', async () => {
  const run = await runClass([]);
  const s = summary(run);
  expect(run.report.checks.filter((c) => c.status === 'failed'), s).toEqual([]);
  expect(run.report.checks.filter((c) => c.status === 'skipped'), s).toEqual([]);
  // The flows' steps and the run-wide invariants are all there.
  const ids = run.report.checks.map((c) => c.id);
  for (const id of ['rate-limits.burst-messaging.onset', 'rate-limits.burst-compute.onset', 'rate-limits.burst-messaging.sms-headers', 'rate-limits.run.remaining-decrements', 'rate-limits.run.reset-epoch']) {
    expect(ids, s).toContain(id);
  }
  expect(run.report.checks.every((c) => c.class === 'rate-limits'), s).toBe(true);
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
});

const CASES: Array<{ fault: string; runWide?: string }> = [
  { fault: 'ratelimit-no-429' },
  { fault: 'ratelimit-headers-missing-compute', runWide: 'rate-limits.run.headers-present' },
  { fault: 'ratelimit-remaining-frozen', runWide: 'rate-limits.run.remaining-decrements' },
  // "Integer timestamp" read as Unix time, which counts seconds: milliseconds fail without --strict.
  { fault: 'ratelimit-reset-millis', runWide: 'rate-limits.run.reset-epoch' },
];

for (const { fault, runWide } of CASES) {
  test(`fault ${fault} fails the rate-limits class on its requirement`, async () => {
    const requirement = listFaults().find((f) => f.name === fault)?.requirement;
    expect(requirement, `${fault} is in the fault catalogue`).toBeTruthy();
    const run = await runClass([fault]);
    const s = summary(run);
    const failed = run.report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.requirement), s).toContain(requirement);
    // A real finding, not an environment problem.
    expect(failed.filter((c) => c.requirement === requirement && c.classification === 'environment'), s).toEqual([]);
    if (runWide) {
      const wide = run.report.checks.find((c) => c.id === runWide);
      expect(wide?.status, s).toBe('failed');
      expect(wide?.requirement).toBe(requirement);
    }
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
  });
}
