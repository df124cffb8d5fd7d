import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../../src/model/report.ts';
import { json, tinyServer } from '../harness/helpers.ts';
import type { TinyServer } from '../harness/helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

/** Runs the CLI asynchronously (a tiny server in this process must keep answering meanwhile). */
function cli(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, ...env }, cwd: cwd ?? tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let server: TinyServer | undefined;
test.afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('usage errors exit 2 with one line and no stack trace', async () => {
  for (const args of [
    ['run', '--stirct'],
    ['nope'],
    ['run', '--shard', 'x'],
    ['run', '--target', 'http://127.0.0.1:1/v1'],
  ]) {
    const r = await cli(args);
    expect(r.code, args.join(' ')).toBe(2);
    expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(r.stderr).not.toContain('    at ');
  }
});

test('help and version exit 0', async () => {
  const help = await cli(['run', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('--baseline FILE');
  expect(help.stdout).toContain('CLOUDCHECK_API_KEY');
  expect((await cli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
});

test('unreachable target exits 2 with "cannot reach"', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 200, {}));
  const url = server.url;
  await server.close();
  server = undefined;
  const r = await cli(['run', '--target', `${url}/v1`], { CLOUDCHECK_API_KEY: 'cck_some_key_123456' });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`cannot reach ${url}/v1`);
});

test('a rejected key exits 2, and the key is not printed', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 401, { error: { code: 'unauthorized', message: 'no' } }));
  const r = await cli(['run', '--target', `${server.url}/v1`, '--api-key', 'cck_bad_key_987654321']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`the API key was rejected by ${server.url}/v1`);
  expect(r.stdout + r.stderr).not.toContain('cck_bad_key_987654321');
  expect(server.requests[0]!.headers.authorization).toBe('Bearer cck_bad_key_987654321');
});

test('SIGTERM while the probe waits for the target: exit 143, saying nothing ran', async () => {
  // A target that takes the request and never answers: the probe is in flight once it arrives.
  let arrived!: () => void;
  const probing = new Promise<void>((resolve) => (arrived = resolve));
  server = await tinyServer(() => arrived());
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
  const child = spawn(process.execPath, [BIN, 'run', '--target', `${server.url}/v1`], {
    env: { ...clean, CLOUDCHECK_API_KEY: 'cck_some_key_123456' },
    cwd: tmpdir(),
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await probing;
  child.kill('SIGTERM');
  expect(await exited, stderr).toBe(143);
  expect(stderr).toContain('SIGTERM while opening the target: nothing ran, no report written');
  expect(stderr).not.toContain('internal error');
});

test('a base URL that is not the API exits 2 within seconds, with a hint for a missing /v1', async () => {
  // The API under /v1, an HTML page elsewhere: what a reverse proxy in front of it looks like.
  server = await tinyServer((req, _body, res) => {
    if (req.url === '/v1/account') return json(res, 200, { account: { id: 'acc_1', email: 'a@example.net' } });
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Not found</title>');
  });
  const started = Date.now();
  const r = await cli(['run', '--target', server.url], { CLOUDCHECK_API_KEY: 'cck_some_key_123456' });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('does not look like the Cloud Platform API: GET /account answered 404 with an HTML page');
  expect(r.stderr).toContain(`did you mean ${server.url}/v1?`);
  expect(Date.now() - started).toBeLessThan(30_000);
  // JSON of another API is refused too; the API's own error envelope is not (billing may be unclaimed).
  const { notTheApi } = await import('../../src/harness/probe.ts');
  expect(notTheApi(200, 'application/json', '{"status":"ok"}')).toContain('holds no account');
  expect(notTheApi(404, 'application/json', '{"message":"no route"}')).toContain('without the error envelope');
  expect(notTheApi(404, 'application/json', '{"error":{"code":"not_found","message":"x"}}')).toBeNull();
  expect(notTheApi(200, 'application/json', '{"data":{"account":{"id":"acc_1"}}}')).toBeNull();
  expect(notTheApi(200, 'application/json', '{"id":"acc_1","email":"a@example.net"}')).toBeNull();
});

test('a base URL without /v1 whose unknown routes answer 404 with the error envelope: exit 2 within 10 s, "did you mean .../v1?"', async () => {
  // The API under /v1; every other route the API's own 404 envelope, which the probe alone would take for the API.
  server = await tinyServer((req, _body, res) =>
    req.url === '/v1/account'
      ? json(res, 200, { account: { id: 'acc_1', email: 'a@example.net' } })
      : json(res, 404, { error: { code: 'not_found', message: 'no such route' } }),
  );
  const started = Date.now();
  const run = await cli(['run', '--target', server.url], { CLOUDCHECK_API_KEY: 'cck_some_key_123456' });
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain(`did you mean ${server.url}/v1?`);
  // Seconds, where it crawled through 171 checks in 162 s (the process's start included).
  expect(Date.now() - started).toBeLessThan(10_000);
  // The same session opens every command's target.
  for (const command of ['load', 'sweep', 'explore']) {
    const r = await cli([command, '--target', server.url], { CLOUDCHECK_API_KEY: 'cck_some_key_123456' });
    expect(r.code, `${command}: ${r.stderr}`).toBe(2);
    expect(r.stderr).toContain(`did you mean ${server.url}/v1?`);
  }
  // With /v1 the same server is the API; a target that is the API at its root (404 envelope
  // under /v1 too) is not refused: its 404 on /account is for the checks to judge.
  const { probeTarget } = await import('../../src/harness/probe.ts');
  await expect(probeTarget(`${server.url}/v1`, 'cck_some_key_123456', { timeoutMs: 5000 })).resolves.toBeDefined();
  const rootOnly = await tinyServer((_req, _body, res) =>
    json(res, 404, { error: { code: 'not_found', message: 'x' } }),
  );
  try {
    await expect(probeTarget(rootOnly.url, 'cck_some_key_123456', { timeoutMs: 5000 })).resolves.toBeDefined();
  } finally {
    await rootOnly.close();
  }
});

test('cloudcheck load probes with the key: a wrong key exits 2 before any load', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 401, { error: { code: 'unauthorized', message: 'no' } }));
  const r = await cli(['load', 'smoke', '--target', `${server.url}/v1`], {
    CLOUDCHECK_API_KEY: 'cck_wrong_key_123456',
  });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('the API key was rejected');
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0]!.headers.authorization).toBe('Bearer cck_wrong_key_123456');
});

test('an unknown key in cloudcheck.config.yaml exits 2 naming file, key and closest key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-cli-'));
  try {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'cloudcheck.config.yaml'), 'api_kye: x\n');
    const r = await cli(['run'], {}, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cloudcheck.config.yaml');
    expect(r.stderr).toContain('"api_kye"');
    expect(r.stderr).toContain('"api_key"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('report diff of missing reports is a usage error (exit 2) naming the file', async () => {
  const r = await cli(['report', 'diff', 'no-such-a', 'no-such-b']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('no-such-a');
});

test('end to end: cloudcheck run of the smoke checks against the embedded server writes report.json and gates on it', async () => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'cc-e2e-'));
  try {
    const reportDir = join(dir, 'out');
    const jobSummary = join(dir, 'step-summary.md');
    const r = await cli(
      ['run', '--grep', '_smoke\\.spec', '--workers', '1', '--report-dir', reportDir, '--seed', '7'],
      {
        GITHUB_STEP_SUMMARY: jobSummary,
      },
    );
    expect([0, 1], r.stderr + r.stdout).toContain(r.code);
    const reportPath = join(reportDir, 'report.json');
    expect(existsSync(reportPath)).toBe(true);
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(existsSync(join(reportDir, file))).toBe(true);
    // On GitHub Actions the Markdown summary lands on the job page too.
    expect(readFileSync(jobSummary, 'utf8')).toContain(
      readFileSync(join(reportDir, 'summary.md'), 'utf8').split('\n')[0]!,
    );
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as ConformanceReport;
    expect(report.schema_version).toBe(1);
    expect(report.run.seed).toBe(7);
    expect(report.run.embedded).toBe(true);
    expect(report.checks.length).toBeGreaterThanOrEqual(7);
    expect(report.checks.every((c) => c.id.startsWith('smoke.'))).toBe(true);
    expect(report.checks.find((c) => c.id === 'smoke.auth.no-key')?.status).toBe('passed');
    expect(r.code).toBe(report.summary.gate?.passed ? 0 : 1);
    expect(r.stdout).toContain('report: ');
    expect(r.stdout).toContain(report.summary.headline!);
    // Keys of the embedded server are fresh per run and must not appear anywhere.
    const all =
      readFileSync(reportPath, 'utf8') + readFileSync(join(reportDir, 'junit.xml'), 'utf8') + r.stdout + r.stderr;
    expect(all).not.toMatch(/cc_(main|alt)_[A-Za-z0-9_-]{20,}/);
    expect(report.leaks).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a selection that selects no check exits 2 instead of passing the gate, and leaves no keys behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-nomatch-'));
  try {
    // A temp dir of its own, to see what the run leaves there: neither its temp dir nor the
    // hand-off of the embedded server's keys may outlive it.
    const temp = join(dir, 'tmp');
    mkdirSync(temp);
    const r = await cli(['run', '--grep', 'cloudcheck-no-such-check-zz', '--report-dir', join(dir, 'report')], {
      TMPDIR: temp,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('selects no check');
    // The run's own files are named after its id (cloudcheck-<date>-<time>-<tag>...); the
    // content-keyed cache (cloudcheck-cache) is meant to stay.
    expect(readdirSync(temp).filter((f) => /^cloudcheck-\d{8}-/.test(f))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a run stopped with SIGINT before its runner read the embedded server's keys leaves no key file behind", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-sigint-'));
  try {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
    const child = spawn(
      process.execPath,
      [BIN, 'run', '--grep', '\\[ACCT-GET-001\\]', '--report-dir', join(dir, 'report')],
      { env: { ...clean, TMPDIR: dir }, cwd: dir },
    );
    let stderr = '';
    let stopped = false;
    // Stopped the moment the server is up: the hand-off with its keys is written next, and the
    // runner, stopped as well, never reaches the global setup that reads and removes it.
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      // Once: a second SIGINT means "stop now", without the clean-up.
      if (!stopped && stderr.includes('started the embedded reference server')) stopped = child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(130);
    expect(readdirSync(dir).filter((f) => f.endsWith('-target.json'))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve lists the legal variants and refuses an unknown one', async () => {
  const list = await cli(['serve', '--list-variants']);
  expect(list.code).toBe(0);
  for (const name of ['create-200', 'flat-bodies', 'vps-boot-slow', 'latency']) expect(list.stdout).toContain(name);
  // Text cloudcheck wrote holds no secret: help and the lists are printed as written, never redacted.
  expect(list.stdout).toContain('`X-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`');
  for (const args of [
    ['serve', '--list-variants'],
    ['serve', '--list-faults'],
    ['serve', '--help'],
    ['load', '--help'],
  ])
    expect((await cli(args)).stdout, args.join(' ')).not.toMatch(/[=:] \[REDACTED\]/);
  expect((await cli(['serve', '--help'])).stdout).toContain(
    'prints base_url=, s3_url=, api_key= and alt_api_key= lines',
  );
  const bad = await cli(['serve', '--variant', 'create-201', '--port', '0', '--s3-port', '0']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('did you mean "create-200"');
});

test('one error style: `cloudcheck <command>: ...`, one line, exit 2', async () => {
  const cases: Array<[string[], string]> = [
    [['run', '--no-such-option'], 'cloudcheck run: '],
    [['load', '--no-such-option'], 'cloudcheck load: '],
    [['sweep'], 'cloudcheck sweep: '],
    [['report', 'diff', 'a-missing-dir'], 'cloudcheck report diff: '],
    [['report', 'bogus'], 'cloudcheck report: '],
    [['bogus'], 'cloudcheck: '],
  ];
  for (const [args, prefix] of cases) {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
      const child = spawn(process.execPath, [BIN, ...args], { env: clean, cwd: tmpdir() });
      let text = '';
      child.stderr.on('data', (c: Buffer) => (text += c.toString()));
      child.on('exit', (exit) => resolve({ code: exit, stderr: text }));
    });
    const lines = stderr.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn'));
    expect(code, `${args.join(' ')}: ${stderr}`).toBe(2);
    expect(lines.length, `${args.join(' ')}: one line: ${stderr}`).toBe(1);
    expect(lines[0], args.join(' ')).toMatch(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  }
});

test('load --list names every built-in profile with its requirements; load --help lists them too', async () => {
  const names = readdirSync(fileURLToPath(new URL('../../load/profiles/', import.meta.url)))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: tmpdir() });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('exit', (code) => resolve({ code, stdout }));
    });
  const list = await cli(['load', '--list']);
  expect(list.code).toBe(0);
  for (const name of names) expect(list.stdout).toMatch(new RegExp(`^${name}( \\[[A-Z0-9, -]+\\])?$`, 'm'));
  expect(list.stdout).toMatch(/^hourly-quota \[RATE-HOUR-001\]$/m);
  expect(list.stdout).toContain('with no profile named, cloudcheck load runs smoke');
  const help = await cli(['load', '--help']);
  expect(help.code).toBe(0);
  for (const name of names) expect(help.stdout).toContain(name);
});
