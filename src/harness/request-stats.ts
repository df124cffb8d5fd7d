/**
 * What a check's requests cost in time, for the report's concurrency figures: how many it sent,
 * how long they were in flight, and how many round trips they took one after the other (a check
 * that sends three requests at once pays one round trip; three in a row pay three). A check
 * carries them as an annotation (fixtures.ts); the reporter sums them over the run: requests in
 * flight on average (their time in flight over the time the checks ran) and the run's critical
 * path (the longest chain of round trips that had to follow each other: a flow's steps add up).
 */

/** One request the check sent: epoch ms when it was sent and when its answer (or failure) came. */
export interface SentRequest {
  start: number;
  end: number;
}

/** A check's requests: [count, ms in flight (summed), round trips in a row, first sent, last answered]. */
export type RequestStats = [count: number, busyMs: number, roundTrips: number, first: number, last: number];

/**
 * Round trips in a row: the most requests of the list each sent after the one before it was
 * answered (the longest chain of intervals that do not overlap: earliest answer first).
 */
export function roundTripsInARow(requests: readonly SentRequest[]): number {
  let count = 0;
  let free = Number.NEGATIVE_INFINITY;
  for (const r of [...requests].sort((a, b) => a.end - b.end)) {
    if (r.start < free) continue;
    count++;
    free = r.end;
  }
  return count;
}

export function statsOf(requests: readonly SentRequest[]): RequestStats | null {
  if (requests.length === 0) return null;
  const busy = requests.reduce((sum, r) => sum + Math.max(0, r.end - r.start), 0);
  const first = Math.min(...requests.map((r) => r.start));
  const last = Math.max(...requests.map((r) => r.end));
  return [requests.length, busy, roundTripsInARow(requests), first, last];
}

/** The run's figures from its checks' stats: `chain` names the flow (or check) each belongs to. */
export interface RunRequests {
  requests: number;
  /** Requests in flight on average while the checks ran (their time in flight over that span). */
  inFlightAverage: number;
  /** Seconds from the first request sent to the last answer. */
  spanSeconds: number;
  /** The longest chain of round trips the run had to take one after the other, and whose it is. */
  criticalPath: { roundTrips: number; chain: string } | null;
}

export function runRequests(checks: ReadonlyArray<{ chain: string; stats: RequestStats }>): RunRequests {
  let requests = 0;
  let busy = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const chains = new Map<string, number>();
  for (const { chain, stats } of checks) {
    const [count, busyMs, roundTrips, start, end] = stats;
    requests += count;
    busy += busyMs;
    first = Math.min(first, start);
    last = Math.max(last, end);
    chains.set(chain, (chains.get(chain) ?? 0) + roundTrips);
  }
  const span = last > first ? last - first : 0;
  let critical: RunRequests['criticalPath'] = null;
  for (const [chain, roundTrips] of chains)
    if (!critical || roundTrips > critical.roundTrips) critical = { roundTrips, chain };
  return {
    requests,
    inFlightAverage: span > 0 ? busy / span : 0,
    spanSeconds: span / 1000,
    criticalPath: critical,
  };
}
