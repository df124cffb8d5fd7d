/**
 * exchanges.har: the failed checks' exchanges as HTTP Archive 1.2, redacted like every other file.
 */
import { expect, test } from '../base.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceReport } from '../../src/model/report.ts';
import { writeHar } from '../../src/report/har.ts';
import { finaliseReport } from '../../src/report/finalise.ts';
import { addSecret } from '../../src/harness/redact.ts';
import { fixture } from './helpers.ts';

interface HarEntry {
  comment: string;
  request: {
    method: string;
    url: string;
    headers: Array<{ name: string; value: string }>;
    queryString: unknown[];
    postData?: { text: string };
  };
  response: { status: number; content: { text?: string } };
  timings: { wait: number };
}

test('one entry per exchange of a failed check, in time order, named by its check; passed checks are left out', () => {
  const report = fixture<ConformanceReport>('report-full.json');
  const failed = report.checks.filter((c) => c.status === 'failed');
  const expected = failed.reduce((n, c) => n + (c.exchanges?.length ?? 0), 0);
  const har = JSON.parse(writeHar(report)) as {
    log: { version: string; creator: { name: string }; entries: HarEntry[] };
  };
  expect(har.log.version).toBe('1.2');
  expect(har.log.creator.name).toBe('cloudcheck');
  expect(har.log.entries.length).toBe(expected);
  expect(expected).toBeGreaterThan(0);
  const first = failed.find((c) => c.exchanges?.length)!;
  const entry = har.log.entries.find((e) => e.comment.startsWith(first.id))!;
  const exchange = first.exchanges![0]!;
  expect(entry.request.method).toBe(exchange.request.method);
  expect(entry.request.url).toBe(exchange.request.url);
  expect(entry.response.status).toBe(exchange.response?.status ?? 0);
  expect(entry.timings.wait).toBe(exchange.duration_ms);
  const times = har.log.entries.map((e) => (e as unknown as { startedDateTime: string }).startedDateTime);
  expect([...times].sort()).toEqual(times);
});

test('written beside the report, with secrets redacted', () => {
  const report = fixture<ConformanceReport>('report-full.json');
  const secret = 'sk_live_cloudcheck_har_secret_123456';
  addSecret(secret);
  const check = report.checks.find((c) => c.status === 'failed' && c.exchanges?.length)!;
  check.exchanges![0]!.request.headers['x-gateway-key'] = secret;
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-har-'));
  try {
    const { outcome } = finaliseReport(report, dir);
    expect(outcome.written.some((f) => f.endsWith('exchanges.har'))).toBe(true);
    const text = readFileSync(join(dir, 'exchanges.har'), 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain('x-gateway-key');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The default (--har failed) keeping none of a clean run: test/report/finalise.test.ts, on its run.
test("--har all keeps every check's exchanges (passing ones too) in the HAR and report.json, redacted", async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/cloudcheck.mjs', import.meta.url).pathname;
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-har-all-'));
  try {
    const grep = '\\[ACCT-GET-001\\]';
    const all = spawnSync(
      process.execPath,
      [bin, 'run', '--grep', grep, '--har', 'all', '--workers', '1', '--report-dir', join(dir, 'all')],
      { env, encoding: 'utf8' },
    );
    expect(all.status, all.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'all', 'report.json'), 'utf8')) as ConformanceReport;
    const passed = report.checks.filter((c) => c.status === 'passed');
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.every((c) => (c.exchanges?.length ?? 0) > 0)).toBe(true);
    const text = readFileSync(join(dir, 'all', 'exchanges.har'), 'utf8');
    const har = JSON.parse(text) as { log: { entries: HarEntry[] } };
    expect(har.log.entries.length).toBe(passed.reduce((n, c) => n + c.exchanges!.length, 0));
    // The embedded server's key is printed nowhere: every Authorization is redacted.
    const auth = har.log.entries.flatMap((e) =>
      e.request.headers.filter((h) => h.name === 'authorization').map((h) => h.value),
    );
    expect(auth.length).toBeGreaterThan(0);
    expect(auth.every((v) => v === 'Bearer [REDACTED]')).toBe(true);

    const bad = spawnSync(process.execPath, [bin, 'run', '--har', 'some'], { env, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--har');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
