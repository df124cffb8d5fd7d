#!/usr/bin/env node
// The static checks: the type check with ESLint (one process sharing one TypeScript program,
// lint/typed-checks.mjs) and Prettier, side by side. Each one's output is printed whole when it
// ends (never interleaved), and the exit code is the first failure's. A few lines of
// child_process rather than a package such as concurrently: two fixed commands need no prefixing,
// colouring or restart policy.
//
// `--beside <command...>` (npm test): the checks run at the lowest CPU priority beside the
// command, which keeps the terminal; the exit code is the command's when it fails, else the
// checks'. The tests keep both cores busy most of the time, so the checks take the moments they
// leave idle instead of a minute of their own before them (docs/performance.md#npm-test).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
/** The lowest priority (nice 19): the checks run when nothing else wants the CPU. */
const LOWEST = 19;

const CHECKS = [
  ['typecheck and eslint', process.execPath, [join(root, 'lint', 'typed-checks.mjs')]],
  // --cache (in node_modules/.cache/prettier), keyed by each file's content, Prettier's version and
  // options: a checkout checked before spends about 1.5 s of CPU here instead of 14.
  ['prettier', bin('prettier'), ['--check', '--cache', '--cache-strategy', 'content', '.']],
];

/** Started children, stopped with this process. */
const children = new Set();
// Ctrl-C reaches the children from the terminal already (one process group): passing it on too
// would be Playwright's second SIGINT, which stops it at once instead of after its teardown.
process.on('SIGINT', () => {
  process.exitCode = 130;
});
process.on('SIGTERM', () => {
  for (const child of children) child.kill('SIGTERM');
  process.exitCode = 143;
});

function start(command, args, { quiet, priority }) {
  const child = spawn(command, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  children.add(child);
  if (priority !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, priority);
    } catch {
      // Not permitted here: the checks compete with the command instead, as before.
    }
  }
  return child;
}

function check([name, command, args], priority) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = start(command, args, { quiet: true, priority });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ name, code: 127, output: `${error.message}\n`, ms: Date.now() - started }));
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({
        name,
        code: code ?? (signal ? 128 : 1),
        output: Buffer.concat(output).toString(),
        ms: Date.now() - started,
      });
    });
  }).then((result) => {
    const verdict = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`;
    process.stdout.write(
      `${result.output.trimEnd() ? `${result.output.trimEnd()}\n` : ''}static: ${name} ${verdict} in ${(result.ms / 1000).toFixed(1)} s\n`,
    );
    return result.code;
  });
}

/** The command beside the checks, its output straight through; resolves to its exit code. */
function command([name, ...args]) {
  return new Promise((resolve) => {
    // `node`: this very Node, whatever PATH holds; a package's command: its node_modules/.bin entry.
    const path = name === 'node' ? process.execPath : existsSync(bin(name)) ? bin(name) : name;
    const child = start(path, args, { quiet: false });
    child.on('error', (error) => {
      process.stderr.write(`static-checks: cannot start ${name}: ${error.message}\n`);
      resolve(127);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

const at = process.argv.indexOf('--beside');
const beside = at === -1 ? [] : process.argv.slice(at + 1);
if (at !== -1 && beside.length === 0) {
  process.stderr.write('usage: node lint/static-checks.mjs [--beside <command> [args...]]\n');
  process.exit(2);
}
const checks = Promise.all(CHECKS.map((c) => check(c, beside.length ? LOWEST : undefined)));
const [commandCode, checkCodes] = await Promise.all([beside.length ? command(beside) : 0, checks]);
const failedCheck = checkCodes.find((code) => code !== 0);
if (process.exitCode === undefined) process.exitCode = commandCode !== 0 ? commandCode : (failedCheck ?? 0);
