/**
 * The disk cache (src/util/disk-cache.ts) keeps a few entries of each name: a key changes with every edit of
 * its inputs, so without a limit every edit of a suite file left a third of a megabyte behind.
 */
import { readdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test } from '../base.ts';
import { KEEP_PER_NAME, cacheDir, cachedValue, storeValue } from '../../src/util/disk-cache.ts';

test('storing an entry keeps the most recently written of its name, and no entry of another name', () => {
  const dir = cacheDir();
  expect(dir, 'a writable cache directory').not.toBeNull();
  // Names of this test only, one the other's prefix: pruning one must leave the other alone.
  const name = `cache-test-${randomBytes(4).toString('hex')}`;
  const longer = `${name}-longer`;
  const entries = (of: string): string[] =>
    readdirSync(dir!)
      .filter((entry) => entry.startsWith(`${of}-`) && /^[0-9a-f]+\.json$/.test(entry.slice(of.length + 1)))
      .sort();
  const keyOf = (i: number): string => i.toString(16).padStart(8, '0');
  try {
    storeValue(longer, keyOf(99), { other: true });
    // Written a second apart (mtime), oldest first; each store prunes.
    const base = Date.now() / 1000 - 100;
    for (let i = 0; i < KEEP_PER_NAME + 5; i++) {
      storeValue(name, keyOf(i), { i });
      utimesSync(join(dir!, `${name}-${keyOf(i)}.json`), base + i, base + i);
    }
    const kept = Array.from({ length: KEEP_PER_NAME }, (_, j) => `${name}-${keyOf(5 + j)}.json`);
    expect(entries(name)).toEqual(kept.sort());
    expect(cachedValue<{ i: number }>(name, keyOf(KEEP_PER_NAME + 4))).toEqual({ i: KEEP_PER_NAME + 4 });
    expect(cachedValue(name, keyOf(0))).toBeUndefined();
    expect(entries(longer)).toEqual([`${longer}-${keyOf(99)}.json`]);
  } finally {
    for (const entry of [...entries(name), ...entries(longer)]) rmSync(join(dir!, entry), { force: true });
  }
});
