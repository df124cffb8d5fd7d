/**
 * The CLI's bundle (bin/bundle.mjs), on a small project of its own in a temp dir: built on first
 * use, used while its sources are unchanged, built again when any of them changes (never stale),
 * each module keeping its own import.meta.url, and no bundle (the sources run instead) while
 * another process holds the build lock; checkouts that share node_modules keep bundles of their own.
 */
import { expect, test } from '../base.ts';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleEntry } from '../../bin/bundle.mjs';

interface Built {
  main(): Promise<{ answer: string; here: string; later: string }>;
}

let root: string;
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudcheck-bundle-'));
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  write('src/cli/answer.ts', "export const answer: string = 'one';\n");
  write('src/cli/later.ts', 'export const later = import.meta.url;\n');
  write(
    'src/cli/main.ts',
    [
      "import { answer } from './answer.ts';",
      'export async function main() {',
      "  const { later } = await import('./later.ts');",
      '  return { answer, here: import.meta.url, later };',
      '}',
      '',
    ].join('\n'),
  );
});
test.afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  writeFileSync(join(root, path), text);
}

/** The manifest of the bundles of `dir` (one per project directory: the cache may be shared). */
function manifestOf(dir: string): string {
  const cache = join(dir, 'node_modules', '.cache', 'cloudcheck', 'cli');
  const found = existsSync(cache) ? readdirSync(cache).filter((f) => /^manifest-[0-9a-f]+\.json$/.test(f)) : [];
  expect(found.length, `manifests in ${cache}`).toBeLessThanOrEqual(1);
  return join(cache, found[0] ?? 'manifest-none.json');
}

async function run(entry: string): Promise<Awaited<ReturnType<Built['main']>>> {
  // A query makes every import a fresh module instance (a bundle directory is reused by key).
  return ((await import(`${pathToFileURL(entry).href}?${Math.random()}`)) as Built).main();
}

test('built once, reused while the sources are unchanged, rebuilt when one changes; each module keeps its own import.meta.url', async () => {
  const first = await bundleEntry({ root });
  expect(first).not.toBeNull();
  expect(first!.startsWith(join(root, 'node_modules', '.cache', 'cloudcheck', 'cli'))).toBe(true);
  const result = await run(first!);
  expect(result.answer).toBe('one');
  expect(result.here).toBe(pathToFileURL(join(root, 'src/cli/main.ts')).href);
  // A module loaded late (code splitting) has its own URL too.
  expect(result.later).toBe(pathToFileURL(join(root, 'src/cli/later.ts')).href);
  const manifest = JSON.parse(readFileSync(manifestOf(root), 'utf8')) as { inputs: string[] };
  expect(manifest.inputs).toEqual(['src/cli/answer.ts', 'src/cli/later.ts', 'src/cli/main.ts']);

  expect(await bundleEntry({ root })).toBe(first);

  write('src/cli/answer.ts', "export const answer: string = 'two';\n");
  const second = await bundleEntry({ root });
  expect(second).not.toBe(first);
  expect((await run(second!)).answer).toBe('two');
});

test('while another process builds (the lock is held), no bundle: the caller runs the sources', async () => {
  const cache = join(root, 'node_modules', '.cache', 'cloudcheck', 'cli');
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'build.lock'), '');
  expect(await bundleEntry({ root })).toBeNull();
  expect(existsSync(manifestOf(root))).toBe(false);
  rmSync(join(cache, 'build.lock'));
  expect(await bundleEntry({ root })).not.toBeNull();
});

test('a source the bundle cannot take (a non-source import) gives no bundle, not a broken one', async () => {
  write('src/cli/notes.txt', 'text');
  write('src/cli/main.ts', "import notes from './notes.txt';\nexport async function main() { return notes; }\n");
  expect(await bundleEntry({ root })).toBeNull();
  expect(existsSync(join(root, 'node_modules/.cache/cloudcheck/cli/build.lock'))).toBe(false);
});

test('two checkouts with the same sources that share node_modules each run their own files', async () => {
  const first = await bundleEntry({ root });
  // A second checkout: the same sources, its node_modules a link to the first one's (one cache).
  const other = mkdtempSync(join(tmpdir(), 'cloudcheck-bundle-other-'));
  try {
    cpSync(join(root, 'src'), join(other, 'src'), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(other, 'node_modules'));
    const second = await bundleEntry({ root: other });
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    expect((await run(second!)).here).toBe(pathToFileURL(join(other, 'src/cli/main.ts')).href);
    // Each keeps its own manifest: neither rebuilds because the other built (a bundle unused for
    // ten minutes is pruned by the next build in the cache, and built again when needed).
    expect(await bundleEntry({ root })).toBe(first);
    expect(await bundleEntry({ root: other })).toBe(second);
    expect((await run(first!)).here).toBe(pathToFileURL(join(root, 'src/cli/main.ts')).href);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
