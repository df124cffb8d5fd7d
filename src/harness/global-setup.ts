/**
 * Playwright global setup of the conformance suite, in the runner process before any worker:
 *
 * 1. Run on its own (`npx playwright test`), it starts the embedded reference server and
 *    publishes it through the same CLOUDCHECK_* variables, which the workers inherit. Under
 *    `cloudcheck run` the target is resolved (CLOUDCHECK_TARGET set), or the CLI is starting the
 *    embedded server meanwhile and hands its address over in a file (target-handoff.ts).
 * 2. Either way it creates the run's own API keys (workers × CLOUDCHECK_KEYS_PER_WORKER, with the
 *    run's key; run-keys.ts) and hands them to the workers in CLOUDCHECK_BUDGET_KEYS. The teardown
 *    revokes them before the embedded server stops.
 */
import { rmSync } from 'node:fs';
import type { FullConfig } from '@playwright/test';
import { closeProcessAgent } from './client.ts';
import { startEmbedded } from './embedded.ts';
import { addSecret } from './redact.ts';
import { BUDGET_KEYS_ENV, createRunKeys, encodeRunKeys } from './run-keys.ts';
import type { RunKeys } from './run-keys.ts';
import { settingsFromEnv } from './settings.ts';
import { TARGET_HANDOFF_ENV, awaitHandoff } from './target-handoff.ts';

const HANDLE = Symbol.for('cloudcheck.embedded');
const KEYS = Symbol.for('cloudcheck.run-keys');
type Holder = { [HANDLE]?: { close(): Promise<void> }; [KEYS]?: RunKeys };

export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  const env = process.env;
  if (env.CLOUDCHECK_RUN_TMP) rmSync(env.CLOUDCHECK_RUN_TMP, { recursive: true, force: true });
  const handoff = env[TARGET_HANDOFF_ENV];
  if (!env.CLOUDCHECK_TARGET && handoff) {
    // `cloudcheck run` is starting the embedded server meanwhile (target-handoff.ts).
    const started = await awaitHandoff(handoff);
    env.CLOUDCHECK_TARGET = started.target;
    env.CLOUDCHECK_API_KEY = started.apiKey;
    if (started.s3Url) env.CLOUDCHECK_S3_URL = started.s3Url;
    if (started.altApiKey) env.CLOUDCHECK_ALT_API_KEY = started.altApiKey;
    addSecret(started.apiKey);
    addSecret(started.altApiKey);
  }
  if (!env.CLOUDCHECK_TARGET) {
    const embedded = await startEmbedded({ seed: env.CLOUDCHECK_SEED ? Number(env.CLOUDCHECK_SEED) : undefined });
    env.CLOUDCHECK_TARGET = embedded.target;
    env.CLOUDCHECK_S3_URL = embedded.s3Url;
    env.CLOUDCHECK_API_KEY = embedded.apiKey;
    env.CLOUDCHECK_ALT_API_KEY = embedded.altApiKey;
    env.CLOUDCHECK_EMBEDDED = '1';
    // The embedded server moves no real money.
    env.CLOUDCHECK_ALLOW_CHARGES ||= '1';
    addSecret(embedded.apiKey);
    addSecret(embedded.altApiKey);
    (globalThis as Holder)[HANDLE] = embedded;
  }
  await createKeysForWorkers(config.workers);
  return async () => {
    await closeEmbedded();
  };
}

async function createKeysForWorkers(workers: number): Promise<void> {
  const settings = settingsFromEnv();
  const count = Math.max(0, workers) * settings.keysPerWorker;
  if (count === 0 || !settings.keys.main) return;
  const runKeys = await createRunKeys({ settings, count, namePrefix: settings.runPrefix, journalDir: settings.runTmp });
  (globalThis as Holder)[KEYS] = runKeys;
  process.env[BUDGET_KEYS_ENV] = encodeRunKeys(runKeys.keys);
  if (runKeys.shortfall) {
    process.stderr.write(`cloudcheck: created ${runKeys.keys.length} of ${count} API keys for the run's budget (${runKeys.shortfall}); the run's own key takes the rest of the work\n`);
  }
}

/** Revokes the run's keys (recorded in the ledger journal), then stops the embedded server. Idempotent. */
export async function closeEmbedded(): Promise<void> {
  const holder = globalThis as Holder;
  const runKeys = holder[KEYS];
  delete holder[KEYS];
  if (runKeys) {
    const failed = await runKeys.revoke().catch(() => runKeys.keys.length);
    if (failed > 0) process.stderr.write(`cloudcheck: ${failed} of the run's API keys could not be revoked (they expire on their own within 3 h)\n`);
  }
  await closeProcessAgent();
  const embedded = holder[HANDLE];
  delete holder[HANDLE];
  await embedded?.close();
}
