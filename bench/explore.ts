/**
 * Exploration throughput: `cloudcheck explore`'s engine against the embedded reference server in
 * this process, seed 1, one key's worth of requests (900, under the hourly 1,000). Prints the
 * steps and requests per second and the share of the wall time spent outside the target's
 * requests (the model, fast-check's drawing and the client's own work).
 */
import { performance } from 'node:perf_hooks';
import { startReferenceServer } from '../reference/server.ts';
import { Budget } from '../src/harness/budget.ts';
import { ApiClient } from '../src/harness/client.ts';
import type { ApiResponse } from '../src/harness/client.ts';
import { explore } from '../src/explore/explore.ts';
import { ExploreTarget } from '../src/explore/target.ts';

/** The target side, timed: how long the requests took and how many steps passed. */
class TimedTarget extends ExploreTarget {
  requestMs = 0;
  steps = 0;
  override async send(...args: Parameters<ExploreTarget['send']>): Promise<ApiResponse> {
    const started = performance.now();
    try {
      return await super.send(...args);
    } finally {
      this.requestMs += performance.now() - started;
    }
  }
  override stepPassed(rules: readonly string[]): void {
    this.steps++;
    super.stepPassed(rules);
  }
}

export interface ExploreBench {
  sequences: number;
  steps: number;
  requests: number;
  seconds: number;
  steps_per_second: number;
  requests_per_second: number;
  /** Share of the wall time outside the target's requests and the waits on purpose (model, drawing, client). */
  model_share: number;
  /** Seconds waited on purpose (messages to settle before a walk by status). */
  waited_seconds: number;
}

export async function run(budget = 900): Promise<ExploreBench> {
  const server = await startReferenceServer({ apiKey: 'cck_bench_explore_key_0123456789' });
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
    const bucket = 'cc-bench-explore';
    const target = new TimedTarget(api, bucket, 'cc-bench-', { budget, deadline: Date.now() + 120_000 });
    const started = performance.now();
    const outcome = await explore(target, { seed: 1 });
    const ms = performance.now() - started;
    if (outcome.finding || outcome.error)
      throw new Error(
        `the exploration of the conformant server did not pass: ${JSON.stringify(outcome.finding ?? outcome.error?.message)}`,
      );
    return {
      sequences: outcome.sequences,
      steps: target.steps,
      requests: target.requestsSent,
      seconds: ms / 1000,
      steps_per_second: (target.steps * 1000) / ms,
      requests_per_second: (target.requestsSent * 1000) / ms,
      model_share: 1 - (target.requestMs + target.waitedMs) / ms,
      waited_seconds: target.waitedMs / 1000,
    };
  } finally {
    await server.close();
  }
}
