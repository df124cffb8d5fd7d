// Flat config: typescript-eslint's recommended rules on every TypeScript file, type-aware rules on
// promises and assertions for the TypeScript files (all of them in tsconfig.json's `include`), and the
// layers of docs/architecture.md as allow-lists of imports (test/architecture/layers.test.ts proves they bite).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layers from './lint/layers.js';

/**
 * The layers of docs/architecture.md, one allow-list per folder (as Playwright's DEPS.list files):
 * a file may import its own folder and what its folder's entry lists, nothing else of the project
 * (lint/layers.js resolves every relative import to the file it names). The most specific folder
 * wins; `*` is one folder, the file's own (each area of the reference server). `never` carves a
 * file out of a listed folder, `packages` names packages a folder must not load, `files` holds a
 * single file's exception. test/, bench/ and bin/ may import anything. Proved to bite by
 * test/architecture/layers.test.ts.
 */
export const LAYERS = {
  spec: {
    may: ['src/util'],
    why: 'spec/ is the contract: it depends on nothing of the suite but the generic utilities of src/util',
  },
  'src/util': { may: [], why: 'src/util holds leaf utilities any layer may use: they import nothing of the project' },
  'src/model': {
    may: ['spec/classes.ts', 'spec/requirement.ts'],
    why: "the shapes of results depend on the contract's vocabulary and nothing else",
  },
  'src/rules': {
    may: ['spec'],
    why: "the specification's rules as code (shared by the harness, the suites, the report and load/) depend on the contract alone",
  },
  'src/harness': {
    // The embedded reference server is started by loading it (embedded.ts), never imported otherwise.
    may: ['spec', 'src/util', 'src/model', 'src/rules', 'reference/server.ts'],
    why: 'src/harness (what checks run on) is below the CLI, the configuration, the report, the generators, explore and load/',
  },
  'src/config': {
    may: ['spec', 'src/util', 'src/model', 'src/harness'],
    why: 'the option table and its resolution sit on the harness (settings, selection), below the commands and the report',
  },
  'src/generate': {
    may: ['spec', 'src/util', 'src/model', 'src/rules', 'src/harness'],
    why: 'src/generate is below the CLI, the report and load/',
  },
  'src/explore': {
    may: ['spec', 'src/util', 'src/model', 'src/rules', 'src/harness'],
    why: 'src/explore is below the CLI and the report, beside the generators',
  },
  'src/report': {
    may: ['spec', 'src/util', 'src/model', 'src/rules', 'src/harness'],
    why: 'src/report is fed finished results: it imports neither the CLI, the generators, the suites nor load/ (the report command passes what it needs of load/)',
  },
  'src/cli': {
    may: [
      'spec',
      'src/util',
      'src/model',
      'src/rules',
      'src/harness',
      'src/config',
      'src/explore',
      'src/report',
      'load',
      'reference/server.ts',
    ],
    // Its module pulls in @playwright/test: half a second of every command's start.
    never: ['src/report/playwright-reporter.ts'],
    packages: ['@playwright/test'],
    why: "the CLI drives everything but never loads Playwright's test runner: what it shares with the reporter lives in src/report/finalise.ts",
  },
  load: {
    may: ['spec', 'src/util', 'src/model', 'src/rules', 'src/harness', 'src/report'],
    why: 'load/ is an engine the CLI drives: it never imports the CLI',
  },
  suites: {
    may: ['src/harness/check.ts', 'src/generate', 'src/rules'],
    why: 'suites reach the harness through its one door, src/harness/check.ts, and use the generators and the rules; never the CLI, the report or the reference server',
  },
  reference: {
    may: [],
    why: 'reference/ is a test double of the API: it depends on nothing outside reference/',
  },
  'reference/areas/*': {
    may: ['reference/core', 'reference/areas/area.ts'],
    why: 'an area of the reference server imports no other area and nothing outside reference/: it goes through the core (reference/core/services.ts)',
  },
};

const LAYER_RULES = [
  {
    files: ['**/*.ts'],
    plugins: { layers },
    rules: { 'layers/allowed-imports': ['error', { root: import.meta.dirname, layers: LAYERS }] },
  },
  // The project's own tests take `test` and `expect` from test/base.ts: Playwright's full ones cost
  // a quarter of the test workers' CPU in steps (browser fixtures, every passing assertion).
  {
    files: ['test/**/*.ts'],
    ignores: ['test/base.ts', 'test/harness/expect.test.ts', 'test/report/browser.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@playwright/test',
              importNames: ['test', 'expect'],
              message: "the project's tests import test and expect from test/base.ts",
            },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'reports/', 'test-results/', 'playwright-report/', 'reference/report-assets/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // `any` needs a reason: allowed only with an eslint-disable comment that gives it.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // `interface FaultNames extends Record<…> {}`: how each fault catalogue adds its names to the
      // server's FaultName union by declaration merging (reference/core/faults.ts).
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // Type-aware rules: the TypeScript files only, typed through tsconfig.json by the project
    // service. The .js/.mjs files are not in its `include` and are never type-checked.
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise is awaited, returned, caught, or marked `void` with the reason it may run detached.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  ...LAYER_RULES,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // CommonJS on purpose: a `node --require` preload (bin/compile-cache.cjs hooks CommonJS loading).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { process: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
