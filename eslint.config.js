// Flat config: typescript-eslint's recommended rules on every TypeScript file, type-aware rules on
// promises and assertions for the TypeScript files (all of them in tsconfig.json's `include`), and the
// layers of docs/architecture.md as import restrictions (test/architecture/layers.test.ts proves they bite).
import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** One no-restricted-imports rule: `groups` are gitignore-style patterns on the import path. */
const forbid = (files, groups, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }] },
});

// The reference server's areas meet only through the core's service registry.
const AREAS = readdirSync(new URL('./reference/areas/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const areaRules = AREAS.map((area) =>
  forbid(
    [`reference/areas/${area}/**/*.ts`],
    AREAS.filter((other) => other !== area).flatMap((other) => [`../${other}/**`, `**/areas/${other}/**`]),
    'an area of the reference server imports no other area: go through the core (reference/core/services.ts)',
  ),
);

const LAYERS = [
  // A test double of the API: nothing of the suite may leak into it, nor it depend on the suite.
  forbid(
    ['reference/**/*.ts'],
    ['**/src/**', '**/suites/**', '**/load/**', '**/test/**', '**/bench/**'],
    'reference/ depends on nothing outside reference/',
  ),
  // The shapes of results depend on the contract's vocabulary (spec/) and nothing else.
  forbid(
    ['src/model/**/*.ts'],
    [
      '../harness/**',
      '../report/**',
      '../cli/**',
      '../config/**',
      '../generate/**',
      '../rules/**',
      '../../load/**',
      '../../reference/**',
      '../../suites/**',
      '../../test/**',
      '../../bench/**',
    ],
    "src/model depends on nothing but the contract's vocabulary (spec/classes.ts, spec/requirement.ts)",
  ),
  // What checks run on: never on the commands, the report or the generators above it.
  forbid(
    ['src/harness/**/*.ts'],
    ['**/cli/**', '**/report/**', '**/generate/**', '**/load/**', '**/suites/**', '**/reference/**'],
    'src/harness is below the CLI, the report, the generators and load/',
  ),
  // The exploration engine and its model: on the harness, below the CLI and the report.
  forbid(
    ['src/explore/**/*.ts'],
    ['**/cli/**', '**/report/**', '**/generate/**', '**/load/**', '**/suites/**', '**/reference/**'],
    'src/explore is below the CLI and the report, beside the generators',
  ),
  forbid(
    ['src/generate/**/*.ts'],
    ['**/cli/**', '**/report/**', '**/load/**', '**/suites/**', '**/reference/**'],
    'src/generate is below the CLI, the report and load/',
  ),
  forbid(
    ['src/report/**/*.ts'],
    ['**/cli/**', '**/generate/**', '**/suites/**', '**/reference/**', '**/load/**'],
    'src/report is fed finished results: it imports neither the CLI, the generators, the suites nor load/ (the report command passes what it needs of load/)',
  ),
  // The specification's rules as code (the rate-limit invariants), shared by the harness, the
  // suites, the report and load/: they depend on nothing but the contract's vocabulary (spec/).
  {
    files: ['src/rules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!\\.\\./spec/)',
              message: "src/rules depends on nothing but the contract's vocabulary (spec/)",
            },
          ],
        },
      ],
    },
  },
  // The contract, with its vocabulary (classes, levels, requirement), is the bottom: it depends on nothing.
  {
    files: ['spec/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(src/(?!util/)|suites/|load/|reference/|test/)',
              message:
                'spec/ is the contract: it depends on nothing of the suite but the generic utilities of src/util',
            },
          ],
        },
      ],
    },
  },
  // Generic utilities (the disk cache) that any layer may use: they import nothing of the project.
  forbid(['src/util/**/*.ts'], ['../**', '!./**'], 'src/util holds leaf utilities: it imports nothing of the project'),
  // The CLI never loads the reporter: its module pulls in @playwright/test (half a second of every command's start).
  forbid(
    ['src/cli/**/*.ts'],
    ['**/report/playwright-reporter.ts', '@playwright/test', '@playwright/test/*'],
    "the CLI does not load Playwright's test runner: what it shares with the reporter lives in src/report/finalise.ts",
  ),
  forbid(
    ['suites/**/*.ts'],
    ['**/src/cli/**', '**/src/report/**', '**/reference/**'],
    'suites use the harness and the generators, never the CLI, the report or the reference server',
  ),
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
  ...LAYERS,
  ...areaRules,
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
