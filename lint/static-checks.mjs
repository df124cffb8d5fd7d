#!/usr/bin/env node
// The static checks of `npm test` side by side: the type check, ESLint and Prettier are each one
// single-threaded process, and run one after the other they left a core idle for most of a minute
// on a 2-core machine. Each one's output is printed whole when it ends (never interleaved), and
// the exit code is the first failure's. A few lines of child_process rather than a package such as
// concurrently: three fixed commands need no prefixing, colouring or restart policy.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

const CHECKS = [
  ['typecheck', bin('tsc'), ['--noEmit', '-p', '.']],
  ['eslint', bin('eslint'), ['.']],
  ['prettier', bin('prettier'), ['--check', '.']],
];

function run([name, command, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ name, code: 127, output: `${error.message}\n`, ms: Date.now() - started }));
    child.on('close', (code, signal) =>
      resolve({
        name,
        code: code ?? (signal ? 128 : 1),
        output: Buffer.concat(output).toString(),
        ms: Date.now() - started,
      }),
    );
  }).then((result) => {
    const verdict = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`;
    process.stdout.write(
      `${result.output.trimEnd() ? `${result.output.trimEnd()}\n` : ''}static: ${name} ${verdict} in ${(result.ms / 1000).toFixed(1)} s\n`,
    );
    return result;
  });
}

const results = await Promise.all(CHECKS.map(run));
const failed = results.filter((r) => r.code !== 0);
process.exitCode = failed.length ? failed[0].code : 0;
