/**
 * Installable like any npm tool: the packed package (`npm pack`, what `npm install -g` or `npx`
 * would fetch) installs on the supported Node, and runs a conformance run from outside the
 * repository against its embedded server.
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX|npm_)/.test(k)),
    );
    const child = spawn(command, args, { cwd, env: clean });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

test('the packed package installs cleanly and runs cloudcheck run from a directory of its own', async () => {
  test.setTimeout(5 * 60_000);
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-pack-'));
  try {
    const packed = await sh(NPM, ['pack', '--json', '--pack-destination', dir], ROOT);
    expect(packed.code, packed.output).toBe(0);
    const tarball = join(
      dir,
      (JSON.parse(packed.output.slice(packed.output.indexOf('['))) as Array<{ filename: string }>)[0]!.filename,
    );

    const app = join(dir, 'app');
    mkdirSync(app);
    // The dependencies come from npm's cache where `npm ci` left them, else from the registry.
    const installed = await sh(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
    expect(installed.code, installed.output).toBe(0);
    // No dependency refuses the supported Node: fastify's light-my-request is pinned by a direct
    // dependency (package.json), so npm never picks the release whose cookie 2 wants Node 22.
    const engineWarnings = [...installed.output.matchAll(/EBADENGINE\s+package: '([^']+)'/g)].map((m) => m[1]);
    expect(engineWarnings, 'dependencies that refuse the supported Node').toEqual([]);

    const bin = join(app, 'node_modules', '.bin', 'cloudcheck');
    const help = await sh(bin, ['--help'], app);
    expect(help.code, help.output).toBe(0);
    const run = await sh(bin, ['run', '--classes', 'pagination', '--workers', '1', '--report-dir', 'out'], app);
    expect(run.code, run.output.slice(-3000)).toBe(0);
    const report = JSON.parse(readFileSync(join(app, 'out', 'report.json'), 'utf8')) as {
      checks: unknown[];
      summary: { verdict: string };
    };
    expect(report.checks.length).toBeGreaterThan(10);
    expect(report.summary.verdict).toBe('conformant');
    // The installed CLI ran from its bundle (bin/bundle.mjs), built inside the installed package.
    const cli = join(app, 'node_modules', 'cloudcheck', 'node_modules', '.cache', 'cloudcheck', 'cli');
    const manifests = readdirSync(cli).filter((f) => /^manifest-[0-9a-f]+\.json$/.test(f));
    expect(manifests, 'one manifest, of the installed package').toHaveLength(1);
    expect((JSON.parse(readFileSync(join(cli, manifests[0]!), 'utf8')) as { inputs: string[] }).inputs).toContain(
      'src/cli/main.ts',
    );
    // Its Playwright runner kept the code cache of Playwright's bundles there too (bin/compile-cache.cjs).
    const codeCache = join(app, 'node_modules', 'cloudcheck', 'node_modules', '.cache', 'cloudcheck', 'v8');
    expect(readdirSync(codeCache).filter((f) => f.endsWith('.bin')).length, 'code cache files').toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
