/**
 * Runs `cloudcheck run` against the embedded reference server, optionally with deliberate faults
 * (hidden env var CLOUDCHECK_EMBEDDED_FAULTS, src/harness/embedded.ts), and reads the report.
 * The flows, s3 and rate-limits tests use it to prove checks pass on the correct server (and the
 * rate-limits tests that they fail on a faulty one).
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));
const RUN_TIMEOUT_MS = 300_000;

export interface FlowRun {
  code: number | null;
  stderr: string;
  report: ConformanceReport;
  failed: CheckResult[];
}

export async function runFlow(options: {
  classes: string[];
  grep?: string;
  faults?: string[];
  env?: Record<string, string>;
  args?: string[];
}): Promise<FlowRun> {
  // A whole `cloudcheck run` (embedded server, Playwright, report) takes tens of seconds on a busy
  // machine: give the calling test room beyond the default two minutes.
  if (test.info().timeout < RUN_TIMEOUT_MS) test.setTimeout(RUN_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-flow-test-'));
  try {
    const args = [
      BIN,
      'run',
      '--classes',
      options.classes.join(','),
      ...(options.grep ? ['--grep', options.grep] : []),
      '--report-dir',
      join(dir, 'report'),
      ...(options.args ?? []),
    ];
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
    const env = {
      ...clean,
      ...(options.faults?.length ? { CLOUDCHECK_EMBEDDED_FAULTS: options.faults.join(',') } : {}),
      ...options.env,
    };
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, { env, cwd: dir });
      let err = '';
      child.stdout.resume();
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (exit) => resolve({ code: exit, stderr: err }));
    });
    let report: ConformanceReport;
    try {
      report = JSON.parse(readFileSync(join(dir, 'report', 'report.json'), 'utf8')) as ConformanceReport;
    } catch {
      throw new Error(`cloudcheck run wrote no report (exit ${code}):\n${stderr.slice(-3000)}`);
    }
    return { code, stderr, report, failed: report.checks.filter((c) => c.status === 'failed') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The flow ran (at least `minChecks` checks) and every check passed, with exit code 0. */
export function expectAllPassed(run: FlowRun, minChecks: number): void {
  const summary = run.report.checks
    .map((c) => `${c.status} ${c.id} [${c.requirement}]${c.message ? `: ${c.message.slice(0, 300)}` : ''}`)
    .join('\n');
  expect(run.report.checks.length, summary).toBeGreaterThanOrEqual(minChecks);
  expect(run.failed, summary).toEqual([]);
  expect(
    run.report.checks.filter((c) => c.status === 'skipped'),
    summary,
  ).toEqual([]);
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  expect(run.report.leaks ?? [], 'resources left behind').toEqual([]);
}

/** The run failed the gate (exit 1) and a failed check names `requirement` (a defect). */
export function expectFailedOn(run: FlowRun, requirement: string): void {
  const summary = run.report.checks
    .map((c) => `${c.status} ${c.id} [${c.requirement}]${c.message ? `: ${c.message.slice(0, 200)}` : ''}`)
    .join('\n');
  expect(run.code, `exit code (gate must fail)\n${summary}`).toBe(1);
  const hit = run.failed.filter((c) => c.requirement === requirement);
  expect(hit.length, `a failed check should name ${requirement}\n${summary}`).toBeGreaterThan(0);
  expect(
    hit.some((c) => c.classification === undefined || c.classification === 'defect'),
    `the failure on ${requirement} should be a defect\n${summary}`,
  ).toBe(true);
}
