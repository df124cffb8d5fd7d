/**
 * Exploration throughput: `cloudcheck explore`'s engine against the reference server in this
 * process, seed 1, on loopback and with every answer 80 ms late (the `latency` variant: a staging
 * server in another region), each once with sequences one at a time (the baseline) and once with
 * the engine's concurrency. Each exploration has a fixed budget and time (a key's worth of
 * requests, 20 s); the figures are sequences, requests and steps per second of wall time.
 */
import { performance } from 'node:perf_hooks';
import { startReferenceServer } from '../reference/server.ts';
import { Budget } from '../src/harness/budget.ts';
import { ApiClient } from '../src/harness/client.ts';
import { explore } from '../src/explore/explore.ts';
import { ExploreTarget } from '../src/explore/target.ts';

export interface ExploreBench {
  sequences: number;
  steps: number;
  requests: number;
  seconds: number;
  sequences_per_second: number;
  requests_per_second: number;
  /** Seconds waited on purpose (messages to settle, deletions and listings to catch up), summed over sequences. */
  waited_seconds: number;
}

export interface ExploreComparison {
  latencyMs: number;
  sequential: ExploreBench;
  concurrent: ExploreBench;
}

async function once(
  latencyMs: number,
  parallel: number | undefined,
  budget: number,
  seconds: number,
): Promise<ExploreBench> {
  const server = await startReferenceServer({
    apiKey: 'cck_bench_explore_key_0123456789',
    variants: latencyMs ? [`latency=${latencyMs}`] : [],
  });
  try {
    const owner = server.context.accounts.keyBySecret(server.apiKey)!.accountId;
    const api = new ApiClient({
      settings: {
        target: server.baseUrl,
        keys: { main: server.apiKey, alt: null },
        liveSms: false,
        allowCharges: false,
        timeoutScale: 1,
      },
      // Keys of the same account made on demand, as `cloudcheck explore` makes one per 200 requests:
      // the burst of 100 a minute a key allows messaging and compute would otherwise pace the figure.
      budgets: {
        main: new Budget([server.apiKey], {
          maxWaitMs: 1_000,
          createKey: async () =>
            server.context.accounts.createKey(owner, { name: 'cc-bench-explore', permissions: ['read', 'write'] }).key,
          maxCreatedKeys: 50,
        }),
      },
    });
    const target = new ExploreTarget(api, 'cc-bench-explore', 'cc-bench-', {
      budget,
      deadline: Date.now() + seconds * 1000,
    });
    const started = performance.now();
    const outcome = await explore(target, { seed: 1, parallel });
    const ms = performance.now() - started;
    if (outcome.findings.length || outcome.error)
      throw new Error(
        `the exploration of the conformant server did not pass: ${JSON.stringify(outcome.findings[0] ?? outcome.error?.message)}`,
      );
    return {
      sequences: outcome.sequences,
      steps: target.stepsPassed,
      requests: target.requestsSent,
      seconds: ms / 1000,
      sequences_per_second: (outcome.sequences * 1000) / ms,
      requests_per_second: (target.requestsSent * 1000) / ms,
      waited_seconds: target.waitedMs / 1000,
    };
  } finally {
    await server.close();
  }
}

/** One key's worth of requests (under the hourly 1,000), or 20 s, whichever ends first; the latency run first one at a time, then concurrent. */
export async function run(
  latencies: readonly number[] = [0, 80],
  budget = 900,
  seconds = 20,
): Promise<ExploreComparison[]> {
  const results: ExploreComparison[] = [];
  for (const latencyMs of latencies) {
    const sequential = await once(latencyMs, 1, budget, seconds);
    const concurrent = await once(latencyMs, undefined, budget, seconds);
    results.push({ latencyMs, sequential, concurrent });
  }
  return results;
}
