/**
 * The layers of docs/architecture.md are lint rules (eslint.config.js): an import that crosses one
 * the wrong way fails `npm run lint`, and so `npm test`. Each case lints one line as if it were in
 * a file of that folder, with the project's own configuration.
 */
import { expect, test } from '../base.ts';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The linted files exist only in memory, so TypeScript's project service cannot find them: the
// type-aware part of the configuration is turned off here (the layer rules need no types).
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

async function restrictedImports(file: string, specifier: string, name = 'x'): Promise<string[]> {
  const [result] = await eslint.lintText(`import { ${name} } from '${specifier}';\nexport const y = ${name};\n`, {
    filePath: `${ROOT}${file}`,
  });
  const messages = result?.messages ?? [];
  // A file that does not parse has no import findings: that must fail, not pass as "no crossing".
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${file}: ${fatal.message}`);
  return messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const CROSSINGS: Array<[file: string, specifier: string]> = [
  ['reference/areas/compute/routes-x.ts', '../messaging/store.ts'],
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
});
