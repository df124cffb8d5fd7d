/**
 * Selections and cloudcheck's own errors, end to end against the embedded server (issue: a verdict
 * that means what it says): a flow step selected alone runs with the steps before it as setup,
 * `--classes` follows the catalogue's classes, a broken check is a cloudcheck error (exit 2).
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRequirements } from '../../spec/requirements.ts';
import {
  REPETITIONS_VARIABLE,
  inRepetition,
  isSelected,
  lastFailedIds,
  parsePattern,
  planFlow,
  repeatedId,
  repetitionOfId,
  repetitionsOf,
} from '../../src/harness/selection.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { startReferenceServer } from '../../reference/server.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string; report: ConformanceReport | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-selection-'));
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
    // One worker unless asked: these runs are about selections and verdicts, and each further
    // worker's start costs most of a second of CPU (npm test is CPU-bound on 2 cores).
    const workers = args.includes('--workers') ? [] : ['--workers', '1'];
    const child = spawn(process.execPath, [BIN, 'run', '--report-dir', dir, ...workers, ...args], {
      env: { ...clean, ...env },
      cwd: tmpdir(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => {
      let report: ConformanceReport | null;
      try {
        report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
      } catch {
        report = null;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, report });
    });
  });
}

test('planFlow keeps every step up to the last selected one, the others as setup', () => {
  expect(planFlow([false, false, false])).toEqual([]);
  expect(planFlow([false, true, false])).toEqual([
    { index: 0, setup: true },
    { index: 1, setup: false },
  ]);
  expect(planFlow([true, false, true, false]).map((s) => s.setup)).toEqual([false, true, false]);
});

test('repetitions (the fault matrix): each a pattern of its own, ids `<id>#k` after the first; a malformed value is refused', () => {
  expect(repetitionsOf({})).toEqual([{ suffix: '', pattern: null }]);
  const reps = repetitionsOf({
    [REPETITIONS_VARIABLE]: JSON.stringify(['VPS-LIST', '\\[flow\\] volumes', '/^flows/i']),
  });
  expect(reps.map((r) => r.suffix)).toEqual(['', '#1', '#2']);
  const step = {
    file: 'flows/vps-lifecycle.spec.ts',
    describe: '[flow] VPS lifecycle',
    title: '[VPS-LIST-002] the list holds it',
    tags: ['@must'],
    class: 'compute' as const,
  };
  expect(reps.map((r) => inRepetition(r, step))).toEqual([true, false, true]);
  expect(inRepetition(repetitionsOf({})[0]!, step)).toBe(true);
  for (const bad of ['[', '{}', '[]', '[1]', '[""]'])
    expect(() => repetitionsOf({ [REPETITIONS_VARIABLE]: bad }), bad).toThrow(REPETITIONS_VARIABLE);
  expect([repeatedId('flow.volumes.create#12'), repetitionOfId('flow.volumes.create#12')]).toEqual([
    'flow.volumes.create',
    '#12',
  ]);
  expect([repeatedId('contract.getVps.positive'), repetitionOfId('contract.getVps.positive')]).toEqual([
    'contract.getVps.positive',
    '',
  ]);
});

test('a selection matches like Playwright --grep (case-insensitive, file, describe, tags) and by catalogue class', () => {
  const candidate = {
    file: 'flows/vps-lifecycle.spec.ts',
    describe: '[flow] VPS lifecycle',
    title: '[VPS-LIST-002] the list holds it',
    tags: ['@class:compute', '@must'],
    class: 'compute' as const,
  };
  const sel = (grep: string | null, classes: string[] | null = null, invert: string | null = null) => ({
    grep: grep ? parsePattern(grep) : null,
    grepInvert: invert ? parsePattern(invert) : null,
    classes: classes ? new Set(classes) : null,
  });
  expect(isSelected(sel('vps-list-002'), candidate)).toBe(true);
  expect(isSelected(sel('vps-lifecycle\\.spec'), candidate)).toBe(true);
  expect(isSelected(sel('@must'), candidate)).toBe(true);
  expect(isSelected(sel('/VPS-LIST/'), candidate)).toBe(true);
  expect(isSelected(sel('/vps-list/'), candidate)).toBe(false);
  expect(isSelected(sel(null, ['auth']), candidate)).toBe(false);
  expect(isSelected(sel(null, null, 'lifecycle'), candidate)).toBe(false);
});

// That `--grep R` passes and reports R's checks only, for every requirement (among them those
// whose grep once ran a flow step without its earlier steps and blamed the target: OBJ-HEAD-001,
// VPS-LIST-002, MPU-CMP-002, BKT-DEL-001): test/trust/grep-walk.test.ts.

test('--classes auth selects the generated no-key and bad-key checks of every operation, and only the auth class', async () => {
  // The listing: that these checks pass against the reference server, the full runs show
  // (test/trust/safety.test.ts, the variant matrix); a run of the class here cost 5 s of CPU.
  const r = await run(['--list', '--classes', 'auth']);
  expect(r.code, r.stderr).toBe(0);
  const rows = r.stdout
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s+/))
    .filter((cells) => cells.length > 4 && /^(MUST|SHOULD)$/.test(cells[2]!));
  const ops = (kind: string) =>
    new Set(rows.filter(([id]) => id!.endsWith(`.${kind}`)).map(([id]) => id!.split('.').slice(0, -1).join('.')));
  expect(ops('auth-no-key').size).toBeGreaterThanOrEqual(80);
  expect(ops('auth-bad-key')).toEqual(ops('auth-no-key'));
  expect(new Set(rows.map((cells) => cells[3]))).toEqual(new Set(['auth']));
  // The titles as the suites wrote them: no redaction of a scheme's name as if it were a credential.
  expect(r.stdout).toContain('the run key under the Basic or Token scheme');
});

test('broken checks are cloudcheck errors: exit 2, never 1, listed with their stacks', async () => {
  const r = await run(['--grep', 'selftest'], { CLOUDCHECK_SELFTEST: 'broken-checks' });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain('cloudcheck could not check 1 requirement');
  const failed = r.report!.checks.filter((c) => c.status === 'failed');
  expect(failed.map((c) => [c.id, c.classification])).toEqual([
    ['selftest.code-error', 'cloudcheck-error'],
    ['selftest.flow.unset-value', 'cloudcheck-error'],
  ]);
  expect(failed.every((c) => (c.stack ?? '').includes('_selftest.spec.ts'))).toBe(true);
  // Their requirements went unjudged: no pass on no evidence.
  expect(r.report!.summary.gate?.passed).toBe(false);
  expect(r.report!.summary.verdict).toBe('inconclusive');
  expect(r.report!.summary.cloudcheck_errors).toBe(2);
  // The unset value never reached the target.
  expect(JSON.stringify(failed[1]!.exchanges ?? [])).not.toContain('/vps/undefined');
});

test('a failed flow step skips the steps after it, naming itself, and the worker goes on', async () => {
  const r = await run(['--grep', 'selftest', '--workers', '1'], { CLOUDCHECK_SELFTEST: 'failed-flow-step' });
  expect(r.code, r.stderr).toBe(1);
  const byId = new Map(r.report!.checks.map((c) => [c.id, c]));
  expect(byId.get('selftest.failing-flow.first')?.status).toBe('passed');
  expect(byId.get('selftest.failing-flow.fails')).toMatchObject({ status: 'failed', classification: 'defect' });
  // The failure is data: a MUST may demand only the class of the named refusal (4xx).
  expect(byId.get('selftest.failing-flow.fails')?.failure).toMatchObject({
    kind: 'status',
    subject: 'status',
    expected: '4xx',
    actual: '200',
    operation: 'GET /regions',
    request: 'GET /regions',
    headline: 'GET /regions (selftest: a success where a refusal is expected): answered 200, expected 4xx',
  });
  expect(byId.get('selftest.failing-flow.after')).toMatchObject({
    status: 'skipped',
    message: "not run: the flow's step selftest.failing-flow.fails failed before it",
  });
  // Playwright replaces a worker after every failed test (about a second of CPU): a failed step is recorded instead.
  expect(byId.get('selftest.same-worker')?.status, byId.get('selftest.same-worker')?.message).toBe('passed');
  expect(r.stderr).toContain("skipped 1: not run: the flow's step selftest.failing-flow.fails failed before it");
});

test('a sharded run never splits a flow (Playwright keeps a serial describe in one shard)', async () => {
  const cli = fileURLToPath(new URL('../../node_modules/@playwright/test/cli.js', import.meta.url));
  const config = fileURLToPath(new URL('../../playwright.config.ts', import.meta.url));
  const listShard = (shard: string): Promise<string> =>
    new Promise((resolve) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
      const env = {
        ...clean,
        CLOUDCHECK_DRIVEN: '1',
        CLOUDCHECK_CLASSES: 'compute,storage-volumes,storage-objects,billing',
        CLOUDCHECK_RUN_TMP: join(tmpdir(), 'cloudcheck-shard-list'),
      };
      const child = spawn(
        process.execPath,
        [cli, 'test', '-c', config, '--list', '--reporter=list', `--shard=${shard}`],
        { env },
      );
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('exit', () => resolve(out));
    });
  const shards = await Promise.all(['1/4', '2/4', '3/4', '4/4'].map(listShard));
  const flowsIn = (listing: string) => new Set([...listing.matchAll(/\[flow\] ([^›]+?) ›/g)].map((m) => m[1]!));
  const seen = new Map<string, number>();
  for (const listing of shards) for (const flow of flowsIn(listing)) seen.set(flow, (seen.get(flow) ?? 0) + 1);
  expect(seen.size).toBeGreaterThan(3);
  expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
});

test('console, report.json, JUnit, Markdown and HTML give the same per-class counts; the four classes pass whole', async () => {
  // Four small classes (generated checks, flows with setup steps, run-wide invariants): the
  // errors class, a third of the suite, made this run cost 8 s of CPU for nothing more.
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-counts-'));
  try {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
      const child = spawn(
        process.execPath,
        [BIN, 'run', '--classes', 'pagination,rate-limits,isolation,test-mode', '--workers', '1', '--report-dir', dir],
        { env: clean, cwd: tmpdir() },
      );
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (exit) => resolve({ code: exit, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    type Counts = Record<string, [number, number, number]>;
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    const fromJson: Counts = {};
    for (const c of report.checks) {
      const n = (fromJson[c.class] ??= [0, 0, 0]);
      n[c.status === 'passed' ? 0 : c.status === 'failed' ? 1 : 2]++;
    }
    // The console: the last line of each class.
    const fromConsole: Counts = {};
    for (const m of stderr.matchAll(/^ {2}[✓✗–] (\S+)\s+(\d+) passed\s+(\d+) failed\s+(\d+) skipped/gm))
      fromConsole[m[1]!] = [Number(m[2]), Number(m[3]), Number(m[4])];
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const fromJunit: Counts = {};
    for (const m of junit.matchAll(
      /<testsuite name="([^"]+)"[^>]*>\s*<properties>\s*<property name="cloudcheck.passed" value="(\d+)"\/>\s*<property name="cloudcheck.failed" value="(\d+)"\/>\s*<property name="cloudcheck.skipped" value="(\d+)"\/>/g,
    )) {
      fromJunit[m[1]!] = [Number(m[2]), Number(m[3]), Number(m[4])];
    }
    const fromMarkdown: Counts = {};
    for (const m of readFileSync(join(dir, 'summary.md'), 'utf8').matchAll(
      /^\| ([a-z-]+) \| (\d+) \| (\d+) \| (\d+) \|/gm,
    ))
      fromMarkdown[m[1]!] = [Number(m[2]), Number(m[3]), Number(m[4])];
    const fromHtml: Counts = {};
    for (const m of readFileSync(join(dir, 'report.html'), 'utf8').matchAll(
      /data-class="([^"]+)" data-passed="(\d+)" data-failed="(\d+)" data-skipped="(\d+)"/g,
    )) {
      const n = [Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number];
      if (n.some((x) => x > 0)) fromHtml[m[1]!] = n;
    }
    expect(Object.keys(fromJson).sort()).toEqual(['isolation', 'pagination', 'rate-limits', 'test-mode']);
    // The rate-limits class passes whole against the reference server (its faults: the fault
    // matrix): nothing skipped, the burst flows' steps and the run-wide invariants all reported.
    const skipped = report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message ?? ''}`);
    expect(skipped).toEqual([]);
    for (const id of [
      'rate-limits.burst-messaging.onset',
      'rate-limits.burst-compute.onset',
      'rate-limits.burst-messaging.sms-headers',
      'rate-limits.run.remaining-decrements',
      'rate-limits.run.reset-epoch',
    ])
      expect(report.checks.map((c) => c.id)).toContain(id);
    expect(fromConsole).toEqual(fromJson);
    expect(fromJunit).toEqual(fromJson);
    expect(fromMarkdown).toEqual(fromJson);
    expect(fromHtml).toEqual(fromJson);
    // Locations are the suite lines that declared the checks (the run-wide ones: their module),
    // relative to the project, never a path of this machine.
    expect(
      report.checks
        .filter((c) => c.location && !/^(suites\/[\w/.-]+\.ts:\d+|src\/[\w/.-]+\.ts)$/.test(c.location))
        .map((c) => `${c.id}: ${c.location}`),
    ).toEqual([]);
    // Every check names a requirement of the catalogue (the gate counts MUSTs by it).
    const catalogue = new Set(loadRequirements().map((r) => r.id));
    expect(report.checks.filter((c) => !catalogue.has(c.requirement)).map((c) => `${c.id}: ${c.requirement}`)).toEqual(
      [],
    );
    // "running N checks" counts what the report holds (the run-wide invariants announced apart).
    const announced = /running (\d+) checks in \d+ classes \(and (\d+) run-wide/.exec(stderr);
    expect(Number(announced![1]) + Number(announced![2])).toBe(report.checks.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a named class whose checks were all skipped is shown with the reasons and leaves the run inconclusive (exit 2); so does a selection of which nothing ran', async () => {
  const server = await startReferenceServer();
  try {
    // No --alt-api-key: the isolation checks need a second account and skip, saying so.
    const { code, stderr, report } = await run([
      '--target',
      server.baseUrl,
      '--api-key',
      server.apiKey,
      '--classes',
      'isolation,pagination',
    ]);
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(/^ {2}– isolation\s+0 passed\s+0 failed\s+\d+ skipped/m);
    expect(stderr).toMatch(/^ {6}skipped \d+: .*--alt-api-key/m);
    expect(stderr).toMatch(/^ {2}✓ pagination/m);
    expect(stderr).toContain('class isolation could not run: needs a second account: pass --alt-api-key');
    expect(report!.summary).toMatchObject({ verdict: 'inconclusive', gate: { passed: false } });
    expect(report!.run.classes_named).toBe(true);
    // A CI job whose secrets are empty (a fork's pull request): no check of the named classes ran.
    const none = await run(['--target', server.baseUrl, '--api-key', server.apiKey, '--classes', 's3,isolation']);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toMatch(
      /inconclusive: 0 of \d+ MUST checks judged \(no selected check ran: needs the S3-compatible endpoint: pass --s3-url \(\d+\); needs a second account: pass --alt-api-key \(\d+\)\)/,
    );
    expect(none.stdout).toMatch(/^gate: FAILED \(inconclusive/m);
  } finally {
    await server.close();
  }
});

test('--last-failed runs again only what the last run of the directory failed, with the steps those need', async () => {
  test.setTimeout(180_000);
  const cwd = mkdtempSync(join(tmpdir(), 'cloudcheck-last-failed-'));
  const cli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
      const child = spawn(process.execPath, [BIN, 'run', '--workers', '1', ...args], {
        env: { ...clean, ...env },
        cwd,
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  const latest = (): ConformanceReport =>
    JSON.parse(readFileSync(join(cwd, 'reports', 'latest', 'report.json'), 'utf8')) as ConformanceReport;
  try {
    expect((await cli(['--last-failed'])).code, 'no earlier run: a usage error').toBe(2);
    const broken = await cli(['--classes', 'pagination'], { CLOUDCHECK_EMBEDDED_FAULTS: 'page-meta-per-page-default' });
    expect(broken.code, broken.stderr).toBe(1);
    const failed = latest()
      .checks.filter((c) => c.status === 'failed')
      .map((c) => c.id);
    expect(failed).toEqual(['flow.messaging-consistency.page-size']);
    // `cloudcheck explore` wrote last (reports/latest mirrors it): --last-failed reads the last run's report.
    const runDir = `reports/${latest().run.id}`;
    const explored = join(cwd, 'reports', 'explore-x');
    for (const dir of [explored, join(cwd, 'reports', 'latest')]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'report.json'),
        JSON.stringify({
          ...latest(),
          run: { id: 'explore-x', target: 't', started_at: '', finished_at: '', seed: 1, classes: [] },
          checks: [],
        }),
      );
    }
    const again = await cli(['--last-failed']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`--last-failed: read ${runDir}/report.json (run `);
    // The flow step ran with the steps before it as setup; only the step is reported.
    expect(latest().checks.map((c) => c.id)).toEqual(failed);
    const nothing = await cli(['--last-failed']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('no failed check');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('lastFailedIds: failed checks, and the burst flows for a failed run-wide rate-limit invariant', () => {
  const ids = lastFailedIds([
    { id: 'a.b', status: 'failed' },
    { id: 'c.d', status: 'passed' },
    { id: 'rate-limits.run.reset-epoch', status: 'failed' },
    { id: 'rate-limits.run.headers-present', status: 'failed' },
  ]);
  expect(ids).toEqual(['a.b', 'rate-limits.burst-*']);
  const selection = { classes: null, grep: null, grepInvert: null, ids: new Set(ids) };
  const candidate = (id: string) => ({
    file: 'x.spec.ts',
    describe: null,
    title: '[X-Y-001] t',
    tags: [],
    class: 'rate-limits' as const,
    id,
  });
  expect(isSelected(selection, candidate('rate-limits.burst-compute.onset'))).toBe(true);
  expect(isSelected(selection, candidate('a.b'))).toBe(true);
  expect(isSelected(selection, candidate('c.d'))).toBe(false);
});
