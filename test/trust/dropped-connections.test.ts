/**
 * Trust: a check that got no answer is no evidence (issue "Verdicts that hold in the field", 1).
 * Behind a load balancer that drops a connection before its request reaches the server
 * (drop-proxy.ts), the check whose request was dropped is run again at the end of the run and
 * judged (`--rerun-unanswered`, default 2); with re-runs off, the run is inconclusive: exit 2, the
 * MUST requirement it could not judge named. Two small runs (one requirement's checks, one worker);
 * the full run behind such a balancer is the safety test's (safety.test.ts).
 */
import { expect, test } from '../base.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/server.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { startDropProxy } from './drop-proxy.ts';
import { STACK_TRACE, startCloudcheck } from './safety-support.ts';

const KEY = 'cck_dropped_main_0123456789abcdef';
/** Two MUST checks of one requirement, each a request or two. */
const GREP = '\\[ACCT-GET-001\\]';

async function runBehindDrops(
  reportDir: string,
  extra: string[],
): Promise<{ code: number | null; stderr: string; report: ConformanceReport; dropped: string[] }> {
  const server = await startReferenceServer({ apiKey: KEY });
  // The first connection that carries a check is dropped; the probe and the run's keys pass.
  const proxy = await startDropProxy(server.baseUrl, { every: 1, limit: 1, counts: (r) => r.check !== null });
  try {
    const run = startCloudcheck(
      [
        'run',
        '--target',
        proxy.url,
        '--api-key',
        KEY,
        '--grep',
        GREP,
        '--workers',
        '1',
        '--report-dir',
        reportDir,
        // A GET that got no answer is resent by the client first (--retries, default 2): off here,
        // so the dropped request reaches the re-runs (test/harness/retries.test.ts has the resends).
        '--retries',
        '0',
        ...extra,
      ],
      { killAfterMs: 120_000 },
    );
    const result = await run.done;
    expect(result.stdout + result.stderr).not.toMatch(STACK_TRACE);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as ConformanceReport;
    return {
      code: result.code,
      stderr: result.stderr,
      report,
      dropped: proxy.dropped.map((d) => d.check ?? ''),
    };
  } finally {
    await proxy.close();
    await server.close();
  }
}

test.describe('trust: dropped connections', () => {
  test.describe.configure({ mode: 'parallel' });

  test('the check whose connection was dropped runs again and is judged: conformant, exit 0', async () => {
    test.setTimeout(150_000);
    const { code, stderr, report, dropped } = await runBehindDrops(test.info().outputPath('report'), []);
    expect(code, stderr.slice(-2000)).toBe(0);
    expect(dropped).toHaveLength(1);
    expect(report.summary.verdict).toBe('conformant');
    expect(report.summary.unjudged).toBeUndefined();
    const again = report.checks.find((c) => c.id === dropped[0]);
    expect(again).toMatchObject({ status: 'passed', attempt: 2 });
    expect(again?.earlier_attempts?.[0]).toMatchObject({ status: 'failed', classification: 'environment' });
    expect(again?.earlier_attempts?.[0]?.message).toMatch(/^NetworkError: .*failed without a response/);
    expect(stderr).toContain('1 check got no answer (ACCT-GET-001): running it again, attempt 2 of 3');
  });

  test('with re-runs off the run is inconclusive: exit 2, the unjudged MUST requirement named everywhere', async () => {
    test.setTimeout(150_000);
    const reportDir = test.info().outputPath('report');
    const { code, stderr, report, dropped } = await runBehindDrops(reportDir, ['--rerun-unanswered', '0']);
    expect(code, stderr.slice(-2000)).toBe(2);
    expect(dropped).toHaveLength(1);
    expect(stderr).toContain('cloudcheck run: inconclusive: 1 of 2 MUST checks judged (1 MUST check got no answer)');
    expect(stderr).toContain('MUST requirements not judged (1): ACCT-GET-001');
    expect(report.summary).toMatchObject({
      verdict: 'inconclusive',
      unjudged: { must_judged: 1, must_total: 2, checks: dropped, requirements: ['ACCT-GET-001'] },
      gate: { passed: false },
    });
    expect(report.summary.headline).toMatch(
      /^inconclusive: 1 of 2 MUST checks judged; not judged: 1 requirement \(ACCT-GET-001\)/,
    );
    expect(readFileSync(join(reportDir, 'summary.md'), 'utf8')).toContain(
      'MUST requirements not judged: `ACCT-GET-001`',
    );
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain('type="inconclusive"');
    expect(report.checks.some((c) => c.attempt !== undefined)).toBe(false);
  });
});
