/**
 * Output of third-party code in the workers (library warnings, Node notices) stays off the
 * console, where cloudcheck's own lines are, and is kept in the report instead.
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../../src/model/report.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

test('library warnings printed during a check go to report.json and summary.md, not to the console', () => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-third-party-'));
  try {
    const run = spawnSync(process.execPath, [BIN, 'run', '--grep', 'selftest', '--workers', '1', '--report-dir', dir], {
      env: { ...env, CLOUDCHECK_SELFTEST: 'third-party-output' },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const console = `${run.stdout}\n${run.stderr}`;
    expect(console).not.toContain('DeprecationWarning');
    expect(console).not.toContain('says hello');
    expect(console).toContain('third-party output: 2 distinct lines');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    expect(report.third_party_output).toEqual([
      {
        stream: 'stderr',
        text: '(node:1) [DEP0999] DeprecationWarning: selftest library notice',
        count: 3,
        check: 'selftest.third-party-output',
      },
      {
        stream: 'stdout',
        text: 'selftest library says hello on stdout',
        count: 1,
        check: 'selftest.third-party-output',
      },
    ]);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(
      'DeprecationWarning: selftest library notice` (3×)',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
