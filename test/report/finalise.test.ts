/**
 * One end for every report (src/report/finalise.ts): redacted once, each file written once per
 * run, whichever command made it.
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { finaliseReport } from '../../src/report/finalise.ts';
import type { DraftReport } from '../../src/report/finalise.ts';
import { addSecret } from '../../src/harness/redact.ts';
import type { CheckResult } from '../../src/model/finding.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));
const COUNTER = pathToFileURL(fileURLToPath(new URL('./fixtures/count-report-writes.mjs', import.meta.url))).href;
const REPORT_FILES = ['report.json', 'junit.xml', 'summary.md', 'report.html', 'exchanges.har'];

function draft(checks: CheckResult[]): DraftReport {
  return {
    schema_version: 1,
    run: {
      id: 'r',
      target: 'http://127.0.0.1:1/v1',
      started_at: '2026-01-01T00:00:00Z',
      finished_at: '2026-01-01T00:00:01Z',
      seed: 1,
      classes: ['auth'],
    },
    checks,
    coverage: { operations: [] },
    leaks: [],
  };
}

test('finaliseReport computes the gate, redacts once and hands every writer the same finished report', () => {
  const secret = 'cck_finalise_secret_0123456789';
  addSecret(secret);
  const failed: CheckResult = {
    id: 'c1',
    requirement: 'AUTH-001',
    level: 'MUST',
    class: 'auth',
    operation: null,
    title: 't',
    status: 'failed',
    message: `sent ${secret}`,
  };
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-finalise-'));
  const seen: string[] = [];
  try {
    const { report, outcome } = finaliseReport(draft([failed]), dir, {
      gate: { strict: false, baseline: null, baselineSource: null },
      interrupted: true,
      writers: [
        { file: 'a.txt', write: (r) => (seen.push(JSON.stringify(r)), 'a') },
        { file: 'b.txt', write: (r) => (seen.push(JSON.stringify(r)), 'b') },
      ],
    });
    expect(report.summary.gate?.passed).toBe(false);
    expect(report.summary.headline).toMatch(/^interrupted: /);
    expect(report.run.interrupted).toBe(true);
    expect(outcome.written.map((f) => f.slice(dir.length + 1))).toEqual(['a.txt', 'b.txt']);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).not.toContain(secret);
    // A draft without a summary cannot be finalised without the gate's options.
    expect(() => finaliseReport(draft([]), dir, { writers: [] })).toThrow(/gate options/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs the CLI with the write counter in every process; the files under `reportDir` it wrote, one entry per write. */
function countWrites(args: string[], reportDir: string): { status: number | null; output: string; writes: string[] } {
  const log = join(reportDir, '..', 'writes.log');
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)/.test(k)),
    ),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${COUNTER}`.trim(),
    COUNT_WRITES_LOG: log,
    COUNT_WRITES_DIR: reportDir,
  };
  const run = spawnSync(process.execPath, [BIN, ...args, '--report-dir', reportDir], {
    env,
    encoding: 'utf8',
    timeout: 150_000,
  });
  const writes = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { status: run.status, output: `${run.stdout}\n${run.stderr}`, writes };
}

/** Each report file once (written aside under a temporary name, then renamed into place). */
function expectEachFileOnce(writes: string[], reportDir: string): void {
  for (const file of REPORT_FILES) {
    const ofFile = writes.filter((w) => w.startsWith(join(reportDir, file)));
    expect(ofFile, `${file}: ${writes.join(', ')}`).toHaveLength(1);
  }
  expect(writes).toHaveLength(REPORT_FILES.length);
}

test('cloudcheck run writes each report file exactly once (the reporter only collects); a clean run keeps no exchange by default', () => {
  const root = mkdtempSync(join(tmpdir(), 'cloudcheck-writes-run-'));
  const reportDir = join(root, 'report');
  try {
    const run = countWrites(['run', '--grep', 'ACCT-GET-001'], reportDir);
    expect(run.status, run.output).toBe(0);
    expectEachFileOnce(run.writes, reportDir);
    // --har failed (the default): the exchanges of failed checks only, so none here (--har all: har.test.ts).
    const har = JSON.parse(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as { log: { entries: unknown[] } };
    expect(har.log.entries).toEqual([]);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      checks: Array<{ exchanges?: unknown[] }>;
    };
    expect(report.checks.flatMap((c) => c.exchanges ?? [])).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('cloudcheck load writes each report file exactly once, with the load results in JUnit and Markdown', () => {
  const root = mkdtempSync(join(tmpdir(), 'cloudcheck-writes-load-'));
  const reportDir = join(root, 'report');
  try {
    const run = countWrites(['load', 'smoke', '--max-wait', '70'], reportDir);
    expect(run.status, run.output).toBe(0);
    expectEachFileOnce(run.writes, reportDir);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toContain('smoke');
    expect(readFileSync(join(reportDir, 'summary.md'), 'utf8')).toContain('smoke');
    expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).load.profiles[0].profile).toBe('smoke');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
