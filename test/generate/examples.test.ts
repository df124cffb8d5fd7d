/**
 * `cloudcheck run --examples N` (src/generate/examples.ts): the option's usage errors; N inputs
 * drawn per operation, distinct, boundaries first, all valid per the specification; the same seed
 * drawing the same inputs; a failure shrunk; and the reference server's `msg-length-in-bytes`
 * fault found with `--examples 20` and missed by the default run (two runs of one check each).
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFaults } from '../../reference/server.ts';
import { UsageError, resolveOptions } from '../../src/config/resolve.ts';
import { EnvironmentError } from '../../src/harness/errors.ts';
import {
  EXAMPLE_FIELDS,
  LABEL_SUFFIX_MAX,
  boundaryInputs,
  planFields,
  runExamples,
  seedOf,
  textOf,
} from '../../src/generate/examples.ts';
import type { DrawnInput, DrawnText, FieldPlan } from '../../src/generate/examples.ts';
import { loadContractModel } from '../../src/generate/model.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { EXAMPLES_FAULTS } from '../trust/matrix.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

function cli(
  args: string[],
  env: Record<string, string> = {},
  cwd = tmpdir(),
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)/.test(k)),
    );
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, FORCE_COLOR: '0', ...env }, cwd });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function plansOf(key: string): Promise<FieldPlan[]> {
  const model = await loadContractModel();
  const op = model.operations.find((o) => o.key === key);
  if (!op) throw new Error(`no operation ${key}`);
  return planFields(op, key);
}

/** The inputs `runExamples` sends when every one passes. */
async function drawn(plans: FieldPlan[], count: number, seed: number): Promise<DrawnInput[]> {
  const outcome = await runExamples({
    plans,
    count,
    seed,
    isAbort: () => false,
    attempt: () => Promise.resolve({ ok: true }),
  });
  expect(outcome.failure).toBeUndefined();
  return outcome.tried;
}

const text = (value: unknown): string => textOf(value as DrawnText);
/** No control characters, no surrogates (every character one UTF-16 unit), not starting with a space. */
const VALID_TEXT = /^[^\s\p{Cc}\p{Cs}][^\p{Cc}\p{Cs}]*$/u;

test('--examples takes an integer of at least 1 (flag, variable, config file); 1 by default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-examples-config-'));
  try {
    expect(resolveOptions('run', [], {}, dir).values.examples).toBe(1);
    expect(resolveOptions('run', ['--examples', '20'], {}, dir).values.examples).toBe(20);
    expect(resolveOptions('run', [], { CLOUDCHECK_EXAMPLES: '7' }, dir).values.examples).toBe(7);
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--examples', '0'], {}, /^--examples: must be >= 1$/],
      [['--examples', '-3'], {}, /^--examples: must be >= 1$/],
      [['--examples=-3'], {}, /^--examples: must be >= 1$/],
      [['--examples', '1.5'], {}, /^--examples: expected an integer, got "1\.5"$/],
      [['--examples', 'many'], {}, /^--examples: expected an integer, got "many"$/],
      [['--examples', '1001'], {}, /^--examples: must be <= 1000$/],
      [[], { CLOUDCHECK_EXAMPLES: '0' }, /^CLOUDCHECK_EXAMPLES: must be >= 1$/],
    ];
    for (const [argv, env, message] of cases) {
      expect(() => resolveOptions('run', argv, env, dir), argv.join(' ') || JSON.stringify(env)).toThrow(UsageError);
      expect(() => resolveOptions('run', argv, env, dir), argv.join(' ') || JSON.stringify(env)).toThrow(message);
    }
    writeFileSync(join(dir, 'cloudcheck.config.yaml'), 'examples: 0\n');
    expect(() => resolveOptions('run', [], {}, dir)).toThrow(/cloudcheck\.config\.yaml: "examples": must be >= 1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad --examples is a usage error of the CLI: exit 2, one line, nothing run', async () => {
  const runs = await Promise.all(['0', '-1'].map((value) => cli(['run', '--examples', value])));
  for (const { code, stderr } of runs) {
    expect(code, stderr).toBe(2);
    expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
    expect(stderr).toContain('--examples: must be >= 1');
  }
});

test('20 examples of POST /sms/send: distinct texts, the 1600-character boundaries first, all valid per the specification', async () => {
  const plans = await plansOf('POST /sms/send');
  const inputs = await drawn(plans, 19, seedOf(1, 'contract.sendSms.positive'));
  expect(inputs).toHaveLength(19);
  expect(new Set(inputs.map((i) => JSON.stringify(i))).size).toBe(19);
  const texts = inputs.map((i) => text(i['body.message']));
  // The boundaries: 1600 characters of ASCII, 1600 of other scripts, 1 character.
  expect(texts[0]).toHaveLength(1600);
  expect(texts[0]).toMatch(/^[\x20-\x7e]+$/);
  expect([...texts[1]!]).toHaveLength(1600);
  expect(Buffer.byteLength(texts[1]!)).toBeGreaterThan(1600);
  expect(texts[2]).toHaveLength(1);
  for (const t of texts) {
    expect([...t].length).toBeGreaterThanOrEqual(1);
    expect([...t].length).toBeLessThanOrEqual(1600);
    expect(t.length, 'one UTF-16 unit per character: both readings of "characters" agree').toBe([...t].length);
    expect(t).toMatch(VALID_TEXT);
  }
  // The random draws reach beyond ASCII and over the whole range of lengths.
  expect(texts.slice(3).some((t) => /[^\x20-\x7e]/.test(t))).toBe(true);
  expect(Math.max(...texts.slice(3).map((t) => t.length))).toBeGreaterThan(400);
});

test('per_page 100 and 1, names in several scripts with the run prefix left to the check, keys with several /-separated segments', async () => {
  const pages = (await drawn(await plansOf('GET /vps'), 19, 5)).map((i) => i['query.per_page'] as number);
  expect(pages.slice(0, 2)).toEqual([100, 1]);
  for (const p of pages) expect(Number.isInteger(p) && p >= 1 && p <= 100).toBe(true);
  expect(new Set(pages).size).toBeGreaterThan(10);

  const projects = await drawn(await plansOf('POST /projects'), 19, 5);
  const names = projects.map((i) => text(i['body.name']));
  expect(names[1]).toMatch(/[^\x20-\x7e]/);
  for (const n of names) {
    expect([...n].length).toBeLessThanOrEqual(LABEL_SUFFIX_MAX);
    expect(n).toMatch(/^[\p{L}][\p{L}\p{N}-]*$/u);
  }
  expect(new Set(projects.map((i) => JSON.stringify(i))).size).toBe(19);

  const keys = (await drawn(await plansOf('PUT /storage/buckets/{bucket_name}/objects/{object_key}'), 19, 5)).map((i) =>
    (i.key as DrawnText[]).map(textOf),
  );
  expect(keys[0]).toHaveLength(5);
  expect(keys[1]!.join('/')).toMatch(/[^\x20-\x7e]/);
  for (const segments of keys) {
    for (const s of segments) {
      expect(s).toMatch(/^[\p{L}][\p{L}\p{N}._-]*$/u);
      expect(['.', '..']).not.toContain(s);
    }
  }
  expect(keys.some((k) => k.length > 1)).toBe(true);
});

test('query parameters whose values the specification lists take each of them, or are left out when optional', async () => {
  const trends = await drawn(await plansOf('GET /account/analytics/trends'), 19, 3);
  const metrics = new Set(trends.map((i) => i['query.metric']));
  expect([...metrics].sort()).toEqual(['bandwidth', 'cost', 'resources', 'storage']);
  expect(new Set(trends.map((i) => i['query.interval']))).toEqual(new Set(['day', 'week', 'month', null]));
  expect(trends[0]).toEqual({ 'query.metric': 'bandwidth', 'query.interval': 'month' });
  // Parameters marked x-assumed in the document (max_keys's default) are not a listed choice.
  expect((await plansOf('GET /storage/buckets/{bucket_name}/objects')).map((p) => p.id)).toEqual(['query.max_keys']);
});

test('the same seed draws the same inputs; another seed others', async () => {
  const plans = await plansOf('POST /sms/send');
  const a = await drawn(plans, 19, 42);
  const b = await drawn(plans, 19, 42);
  const c = await drawn(plans, 19, 43);
  expect(b).toEqual(a);
  // The boundaries are the same for every seed; the random draws differ.
  expect(c.slice(0, 3)).toEqual(a.slice(0, 3));
  expect(c.slice(3)).not.toEqual(a.slice(3));
  expect(seedOf(1, 'contract.sendSms.positive')).toBe(seedOf(1, 'contract.sendSms.positive'));
  expect(seedOf(1, 'contract.sendSms.positive')).not.toBe(seedOf(2, 'contract.sendSms.positive'));
});

test('fewer examples than boundaries send the first boundaries only; every boundary is a value its field draws', async () => {
  const plans = await plansOf('POST /sms/send');
  expect(boundaryInputs(plans)).toHaveLength(3);
  expect(await drawn(plans, 1, 1)).toEqual(boundaryInputs(plans).slice(0, 1));
  for (const key of Object.keys(EXAMPLE_FIELDS)) expect((await plansOf(key)).length, key).toBeGreaterThan(0);
});

test('a failure is shrunk to a minimal failing input; an error not about the target stops the draws and is rethrown', async () => {
  const plans = await plansOf('POST /sms/send');
  // A target counting bytes: the shrunk text is over 1600 bytes by one character's worth at most.
  const outcome = await runExamples({
    plans,
    count: 19,
    seed: 7,
    isAbort: () => false,
    attempt: (input) =>
      Promise.resolve(
        Buffer.byteLength(text(input['body.message'])) > 1600
          ? { ok: false, message: 'message_too_long' }
          : { ok: true },
      ),
  });
  const failure = outcome.failure!;
  expect(failure).toBeDefined();
  const shrunk = text(failure.input['body.message']);
  expect(Buffer.byteLength(shrunk)).toBeGreaterThan(1600);
  expect(Buffer.byteLength(shrunk)).toBeLessThanOrEqual(1603);
  expect([...shrunk].length).toBeLessThan(1600);
  expect(failure.shrinks).toBeGreaterThan(0);

  let calls = 0;
  const stopped = runExamples({
    plans,
    count: 19,
    seed: 7,
    isAbort: (e) => e instanceof EnvironmentError,
    attempt: () => {
      calls++;
      return Promise.reject(new EnvironmentError('budget exhausted'));
    },
  });
  await expect(stopped).rejects.toThrow('budget exhausted');
  expect(calls).toBe(1);
});

test('msg-length-in-bytes: `run --examples 20` finds it with a shrunk input and the seed; the default run misses it', async () => {
  test.setTimeout(120_000);
  expect(listFaults().map((f) => f.name)).toContain('msg-length-in-bytes');
  expect(EXAMPLES_FAULTS['msg-length-in-bytes']?.args).toEqual(['--examples', '20']);
  for (const fault of Object.keys(EXAMPLES_FAULTS)) expect(listFaults().map((f) => f.name)).toContain(fault);
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-examples-'));
  try {
    const env = { CLOUDCHECK_EMBEDDED_FAULTS: 'msg-length-in-bytes', CLOUDCHECK_WORKERS: '1' };
    const grep = ['--grep', '\\[MSG-FLD-001\\]'];
    const [plain, drawnRun] = await Promise.all([
      cli(['run', ...grep, '--report-dir', join(dir, 'default')], env),
      cli(['run', ...grep, '--examples', '20', '--report-dir', join(dir, 'examples')], env),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(drawnRun.code, drawnRun.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'examples', 'report.json'), 'utf8')) as ConformanceReport;
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => [c.id, c.requirement, c.classification ?? 'defect'])).toEqual([
      ['contract.sendSms.positive', 'MSG-FLD-001', 'defect'],
    ]);
    const message = failed[0]!.message ?? '';
    expect(message).toContain('--examples 20');
    expect(message).toMatch(/seed -?\d+ of this check, from --seed 1/);
    expect(message).toMatch(/Shrunk input: body\.message: \d+ characters \(160[1-3] UTF-8 bytes\)/);
    expect(message).toContain('message_too_long');
    expect(report.leaks).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
