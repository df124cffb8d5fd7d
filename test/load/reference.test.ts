// Load profiles against the embedded reference server: green without faults, and each
// rate-limit fault makes `runLoadCommand` return 1 naming the invariant it breaks.
import { expect, test } from '../base.ts';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runLoadCommand, type LoadCommandOptions } from '../../src/cli/commands/load.ts';
import type { LoadReport } from '../../src/model/load.ts';

async function run(
  options: Partial<LoadCommandOptions> & { profiles: string[] },
): Promise<{ code: number; text: string; report?: LoadReport }> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-load-'));
  let text = '';
  try {
    const code = await runLoadCommand({
      reportDir: dir,
      // Long enough to wait for a fresh minute when a burst would straddle two; recovery (up to
      // a minute) is then usually reported as not observed, which is not a failure.
      maxWait: 15,
      out: (t) => void (text += t),
      err: (t) => void (text += t),
      ...options,
    });
    let report: LoadReport | undefined;
    try {
      report = (JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { load?: LoadReport }).load;
    } catch {
      report = undefined;
    }
    return { code, text, report };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const profile of ['burst-compute', 'burst-messaging', 'key-isolation', 'concurrency-race', 'smoke']) {
  test(`${profile} passes against the reference server`, async () => {
    const { code, text, report } = await run({ profiles: [profile] });
    expect(code, text).toBe(0);
    const p = report?.profiles[0];
    expect(p?.profile).toBe(profile);
    expect(p?.violations).toEqual([]);
    if (profile.startsWith('burst')) {
      // The 101st request of the minute is the first 429.
      expect(p?.requests.by_status['429']).toBeGreaterThan(0);
      // The Remaining-per-request chart data: 99, 98, ... down to 0 on the fresh key.
      const series = p?.rate_limit_series?.[0];
      expect(series?.label).toMatch(/^fresh-/);
      expect(series?.points.slice(0, 3).map(([, remaining]) => remaining)).toEqual([99, 98, 97]);
    }
    if (profile === 'concurrency-race') expect(p?.requests.by_status['429']).toBe(100);
  });
}

test('the hourly profiles (hourly-quota, sms-volume, billing-hourly, projects-hourly) pass against the reference server', async () => {
  test.setTimeout(240_000);
  const { code, text, report } = await run({
    profiles: ['hourly-quota', 'sms-volume', 'billing-hourly', 'projects-hourly'],
    maxWait: 70,
  });
  expect(code, text).toBe(0);
  const [quota, sms, billing, projects] = report?.profiles ?? [];
  expect(quota?.requests.by_status['429']).toBe(10);
  expect(sms?.requests.by_status['429']).toBe(3);
  expect(billing?.requests.by_status['429']).toBe(5);
  expect(projects?.requests.by_status['429']).toBe(10);
});

const FAULTS: [fault: string, profile: string, invariant: string][] = [
  ['ratelimit-no-429', 'burst-compute', 'onset'],
  ['ratelimit-headers-missing-compute', 'burst-compute', 'headers-present'],
  ['ratelimit-remaining-frozen', 'burst-compute', 'remaining-decrements'],
  ['ratelimit-reset-millis', 'burst-compute', 'reset-epoch'],
  ['ratelimit-non-atomic', 'concurrency-race', 'onset'],
];

for (const [fault, profile, invariant] of FAULTS) {
  test(`fault ${fault}: ${profile} fails naming ${invariant}`, async () => {
    const { code, text, report } = await run({ profiles: [profile], faults: [fault] });
    expect(code, text).toBe(1);
    expect(text).toContain(`invariants violated:`);
    expect(text).toContain(invariant);
    expect(report?.profiles[0]?.violations.map((v) => v.invariant)).toContain(invariant);
  });
}

test('no profile named: smoke alone runs, and the command says so', async () => {
  const { code, text, report } = await run({ profiles: [] });
  expect(code, text).toBe(0);
  expect(text).toContain('no profile named: running smoke');
  expect(report?.profiles.map((p) => p.profile)).toEqual(['smoke']);
});

test("a load-only report's page shows its profiles, not a conformance run's tiles and facts, and counts requests as the console does", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-load-page-'));
  try {
    let text = '';
    const code = await runLoadCommand({
      profiles: ['burst-compute'],
      faults: ['ratelimit-remaining-frozen'],
      reportDir: dir,
      maxWait: 15,
      out: (t) => void (text += t),
      err: (t) => void (text += t),
    });
    expect(code, text).toBe(1);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('load profiles failed');
    for (const absent of ['checks passed', 'MUST failures', '<dt>seed</dt>', 'classes run'])
      expect(html, absent).not.toContain(absent);
    // The first violation at the same request number on the console and on the page.
    const line = /violated remaining-decrements on key (\S+): \d+ times? \(first at request (\d+)\)/.exec(text);
    expect(line, text).not.toBeNull();
    expect(html).toMatch(
      new RegExp(`<code>remaining-decrements</code> key <code>${line![1]}</code>.*?request ${line![2]}:`),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bad profiles and unreachable targets exit 2', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-load-bad-'));
  try {
    const file = join(dir, 'broken.yaml');
    await writeFile(
      file,
      'name: broken\nrequests: [{ method: GET, path: /regions }]\nexpectations: { rate_limit: { limit: 100, window: fortnight } }\n',
    );
    const bad = await run({ profiles: [file] });
    expect(bad.code).toBe(2);
    expect(bad.text).toContain('broken.yaml: expectations.rate_limit.window');
    // A loopback port that was free a moment ago and is closed now.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 9));
      });
    });
    const down = await run({
      profiles: ['smoke'],
      connection: { target: `http://127.0.0.1:${port}/v1`, apiKeys: ['x'] },
    });
    expect(down.code).toBe(2);
    expect(down.text).toContain('cannot reach');
    const noKey = await run({ profiles: ['smoke'], connection: { target: 'http://127.0.0.1:9/v1' } });
    expect(noKey.code).toBe(2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('report.json: the load section is merged into an existing report', async () => {
  const { writeLoadReport } = await import('../../load/report.ts');
  const dir = await mkdtemp(join(tmpdir(), 'cc-load-report-'));
  try {
    await writeFile(
      join(dir, 'report.json'),
      JSON.stringify({ schema_version: 1, summary: { verdict: 'conformant' }, checks: [{ id: 'x' }] }),
    );
    const load: LoadReport = {
      schema_version: 1,
      target: 't',
      started_at: 'a',
      finished_at: 'b',
      passed: true,
      profiles: [],
    };
    await writeLoadReport(dir, load);
    const merged = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      checks: unknown[];
      load: LoadReport;
    };
    // The hand-made check is kept, completed with what every writer reads.
    expect(merged.checks).toEqual([expect.objectContaining({ id: 'x', requirement: 'UNKNOWN', status: 'skipped' })]);
    expect(merged.load.passed).toBe(true);
    for (const file of ['junit.xml', 'summary.md', 'report.html'])
      expect((await readFile(join(dir, file), 'utf8')).length, file).toBeGreaterThan(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a load-only report carries the load results into junit.xml and summary.md', async () => {
  const { writeLoadReport } = await import('../../load/report.ts');
  const dir = await mkdtemp(join(tmpdir(), 'cc-load-only-'));
  try {
    const line = (name: string, passed: boolean) => ({
      name,
      expected: 'no violation',
      actual: passed ? 'ok' : '1 violation: 101st request answered 200',
      passed,
    });
    const profile = {
      profile: 'burst-compute',
      passed: false,
      thresholds: [line('invariant onset', false), line('invariant reset-epoch', true)],
    };
    const load = {
      schema_version: 1,
      target: 't',
      started_at: 'a',
      finished_at: 'b',
      passed: false,
      profiles: [profile],
    } as unknown as LoadReport;
    await writeLoadReport(dir, load);
    const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('tests="2" failures="1"');
    expect(junit).toContain('<testcase classname="load.burst-compute" name="invariant onset">');
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('## Load profiles: FAILED');
    expect(summary).toContain(
      '| **failed** | invariant onset | no violation | 1 violation: 101st request answered 200 |',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
