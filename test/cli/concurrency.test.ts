/**
 * A run's concurrency follows its target (src/harness/concurrency.ts), end to end: without
 * `--workers`, the global setup times the embedded server's round trip and sets the number of
 * workers Playwright's runner then uses; report.json and the console say what was chosen and how
 * many requests were in flight.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '../base.ts';
import { workersFor } from '../../src/harness/concurrency.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { cli } from './helpers.ts';

/** The positive checks of a few list operations, each its own group: enough for every worker the round trip calls for. */
const GREP =
  'GET /(regions|images|sizes|vps|projects|ssh-keys|storage/buckets|storage/volumes): a valid request succeeds';

test('without --workers, a run against a slow target takes the workers its round trip calls for, and says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-concurrency-'));
  try {
    // Every answer 40 ms late: the round trip is at least that, whatever the machine's load.
    const { code, stdout, stderr } = await cli(['run', '--grep', GREP, '--report-dir', dir], {
      CLOUDCHECK_EMBEDDED_VARIANTS: 'latency=40',
    });
    expect(code, stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    const c = report.concurrency!;
    expect(c.round_trip_ms).not.toBeNull();
    expect(c.workers).toBe(workersFor(c.round_trip_ms));
    expect(c.workers).toBeGreaterThan(2);
    expect(c.requests).toBeGreaterThan(0);
    expect(c.in_flight_average).toBeGreaterThan(0);
    // The runner used them: its first line counts the workers Playwright started.
    expect(stderr).toContain(`with ${c.workers} workers (round trip`);
    expect(stdout).toMatch(new RegExp(`in flight on average over \\d+ s \\(${c.workers} workers, round trip`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
