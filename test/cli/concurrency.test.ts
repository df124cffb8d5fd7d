/**
 * A run's concurrency follows its target (src/harness/concurrency.ts), end to end: without
 * `--workers`, the global setup times the embedded server's round trip and sets the number of
 * workers Playwright's runner then uses (fewer for a selection of a few checks); report.json and
 * the console say what was chosen and how many requests were in flight.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '../base.ts';
import { workersFor } from '../../src/harness/concurrency.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { cli } from './helpers.ts';

/**
 * The positive checks of every GET (43, none in a flow): enough work for every worker the round
 * trip calls for (a small selection would take fewer, concurrency.ts).
 */
const GREP = 'GET /[^ ]*: a valid request succeeds';
/** Three checks: on loopback, less work than a second worker's start-up. */
const FEW = 'GET /(regions|images|sizes): a valid request succeeds';

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

test('a selection of a few checks on loopback runs in one worker: a second would cost its start-up and save nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-concurrency-few-'));
  try {
    // The first run of a checkout indexes the suite (the index says how many checks a selection
    // holds); a listing is enough for that.
    await cli(['run', '--list', '--grep', FEW]);
    const { code, stderr } = await cli(['run', '--grep', FEW, '--report-dir', dir]);
    expect(code, stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    expect(report.checks.filter((c) => c.status === 'passed')).toHaveLength(3);
    expect(report.concurrency!.workers).toBe(1);
    expect(stderr).toContain('with 1 worker (round trip');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
