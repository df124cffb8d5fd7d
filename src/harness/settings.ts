/**
 * The settings of one run as the checks see them (`ctx` in a check).
 *
 * `cloudcheck run` resolves flags, environment and config file, then hands the result to the
 * Playwright process through CLOUDCHECK_* environment variables (never on the command line, so
 * keys do not show in `ps`). Workers read them here. When `npx playwright test` runs on its own,
 * playwright.config.ts and the global setup fill the same variables.
 */
import { CONFORMANCE_CLASSES, isConformanceClass } from '../../spec/classes.ts';
import type { ConformanceClass } from '../../spec/classes.ts';
import { headersFromEnv } from './transport.ts';


/** What every name a run gives starts with: `sweep` and checks reusing an earlier run's resource look for it. */
export const RUN_PREFIX = 'cc-';
export const DEFAULT_TEST_NUMBERS = { succeed: '+15005550006', fail: '+15005550001', random: '+15005550009' } as const;
export const DEFAULT_SEED = 1;

export interface RunSettings {
  runId: string;
  /** Every resource the run creates is named with this prefix: `cc-<runid>-`. */
  runPrefix: string;
  /** Base URL including `/v1`, without a trailing slash. */
  target: string;
  s3Url: string | null;
  keys: { main: string; alt: string | null };
  seed: number;
  classes: ConformanceClass[];
  testNumbers: { succeed: string; fail: string; random: string };
  allowCharges: boolean;
  liveSms: boolean;
  strict: boolean;
  /** Multiplies budget waits and request deadlines (slow targets, CI machines). */
  timeoutScale: number;
  /**
   * Deadline of every wait for an asynchronous change (VPS boot and actions, SMS delivery,
   * campaigns, webhooks, key expiry): `--async-timeout` seconds, default ASYNC_TIMEOUT_DEFAULT_S.
   */
  asyncTimeoutMs: number;
  webhook: { listen: string | null; url: string | null };
  /** True when the target is the embedded reference server started for this run. */
  embedded: boolean;
  reportDir: string | null;
  /** `--keep`: leave what the run created in place (listed in the report) for replaying its curl lines. */
  keep: boolean;
  /** Directory shared by the workers and the reporter for per-worker files (leaks, ledger journal). */
  runTmp: string | null;
  /** API keys the run creates per worker, in the runner before workers start (0: none; run-keys.ts). */
  keysPerWorker: number;
  /** The keys the runner created for all workers (CLOUDCHECK_BUDGET_KEYS); each worker uses its slice. */
  budgetKeys: string[];
  /** `--header` (CLOUDCHECK_HEADER, one `Name: value` a line): extra headers on every request. */
  headers: Record<string, string>;
  /** `--retries` (CLOUDCHECK_RETRIES): retries of a request that got no answer (client.ts). */
  retries: number;
  /** `--har all` (CLOUDCHECK_HAR): passing checks keep their exchanges too (fixtures.ts). */
  harAll: boolean;
}

/**
 * Seconds a wait for an asynchronous change may take before it fails: a real cloud boots a VPS
 * in about a minute and may take several; a carrier confirms an SMS in seconds to minutes.
 */
export const ASYNC_TIMEOUT_DEFAULT_S = 300;

export function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return undefined;
}

/** CLOUDCHECK_BUDGET_KEYS: the run's own keys, comma-separated (keys have no commas; run-keys.ts). */
export function decodeRunKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
}

export function parseClasses(value: string | undefined): ConformanceClass[] {
  if (!value || value.trim() === '' || value.trim() === 'all') return [...CONFORMANCE_CLASSES];
  return value
    .split(',')
    .map((c) => c.trim())
    .filter((c): c is ConformanceClass => isConformanceClass(c));
}

/** Run ids are lowercase and short so the prefix fits bucket names (3..63 chars, DNS-like). */
export function newRunId(date = new Date()): string {
  const stamp = date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15).toLowerCase();
  const rand = Math.random().toString(36).slice(2, 6).padEnd(4, '0');
  return `${stamp}-${rand}`;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): RunSettings {
  const target = env.CLOUDCHECK_TARGET?.replace(/\/+$/, '');
  if (!target) {
    throw new Error('CLOUDCHECK_TARGET is not set: run the suite through `cloudcheck run` or `npx playwright test` (whose global setup starts the reference server)');
  }
  const runId = env.CLOUDCHECK_RUN_ID || 'adhoc';
  const seed = Number(env.CLOUDCHECK_SEED ?? DEFAULT_SEED);
  const scale = Number(env.CLOUDCHECK_TIMEOUT_SCALE ?? 1);
  const asyncTimeout = Number(env.CLOUDCHECK_ASYNC_TIMEOUT ?? ASYNC_TIMEOUT_DEFAULT_S);
  const keysPerWorker = Number(env.CLOUDCHECK_KEYS_PER_WORKER ?? 3);
  const retries = Number(env.CLOUDCHECK_RETRIES ?? 0);
  return {
    runId,
    runPrefix: `${RUN_PREFIX}${runId}-`,
    target,
    s3Url: env.CLOUDCHECK_S3_URL?.replace(/\/+$/, '') || null,
    keys: { main: env.CLOUDCHECK_API_KEY ?? '', alt: env.CLOUDCHECK_ALT_API_KEY || null },
    seed: Number.isFinite(seed) ? seed : DEFAULT_SEED,
    classes: parseClasses(env.CLOUDCHECK_CLASSES),
    testNumbers: {
      succeed: env.CLOUDCHECK_TEST_NUMBER_SUCCEED || DEFAULT_TEST_NUMBERS.succeed,
      fail: env.CLOUDCHECK_TEST_NUMBER_FAIL || DEFAULT_TEST_NUMBERS.fail,
      random: env.CLOUDCHECK_TEST_NUMBER_RANDOM || DEFAULT_TEST_NUMBERS.random,
    },
    allowCharges: parseBool(env.CLOUDCHECK_ALLOW_CHARGES) ?? false,
    liveSms: parseBool(env.CLOUDCHECK_LIVE_SMS) ?? false,
    strict: parseBool(env.CLOUDCHECK_STRICT) ?? false,
    timeoutScale: Number.isFinite(scale) && scale > 0 ? scale : 1,
    asyncTimeoutMs: (Number.isFinite(asyncTimeout) && asyncTimeout > 0 ? asyncTimeout : ASYNC_TIMEOUT_DEFAULT_S) * 1000,
    webhook: webhookSettings(target, env.CLOUDCHECK_WEBHOOK_LISTEN || null, env.CLOUDCHECK_WEBHOOK_URL || null),
    embedded: parseBool(env.CLOUDCHECK_EMBEDDED) ?? false,
    reportDir: env.CLOUDCHECK_REPORT_DIR || null,
    keep: parseBool(env.CLOUDCHECK_KEEP) ?? false,
    runTmp: env.CLOUDCHECK_RUN_TMP || null,
    keysPerWorker: Number.isFinite(keysPerWorker) && keysPerWorker >= 0 ? keysPerWorker : 3,
    budgetKeys: decodeRunKeys(env.CLOUDCHECK_BUDGET_KEYS),
    headers: headersFromEnv(env),
    retries: Number.isInteger(retries) && retries > 0 ? retries : 0,
    harAll: env.CLOUDCHECK_HAR === 'all',
  };
}

/** Loopback hosts: a target there can call a receiver on this machine's loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Where the webhook receiver listens and the URL the target calls. Without either flag, a loopback
 * target gets a receiver on `127.0.0.1:0` (a free port per worker); a remote one gets none, and
 * the webhook checks skip (it could not reach this machine's loopback).
 */
export function webhookSettings(target: string, listen: string | null, url: string | null): RunSettings['webhook'] {
  if (listen || url) return { listen, url };
  let hostname: string;
  try {
    hostname = new URL(target).hostname;
  } catch {
    return { listen: null, url: null };
  }
  return isLoopbackHost(hostname) ? { listen: '127.0.0.1:0', url: null } : { listen: null, url: null };
}
