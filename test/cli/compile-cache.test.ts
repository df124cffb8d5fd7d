/**
 * The code cache of Playwright's bundles (bin/compile-cache.cjs), preloaded as a run preloads it
 * into its runner, from a copy in a temp dir (so the cache is the temp dir's): a process that
 * compiles a listed bundle leaves its code cache, the next one compiles from it (and so does not
 * write it again), a damaged cache is compiled over and replaced, an unwritable cache changes
 * nothing but speed, and modules not in the list keep their dynamic import().
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BUNDLE = createRequire(import.meta.url).resolve('playwright-core/lib/utilsBundle');

let root: string;
test.beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudcheck-compile-cache-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(new URL('../../bin/compile-cache.cjs', import.meta.url), join(root, 'bin', 'compile-cache.cjs'));
  // A module outside the list that imports dynamically, as Playwright loads the configuration.
  writeFileSync(join(root, 'dynamic.cjs'), "module.exports = import('node:path').then((m) => typeof m.join);\n");
});
test.afterEach(() => rmSync(root, { recursive: true, force: true }));

const cacheDir = (): string => join(root, 'node_modules', '.cache', 'cloudcheck', 'v8');

/** A process with the cache preloaded: loads the bundle and the dynamic module, prints what it got. */
function load(): { code: number | null; output: string } {
  const script = `Promise.resolve(require(${JSON.stringify(join(root, 'dynamic.cjs'))})).then((join) => console.log(typeof require(${JSON.stringify(BUNDLE)}).debug, join))`;
  const child = spawnSync(process.execPath, ['--require', join(root, 'bin', 'compile-cache.cjs'), '-e', script], {
    encoding: 'utf8',
  });
  return { code: child.status, output: `${child.stdout}${child.stderr}` };
}

function cached(): string[] {
  return readdirSync(cacheDir()).filter((f) => f.endsWith('.bin'));
}

test.skip(
  typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function',
  'this Node has a compile cache of its own, which the preload uses instead',
);

test('written by the first process, used by the next, replaced when damaged', () => {
  const first = load();
  expect(first.code, first.output).toBe(0);
  expect(first.output.trim()).toBe('function function');
  expect(cached()).toEqual([expect.stringMatching(/^lib-utilsBundle\.js-[0-9a-f]{20}\.bin$/)]);
  const file = join(cacheDir(), cached()[0]!);
  const written = statSync(file).mtimeMs;

  // Compiled from the cache: V8 accepted it, so nothing is written again.
  const second = load();
  expect(second.code, second.output).toBe(0);
  expect(second.output.trim()).toBe('function function');
  expect(statSync(file).mtimeMs).toBe(written);

  // A damaged cache is rejected by V8: compiled afresh and written again.
  writeFileSync(file, 'not a code cache');
  const third = load();
  expect(third.code, third.output).toBe(0);
  expect(third.output.trim()).toBe('function function');
  expect(readFileSync(file).length).toBeGreaterThan(10_000);
});

test('an unwritable cache only means compiling each time', () => {
  mkdirSync(join(root, 'node_modules', '.cache', 'cloudcheck'), { recursive: true });
  writeFileSync(cacheDir(), 'a file where the directory would be');
  for (let i = 0; i < 2; i++) {
    const run = load();
    expect(run.code, run.output).toBe(0);
    expect(run.output.trim()).toBe('function function');
  }
});
