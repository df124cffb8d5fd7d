import { expect, test } from '../base.ts';
import { Budget, KeyPool, areaOfPath } from '../../src/harness/budget.ts';
import { BudgetExhaustedError } from '../../src/harness/errors.ts';

const T0 = Date.UTC(2025, 0, 1, 12, 0, 10); // 10 s into a minute window
const resetSec = (ms: number): string => String(Math.floor(ms / 1000));

test('areas from paths', () => {
  expect(areaOfPath('/sms/send')).toBe('messaging');
  expect(areaOfPath('/messaging/templates')).toBe('messaging');
  expect(areaOfPath('/vps/vps_1/actions')).toBe('compute');
  expect(areaOfPath('/ssh-keys')).toBe('compute');
  expect(areaOfPath('/storage/buckets')).toBe('storage');
  expect(areaOfPath('/account/api-keys')).toBe('billing');
  expect(areaOfPath('/projects/p1')).toBe('projects');
  expect(areaOfPath('http://h:1/v1/vps')).toBe('compute');
});

test('headers: a key at its reserve is not used until the reset; another key is', () => {
  const pool = new KeyPool(['a', 'b'], { reserve: 2 });
  const reset = T0 + 50_000;
  pool.observe('a', 'compute', 200, { 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': resetSec(reset) }, T0);
  expect(pool.availableAt('a', 'compute', T0)).toBe(Math.floor(reset / 1000) * 1000);
  expect(pool.availableAt('a', 'storage', T0)).toBe(T0); // other areas unaffected
  for (let i = 0; i < 5; i++) expect(pool.select('compute', T0)).toEqual({ key: 'b' });
  pool.observe('a', 'compute', 200, { 'x-ratelimit-remaining': '50', 'x-ratelimit-reset': resetSec(reset) }, T0);
  expect(pool.availableAt('a', 'compute', T0)).toBe(T0);
});

test('a 429 blocks the key for Retry-After seconds and is not counted', () => {
  const pool = new KeyPool(['a'], { reserve: 0 });
  pool.count('a', 'messaging', T0);
  pool.observe('a', 'messaging', 429, { 'retry-after': '7' }, T0);
  expect(pool.select('messaging', T0)).toEqual({ waitMs: 7000 });
  expect(pool.select('messaging', T0 + 7000)).toEqual({ key: 'a' });
});

test('own counts where no headers come: billing 100/h, then the next hour', () => {
  const pool = new KeyPool(['a'], { reserve: 2 });
  const hourStart = Math.floor(T0 / 3_600_000) * 3_600_000;
  for (let i = 0; i < 98; i++) {
    const s = pool.select('billing', T0);
    expect(s).toEqual({ key: 'a' });
    pool.count('a', 'billing', T0);
  }
  expect(pool.select('billing', T0)).toEqual({ waitMs: hourStart + 3_600_000 - T0 });
  expect(pool.select('projects', T0)).toEqual({ key: 'a' }); // other windows still have room
  expect(pool.select('billing', hourStart + 3_600_000)).toEqual({ key: 'a' });
});

test('burst: 100/min on compute, shared hour window across areas', () => {
  const pool = new KeyPool(['a'], { reserve: 0 });
  for (let i = 0; i < 100; i++) pool.count('a', 'compute', T0);
  expect('waitMs' in pool.select('compute', T0)).toBe(true);
  expect(pool.select('storage', T0)).toEqual({ key: 'a' });
  const minuteEnd = Math.floor(T0 / 60_000) * 60_000 + 60_000;
  expect(pool.select('compute', minuteEnd)).toEqual({ key: 'a' });
});

test('work spreads over keys round-robin', () => {
  const pool = new KeyPool(['a', 'b', 'c']);
  const picks = Array.from({ length: 6 }, () => (pool.select('storage', T0) as { key: string }).key);
  expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
});

test('Budget waits for a short reset, creates a key when all are busy, and gives up with an environment error', async () => {
  let now = T0;
  const slept: number[] = [];
  const budget = new Budget(['a'], {
    now: () => now,
    sleep: async (ms) => void (slept.push(ms), (now += ms)),
    maxWaitMs: 5000,
    reserve: 0,
  });
  budget.observe('a', 'compute', 429, { 'retry-after': '3' });
  expect(await budget.acquire('compute')).toBe('a');
  expect(slept).toEqual([3000]);

  let created = 0;
  const growing = new Budget(['a'], {
    now: () => now,
    createKey: async () => `new${++created}`,
    maxCreatedKeys: 1,
    maxWaitMs: 1000,
    reserve: 0,
  });
  growing.observe('a', 'compute', 429, { 'retry-after': '30' });
  expect(await growing.acquire('compute')).toBe('new1');
  growing.observe('new1', 'compute', 429, { 'retry-after': '30' });
  await expect(growing.acquire('compute')).rejects.toBeInstanceOf(BudgetExhaustedError);
  expect(created).toBe(1);
});

test('a key kept out of an area is never selected there, and waiting for it never ends', () => {
  const pool = new KeyPool(['main', 'a'], { reserve: 0, keptOut: { billing: ['main'] } });
  for (let i = 0; i < 4; i++) expect(pool.select('billing', T0)).toEqual({ key: 'a' });
  expect(pool.availableAt('main', 'billing', T0)).toBe(Number.POSITIVE_INFINITY);
  expect(pool.availableAt('main', 'compute', T0)).toBe(T0);
  pool.observe('a', 'billing', 429, { 'retry-after': '30' }, T0);
  expect(pool.select('billing', T0)).toEqual({ waitMs: 30_000 });
});
