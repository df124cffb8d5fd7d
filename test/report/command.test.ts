import { mkdtempSync, readFileSync, existsSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../base.ts';
import { runReportCommand } from '../../src/cli/commands/report.ts';
import type { ConformanceReport } from '../../src/model/report.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cloudcheck-report-'));
  for (const [name, file] of [
    ['s1', 'shard-1.json'],
    ['s2', 'shard-2.json'],
  ] as const) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'report.json'), readFileSync(join(fixtures, file)));
  }
});
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('merge reads DIR/report.json of each and writes report.json, report.html, junit.xml, summary.md', async () => {
  const c = io();
  const code = await runReportCommand(['merge', join(dir, 's1'), join(dir, 's2'), '--out', join(dir, 'merged')], c.io);
  expect(c.err.join('')).toBe('');
  // The merged gate fails on the shards' MUST failures: the exit code says so.
  expect(code).toBe(1);
  expect(c.out.join('')).toContain('gate: FAILED (3 MUST failures)');
  for (const f of ['report.json', 'report.html', 'junit.xml', 'summary.md'])
    expect(existsSync(join(dir, 'merged', f))).toBe(true);
  const merged = JSON.parse(readFileSync(join(dir, 'merged', 'report.json'), 'utf8')) as ConformanceReport;
  expect(merged.checks).toHaveLength(16);
  expect(c.out.join('')).toContain('merged 2 reports: non-conformant: 3 MUST failures');
  expect(readFileSync(join(dir, 'merged', 'report.html'), 'utf8')).toContain('<h1>non-conformant: 3 MUST failures');
});

test('merge of one shard of two exits 1 with the gate failed; --allow-partial judges what is there and says so', async () => {
  const passing = JSON.parse(readFileSync(join(dir, 's1', 'report.json'), 'utf8')) as ConformanceReport;
  // Shard 1 of 2 with nothing failed: alone it must not pass the gate.
  const clean: ConformanceReport = { ...passing, checks: passing.checks.filter((c) => c.status !== 'failed') };
  mkdirSync(join(dir, 'clean'));
  writeFileSync(join(dir, 'clean', 'report.json'), JSON.stringify(clean));
  const c = io();
  expect(await runReportCommand(['merge', join(dir, 'clean'), '--out', join(dir, 'm1')], c.io)).toBe(1);
  expect(c.out.join('')).toContain('gate: FAILED (incomplete merge: shard 2/2 missing');
  const p = io();
  expect(await runReportCommand(['merge', join(dir, 'clean'), '--allow-partial', '--out', join(dir, 'm2')], p.io)).toBe(
    0,
  );
  const partial = JSON.parse(readFileSync(join(dir, 'm2', 'report.json'), 'utf8')) as ConformanceReport;
  expect(partial.summary.headline).toContain('(partial: shard 2/2 missing');
  // The same shard twice is no more complete.
  const d = io();
  expect(
    await runReportCommand(['merge', join(dir, 'clean'), join(dir, 'clean'), '--out', join(dir, 'm3')], d.io),
  ).toBe(1);
  expect(d.out.join('')).toContain('given more than once');
});

test('a merge with MUST checks that got no answer and no failure is inconclusive: exit 2, as a run', async () => {
  for (const name of ['s1', 's2']) {
    const shard = JSON.parse(readFileSync(join(dir, name, 'report.json'), 'utf8')) as ConformanceReport;
    const unanswered = shard.checks.filter((c) => c.status !== 'failed' || c.classification === 'environment');
    mkdirSync(join(dir, `u-${name}`));
    writeFileSync(join(dir, `u-${name}`, 'report.json'), JSON.stringify({ ...shard, checks: unanswered }));
  }
  const c = io();
  const code = await runReportCommand(['merge', join(dir, 'u-s1'), join(dir, 'u-s2'), '--out', join(dir, 'mu')], c.io);
  expect(code, c.out.join('')).toBe(2);
  expect(c.out.join('')).toMatch(/merged 2 reports: inconclusive: \d+ of \d+ MUST checks judged; not judged: /);
  expect(c.out.join('')).toContain('gate: FAILED (inconclusive: ');
});

test('diff takes report files or directories and prints the changes', async () => {
  const c = io();
  expect(await runReportCommand(['diff', join(dir, 's1'), join(dir, 's2', 'report.json')], c.io)).toBe(0);
  expect(c.out.join('')).toContain('new checks (only in B) (8)');
  expect(c.out.join('')).toContain('removed checks (only in A: not run in B) (8)');
  const j = io();
  expect(await runReportCommand(['diff', join(dir, 's1'), join(dir, 's1'), '--json'], j.io)).toBe(0);
  expect(JSON.parse(j.out.join('')).fixed).toEqual([]);
});

test('clear errors with exit 2: missing file, bad JSON, wrong schema_version, not a report, usage', async () => {
  const cases: Array<[string[], RegExp]> = [];
  writeFileSync(join(dir, 'bad.json'), '{ "schema_version": 1, ');
  writeFileSync(join(dir, 'v2.json'), JSON.stringify({ schema_version: 2 }));
  writeFileSync(join(dir, 'other.json'), JSON.stringify({ schema_version: 1, run: {} }));
  mkdirSync(join(dir, 'empty'));
  cases.push([['merge', join(dir, 'nope')], /nope: no such file or directory/]);
  cases.push([['merge', join(dir, 'empty')], /empty[/\\]report\.json: no report\.json there/]);
  cases.push([['diff', join(dir, 'bad.json'), join(dir, 's1')], /bad\.json: not valid JSON/]);
  cases.push([
    ['diff', join(dir, 'v2.json'), join(dir, 's1')],
    /v2\.json: schema_version is 2; this cloudcheck reads schema_version 1/,
  ]);
  cases.push([
    ['merge', join(dir, 'other.json')],
    /other\.json: not a cloudcheck report \(missing "summary", "checks", "coverage", "leaks"\)/,
  ]);
  cases.push([['diff', join(dir, 's1')], /expected two reports/]);
  cases.push([['merge'], /name at least one report/]);
  cases.push([['merge', join(dir, 's1'), '--frobnicate'], /unknown option --frobnicate/]);
  cases.push([['frob'], /expected "merge" or "diff"/]);
  for (const [argv, message] of cases) {
    const c = io();
    expect(await runReportCommand(argv, c.io), argv.join(' ')).toBe(2);
    expect(c.err.join('')).toMatch(message);
  }
  const h = io();
  expect(await runReportCommand(['--help'], h.io)).toBe(0);
  expect(h.out.join('')).toContain('cloudcheck report merge');
  for (const sub of ['merge', 'diff']) {
    const c = io();
    expect(await runReportCommand([sub, '--help'], c.io), `report ${sub} --help`).toBe(0);
    expect(c.out.join('')).toContain(`cloudcheck report ${sub}`);
  }
});
