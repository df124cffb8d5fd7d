/**
 * Reproductions that reproduce: every curl line of a failing run's report (against a reference
 * server with faults, run with --keep so what the lines name still exists) gives the same answer
 * when replayed with curl, HEAD included.
 */
import { expect, test } from '../base.ts';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../../reference/server.ts';
import type { ConformanceReport } from '../../src/model/report.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));
const KEY = 'cc_replay_main_key_0123456789abcdef';

function runCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...clean, CLOUDCHECK_API_KEY: KEY },
      cwd: tmpdir(),
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

function replay(curl: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', curl],
      { cwd, env: { ...process.env, CLOUDCHECK_API_KEY: KEY }, timeout: 20_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

test('every curl line of a failing run replays to the same status with --keep, HEAD included', async () => {
  test.setTimeout(120_000);
  const server = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    s3Port: 0,
    apiKey: KEY,
    faults: ['object-head-no-length', 'vps-action-type-unchecked'],
  });
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-replay-'));
  try {
    const run = await runCli([
      'run',
      '--target',
      server.baseUrl,
      '--keep',
      '--workers',
      '1',
      '--grep',
      '\\[(OBJ-HEAD-001|VPS-ACT-001)\\]',
      '--report-dir',
      dir,
    ]);
    expect(run.code, run.out).toBe(1);
    expect(run.out).toContain('kept (--keep)');
    expect(run.out).toContain('cloudcheck sweep --target');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    expect(report.kept?.length ?? 0).toBeGreaterThan(0);
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(new Set(failed.map((c) => c.requirement))).toEqual(new Set(['OBJ-HEAD-001', 'VPS-ACT-001']));
    let heads = 0;
    for (const check of failed) {
      const last = check.exchanges!.at(-1)!;
      const answer = await replay(last.curl, dir);
      const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(answer)?.[1]);
      expect(status, `${check.id}: ${last.curl}`).toBe(last.response!.status);
      if (last.request.method === 'HEAD') {
        heads++;
        expect(last.curl).toContain(' -I ');
        // The failure itself: no Content-Length on HEAD.
        expect(answer.toLowerCase()).not.toContain('content-length:');
      }
    }
    expect(heads).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
