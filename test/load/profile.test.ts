import { expect, test } from '../base.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HARD_CAPS,
  ProfileError,
  builtinProfileNames,
  loadProfileFile,
  resolveProfile,
  validateProfile,
} from '../../load/profile.ts';
import { expandValue, unknownPlaceholders } from '../../load/template.ts';

const base = { name: 'x', requests: [{ method: 'GET', path: '/regions' }], expectations: {} };

function errorOf(data: unknown, file = 'load/profiles/x.yaml'): ProfileError {
  try {
    validateProfile(data, file);
  } catch (e) {
    if (e instanceof ProfileError) return e;
    throw e;
  }
  throw new Error('expected a ProfileError');
}

test('every built-in profile is valid', async () => {
  const names = await builtinProfileNames();
  expect(names).toEqual([
    'billing-hourly',
    'burst-compute',
    'burst-messaging',
    'concurrency-race',
    'hourly-quota',
    'key-isolation',
    'projects-hourly',
    'smoke',
    'sms-volume',
    'soak',
  ]);
  for (const n of names) {
    const p = await resolveProfile(n);
    expect(p.file).toBe(`load/profiles/${n}.yaml`);
    // Bounded in time and count.
    for (const ph of p.phases) {
      expect(ph.amount).toBeLessThanOrEqual(HARD_CAPS.requestsPerPhase);
      expect(ph.duration).toBeLessThanOrEqual(HARD_CAPS.secondsPerPhase);
    }
  }
});

test('errors name the file and the key', () => {
  const unknownKey = errorOf({ ...base, model: { connections: 2, conections: 3 } });
  expect(unknownKey.message).toContain('load/profiles/x.yaml: model.conections: unknown key "conections"');
  expect(unknownKey.key).toBe('model.conections');
  const tooMany = errorOf({ ...base, model: { connections: 100000 } });
  expect(tooMany.key).toBe('model.connections');
  expect(tooMany.message).toContain('must be <= 500');
  const badMethod = errorOf({ ...base, requests: [{ method: 'FETCH', path: '/regions' }] });
  expect(badMethod.key).toBe('requests.0.method');
  const missing = errorOf({ name: 'x', requests: [] });
  expect(missing.message).toMatch(/x\.yaml: (expectations|requests)/);
  const badWindow = errorOf({ ...base, expectations: { rate_limit: { limit: 100, window: 'day' } } });
  expect(badWindow.key).toBe('expectations.rate_limit.window');
  const badPlaceholder = errorOf({
    ...base,
    requests: [{ method: 'POST', path: '/sms/send', body: { to: '{{phone}}' } }],
  });
  expect(badPlaceholder.message).toContain('requests.0: unknown placeholder {{phone}}');
  const badKey = errorOf({ ...base, keys: { fresh: 1 }, key: 3 });
  expect(badKey.key).toBe('key');
  const badPhase = errorOf({ ...base, expectations: { isolation: { phase: 'nope' } } });
  expect(badPhase.key).toBe('expectations.isolation.phase');
});

test('hard caps apply even when the profile asks for more', () => {
  const p = validateProfile({ ...base, model: { amount: 10_000_000, duration: 100_000 } }, 'f.yaml');
  expect(p.phases[0]?.amount).toBe(HARD_CAPS.requestsPerPhase);
  expect(p.phases[0]?.duration).toBe(HARD_CAPS.secondsPerPhase);
  expect(p.notes.join(' ')).toContain('capped');
  // Neither amount nor duration: 10 s by default, and still a count cap.
  const d = validateProfile(base, 'f.yaml');
  expect(d.phases[0]?.duration).toBe(10);
});

test('YAML files: syntax errors and unknown keys name the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-profile-'));
  try {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'name: x\nrequests: [\n');
    await expect(loadProfileFile(bad)).rejects.toThrow(/bad\.yaml: invalid YAML/);
    const typo = join(dir, 'typo.yaml');
    await writeFile(
      typo,
      'name: typo\nrequests: [{ method: GET, path: /regions }]\nexpectations: { max_eror_rate: 0 }\n',
    );
    await expect(loadProfileFile(typo)).rejects.toThrow(/typo\.yaml: expectations\.max_eror_rate: unknown key/);
    await expect(resolveProfile('no-such-profile')).rejects.toThrow(/no built-in profile/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('templates expand placeholders, faker paths and recipient lists', () => {
  const ctx = { runPrefix: 'cc-abc', requestId: 'cc-abc-fresh-0-r000007', index: 7 };
  const out = expandValue(
    {
      to: '{{e164}}',
      id: '{{uuid}}',
      m: 'hi {{requestId}} {{index}} {{runPrefix}}',
      r: '{{e164List:5}}',
      n: '{{faker.phone.number}}',
    },
    ctx,
  ) as Record<string, unknown>;
  expect(out.to).toMatch(/^\+1[2-9]\d{9}$/);
  expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(out.m).toBe('hi cc-abc-fresh-0-r000007 7 cc-abc');
  expect(new Set(out.r as string[]).size).toBe(5);
  expect(typeof out.n).toBe('string');
  expect(unknownPlaceholders({ a: '{{faker.nope.nothing}}', b: '{{e164}}' })).toEqual(['faker.nope.nothing']);
});
