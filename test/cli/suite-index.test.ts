/**
 * The suite index (src/harness/suite-index.ts) hands Playwright only the files a selection
 * reaches. A wrong file in it silently drops checks, so it is held to Playwright's own listing:
 * every test Playwright lists is in the index under the spec file Playwright loaded it from
 * (flows declared by a helper module included), and a class selection's files hold every test
 * of that class.
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Candidate, NO_SELECTION, isSelected } from '../../src/harness/selection.ts';
import { fileFilters, selectedCandidates, selectedWork } from '../../src/harness/suite-index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface JsonSuite {
  title: string;
  file: string;
  specs?: Array<{ title: string }>;
  suites?: JsonSuite[];
}

/** Every test title of a JSON-reporter suite, describes included. */
function titlesOf(suite: JsonSuite): string[] {
  return [...(suite.specs ?? []).map((s) => s.title), ...(suite.suites ?? []).flatMap(titlesOf)];
}

/** `playwright test --list` of the driven suite with an index requested: the listing (per loaded file) and the index. */
async function listWithIndex(): Promise<{ listed: Array<{ file: string; title: string }>; index: Candidate[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-suite-index-'));
  const out = join(dir, 'index.json');
  try {
    // Not CLOUDCHECK_* of this process, nor the variables of the Playwright worker this test runs in.
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)/.test(k)),
    );
    const env = {
      ...clean,
      CLOUDCHECK_DRIVEN: '1',
      CLOUDCHECK_RUN_TMP: join(dir, 'run'),
      CLOUDCHECK_SUITE_INDEX_OUT: out,
    };
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const stdout = await new Promise<string>((resolve) => {
      const child = spawn(
        process.execPath,
        [cli, 'test', '-c', join(ROOT, 'playwright.config.ts'), '--list', '--reporter=json'],
        { env, cwd: ROOT },
      );
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.on('exit', () => resolve(text));
    });
    // The JSON reporter groups tests by the file Playwright loaded (the declaring line may be a helper's).
    const fileSuites = (JSON.parse(stdout) as { suites: JsonSuite[] }).suites;
    const listed = fileSuites.flatMap((suite) => titlesOf(suite).map((title) => ({ file: suite.file, title })));
    return { listed, index: JSON.parse(readFileSync(out, 'utf8')) as Candidate[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the index names, for every listed test, the spec file Playwright loaded it from', async () => {
  test.setTimeout(120_000);
  const { listed, index } = await listWithIndex();
  expect(listed.length).toBeGreaterThan(1000);
  for (const c of index) {
    expect(c.file, `${c.title}: a spec file`).toMatch(/\.spec\.ts$/);
    expect(existsSync(join(ROOT, 'suites', c.file)), `suites/${c.file} exists`).toBe(true);
  }
  const indexed = new Set(index.map((c) => `${c.file} ${c.title}`));
  const missing = listed.filter((t) => !indexed.has(`${t.file} ${t.title}`)).map((t) => `${t.file} ${t.title}`);
  expect(missing, 'listed tests the index does not place in their file').toEqual([]);
  // A flow declared by a helper module (rate-limits/_onset.ts) belongs to the spec file that uses it.
  expect(index.some((c) => c.file === 'rate-limits/burst.spec.ts')).toBe(true);

  const selection = { ...NO_SELECTION, classes: new Set(['rate-limits']) };
  const filters = fileFilters(selectedCandidates(selection, index)).map((f) => new RegExp(f));
  for (const c of index.filter((x) => isSelected(selection, x))) {
    expect(
      filters.some((re) => re.test(join(ROOT, 'suites', c.file))),
      `${c.file} is among the files of --classes rate-limits`,
    ).toBe(true);
  }
});

test('file filters are escaped and anchored: one file, not its look-alikes', () => {
  const candidate = (file: string): Candidate => ({
    file,
    describe: null,
    title: '[X-Y-001] t',
    tags: [],
    class: 'messaging',
  });
  const filters = fileFilters(
    selectedCandidates(NO_SELECTION, [candidate('messaging/send.spec.ts'), candidate('messaging/send.spec.ts')]),
  );
  expect(filters).toEqual(['suites/messaging/send\\.spec\\.ts$']);
  const re = new RegExp(filters[0]!);
  expect(re.test('/repo/suites/messaging/send.spec.ts')).toBe(true);
  expect(re.test('/repo/suites/messaging/send-exact-limit.spec.ts')).toBe(false);
  expect(re.test('/repo/suites/messaging/sendXspecXts')).toBe(false);
});

test("a selection's work: its checks outside flows, and each flow once", () => {
  const c = (file: string, describe: string | null): Candidate => ({
    file,
    describe,
    title: '[X-Y-001] t',
    tags: [],
    class: 'messaging',
  });
  expect(
    selectedWork([
      c('a.spec.ts', null),
      c('a.spec.ts', null),
      c('flows/b.spec.ts', '[flow] b'),
      c('flows/b.spec.ts', '[flow] b'),
      c('flows/c.spec.ts', '[flow] c'),
    ]),
  ).toEqual({ checks: 2, flows: 2 });
  expect(selectedWork([])).toEqual({ checks: 0, flows: 0 });
});
