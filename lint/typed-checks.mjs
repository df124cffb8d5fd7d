#!/usr/bin/env node
// The type check and ESLint in one process, on one TypeScript program. Run apart (`npm run
// typecheck`, `npm run lint`), each builds and type-checks the whole program itself: ESLint's
// type-aware rules through its project service. Here the program tsc's diagnostics come from is
// handed to ESLint (typescript-eslint's `parserOptions.programs`), so the types are computed
// once: about 30 s of CPU instead of 63 to 72 on a 2-core machine (docs/performance.md#npm-test).
// What each reports is the same as its own command: tsc's diagnostics of `tsc --noEmit -p .`,
// then ESLint's findings of `eslint .` with the project's configuration.
import { ESLint } from 'eslint';
import ts from 'typescript';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** tsc --noEmit -p .: the program and its diagnostics (formatted as tsc prints them). */
function typecheck() {
  const configErrors = [];
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => configErrors.push(d) },
  );
  if (!config) return { program: null, diagnostics: configErrors };
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
  });
  return { program, diagnostics: [...config.errors, ...ts.getPreEmitDiagnostics(program)] };
}

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;

const { program, diagnostics } = typecheck();
const typeErrors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
if (diagnostics.length) process.stdout.write(format(diagnostics, host));
process.stdout.write(`typecheck: ${typeErrors === 0 ? 'ok' : `${typeErrors} error${typeErrors === 1 ? '' : 's'}`}\n`);

let lintErrors = 0;
if (program) {
  // The configuration's type-aware block asks for the project service; the program above replaces it.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  lintErrors = results.reduce((sum, r) => sum + r.errorCount, 0);
  const text = await (await eslint.loadFormatter('stylish')).format(results);
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  process.stdout.write(`eslint: ${lintErrors === 0 ? 'ok' : `${lintErrors} error${lintErrors === 1 ? '' : 's'}`}\n`);
} else {
  process.stdout.write('eslint: not run (no TypeScript program: tsconfig.json could not be read)\n');
}

process.exitCode = typeErrors > 0 || lintErrors > 0 || !program ? 1 : 0;
