/**
 * The run contract (src/harness/settings.ts): what settingsToEnv writes, settingsFromEnv reads
 * back the same, for any settings; and nothing outside the contract reads or writes a run variable.
 */
import { expect, test } from '../base.ts';
import fc from 'fast-check';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_CLASSES } from '../../spec/classes.ts';
import {
  RUN_PREFIX,
  RUN_VARIABLES,
  settingsFromEnv,
  settingsToEnv,
  withoutRunVariables,
} from '../../src/harness/settings.ts';
import type { RunSettings } from '../../src/harness/settings.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const word = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,15}$/);
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(arb, { nil: null });
const url = fc
  .tuple(fc.integer({ min: 1, max: 65535 }), word)
  .map(([port, path]) => `http://127.0.0.1:${port}/${path}`);
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,20}[\x21-\x7e])?$/);

const settingsArb: fc.Arbitrary<RunSettings> = fc
  .record({
    runId: word,
    target: url,
    s3Url: maybe(url),
    keys: fc.record({ main: word, alt: maybe(word), extra: fc.array(word, { maxLength: 3 }) }),
    seed: fc.integer({ min: 0, max: 2 ** 31 }),
    examples: fc.integer({ min: 1, max: 1000 }),
    classes: fc.subarray([...CONFORMANCE_CLASSES], { minLength: 1 }),
    testNumbers: fc.record({ succeed: word, fail: word, random: word }),
    allowCharges: fc.boolean(),
    liveSms: fc.boolean(),
    strict: fc.boolean(),
    timeoutScale: fc.integer({ min: 1, max: 20 }),
    requestTimeoutMs: maybe(fc.integer({ min: 1, max: 600_000 })),
    asyncTimeoutMs: fc.integer({ min: 1, max: 3600 }).map((s) => s * 1000),
    webhook: fc.record({ listen: fc.constantFrom('127.0.0.1:0', '127.0.0.1:9999'), url: maybe(url) }),
    embedded: fc.boolean(),
    reportDir: maybe(word),
    keep: fc.boolean(),
    runTmp: maybe(word),
    keysPerWorker: maybe(fc.integer({ min: 0, max: 10 })),
    budgetKeys: fc.array(word, { maxLength: 6 }),
    headers: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,10}$/), headerValue, { maxKeys: 3 }),
    caCertFile: maybe(word),
    retries: fc.integer({ min: 0, max: 5 }),
    harAll: fc.boolean(),
    driven: fc.boolean(),
    progress: fc.boolean(),
    startedAt: maybe(fc.constant('2026-11-25T20:00:00.000Z')),
    baselineFile: maybe(word),
    shard: maybe(fc.constantFrom('1/2', '2/2', '3/5')),
    workers: maybe(fc.integer({ min: 1, max: 16 })),
    roundTripMs: maybe(fc.double({ min: 0, max: 10_000, noNaN: true })),
    selectedWork: maybe(fc.record({ checks: fc.nat({ max: 5_000 }), flows: fc.nat({ max: 50 }) })),
    maxFailures: fc.integer({ min: 0, max: 10 }),
    selection: fc.record({
      grep: maybe(word),
      grepInvert: maybe(word),
      onlyIds: maybe(fc.array(word, { minLength: 1, maxLength: 4 })),
    }),
    handoffFile: maybe(word),
    suiteIndexOut: maybe(word),
  })
  .map((s) => ({ ...s, runPrefix: `${RUN_PREFIX}${s.runId}-` }));

test('settingsFromEnv reads back what settingsToEnv wrote, for any settings', () => {
  fc.assert(
    fc.property(settingsArb, (settings) => {
      expect(settingsFromEnv(settingsToEnv(settings))).toEqual(settings);
    }),
    { numRuns: 300 },
  );
});

test('a target is normalised once when read, and required unless the reader says otherwise', () => {
  expect(settingsFromEnv({ CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1//' }).target).toBe('http://127.0.0.1:1/v1');
  expect(() => settingsFromEnv({})).toThrow(/CLOUDCHECK_TARGET is not set/);
  expect(settingsFromEnv({}, { requireTarget: false }).target).toBe('');
  const env = settingsToEnv(settingsFromEnv({ CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1', CLOUDCHECK_API_KEY: 'k' }));
  expect(Object.keys(withoutRunVariables({ ...env, PATH: '/bin', CLOUDCHECK_EMBEDDED_FAULTS: 'x' }))).toEqual([
    'PATH',
    'CLOUDCHECK_EMBEDDED_FAULTS',
  ]);
});

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

test('only the run contract reads or writes a run variable (src, load, suites, the Playwright config)', () => {
  const names = Object.values(RUN_VARIABLES);
  const files = [
    ...['src', 'load', 'suites'].flatMap((dir) => tsFiles(join(ROOT, dir))),
    join(ROOT, 'playwright.config.ts'),
  ].filter((f) => !f.endsWith(join('src', 'harness', 'settings.ts')));
  const offenders: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const name of names) {
      // process.env.X, env.X, env['X'], { X: ... } and `X=` in code; mentions in prose and messages are fine.
      const access = new RegExp(`(\\benv\\.${name}\\b|\\[['"\`]${name}['"\`]\\]|^\\s*${name}\\s*:)`, 'm');
      if (access.test(text)) offenders.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  expect(offenders).toEqual([]);
});

test("settings are read once per process and passed down: no other reader of the process's environment, no read in a default parameter", async () => {
  const files = [
    ...['src', 'load'].flatMap((dir) => tsFiles(join(ROOT, dir))),
    join(ROOT, 'playwright.config.ts'),
  ].filter((f) => !f.endsWith(join('src', 'harness', 'settings.ts')));
  // `(env = process.env`, `, settings: X = settingsFromEnv(...)` in a parameter list.
  const defaultParameter =
    /[(,]\s*\w+\??(?::\s*[\w.<>[\]| ]+?)?\s*=\s*(?:process\.env\b|settingsFromEnv\(|processSettings\()/;
  const offenders: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (/settingsFromEnv\(process\.env/.test(text))
      offenders.push(`${relative(ROOT, file)}: settingsFromEnv(process.env)`);
    if (defaultParameter.test(text)) offenders.push(`${relative(ROOT, file)}: a default parameter reads them`);
  }
  expect(offenders).toEqual([]);
  const { processSettings } = await import('../../src/harness/settings.ts');
  expect(processSettings()).toBe(processSettings());
});
