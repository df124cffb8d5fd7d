/**
 * The CLI runs from a bundle of its TypeScript sources. Under tsx's loader every module of the CLI
 * and of the embedded server was resolved and loaded through a hooks thread, one message at a
 * time: 0.4 s of a one-check run's 2.9 s of CPU, and 0.2 s of its wall time (docs/performance.md).
 * The bundle is built with esbuild (the transformer tsx itself
 * uses; code split, so what a command loads late, such as the embedded server, still loads late)
 * on first use into node_modules/.cache/cloudcheck/cli, and is keyed by the contents of every
 * source file in it: an edited file is a new key, never a stale bundle, and a fresh `npm ci`
 * still needs no build step. Whatever goes wrong (no writable cache, another process building,
 * a failed build) falls back to the sources under tsx, as do CLOUDCHECK_FROM_SOURCE=1 and
 * CLOUDCHECK_DEBUG.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Changes with the way bundles are built (options, the plugin below): older bundles are not used. */
const FORMAT = 1;
/** A lock older than this belongs to a process that died while building. */
const STALE_LOCK_MS = 60_000;
/** Bundles other processes may still be loading chunks from are kept this long after a newer one. */
const KEEP_OLD_MS = 10 * 60_000;
const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };

/** The `main` of the CLI: from the bundle when there is (or can be) a current one, else from the sources. */
export async function loadMain() {
  // With CLOUDCHECK_DEBUG the stack of an internal error is printed: the sources' lines, not the bundle's.
  if (process.env.CLOUDCHECK_FROM_SOURCE !== '1' && !process.env.CLOUDCHECK_DEBUG) {
    const bundle = await bundleEntry();
    if (bundle) return (await import(pathToFileURL(bundle).href)).main;
  }
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('../src/cli/main.ts')).main;
}

/**
 * The bundle of `entry` (relative to `root`, whose node_modules/.cache holds it): the current
 * one, or one built now; null when none can be had.
 */
export async function bundleEntry({ root = ROOT, entry = 'src/cli/main.ts' } = {}) {
  const cache = join(root, 'node_modules', '.cache', 'cloudcheck', 'cli');
  // One manifest per project directory: checkouts that share node_modules (a symlink) share the
  // cache, and each has bundles of its own (keyOf).
  const at = {
    root,
    entry: join(root, entry),
    cache,
    manifest: join(cache, `manifest-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.json`),
  };
  return currentBundle(at) ?? (await buildBundle(at).catch(() => null));
}

/** The installed esbuild's version (its package.json: importing esbuild costs more than the whole check). */
const esbuildVersion = () => createRequire(import.meta.url)('esbuild/package.json').version;

/**
 * The key of a set of sources: their paths and contents, with the bundle format, the installed
 * esbuild's version (an upgrade builds again) and the project directory, since a bundle names its
 * modules' own files (their import.meta.url): two checkouts with the same sources that share
 * node_modules would otherwise run each other's suites and configuration. A bundle lives in
 * `b-<key>`.
 */
function keyOf(root, sources) {
  const hash = createHash('sha256').update(`${FORMAT}\0${esbuildVersion()}\0${root}\0`);
  for (const [path, contents] of [...sources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    hash.update(path).update('\0').update(contents).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** The bundle's entry when the manifest's sources still have the contents it was built from. */
function currentBundle(at) {
  try {
    const manifest = JSON.parse(readFileSync(at.manifest, 'utf8'));
    const key = keyOf(
      at.root,
      manifest.inputs.map((path) => [path, readFileSync(join(at.root, path))]),
    );
    if (key !== manifest.key) return null;
    const entry = join(at.cache, `b-${key}`, 'main.mjs');
    statSync(entry);
    return entry;
  } catch {
    // No manifest yet, a source gone, a damaged file: build again.
    return null;
  }
}

/** Builds a bundle and records it in the manifest; null when another process is building one. */
async function buildBundle(at) {
  mkdirSync(at.cache, { recursive: true });
  const lock = join(at.cache, 'build.lock');
  if (!takeLock(lock)) return null;
  try {
    const esbuild = await import('esbuild');
    const sources = new Map();
    const tmp = join(at.cache, `tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    await esbuild.build({
      entryPoints: { main: at.entry },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      logLevel: 'silent',
      plugins: [sourcesAsTheyAre(at.root, sources)],
    });
    const key = keyOf(at.root, sources);
    const dir = `b-${key}`;
    try {
      renameSync(tmp, join(at.cache, dir));
    } catch {
      // Built before by another process (the same key is the same bundle).
      rmSync(tmp, { recursive: true, force: true });
    }
    const manifest = { key, inputs: [...sources.keys()].sort() };
    writeFileSync(`${at.manifest}.${process.pid}`, JSON.stringify(manifest));
    renameSync(`${at.manifest}.${process.pid}`, at.manifest);
    pruneOldBundles(at.cache, dir);
    return join(at.cache, dir, 'main.mjs');
  } finally {
    unlinkSync(lock);
  }
}

/**
 * Loads every source file itself: records the exact bytes bundled (the key is theirs, even when a
 * file changes during the build), and gives each module its own `import.meta.url` (a bundle has
 * one, in the cache), which the sources use to find the files beside them.
 */
function sourcesAsTheyAre(root, sources) {
  return {
    name: 'cloudcheck-sources',
    setup(build) {
      build.onLoad({ filter: /.*/ }, (args) => {
        const loader = LOADERS[extname(args.path)];
        const path = relative(root, args.path).split(sep);
        if (!loader || path.includes('node_modules') || path[0] === '..')
          throw new Error(`not a source file of cloudcheck: ${args.path}`);
        const bytes = readFileSync(args.path);
        sources.set(path.join('/'), bytes);
        const contents = bytes
          .toString('utf8')
          .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href));
        return { contents, loader };
      });
    },
  };
}

function takeLock(lock) {
  try {
    closeSync(openSync(lock, 'wx'));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs < STALE_LOCK_MS) return false;
      unlinkSync(lock);
      closeSync(openSync(lock, 'wx'));
      return true;
    } catch {
      return false;
    }
  }
}

/** Removes bundles older than the current one, once no process can still be starting from them. */
function pruneOldBundles(cache, current) {
  for (const name of readdirSync(cache)) {
    if (!/^(b-|tmp-)/.test(name) || name === current) continue;
    const path = join(cache, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process.
    }
  }
}
