/**
 * `cloudcheck load --connections/--rate/--duration`: one value for every phase, within the hard
 * caps, said in the summary; validated like every option.
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HARD_CAPS, applyOverrides, resolveProfile } from '../../load/profile.ts';
import type { LoadReport } from '../../src/model/load.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

test("every phase takes the command line's values, capped, and the notes say what changed", async () => {
  const smoke = await resolveProfile('smoke');
  const changed = applyOverrides(smoke, { connections: 9999, rate: 50, duration: 500 });
  for (const phase of changed.phases) {
    expect(phase.connections).toBe(Math.min(HARD_CAPS.connections, phase.amount));
    expect(phase.rate).toBe(50);
    expect(phase.duration).toBe(HARD_CAPS.secondsPerPhase);
    // How much a phase sends is the profile's: the overrides change how.
    expect(phase.amount).toBe(smoke.phases.find((p) => p.name === phase.name)!.amount);
  }
  expect(changed.notes.join('\n')).toContain('(command line)');
  expect(applyOverrides(smoke, {})).toEqual(smoke);
});

test('cloudcheck load smoke --connections 2 --rate 100 runs with them and says so; bad values are usage errors', () => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-load-overrides-'));
  try {
    const run = spawnSync(
      process.execPath,
      [BIN, 'load', 'smoke', '--connections', '2', '--rate', '100', '--max-wait', '70', '--report-dir', dir],
      { env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('connections 4 → 2, rate unlimited → 100/s (command line)');
    const load = (JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { load: LoadReport }).load;
    expect(load.profiles[0]!.passed).toBe(true);
    for (const [args, name] of [
      [['--connections', '0'], '--connections'],
      [['--duration', '121'], '--duration'],
      [['--rate', 'fast'], '--rate'],
    ] as const) {
      const bad = spawnSync(process.execPath, [BIN, 'load', 'smoke', ...args], { env, encoding: 'utf8' });
      expect(bad.status, bad.stderr).toBe(2);
      expect(bad.stderr).toContain(name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cloudcheck load writes no API key into any output (report.json, JUnit, Markdown, HTML, console)', () => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-load-secret-'));
  const key = 'cck_load_secret_key_0123456789abcdef';
  try {
    const run = spawnSync(
      process.execPath,
      [BIN, 'load', 'smoke', '--api-key', key, '--max-wait', '70', '--report-dir', dir],
      { env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(key);
    for (const file of ['report.json', 'junit.xml', 'summary.md', 'report.html']) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.length, file).toBeGreaterThan(0);
      expect(text, file).not.toContain(key);
    }
    // The load results are in each of them, not only in report.json.
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('smoke');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
