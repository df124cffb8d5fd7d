/**
 * The layers of docs/architecture.md are one allow-list table (eslint.config.js, LAYERS; the rule
 * in lint/layers.js): an import its folder does not list fails `npm run lint`, and so `npm test`.
 * Each case lints one line as if it were in a file of that folder, with the project's own
 * configuration.
 */
import { expect, test } from '../base.ts';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The linted files exist only in memory, so TypeScript's project service cannot find them: the
// type-aware part of the configuration is turned off here (the layer rules need no types).
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

async function restrictedImports(file: string, specifier: string, name = 'x', dynamic = false): Promise<string[]> {
  const code = dynamic
    ? `export const y = () => import('${specifier}');\n`
    : `import { ${name} } from '${specifier}';\nexport const y = ${name};\n`;
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${file}` });
  const messages = result?.messages ?? [];
  // A file that does not parse has no import findings: that must fail, not pass as "no crossing".
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${file}: ${fatal.message}`);
  return messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'layers/allowed-imports')
    .map((m) => m.message);
}

const CROSSINGS: Array<[file: string, specifier: string]> = [
  // The reference server's areas: neither another area nor anything of the suite (the area rules
  // once overrode the rule that keeps reference/ apart, and this passed).
  ['reference/areas/compute/routes-x.ts', '../messaging/store.ts'],
  ['reference/areas/compute/routes-x.ts', '../../../src/harness/client.ts'],
  ['reference/areas/storage-objects/x.ts', '../../../src/model/finding.ts'],
  ['reference/areas/compute/routes-x.ts', '../../s3/app.ts'],
  // load/ is an engine the CLI drives: nothing of the CLI, its connection options included.
  ['load/x.ts', '../src/cli/connection.ts'],
  ['load/engine.ts', '../src/cli/commands/load.ts'],
  ['load/x.ts', '../src/cli/commands/run.ts'],
  ['load/x.ts', '../src/generate/contract.ts'],
  ['load/x.ts', '../suites/flows/_compute.ts'],
  // The configuration had no rule.
  ['src/config/x.ts', '../report/gate.ts'],
  ['src/config/x.ts', '../cli/output.ts'],
  ['src/config/x.ts', '../../load/profile.ts'],
  // Suites reach the harness only through check.ts.
  ['suites/flows/x.spec.ts', '../../src/harness/client.ts'],
  ['suites/flows/x.spec.ts', '../../src/harness/fixtures.ts'],
  ['suites/x.spec.ts', '../src/harness/assert.ts'],
  ['suites/s3/_s3.ts', '../../src/harness/ledger.ts'],
  ['suites/flows/x.spec.ts', '../../src/cli/main.ts'],
  ['reference/core/x.ts', '../../src/harness/client.ts'],
  ['src/model/x.ts', '../harness/settings.ts'],
  ['src/harness/x.ts', '../report/gate.ts'],
  ['src/harness/x.ts', '../cli/output.ts'],
  ['src/generate/x.ts', '../report/writers.ts'],
  ['src/explore/x.ts', '../../reference/server.ts'],
  ['src/explore/x.ts', '../report/finalise.ts'],
  ['src/report/x.ts', '../cli/output.ts'],
  ['src/report/x.ts', '../../load/merge.ts'],
  ['src/cli/commands/x.ts', '../../report/playwright-reporter.ts'],
  ['src/rules/x.ts', '../harness/client.ts'],
  ['src/rules/x.ts', '../../load/result.ts'],
  ['spec/x.ts', '../src/harness/client.ts'],
  ['spec/x.ts', '../src/model/report.ts'],
  ['src/util/x.ts', '../harness/client.ts'],
  ['suites/flows/x.spec.ts', '../../src/report/gate.ts'],
  ['suites/flows/x.spec.ts', '../../reference/server.ts'],
  ['src/harness/x.ts', '../config/options.ts'],
  ['src/harness/x.ts', '../explore/model.ts'],
  ['src/model/x.ts', '../../spec/model.ts'],
  ['src/generate/x.ts', '../explore/model.ts'],
  ['src/report/x.ts', '../generate/contract.ts'],
  ['spec/x.ts', '../reference/server.ts'],
];

test("the project's tests take test and expect from test/base.ts, not from Playwright", async () => {
  for (const name of ['test', 'expect'])
    expect(await restrictedImports('test/cli/x.test.ts', '@playwright/test', name), name).toHaveLength(1);
  expect(await restrictedImports('test/cli/x.test.ts', '../base.ts', 'test')).toEqual([]);
  expect(await restrictedImports('test/cli/x.test.ts', '@playwright/test', 'devices')).toEqual([]);
});

for (const [file, specifier] of CROSSINGS) {
  test(`${file} may not import ${specifier}`, async () => {
    expect((await restrictedImports(file, specifier)).length).toBe(1);
  });
}

test('dynamic imports are held to the same lists; the CLI never loads the test runner', async () => {
  expect(await restrictedImports('src/model/x.ts', '../harness/settings.ts', 'x', true)).toHaveLength(1);
  expect(await restrictedImports('src/harness/x.ts', '../../reference/server.ts', 'x', true)).toEqual([]);
  expect(await restrictedImports('src/cli/commands/x.ts', '@playwright/test')).toHaveLength(1);
  expect(await restrictedImports('src/cli/commands/x.ts', '../../report/playwright-reporter.ts')).toHaveLength(1);
});

test('imports along the layers pass', async () => {
  expect(await restrictedImports('reference/areas/compute/routes-x.ts', '../../core/http.ts')).toEqual([]);
  expect(await restrictedImports('src/harness/x.ts', '../model/report.ts')).toEqual([]);
  expect(await restrictedImports('src/cli/commands/x.ts', '../../report/gate.ts')).toEqual([]);
  expect(await restrictedImports('suites/flows/x.spec.ts', '../../src/harness/check.ts')).toEqual([]);
  expect(await restrictedImports('spec/x.ts', './classes.ts')).toEqual([]);
  // The disk cache is a leaf utility the contract's loaders use too.
  expect(await restrictedImports('spec/x.ts', '../src/util/disk-cache.ts')).toEqual([]);
  expect(await restrictedImports('src/model/x.ts', '../../spec/classes.ts')).toEqual([]);
  // The rate-limit rules are shared by the report, the suites and load/.
  expect(await restrictedImports('src/report/x.ts', '../rules/rate-limits.ts')).toEqual([]);
  expect(await restrictedImports('suites/rate-limits/x.ts', '../../src/rules/rate-limits.ts')).toEqual([]);
  // The rules read the contract's vocabulary (which area a path is in), and nothing else.
  expect(await restrictedImports('src/rules/x.ts', '../../spec/areas.ts')).toEqual([]);
  expect(await restrictedImports('src/cli/commands/x.ts', '../../../load/merge.ts')).toEqual([]);
  // An area reaches the core and the area contract; the registry of areas reaches every area.
  expect(await restrictedImports('reference/areas/compute/x.ts', '../area.ts')).toEqual([]);
  expect(await restrictedImports('reference/areas/index.ts', './compute/index.ts')).toEqual([]);
  expect(await restrictedImports('reference/s3/x.ts', '../areas/storage-objects/store.ts')).toEqual([]);
  // Suites: the harness's one door, the generators, the rules; their own helpers; packages.
  expect(await restrictedImports('suites/contract/x.spec.ts', '../../src/generate/contract.ts')).toEqual([]);
  expect(await restrictedImports('suites/flows/x.spec.ts', './_compute.ts')).toEqual([]);
  expect(await restrictedImports('suites/s3/x.spec.ts', '@aws-sdk/client-s3')).toEqual([]);
  // load/ reaches its target through the harness's session (its probe lives there too).
  expect(await restrictedImports('load/x.ts', '../src/harness/session.ts')).toEqual([]);
  expect(await restrictedImports('load/x.ts', '../src/harness/embedded.ts')).toEqual([]);
  expect(await restrictedImports('src/config/x.ts', '../harness/settings.ts')).toEqual([]);
  // test/ and bench/ may import anything.
  expect(await restrictedImports('bench/x.ts', '../reference/server.ts')).toEqual([]);
});
