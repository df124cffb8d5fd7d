/**
 * Playwright global setup of the conformance suite, in the runner process before any worker:
 *
 * 1. Run on its own (`npx playwright test`), it starts the embedded reference server and
 *    publishes it in the run's settings (settingsToEnv), which the workers inherit. Under
 *    `cloudcheck run` the target is resolved already, or the CLI is starting the embedded server
 *    meanwhile and hands its address over in a file (target-handoff.ts).
 * 2. Either way it creates the run's own API keys (workers × keys per worker, with the run's key;
 *    run-keys.ts) and publishes them as the settings' budget keys. The teardown revokes them
 *    before the embedded server stops.
 */
import { rmSync } from 'node:fs';
import type { FullConfig } from '@playwright/test';
import { closeProcessAgent } from './client.ts';
import { faultScopesFromEnv, faultsFromEnv, startEmbedded, variantsFromEnv } from './embedded.ts';
import { addSecret } from './redact.ts';
import { createRunKeys } from './run-keys.ts';
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
  await createKeysForWorkers(config.workers, settings);
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
 * The run's budget keys: those created here, then the more keys of the account a person gave
 * (--api-key repeated), which the workers share out the same way (run-keys.ts keysForWorker).
 */
async function createKeysForWorkers(workers: number, settings: RunSettings): Promise<void> {
  const count = Math.max(0, workers) * settings.keysPerWorker;
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

/** Revokes the run's keys (recorded in the ledger journal), then stops the embedded server. Idempotent. */
export async function closeEmbedded(): Promise<void> {
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
