/**
 * A disk cache for what every process of a run would otherwise compute again from the same files:
 * the bundled OpenAPI document (Redocly: ~0.8 s to import and bundle) and the validated requirement
 * catalogue (YAML parse and schema compilation: ~0.2 s). A run has a runner, workers and an
 * embedded server, and the fault matrix starts a hundred runs, so this was most of the fixed cost
 * of a run (bench: "fixed cost").
 *
 * Entries are keyed by a hash of the input files' contents (and the tool versions), never by time:
 * an edited file is a new key. The cache lives in node_modules/.cache/cloudcheck (the convention
 * of babel, eslint and others), or the system temp dir where that is not writable; anything that
 * goes wrong with it falls back to computing.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where entries live: node_modules/.cache/cloudcheck, or the temp dir when that is not writable. */
export function cacheDir(): string | null {
  for (const dir of [join(ROOT, 'node_modules', '.cache', 'cloudcheck'), join(tmpdir(), 'cloudcheck-cache')]) {
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // Not writable: the next place.
    }
  }
  return null;
}

/** Every file under `path` (or `path` itself), sorted, for the key. */
function filesOf(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesOf(join(path, name)));
}

/** A key from the contents of `inputs` (files or directories) and `salt` (versions, options). */
export function contentKey(inputs: readonly string[], salt: string): string {
  const hash = createHash('sha256').update(salt);
  for (const file of inputs.flatMap(filesOf))
    hash.update(file.slice(ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 24);
}

function read<T>(file: string | null): { hit: true; value: T } | { hit: false } {
  if (!file) return { hit: false };
  try {
    return { hit: true, value: JSON.parse(readFileSync(file, 'utf8')) as T };
  } catch {
    // A miss (or a damaged entry): compute it.
    return { hit: false };
  }
}

/**
 * Entries of one name kept beside the newest: a key changes with every edit of its inputs, and
 * the suite index (a third of a megabyte) is written again after each edit of a suite file, so
 * without a limit the directory grew by tens of megabytes a day of work. A few stay for the
 * checkouts that alternate (branches, worktrees sharing node_modules).
 */
export const KEEP_PER_NAME = 8;

function store(name: string, file: string | null, value: unknown): void {
  if (!file) return;
  try {
    // Written aside and renamed: a concurrent reader never sees half a file.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(value));
    renameSync(partial, file);
    prune(name, file);
  } catch {
    // The cache is an optimisation only.
  }
}

/** Removes the entries of `name` beyond the KEEP_PER_NAME most recently written (`current` is one). */
function prune(name: string, current: string): void {
  const dir = dirname(current);
  const ofName = (entry: string): boolean =>
    entry.startsWith(`${name}-`) && /^[0-9a-f]+\.json$/.test(entry.slice(name.length + 1));
  const entries = readdirSync(dir)
    .filter((entry) => ofName(entry) && entry !== basename(current))
    .flatMap((entry) => {
      try {
        return [{ path: join(dir, entry), written: statSync(join(dir, entry)).mtimeMs }];
      } catch {
        return []; // Removed meanwhile by another process.
      }
    })
    .sort((a, b) => b.written - a.written);
  for (const { path } of entries.slice(KEEP_PER_NAME - 1)) {
    try {
      unlinkSync(path);
    } catch {
      // Removed meanwhile by another process.
    }
  }
}

function entryFile(name: string, key: string): string | null {
  const dir = cacheDir();
  return dir ? join(dir, `${name}-${key}.json`) : null;
}

/** The cached JSON value of `name`/`key`, or `compute()`'s, stored for the next process. */
export async function cachedJson<T>(name: string, key: string, compute: () => Promise<T> | T): Promise<T> {
  const file = entryFile(name, key);
  const cached = read<T>(file);
  if (cached.hit) return cached.value;
  const value = await compute();
  store(name, file, value);
  return value;
}

/** cachedJson for a synchronous computation. */
export function cachedJsonSync<T>(name: string, key: string, compute: () => T): T {
  const file = entryFile(name, key);
  const cached = read<T>(file);
  if (cached.hit) return cached.value;
  const value = compute();
  store(name, file, value);
  return value;
}

/** The cached JSON value of `name`/`key`, or undefined. */
export function cachedValue<T>(name: string, key: string): T | undefined {
  const cached = read<T>(entryFile(name, key));
  return cached.hit ? cached.value : undefined;
}

/** Stores `value` as `name`/`key` for later processes. */
export function storeValue(name: string, key: string, value: unknown): void {
  store(name, entryFile(name, key), value);
}

/** The installed version of a package, for cache keys. */
export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}
