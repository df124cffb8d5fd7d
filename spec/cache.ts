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
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function cacheDir(): string | null {
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
  for (const file of inputs.flatMap(filesOf)) hash.update(file.slice(ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
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

function store(file: string | null, value: unknown): void {
  if (!file) return;
  try {
    // Written aside and renamed: a concurrent reader never sees half a file.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(value));
    renameSync(partial, file);
  } catch {
    // The cache is an optimisation only.
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
  store(file, value);
  return value;
}

/** cachedJson for a synchronous computation. */
export function cachedJsonSync<T>(name: string, key: string, compute: () => T): T {
  const file = entryFile(name, key);
  const cached = read<T>(file);
  if (cached.hit) return cached.value;
  const value = compute();
  store(file, value);
  return value;
}

/** The cached JSON value of `name`/`key`, or undefined. */
export function cachedValue<T>(name: string, key: string): T | undefined {
  const cached = read<T>(entryFile(name, key));
  return cached.hit ? cached.value : undefined;
}

/** Stores `value` as `name`/`key` for later processes. */
export function storeValue(name: string, key: string, value: unknown): void {
  store(entryFile(name, key), value);
}

/** The installed version of a package, for cache keys. */
export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
