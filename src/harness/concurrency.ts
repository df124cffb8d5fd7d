/**
 * How many requests a run keeps in flight: the number of Playwright workers (each runs one check
 * at a time) and the API keys each worker paces its requests with (budget.ts).
 *
 * A worker spends a check's time in two ways: computing (Playwright's bookkeeping, the check's
 * own work: about 10 ms of CPU per check here) and waiting for the target's answers. Against the
 * embedded server the waiting is nothing and the CPU is what limits a run: two workers keep two
 * cores busy, and each worker more costs 1.4-1.8 s of CPU to start and to load what its checks
 * use (measured: a full run with 6 workers took 5.7 s more CPU than with 2). Across a network
 * each check mostly waits (a full run is about 1,200 round trips in a row, shared by its
 * workers), so the run keeps more workers, one more for every WORKER_PER_ROUND_TRIP_MS of round
 * trip: 8 at 80 ms, where the CPU they cost and the time they wait balance on two cores.
 */

import { DEFAULT_WORKERS } from './settings.ts';
import type { SelectedWork } from './settings.ts';

/** Round trip (ms) that makes one more worker pay for its start-up by the waiting it overlaps. */
export const WORKER_PER_ROUND_TRIP_MS = 12.5;
/**
 * More workers than this cost more CPU to start than the waits they would still overlap on two
 * cores (at 200 ms, 12 and 16 workers both end near 23 s), and more key budget.
 */
export const MAX_WORKERS = 12;

/** What a worker costs to start (wall ms on two cores: the process, Playwright, the suites it loads). */
export const WORKER_START_MS = 700;
/** A check's own work besides its round trips: CPU, ms. */
export const CHECK_WORK_MS = 15;
/** Round trips of a check, on the few side (most checks send one to three requests). */
export const CHECK_ROUND_TRIPS = 2;

/**
 * The default number of workers for a round trip's waiting (ms, measureRoundTrip; null when
 * nothing was measured: the base). Rounded down, so a few ms keep the base.
 *
 * With the selection's work known (suite-index.ts selectedWork), a flow may have a worker of its
 * own (its waits for boots and deliveries are long), and the checks outside flows one more worker
 * only for a start-up's worth of their work: a few checks on loopback run in one worker (a second
 * one cost about 0.7 s of CPU and saved nothing), a few dozen across a network in a few. A full
 * run keeps the round trip's number.
 */
export function workersFor(roundTripMs: number | null, work: SelectedWork | null = null): number {
  const measured = roundTripMs !== null && Number.isFinite(roundTripMs) && roundTripMs > 0;
  const forWaiting = measured
    ? Math.min(MAX_WORKERS, DEFAULT_WORKERS + Math.floor(roundTripMs / WORKER_PER_ROUND_TRIP_MS))
    : DEFAULT_WORKERS;
  if (work === null) return forWaiting;
  const checkMs = CHECK_WORK_MS + CHECK_ROUND_TRIPS * (measured ? roundTripMs : 0);
  const checksPerWorker = Math.max(1, Math.ceil(WORKER_START_MS / checkMs));
  return Math.max(1, Math.min(forWaiting, work.flows + Math.ceil(work.checks / checksPerWorker)));
}

/**
 * API keys of the run for all its workers together, against the embedded server and a target.
 * A full run sends about 450 messaging and 370 compute requests, whose burst limit is 100 a
 * minute per key and area: a run that takes well under a minute needs about five keys' worth in
 * one window. Against a target each key also costs two of the main key's 100 billing requests
 * of the hour (created and revoked), so the run takes fewer there.
 */
export const RUN_KEYS = { embedded: 12, target: 6 } as const;
/** Keys per worker at least: a worker's share of one area can be twice the average. */
export const MIN_KEYS_PER_WORKER = { embedded: 2, target: 1 } as const;

/** Keys per worker for a run of `workers` workers: RUN_KEYS shared out, at least MIN_KEYS_PER_WORKER each. */
export function keysPerWorkerFor(workers: number, embedded: boolean): number {
  const kind = embedded ? 'embedded' : 'target';
  return Math.max(MIN_KEYS_PER_WORKER[kind], Math.ceil(RUN_KEYS[kind] / Math.max(1, workers)));
}

/**
 * Requests kept back on a key every worker of the run uses (the run's own key): each worker
 * counts only its own requests and learns the others' from the rate-limit headers, which lag
 * by the requests in flight; a few per worker keeps the key's window from being overrun.
 */
export function sharedKeyReserve(workers: number): number {
  return 2 + 3 * Math.max(0, workers - 1);
}

/** Most requests timed one after the other for a round trip. */
export const MAX_ROUND_TRIP_SAMPLES = 8;
/** Requests sent at once to see how much of a round trip overlaps, and how many times. */
export const OVERLAP_REQUESTS = 4;
export const OVERLAP_ROUNDS = 2;

/**
 * The part of a target's round trip (ms) that other requests can overlap, null when nothing was
 * answered. A request's time is partly waiting (the network, a server that sleeps on something)
 * and partly work that requests do one after the other (a busy CPU, here or at the target, or a
 * server that serves one request at a time): more workers overlap only the waiting. A few
 * requests one after the other give the round trip (the fastest: the first ones pay for
 * connecting and, on a server that just started, for its code's first run); a few sent at once
 * take about as long when the round trip is waiting, and OVERLAP_REQUESTS times as long when it
 * is work. The waiting is the round trip less that work per request.
 */
export async function measureRoundTrip(send: () => Promise<number>): Promise<number | null> {
  const single = await fastestInARow(send);
  if (single === null || single < WORKER_PER_ROUND_TRIP_MS) return single;
  let together = Number.POSITIVE_INFINITY;
  for (let round = 0; round < OVERLAP_ROUNDS; round++) {
    try {
      const times = await Promise.all(Array.from({ length: OVERLAP_REQUESTS }, send));
      together = Math.min(together, Math.max(...times));
    } catch {
      break;
    }
  }
  if (!Number.isFinite(together)) return single;
  const workPerRequest = Math.max(0, (together - single) / (OVERLAP_REQUESTS - 1));
  return Math.max(0, single - workPerRequest);
}

/** Timings in a row within 15 % of the fastest that make it the floor. */
export const STEADY_SAMPLES = 3;

/**
 * The fastest of a few requests one after the other. It stops early once that is too short to
 * add a worker, or once the last STEADY_SAMPLES took about as long as the fastest (the floor
 * holds). Two were not enough: on a loaded machine (load average 14) a loopback target timed
 * 42 ms twice in a row (the process waiting for a core, which overlaps like a network) and the
 * run took 5 workers where 2 are best; the next run measured 7 ms.
 */
async function fastestInARow(send: () => Promise<number>): Promise<number | null> {
  let fastest = Number.POSITIVE_INFINITY;
  const times: number[] = [];
  for (let i = 0; i < MAX_ROUND_TRIP_SAMPLES; i++) {
    let ms: number;
    try {
      ms = await send();
    } catch {
      break;
    }
    times.push(ms);
    fastest = Math.min(fastest, ms);
    if (fastest < WORKER_PER_ROUND_TRIP_MS) break;
    // Within 15 % of the fastest: neither a busy moment nor a floor still falling.
    const last = times.slice(-STEADY_SAMPLES);
    if (last.length === STEADY_SAMPLES && last.every((t) => t <= fastest * 1.15)) break;
  }
  return Number.isFinite(fastest) ? fastest : null;
}
