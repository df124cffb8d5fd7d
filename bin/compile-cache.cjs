/**
 * A V8 code cache for Playwright's large bundles, preloaded (`node --require`) into the runner of
 * a `cloudcheck run` and, through the runner's execArgv, into its workers. Each of those processes
 * compiles the same 7 MB of bundled JavaScript on every start; from the cache it spends about 0.2 s
 * of CPU less per process (docs/performance.md). The cache lives in
 * node_modules/.cache/cloudcheck/v8, one file per bundle, keyed by its path, its contents, the Node
 * version and the architecture, and is written when a process that compiled a bundle afresh
 * exits; a cache that cannot be read or written only means compiling as before.
 *
 * Node 22 has a compile cache of its own (module.enableCompileCache, every module, ESM included):
 * used where it exists. Node 20 has none, and the v8-compile-cache package, which routes every
 * CommonJS module through vm.Script with cached data, breaks Playwright: on Node 20 a script made
 * from cached data has no dynamic-import callback, and Playwright loads the configuration and the
 * test files with import() (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). So only the bundles below go
 * through the cache: large, and their import() calls sit on paths a run never takes (component
 * testing's vite, Kerberos proxy authentication, a webcrypto fallback for Node before 19). A new
 * bundle joins the list only with the same check.
 */
'use strict';
const Module = require('node:module');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } = require('node:fs');
const { basename, dirname, join, sep } = require('node:path');
const vm = require('node:vm');

const CACHE = join(__dirname, '..', 'node_modules', '.cache', 'cloudcheck', 'v8');
/** Path endings of the bundles cached on Node 20 (see above). */
const BUNDLES = [
  ['playwright-core', 'lib', 'coreBundle.js'],
  ['playwright-core', 'lib', 'utilsBundle.js'],
  ['playwright', 'lib', 'transform', 'babelBundle.js'],
].map((parts) => `${sep}node_modules${sep}${parts.join(sep)}`);

if (typeof Module.enableCompileCache === 'function') {
  Module.enableCompileCache(join(CACHE, 'node'));
} else {
  cacheBundles();
}

function cacheBundles() {
  const compile = Module.prototype._compile;
  /** Scripts compiled without usable cached data, written to the cache at exit (with what ran by then). */
  const fresh = [];
  Module.prototype._compile = function compileFromCache(content, filename) {
    if (!BUNDLES.some((ending) => filename.endsWith(ending))) return compile.call(this, content, filename);
    const name = filename.split(sep).slice(-2).join('-');
    const key = createHash('sha1')
      .update(`${process.version}\0${process.arch}\0${filename}\0`)
      .update(content)
      .digest('hex')
      .slice(0, 20);
    const file = join(CACHE, `${name}-${key}.bin`);
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    // Module.wrap: the function CommonJS wraps every module in (a shebang would be a syntax error there).
    const source = Module.wrap(content.startsWith('#!') ? `//${content.slice(2)}` : content);
    const script = new vm.Script(source, { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push({ script, file, name });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = Module.createRequire(filename);
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };
  process.once('exit', () => {
    for (const { script, file, name } of fresh) store(script, file, name);
  });
}

/** Writes one bundle's code cache (atomically: other processes may read it meanwhile) and drops its older ones. */
function store(script, file, name) {
  try {
    mkdirSync(CACHE, { recursive: true });
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    for (const other of readdirSync(CACHE)) {
      if (other.startsWith(`${name}-`) && other.endsWith('.bin') && other !== basename(file))
        unlinkSync(join(CACHE, other));
    }
  } catch {
    // An unwritable cache: the next process compiles as this one did.
  }
}
