import { expect, test } from '../base.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { CONFIG_SCHEMA, UsageError, resolveOptions, validatorFor } from '../../src/config/resolve.ts';
import { OPTIONS, configKey } from '../../src/config/options.ts';

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cc-config-'));
});
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

function withConfig(text: string): string {
  writeFileSync(join(dir, 'cloudcheck.config.yaml'), text);
  return join(dir, 'cloudcheck.config.yaml');
}

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

test('the schema and the option table list the same keys', () => {
  const fromTable = OPTIONS.filter((o) => !o.noConfig)
    .map(configKey)
    .sort();
  expect(Object.keys(CONFIG_SCHEMA.properties).sort()).toEqual(fromTable);
});

test('the schema is valid against its meta-schema (the CLI compiles it without that check)', () => {
  const ajv = new Ajv({ strict: false });
  expect(ajv.validateSchema(CONFIG_SCHEMA), JSON.stringify(ajv.errors)).toBe(true);
});

test("a value checked against its key's part of the schema gets the whole schema's verdict", () => {
  const values: unknown[] = [
    ...[
      null,
      true,
      false,
      0,
      1,
      -1,
      2.5,
      65_536,
      1e9,
      '',
      'x',
      'true',
      '7',
      'messaging',
      'all',
      'comptue',
      '1/2',
      '0/2',
      '3/2',
    ],
    ...[
      'http://127.0.0.1:1/v1',
      'https://api.example.test',
      'ftp://x',
      '+15550100',
      '15550100',
      'X-A: 1',
      'nope',
      './reports',
      '1,2',
    ],
    ...[[], ['messaging'], ['x'], ['X-A: 1'], [1], {}, { a: 1 }],
  ];
  const whole = validatorFor(null);
  for (const key of Object.keys(CONFIG_SCHEMA.properties)) {
    const part = validatorFor(key);
    for (const value of values)
      expect(part({ [key]: value }), `${key}: ${JSON.stringify(value)}`).toBe(whole({ [key]: value }));
  }
  expect(whole({ stirct: true }), 'the whole schema still refuses unknown keys').toBe(false);
});

test('an unknown key names the file, the key and the closest valid key', () => {
  const file = withConfig('target: http://127.0.0.1:1/v1\nstirct: true\n');
  const message = usageError(() => resolveOptions('run', [], {}, dir));
  expect(message).toContain(file);
  expect(message).toContain('"stirct"');
  expect(message).toContain('"strict"');
});

test('malformed YAML is one line naming the file and the place, without a dangling colon', () => {
  const file = withConfig('target: [unclosed\n');
  const message = usageError(() => resolveOptions('run', [], {}, dir));
  expect(message).toContain(`${file}: not valid YAML: `);
  expect(message).toMatch(/line \d+, column \d+$/);
  expect(message).not.toContain('\n');
});

test('bad types and formats are errors that name the key', () => {
  withConfig('seed: many\n');
  expect(usageError(() => resolveOptions('run', [], {}, dir))).toMatch(/"seed".*integer/);
  withConfig('shard: 3\n');
  expect(usageError(() => resolveOptions('run', [], {}, dir))).toContain('"shard"');
  withConfig('classes: [messaging, comptue]\n');
  expect(usageError(() => resolveOptions('run', [], {}, dir))).toContain('did you mean "compute"');
  withConfig('- just a list\n');
  expect(usageError(() => resolveOptions('run', [], {}, dir))).toContain('mapping');
});

test('environment and flag values are validated too, naming their source', () => {
  expect(usageError(() => resolveOptions('run', [], { CLOUDCHECK_SEED: 'x' }, dir))).toContain('CLOUDCHECK_SEED');
  expect(usageError(() => resolveOptions('run', ['--shard', '5/4'], {}, dir))).toContain('--shard');
  expect(usageError(() => resolveOptions('run', ['--target', 'ftp://x'], {}, dir))).toContain('--target');
  expect(usageError(() => resolveOptions('run', ['--stirct'], {}, dir))).toContain('did you mean --strict');
});

test('precedence: flag > env > file > default', () => {
  withConfig('seed: 3\nclasses: [auth]\nreport_dir: from-file\n');
  const env = { CLOUDCHECK_SEED: '2', CLOUDCHECK_CLASSES: 'messaging,compute' };
  const r = resolveOptions('run', ['--seed', '1'], env, dir);
  expect(r.values.seed).toBe(1);
  expect(r.sources.seed).toBe('flag');
  expect(r.values.classes).toEqual(['messaging', 'compute']);
  expect(r.sources.classes).toBe('env');
  expect(r.values['report-dir']).toBe('from-file');
  expect(r.sources['report-dir']).toBe('config');
  expect(r.values['test-number-succeed']).toBe('+15005550006');
  expect(r.sources['test-number-succeed']).toBe('default');
  const noFlag = resolveOptions('run', [], env, dir);
  expect(noFlag.values.seed).toBe(2);
});

test('serve: the carrier numbers default, come from flags, env or the file, and must be E.164', () => {
  const defaults = resolveOptions('serve', [], {}, dir);
  expect([defaults.values['carrier-number-reject'], defaults.values['carrier-number-expire']]).toEqual([
    '+15005550002',
    '+15005550003',
  ]);
  withConfig('carrier_number_expire: "+447700900556"\n');
  const r = resolveOptions('serve', ['--carrier-number-reject', '+447700900555'], {}, dir);
  expect([r.values['carrier-number-reject'], r.values['carrier-number-expire']]).toEqual([
    '+447700900555',
    '+447700900556',
  ]);
  expect(usageError(() => resolveOptions('serve', ['--carrier-number-reject', '555'], {}, dir))).toMatch(
    /--carrier-number-reject.*E\.164/,
  );
  expect(usageError(() => resolveOptions('serve', [], { CLOUDCHECK_CARRIER_NUMBER_EXPIRE: 'x' }, dir))).toContain(
    'CLOUDCHECK_CARRIER_NUMBER_EXPIRE',
  );
  // Reference-server behaviour only: `run` does not take them.
  expect(usageError(() => resolveOptions('run', ['--carrier-number-reject', '+447700900555'], {}, dir))).toContain(
    'unknown option',
  );
});

test('--config names another file; --fault is repeatable', () => {
  writeFileSync(join(dir, 'other.yaml'), 'fault: [a]\nport: 0\n');
  const r = resolveOptions('serve', ['--config', 'other.yaml', '--fault', 'x', '--fault', 'y'], {}, dir);
  expect(r.values.fault).toEqual(['x', 'y']);
  expect(r.values.port).toBe(0);
  expect(usageError(() => resolveOptions('run', ['--config', 'missing.yaml'], {}, dir))).toContain('missing.yaml');
});
