/**
 * Playwright global setup of the conformance suite, in the runner process before any worker:
 *
 * 1. Run on its own (`npx playwright test`), it starts the embedded reference server and
 *    publishes it in the run's settings (settingsToEnv), which the workers inherit. Under
 *    `cloudcheck run` the target is resolved already, or the CLI is starting the embedded server
 *    meanwhile and hands its address over in a file (target-handoff.ts).
 * 2. It chooses the run's concurrency (concurrency.ts): unless `--workers` says, as many workers
 *    as the target's round trip calls for (the probe's, or measured here for the embedded
 *    server), and the keys each worker gets.
 * 3. It creates the run's own API keys (workers × keys per worker, with the run's key;
 *    run-keys.ts) and publishes them as the settings' budget keys. The teardown revokes them
 *    before the embedded server stops.
 */
import { rmSync } from 'node:fs';
import type { FullConfig } from '@playwright/test';
import { Budget } from './budget.ts';
import { ApiClient, closeProcessAgent } from './client.ts';
import { keysPerWorkerFor, measureRoundTrip, workersFor } from './concurrency.ts';
import { faultScopesFromEnv, faultsFromEnv, startEmbedded, variantsFromEnv } from './embedded.ts';
import { addSecret } from './redact.ts';
import { Provisioner } from './provision.ts';
import { createRunKeys } from './run-keys.ts';
import { activeProvisioner, setProvisioner } from './scheduler.ts';
import type { RunKeys } from './run-keys.ts';
import { processSettings, publishSettings } from './settings.ts';
import type { RunSettings } from './settings.ts';
import { awaitHandoff } from './target-handoff.ts';

const HANDLE = Symbol.for('cloudcheck.embedded');
const KEYS = Symbol.for('cloudcheck.run-keys');
type Holder = { [HANDLE]?: { close(): Promise<void> }; [KEYS]?: RunKeys };

export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  let settings = processSettings();
  if (settings.runTmp) rmSync(settings.runTmp, { recursive: true, force: true });
  if (!settings.target && settings.handoffFile) {
    // `cloudcheck run` is starting the embedded server meanwhile (target-handoff.ts).
    const started = await awaitHandoff(settings.handoffFile);
    settings = publish({
      ...settings,
      target: started.target,
      s3Url: started.s3Url,
      keys: { ...settings.keys, main: started.apiKey, alt: started.altApiKey },
    });
  }
  if (!settings.target) {
    const embedded = await startEmbedded({
      seed: settings.seed,
      faults: faultsFromEnv(process.env),
      faultScopes: faultScopesFromEnv(process.env),
      variants: variantsFromEnv(process.env),
    });
    (globalThis as Holder)[HANDLE] = embedded;
    // The embedded server moves no real money.
    settings = publish({
      ...settings,
      target: embedded.target,
      s3Url: embedded.s3Url,
      keys: { ...settings.keys, main: embedded.apiKey, alt: embedded.altApiKey },
      embedded: true,
      allowCharges: true,
    });
  }
  settings = await chooseConcurrency(config, settings);
  await createKeysForWorkers(config.workers, settings);
  // The scheduler (a reporter of this process) starts the selected checks' provisions with it.
  if (settings.runTmp && settings.keys.main) setProvisioner(new Provisioner({ ...settings, runTmp: settings.runTmp }));
  return async () => {
    await closeEmbedded();
  };
}

/** Settings completed here: the process's, and the workers' through their environment. */
function publish(settings: RunSettings): RunSettings {
  addSecret(settings.keys.main);
  addSecret(settings.keys.alt);
  return publishSettings(settings);
}

/**
 * Workers and keys per worker. Driven without `--workers`, the number of workers follows the
 * round trip and the selection's size, and is set on the config the runner's dispatcher reads
 * after the global setup (Playwright creates its worker slots from `config.workers` once the
 * global setup is done; test/cli/concurrency.test.ts shows a run using the number chosen here).
 * The numbers are published: the workers size the reserve of the key they share (fixtures.ts),
 * the report says them.
 */
async function chooseConcurrency(config: FullConfig, settings: RunSettings): Promise<RunSettings> {
  const roundTripMs = settings.roundTripMs ?? (await roundTripOfTarget(settings));
  if (settings.driven && settings.workers === null) config.workers = workersFor(roundTripMs, settings.selectedWork);
  const keysPerWorker = settings.keysPerWorker ?? keysPerWorkerFor(config.workers, settings.embedded);
  return publish({ ...settings, roundTripMs, workers: config.workers, keysPerWorker });
}

/**
 * The round trip of a target the CLI did not probe (the embedded server), timed on a cheap read
 * (GET /regions, compute: the run's key spends none of its billing window on it, and the run-wide
 * rate-limit invariants see it like any response).
 */
async function roundTripOfTarget(settings: RunSettings): Promise<number | null> {
  if (!settings.keys.main || !settings.target) return null;
  const client = new ApiClient({ settings, budgets: { main: new Budget([settings.keys.main]) } });
  return measureRoundTrip(async () => (await client.get('/regions')).durationMs);
}

/**
 * The run's budget keys: those created here, then the more keys of the account a person gave
 * (--api-key repeated), which the workers share out the same way (run-keys.ts keysForWorker).
 */
async function createKeysForWorkers(workers: number, settings: RunSettings): Promise<void> {
  const count = Math.max(0, workers) * (settings.keysPerWorker ?? 0);
  const extra = settings.keys.extra;
  for (const key of extra) addSecret(key);
  if (count === 0 || !settings.keys.main) {
    if (extra.length) publish({ ...settings, budgetKeys: [...extra] });
    return;
  }
  const runKeys = await createRunKeys({ settings, count, namePrefix: settings.runPrefix, journalDir: settings.runTmp });
  (globalThis as Holder)[KEYS] = runKeys;
  publish({ ...settings, budgetKeys: [...runKeys.keys, ...extra] });
  if (runKeys.shortfall) {
    const rest = extra.length
      ? `the run's key and the ${extra.length} more key${extra.length === 1 ? '' : 's'} given (--api-key) take the rest of the work`
      : "the run's own key takes the rest of the work (give more keys of the account with --api-key, repeated)";
    process.stderr.write(
      `cloudcheck: created ${runKeys.keys.length} of ${count} API keys for the run's budget (${runKeys.shortfall}); ${rest}\n`,
    );
  }
}

/**
 * Deletes what the run provisioned and no check took, revokes the run's keys (recorded in the
 * ledger journal), then stops the embedded server. Idempotent.
 */
export async function closeEmbedded(): Promise<void> {
  const provisioner = activeProvisioner();
  setProvisioner(undefined);
  await provisioner?.teardown().catch(() => undefined);
  const holder = globalThis as Holder;
  const runKeys = holder[KEYS];
  delete holder[KEYS];
  if (runKeys) {
    const failed = await runKeys.revoke().catch(() => runKeys.keys.length);
    if (failed > 0)
      process.stderr.write(
        `cloudcheck: ${failed} of the run's API keys could not be revoked (they expire on their own within 3 h)\n`,
      );
  }
  await closeProcessAgent();
  const embedded = holder[HANDLE];
  delete holder[HANDLE];
  await embedded?.close();
}
