/**
 * The run's concurrency (src/harness/concurrency.ts) and the figures of its requests
 * (src/harness/request-stats.ts): workers follow the round trip, keys are shared out over them,
 * the round trip is the floor of a few timings, and the report's in-flight average and critical
 * path add up as they say.
 */
import { expect, test } from '../base.ts';
import { KeyPool } from '../../src/harness/budget.ts';
import {
  MAX_WORKERS,
  OVERLAP_REQUESTS,
  OVERLAP_ROUNDS,
  keysPerWorkerFor,
  measureRoundTrip,
  sharedKeyReserve,
  workersFor,
} from '../../src/harness/concurrency.ts';
import { mainAndAltBudgets } from '../../src/harness/fixtures.ts';
import { roundTripsInARow, runRequests, statsOf } from '../../src/harness/request-stats.ts';
import { DEFAULT_WORKERS, settingsFromEnv } from '../../src/harness/settings.ts';

test('workers follow the round trip: the base on loopback, one more per 12.5 ms, at most 12', () => {
  expect(workersFor(null)).toBe(DEFAULT_WORKERS);
  expect(workersFor(0.8)).toBe(2);
  // A loopback target on a busy machine answers in a few ms: that buys no worker.
  expect(workersFor(12)).toBe(2);
  expect(workersFor(20)).toBe(3);
  expect(workersFor(81)).toBe(8);
  expect(workersFor(5_000)).toBe(MAX_WORKERS);
  expect(workersFor(Number.NaN)).toBe(DEFAULT_WORKERS);
});

test("a small selection starts fewer workers: each flow may have one, the other checks one per start-up's worth of work", () => {
  // Loopback: a check is about 15 ms of work, 47 of them make a worker's start-up (0.7 s).
  expect(workersFor(0.5, { checks: 3, flows: 0 })).toBe(1);
  expect(workersFor(0.5, { checks: 40, flows: 0 })).toBe(1);
  expect(workersFor(0.5, { checks: 100, flows: 0 })).toBe(2);
  // A full run keeps the round trip's number; so does one of two flows.
  expect(workersFor(0.5, { checks: 900, flows: 30 })).toBe(2);
  expect(workersFor(0.5, { checks: 0, flows: 2 })).toBe(2);
  expect(workersFor(0.5, { checks: 0, flows: 1 })).toBe(1);
  // Across a network a check waits: 8 checks at 81 ms fill two workers, 60 all eight.
  expect(workersFor(81, { checks: 8, flows: 0 })).toBe(2);
  expect(workersFor(81, { checks: 60, flows: 0 })).toBe(8);
  expect(workersFor(81, { checks: 0, flows: 0 })).toBe(1);
  // Unknown (the suite index is cold): the round trip alone.
  expect(workersFor(81, null)).toBe(8);
});

test('the run keys are shared out over the workers, at least two each against the embedded server', () => {
  expect(keysPerWorkerFor(2, true)).toBe(6);
  expect(keysPerWorkerFor(8, true)).toBe(2);
  expect(keysPerWorkerFor(2, false)).toBe(3);
  expect(keysPerWorkerFor(8, false)).toBe(1);
  expect(keysPerWorkerFor(0, false)).toBe(6);
});

test('the round trip is the floor of a few timings: cold and busy ones do not count, it stops when steady', async () => {
  /** One request at a time answers the timings given; several at once take `work` ms more each. */
  const target = (list: number[], work = 0) => {
    const queue = [...list];
    let calls = 0;
    let inFlight = 0;
    return {
      send: async () => {
        calls++;
        inFlight++;
        const alongside = inFlight;
        await Promise.resolve();
        inFlight--;
        const next = queue.length > 1 ? queue.shift() : queue[0];
        if (next === undefined) throw new Error('no answer');
        return next + work * (alongside - 1);
      },
      calls: () => calls,
    };
  };
  // The embedded server's first answers (its code's first run), then loopback: stops at the first
  // fast one, and a round trip that short buys no worker whatever it is made of.
  const cold = target([125, 56, 8, 30, 1.6]);
  expect(await measureRoundTrip(cold.send)).toBe(8);
  expect(cold.calls()).toBe(3);
  // 80 ms away: the first paid for connecting; three in a row about as fast as the fastest, so
  // it stops; four at once take as long as one: all of it is waiting.
  const remote = target([180, 84, 83, 83]);
  expect(await measureRoundTrip(remote.send)).toBe(83);
  expect(remote.calls()).toBe(4 + OVERLAP_REQUESTS * OVERLAP_ROUNDS);
  // Loopback on a loaded machine: two slow timings alike are not yet the floor.
  const loaded = target([42, 45, 3, 40]);
  expect(await measureRoundTrip(loaded.send)).toBe(3);
  expect(loaded.calls()).toBe(3);
  // A loopback target on a busy machine: 23 ms one at a time, 20 ms more for each one alongside:
  // the CPU's work, which more workers do not overlap.
  expect(await measureRoundTrip(target([23], 20).send)).toBe(3);
  // 80 ms of network and 5 ms of work per request.
  expect(await measureRoundTrip(target([85], 5).send)).toBe(80);
  const noisy = target([90, 200, 150, 130, 170, 160, 140, 150, 90]);
  expect(await measureRoundTrip(noisy.send)).toBe(90);
  expect(await measureRoundTrip(target([]).send)).toBeNull();
});

test('every worker keeps a reserve on the run key that grows with the workers; its own keys keep two', () => {
  expect(sharedKeyReserve(1)).toBe(2);
  expect(sharedKeyReserve(8)).toBe(23);
  const settings = settingsFromEnv({
    CLOUDCHECK_TARGET: 'http://127.0.0.1:1/v1',
    CLOUDCHECK_API_KEY: 'main',
    CLOUDCHECK_KEYS_PER_WORKER: '1',
    CLOUDCHECK_BUDGET_KEYS: 'a,b,c,d,e,f,g,h',
    CLOUDCHECK_WORKERS: '8',
  });
  const { main } = mainAndAltBudgets(settings, 3, 8);
  expect(main.pool.keys).toEqual(['d', 'main']);
  const now = Date.UTC(2025, 0, 1, 12, 0, 10);
  const headers = (remaining: number) => ({
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': '1735732860',
  });
  // The other workers spent the run key's minute down to 23: this worker no longer uses it.
  main.pool.observe('main', 'compute', 200, headers(23), now);
  main.pool.observe('d', 'compute', 200, headers(23), now);
  expect(main.pool.availableAt('main', 'compute', now)).toBeGreaterThan(now);
  expect(main.pool.availableAt('d', 'compute', now)).toBe(now);
  const pool = new KeyPool(['k'], { reserveOf: { k: 10 } });
  for (let i = 0; i < 89; i++) pool.count('k', 'messaging', now);
  expect(pool.select('messaging', now)).toEqual({ key: 'k' });
  pool.count('k', 'messaging', now);
  expect(pool.select('messaging', now)).toHaveProperty('waitMs');
});

test('round trips in a row: requests sent together count once, one after the other each', () => {
  expect(roundTripsInARow([])).toBe(0);
  const together = [
    { start: 0, end: 80 },
    { start: 1, end: 82 },
    { start: 2, end: 81 },
  ];
  expect(roundTripsInARow(together)).toBe(1);
  const inARow = [
    { start: 0, end: 80 },
    { start: 80, end: 160 },
    { start: 161, end: 240 },
  ];
  expect(roundTripsInARow(inARow)).toBe(3);
  expect(roundTripsInARow([...together, { start: 90, end: 170 }, { start: 95, end: 175 }])).toBe(2);
  expect(statsOf(inARow)).toEqual([3, 239, 3, 0, 240]);
  expect(statsOf([])).toBeNull();
});

test("the run's figures: in flight on average over the span, a flow's steps adding up to its chain", () => {
  const figures = runRequests([
    { chain: 'flow.a', stats: [2, 200, 2, 1000, 1200] },
    { chain: 'flow.a', stats: [3, 300, 3, 1200, 1500] },
    { chain: 'check.b', stats: [4, 400, 4, 1000, 1400] },
    { chain: 'check.c', stats: [10, 1000, 1, 1100, 2000] },
  ]);
  expect(figures.requests).toBe(19);
  expect(figures.spanSeconds).toBe(1);
  expect(figures.inFlightAverage).toBeCloseTo(1.9);
  expect(figures.criticalPath).toEqual({ roundTrips: 5, chain: 'flow.a' });
  expect(runRequests([])).toEqual({ requests: 0, inFlightAverage: 0, spanSeconds: 0, criticalPath: null });
});
