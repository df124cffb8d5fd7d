import { expect, test } from '../base.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mainAndAltBudgets } from '../../src/harness/fixtures.ts';
import { foldJournal } from '../../src/harness/ledger.ts';
import { readJournalLines } from '../../src/harness/recover.ts';
import { createRunKeys, keysForWorker } from '../../src/harness/run-keys.ts';
import { settingsFromEnv, settingsToEnv } from '../../src/harness/settings.ts';
import { startReferenceServer } from '../../reference/server.ts';

test('keys travel through the environment and split into one slice per parallel index', () => {
  const all = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
  const settings = settingsFromEnv({ CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1' });
  expect(settings.budgetKeys).toEqual([]);
  expect(settingsFromEnv(settingsToEnv({ ...settings, budgetKeys: all })).budgetKeys).toEqual(all);
  // Two workers: every other key each.
  expect(keysForWorker(all, 0, 2)).toEqual(['k1', 'k3', 'k5']);
  expect(keysForWorker(all, 1, 2)).toEqual(['k2', 'k4', 'k6']);
  // Fewer keys than asked (the target refused some, or a person gave three): spread evenly.
  expect(keysForWorker(['k1', 'k2', 'k3'], 0, 2)).toEqual(['k1', 'k3']);
  expect(keysForWorker(['k1', 'k2', 'k3'], 1, 2)).toEqual(['k2']);
  expect(keysForWorker(all, 2, 2)).toEqual([]);
  expect(keysForWorker(all, 0, 0)).toEqual([]);
});

test('with run keys the run key is kept out of billing but still serves other areas', async () => {
  const settings = settingsFromEnv({
    CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1',
    CLOUDCHECK_API_KEY: 'main',
    CLOUDCHECK_KEYS_PER_WORKER: '2',
    CLOUDCHECK_BUDGET_KEYS: 'a,b,c,d',
  });
  const { main } = mainAndAltBudgets(settings, 1, 2);
  expect(main.pool.keys).toEqual(['b', 'd', 'main']);
  const billing = new Set<string>();
  const compute = new Set<string>();
  for (let i = 0; i < 6; i++) billing.add(await main.acquire('billing'));
  for (let i = 0; i < 6; i++) compute.add(await main.acquire('compute'));
  expect([...billing].sort()).toEqual(['b', 'd']);
  expect([...compute].sort()).toEqual(['b', 'd', 'main']);
});

test('without run keys the run key does everything, billing included', async () => {
  const settings = settingsFromEnv({ CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1', CLOUDCHECK_API_KEY: 'main' });
  const { main } = mainAndAltBudgets(settings, 0, 2);
  expect(main.pool.keys).toEqual(['main']);
  expect(await main.acquire('billing')).toBe('main');
});

test('createRunKeys creates N keys with the run key, journals them, and revoke() revokes each once', async () => {
  const server = await startReferenceServer({ port: 0, s3Port: 0, recordRequests: true });
  const dir = mkdtempSync(join(tmpdir(), 'cc-run-keys-'));
  try {
    const settings = {
      target: server.baseUrl,
      keys: { main: server.apiKey, alt: null },
      liveSms: false,
      allowCharges: false,
      timeoutScale: 1,
    };
    const runKeys = await createRunKeys({ settings, count: 4, namePrefix: 'cc-test-', journalDir: dir });
    expect(runKeys.shortfall).toBeNull();
    expect(runKeys.keys).toHaveLength(4);
    const accounts = server.context.accounts;
    const records = runKeys.keys.map((key) => accounts.keyBySecret(key)!);
    expect(records.map((r) => r.name)).toEqual([
      'cc-test-budget-1',
      'cc-test-budget-2',
      'cc-test-budget-3',
      'cc-test-budget-4',
    ]);
    expect(records.every((r) => r.expires_at !== null && !r.revoked)).toBe(true);
    // Journalled the moment they exist: `cloudcheck run` could revoke them after a killed runner.
    expect(foldJournal(readJournalLines(dir)).alive.map((e) => e.kind)).toEqual([
      'api-key',
      'api-key',
      'api-key',
      'api-key',
    ]);

    expect(await runKeys.revoke()).toBe(0);
    expect(await runKeys.revoke()).toBe(0); // idempotent: teardown and the returned function may both call it
    expect(records.every((r) => r.revoked)).toBe(true);
    expect(foldJournal(readJournalLines(dir)).alive).toEqual([]);
    // The run key spent 4 creations and 4 revocations of its billing window, nothing else.
    const log = server.context.requestLog.filter((e) => e.path.startsWith('/v1/account/api-keys'));
    expect(log.map((e) => e.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'DELETE', 'DELETE', 'DELETE', 'DELETE']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});

test('createRunKeys stops at the first refusal and reports it', async () => {
  const server = await startReferenceServer({ port: 0, s3Port: 0, recordRequests: true });
  try {
    const settings = {
      target: server.baseUrl,
      keys: { main: 'not-a-key', alt: null },
      liveSms: false,
      allowCharges: false,
      timeoutScale: 1,
    };
    const runKeys = await createRunKeys({ settings, count: 3, namePrefix: 'cc-test-', journalDir: null });
    expect(runKeys.keys).toEqual([]);
    expect(runKeys.shortfall).toContain('401');
    expect(await runKeys.revoke()).toBe(0);
  } finally {
    await server.close();
  }
});
