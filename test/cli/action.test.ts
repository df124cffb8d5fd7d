/**
 * action.yml, the composite GitHub Action of the README's CI example: its inputs and outputs, keys
 * passed through the environment (never on a command line the log shows), the report uploaded also
 * when the gate fails, and its run step's script working as written (executed here as the runner
 * would, against the embedded server): args split as a shell splits them, a shard, the outputs.
 */
import { expect, test } from '../base.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

test('a composite action with the inputs of a gate; keys only through the environment; the report uploaded always', () => {
  expect(action.runs.using).toBe('composite');
  for (const input of ['target', 'api-key', 'alt-api-key', 's3-url', 'classes', 'args', 'shard', 'report-dir'])
    expect(Object.keys(action.inputs)).toContain(input);
  for (const output of ['verdict', 'exit-code', 'report'])
    expect(action.outputs[output]?.value).toBe(`\${{ steps.gate.outputs.${output} }}`);
  const run = action.runs.steps.find((s) => s.run?.includes('bin/action.mjs'));
  expect(run?.env?.CLOUDCHECK_API_KEY).toBe('${{ inputs.api-key }}');
  expect(run?.run).not.toContain('inputs.api-key');
  const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
  expect(upload?.if).toBe('always()');
  expect(upload?.with?.path).toBe('${{ inputs.report-dir }}');
});

test('args split as a shell splits words, and nothing in them runs', async () => {
  const { shellWords, artifactName } = (await import(join(ROOT, 'bin', 'action.mjs'))) as {
    shellWords: (text: string) => string[];
    artifactName: (base: string, shard: string) => string;
  };
  expect(shellWords("--grep 'GET /vps'")).toEqual(['--grep', 'GET /vps']);
  expect(shellWords(' --strict  "a b"\tc\\ d \'\' ')).toEqual(['--strict', 'a b', 'c d', '']);
  expect(shellWords('--grep "say \\"hi\\""')).toEqual(['--grep', 'say "hi"']);
  expect(shellWords('$(touch pwned) `id` $HOME')).toEqual(['$(touch', 'pwned)', '`id`', '$HOME']);
  expect(shellWords('')).toEqual([]);
  expect(() => shellWords("--grep 'GET /vps")).toThrow('single quote is not closed');
  expect(artifactName('cloudcheck-report', '2/3')).toBe('cloudcheck-report-shard-2-of-3');
  expect(artifactName('cloudcheck-report', '')).toBe('cloudcheck-report');
});

test('the run step works as written: empty inputs unset, quoted args and the shard passed, report written, outputs set', async () => {
  test.setTimeout(120_000);
  const script = action.runs.steps.find((s) => s.run?.includes('bin/action.mjs'))!.run!;
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-action-'));
  try {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)/.test(k)),
    );
    // Inputs as the runner gives them: empty strings for the ones not set.
    const env = {
      ...clean,
      GITHUB_ACTION_PATH: ROOT,
      CLOUDCHECK_TARGET: '',
      CLOUDCHECK_API_KEY: '',
      CLOUDCHECK_ALT_API_KEY: '',
      CLOUDCHECK_S3_URL: '',
      CLOUDCHECK_CLASSES: 'pagination',
      INPUT_ARGS: "--grep-invert 'no such check'",
      INPUT_SHARD: '1/2',
      INPUT_REPORT_DIR: join(dir, 'report'),
      INPUT_ARTIFACT_NAME: 'conformance',
      GITHUB_OUTPUT: join(dir, 'outputs'),
    };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { env, cwd: dir });
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.stderr.on('data', (c: Buffer) => (text += c.toString()));
      child.on('exit', (exit) => resolve({ code: exit, output: text }));
    });
    expect(code, output).toBe(0);
    expect(existsSync(join(dir, 'report', 'report.json'))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report', 'report.json'), 'utf8')) as {
      run: { classes: string[]; selection: { grep_invert: string | null }; shard: unknown };
    };
    expect(report.run.classes).toEqual(['pagination']);
    expect(report.run.selection.grep_invert).toBe('no such check');
    expect(report.run.shard).toEqual({ index: 1, total: 2 });
    const outputs = Object.fromEntries(
      readFileSync(join(dir, 'outputs'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/).slice(0, 2)),
    ) as Record<string, string>;
    expect(outputs).toEqual({
      'artifact-name': 'conformance-shard-1-of-2',
      'exit-code': '0',
      verdict: 'conformant',
      report: join(dir, 'report', 'report.json'),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
