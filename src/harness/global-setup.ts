/**
 * Playwright global setup of the conformance suite. Under `cloudcheck run` the target is already
 * resolved (CLOUDCHECK_TARGET set) and this does nothing. Run on its own (`npx playwright test`),
 * it starts the embedded reference server and publishes it through the same CLOUDCHECK_*
 * variables, which the workers inherit.
 */
import { rmSync } from 'node:fs';
import { startEmbedded } from './embedded.ts';
import { addSecret } from './redact.ts';

const HANDLE = Symbol.for('cloudcheck.embedded');
type Holder = { [HANDLE]?: { close(): Promise<void> } };

export default async function globalSetup(): Promise<(() => Promise<void>) | void> {
  const env = process.env;
  if (env.CLOUDCHECK_RUN_TMP) rmSync(env.CLOUDCHECK_RUN_TMP, { recursive: true, force: true });
  if (env.CLOUDCHECK_TARGET) return;
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
  return async () => {
    await closeEmbedded();
  };
}

export async function closeEmbedded(): Promise<void> {
  const holder = globalThis as Holder;
  const embedded = holder[HANDLE];
  delete holder[HANDLE];
  await embedded?.close();
}
