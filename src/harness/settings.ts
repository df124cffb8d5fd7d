/**
 * The settings of one run as the checks see them (`ctx` in a check).
 *
 * `cloudcheck run` resolves flags, environment and config file into RunSettings (run.ts
 * settingsOfRun), then hands them to the Playwright process as the variables of RUN_VARIABLES,
 * written by settingsToEnv; the runner, the workers and the reporter read them with
 * settingsFromEnv. When `npx playwright test` runs on its own, playwright.config.ts and the
 * global setup complete the same settings and write them the same way.
 */
import { CONFORMANCE_CLASSES, isConformanceClass } from '../../spec/classes.ts';
import type { ConformanceClass } from '../../spec/classes.ts';
import { headersFromList } from './headers.ts';

/** What every name a run gives starts with: `sweep` and checks reusing an earlier run's resource look for it. */
/**
 * Resends of a GET, HEAD or OPTIONS that got no answer (client.ts, `mayResend`), unless --retries
 * says otherwise. On by default: across a network a connection is lost now and then, and a check
 * of a hundred requests (a rate-limit burst, a poll) would otherwise rarely come through whole;
 * resending a safe request cannot change what the target holds, and each attempt is recorded.
 */
export const DEFAULT_RETRIES = 2;

export const RUN_PREFIX = 'cc-';
export const DEFAULT_TEST_NUMBERS = { succeed: '+15005550006', fail: '+15005550001', random: '+15005550009' } as const;
export const DEFAULT_SEED = 1;
/** One valid request per operation, as every run sent before `--examples`: the default run's time stays as it was. */
export const DEFAULT_EXAMPLES = 1;

/** A base URL without its trailing slashes (`…/v1/` → `…/v1`), so that paths join onto it. */
export function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * What a check sees of its run (`ctx` in a check, fixtures.ts): the target and its keys, the data
 * of the run and its rules. Nothing of how the run is driven, connected or reported.
 */
export interface CheckSettings {
  runId: string;
  /** Every resource the run creates is named with this prefix: `cc-<runid>-`. */
  runPrefix: string;
  /** Base URL including `/v1`, without a trailing slash ('' until the embedded server's address is handed over). */
  target: string;
  s3Url: string | null;
  /**
   * The run's key, the second account's, and `extra`: more keys of the run's account a person gave
   * (`--api-key` repeated), spread over the workers' budgets like the keys the run creates.
   */
  keys: { main: string; alt: string | null; extra: string[] };
  seed: number;
  /**
   * `--examples`: valid requests per operation in the generated positive checks (1: the single
   * seeded example; above 1, the rest drawn from the schema by src/generate/examples.ts).
   */
  examples: number;
  /** The classes the run claims (report.json `run.classes`); driven, also the selection's classes. */
  classes: ConformanceClass[];
  testNumbers: { succeed: string; fail: string; random: string };
  allowCharges: boolean;
  liveSms: boolean;
  strict: boolean;
  /** Multiplies budget waits and request deadlines (slow targets, CI machines; CLOUDCHECK_TIMEOUT_SCALE only). */
  timeoutScale: number;
  /** CLOUDCHECK_REQUEST_TIMEOUT_MS (variable only): a fixed deadline per request instead of 30 s × timeoutScale. */
  requestTimeoutMs: number | null;
  /**
   * Deadline of every wait for an asynchronous change (VPS boot and actions, SMS delivery,
   * campaigns, webhooks, key expiry): `--async-timeout` seconds, default ASYNC_TIMEOUT_DEFAULT_S.
   */
  asyncTimeoutMs: number;
  webhook: { listen: string | null; url: string | null };
  /** True when the target is the embedded reference server started for this run. */
  embedded: boolean;
  /** `--keep`: leave what the run created in place (listed in the report) for replaying its curl lines. */
  keep: boolean;
  /** Directory shared by the workers and the reporter for per-worker files (leaks, ledger journal, shared originals). */
  runTmp: string | null;
}

/** The runner's plumbing: how the run connects, is driven and is reported. No check reads it. */
export interface RunnerSettings {
  reportDir: string | null;
  /**
   * API keys the run creates per worker, in the runner before workers start (0: none; run-keys.ts);
   * null: the global setup chooses from the number of workers (concurrency.ts).
   */
  keysPerWorker: number | null;
  /** The keys the workers share out (run-keys.ts keysForWorker): those the runner created, then `keys.extra`. */
  budgetKeys: string[];
  /** `--header`: extra headers on every request. */
  headers: Record<string, string>;
  /** `--ca-cert`: a PEM file of a CA to trust besides the usual ones (transport.ts). */
  caCertFile: string | null;
  /** `--retries`: retries of a request that got no answer (client.ts), DEFAULT_RETRIES unless given. */
  retries: number;
  /** `--har all`: passing checks keep their exchanges too (fixtures.ts). */
  harAll: boolean;
  /** Run by `cloudcheck run`: the CLI finalises the report, the selection is made where checks are defined. */
  driven: boolean;
  /** The reporter prints a line per finished class (the CLI's console). */
  progress: boolean;
  startedAt: string | null;
  /** `--baseline` file, resolved. */
  baselineFile: string | null;
  /** `--shard I/N`, as given. */
  shard: string | null;
  /**
   * `--workers` (null: chosen by the global setup from the round trip, concurrency.ts; the runner
   * publishes the number it chose, so workers and the reporter read it here).
   */
  workers: number | null;
  /**
   * The target's round trip in ms as the probe measured it: the part other requests can overlap
   * (concurrency.ts measureRoundTrip; null: not measured yet).
   */
  roundTripMs: number | null;
  /**
   * What the selection gives the workers to share: its checks outside flows, and its flows (each
   * runs in one worker), as the suite index counts them (null: unknown, the index is cold). Fewer
   * workers start for a few (concurrency.ts workersFor).
   */
  selectedWork: SelectedWork | null;
  /** `--max-failures` (0: never stop). */
  maxFailures: number;
  /** `--grep`, `--grep-invert` and `--last-failed`'s ids: applied where checks are defined (selection.ts). */
  selection: { grep: string | null; grepInvert: string | null; onlyIds: string[] | null };
  /** Plumbing between the CLI and the runner: where the embedded server's address arrives (target-handoff.ts). */
  handoffFile: string | null;
  /** Where a run that loads every suite file writes the suite index (suite-index.ts). */
  suiteIndexOut: string | null;
}

/**
 * The one description of a run: `cloudcheck run` builds it (run.ts settingsOfRun), the runner
 * and its workers read it from the run contract's variables below.
 */
export type RunSettings = CheckSettings & RunnerSettings;

/** What of the settings a check's `ctx` carries. */
export function checkSettingsOf(s: RunSettings): CheckSettings {
  const { runId, runPrefix, target, s3Url, keys, seed, examples, classes, testNumbers } = s;
  const { allowCharges, liveSms, strict, timeoutScale, requestTimeoutMs, asyncTimeoutMs, webhook } = s;
  const { embedded, keep, runTmp } = s;
  return {
    ...{ runId, runPrefix, target, s3Url, keys, seed, examples, classes, testNumbers },
    ...{ allowCharges, liveSms, strict, timeoutScale, requestTimeoutMs, asyncTimeoutMs, webhook },
    ...{ embedded, keep, runTmp },
  };
}

/**
 * Seconds a wait for an asynchronous change may take before it fails: a real cloud boots a VPS
 * in about a minute and may take several; a carrier confirms an SMS in seconds to minutes.
 */
export const ASYNC_TIMEOUT_DEFAULT_S = 300;
/** Playwright workers of a run without `--workers` whose round trip is not measured (concurrency.ts). */
export const DEFAULT_WORKERS = 2;

/** A selection's checks outside flows and its flows (suite-index.ts selectedWork). */
export interface SelectedWork {
  checks: number;
  flows: number;
}

/** `checks,flows` as settingsToEnv writes it; null when absent or not two counts. */
function selectedWorkFrom(value: string | undefined): SelectedWork | null {
  const m = /^(\d+),(\d+)$/.exec(value ?? '');
  return m ? { checks: Number(m[1]), flows: Number(m[2]) } : null;
}

export function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return undefined;
}

/** A list of keys, comma-separated (keys have no commas; run-keys.ts). */
function decodeRunKeys(value: string | undefined): string[] {
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

/**
 * The run contract: every setting crosses from the CLI to Playwright's runner and its workers
 * as one of these variables (never on the command line, so keys do not show in `ps`).
 * settingsToEnv is the one writer, settingsFromEnv the one reader.
 */
export const RUN_VARIABLES = {
  runId: 'CLOUDCHECK_RUN_ID',
  target: 'CLOUDCHECK_TARGET',
  s3Url: 'CLOUDCHECK_S3_URL',
  mainKey: 'CLOUDCHECK_API_KEY',
  altKey: 'CLOUDCHECK_ALT_API_KEY',
  seed: 'CLOUDCHECK_SEED',
  examples: 'CLOUDCHECK_EXAMPLES',
  classes: 'CLOUDCHECK_CLASSES',
  numberSucceed: 'CLOUDCHECK_TEST_NUMBER_SUCCEED',
  numberFail: 'CLOUDCHECK_TEST_NUMBER_FAIL',
  numberRandom: 'CLOUDCHECK_TEST_NUMBER_RANDOM',
  allowCharges: 'CLOUDCHECK_ALLOW_CHARGES',
  liveSms: 'CLOUDCHECK_LIVE_SMS',
  strict: 'CLOUDCHECK_STRICT',
  timeoutScale: 'CLOUDCHECK_TIMEOUT_SCALE',
  requestTimeoutMs: 'CLOUDCHECK_REQUEST_TIMEOUT_MS',
  asyncTimeout: 'CLOUDCHECK_ASYNC_TIMEOUT',
  webhookListen: 'CLOUDCHECK_WEBHOOK_LISTEN',
  webhookUrl: 'CLOUDCHECK_WEBHOOK_URL',
  embedded: 'CLOUDCHECK_EMBEDDED',
  reportDir: 'CLOUDCHECK_REPORT_DIR',
  keep: 'CLOUDCHECK_KEEP',
  runTmp: 'CLOUDCHECK_RUN_TMP',
  keysPerWorker: 'CLOUDCHECK_KEYS_PER_WORKER',
  budgetKeys: 'CLOUDCHECK_BUDGET_KEYS',
  headers: 'CLOUDCHECK_HEADER',
  caCertFile: 'CLOUDCHECK_CA_CERT',
  retries: 'CLOUDCHECK_RETRIES',
  har: 'CLOUDCHECK_HAR',
  driven: 'CLOUDCHECK_DRIVEN',
  progress: 'CLOUDCHECK_PROGRESS',
  startedAt: 'CLOUDCHECK_STARTED_AT',
  baselineFile: 'CLOUDCHECK_BASELINE',
  shard: 'CLOUDCHECK_SHARD',
  workers: 'CLOUDCHECK_WORKERS',
  roundTripMs: 'CLOUDCHECK_ROUND_TRIP_MS',
  selectedWork: 'CLOUDCHECK_SELECTED_WORK',
  maxFailures: 'CLOUDCHECK_MAX_FAILURES',
  grep: 'CLOUDCHECK_GREP',
  grepInvert: 'CLOUDCHECK_GREP_INVERT',
  onlyIds: 'CLOUDCHECK_ONLY_IDS',
  handoffFile: 'CLOUDCHECK_TARGET_FILE',
  suiteIndexOut: 'CLOUDCHECK_SUITE_INDEX_OUT',
} as const;

const V = RUN_VARIABLES;
const flag = (on: boolean): string => (on ? '1' : '0');

/**
 * The variables of a run's settings. Values that are empty or at their default are left out, so
 * the runner's environment says only what was chosen (and a variable the caller already has,
 * such as a key, is not repeated where it is not set).
 */
export function settingsToEnv(s: RunSettings): Record<string, string> {
  const env: Record<string, string> = {
    [V.runId]: s.runId,
    [V.seed]: String(s.seed),
    [V.examples]: String(s.examples),
    [V.classes]: s.classes.join(','),
    [V.numberSucceed]: s.testNumbers.succeed,
    [V.numberFail]: s.testNumbers.fail,
    [V.numberRandom]: s.testNumbers.random,
    [V.allowCharges]: flag(s.allowCharges),
    [V.liveSms]: flag(s.liveSms),
    [V.strict]: flag(s.strict),
    [V.timeoutScale]: String(s.timeoutScale),
    [V.asyncTimeout]: String(s.asyncTimeoutMs / 1000),
    [V.embedded]: flag(s.embedded),
    [V.keep]: flag(s.keep),
    [V.retries]: String(s.retries),
    [V.har]: s.harAll ? 'all' : 'failed',
    [V.driven]: flag(s.driven),
    [V.progress]: flag(s.progress),
    [V.maxFailures]: String(s.maxFailures),
  };
  const optional: Array<[string, string | null]> = [
    [V.target, s.target || null],
    [V.s3Url, s.s3Url],
    // The run's key first, then the more keys of the account: keys hold no commas (run-keys.ts).
    [V.mainKey, s.keys.main ? [s.keys.main, ...s.keys.extra].join(',') : null],
    [V.altKey, s.keys.alt],
    [V.requestTimeoutMs, s.requestTimeoutMs === null ? null : String(s.requestTimeoutMs)],
    [V.webhookListen, s.webhook.listen],
    [V.webhookUrl, s.webhook.url],
    [V.reportDir, s.reportDir],
    [V.runTmp, s.runTmp],
    [V.budgetKeys, s.budgetKeys.length ? s.budgetKeys.join(',') : null],
    // One header a line: a value may hold commas.
    [
      V.headers,
      Object.keys(s.headers).length
        ? Object.entries(s.headers)
            .map(([name, value]) => `${name}: ${value}`)
            .join('\n')
        : null,
    ],
    [V.caCertFile, s.caCertFile],
    [V.startedAt, s.startedAt],
    [V.baselineFile, s.baselineFile],
    [V.shard, s.shard],
    [V.workers, s.workers === null ? null : String(s.workers)],
    [V.roundTripMs, s.roundTripMs === null ? null : String(s.roundTripMs)],
    [V.selectedWork, s.selectedWork === null ? null : `${s.selectedWork.checks},${s.selectedWork.flows}`],
    [V.keysPerWorker, s.keysPerWorker === null ? null : String(s.keysPerWorker)],
    [V.grep, s.selection.grep],
    [V.grepInvert, s.selection.grepInvert],
    [V.onlyIds, s.selection.onlyIds ? s.selection.onlyIds.join(',') : null],
    [V.handoffFile, s.handoffFile],
    [V.suiteIndexOut, s.suiteIndexOut],
  ];
  for (const [name, value] of optional) if (value !== null) env[name] = value;
  return env;
}

/** A number from a variable, or `fallback` when it is missing or fails `valid`. */
function numberFrom(value: string | undefined, fallback: number, valid: (n: number) => boolean): number {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  return Number.isFinite(n) && valid(n) ? n : fallback;
}

/** A number from a variable, or null when it is missing or fails `valid`. */
function optionalNumber(value: string | undefined, valid: (n: number) => boolean): number | null {
  const n = numberFrom(value, Number.NaN, valid);
  return Number.isNaN(n) ? null : n;
}

const orNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);
const listOrNull = (value: string | undefined): string[] | null => (value ? value.split(',').filter(Boolean) : null);

/**
 * The settings of the run this process belongs to. `requireTarget: false` for the runner and the
 * reporter, which also run before a target is known (or when none could be started).
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv, options: { requireTarget?: boolean } = {}): RunSettings {
  // The runner's entry from the environment: a bare `npx playwright test` takes the variable as
  // the user wrote it, so its URL is normalised here, once, as the CLI's are at resolution.
  const target = normaliseBaseUrl(env[V.target] ?? '');
  if (!target && options.requireTarget !== false) targetSettings({ target });
  const runId = env[V.runId] || 'adhoc';
  const s3Url = orNull(env[V.s3Url]);
  const [main = '', ...extra] = decodeRunKeys(env[V.mainKey]);
  return {
    runId,
    runPrefix: `${RUN_PREFIX}${runId}-`,
    target,
    s3Url: s3Url === null ? null : normaliseBaseUrl(s3Url),
    keys: { main, alt: orNull(env[V.altKey]), extra },
    seed: numberFrom(env[V.seed], DEFAULT_SEED, () => true),
    examples: numberFrom(env[V.examples], DEFAULT_EXAMPLES, (n) => Number.isInteger(n) && n >= 1),
    classes: parseClasses(env[V.classes]),
    testNumbers: {
      succeed: env[V.numberSucceed] || DEFAULT_TEST_NUMBERS.succeed,
      fail: env[V.numberFail] || DEFAULT_TEST_NUMBERS.fail,
      random: env[V.numberRandom] || DEFAULT_TEST_NUMBERS.random,
    },
    allowCharges: parseBool(env[V.allowCharges]) ?? false,
    liveSms: parseBool(env[V.liveSms]) ?? false,
    strict: parseBool(env[V.strict]) ?? false,
    timeoutScale: numberFrom(env[V.timeoutScale], 1, (n) => n > 0),
    requestTimeoutMs: numberFrom(env[V.requestTimeoutMs], 0, (n) => n > 0) || null,
    asyncTimeoutMs: numberFrom(env[V.asyncTimeout], ASYNC_TIMEOUT_DEFAULT_S, (n) => n > 0) * 1000,
    webhook: webhookSettings(target, orNull(env[V.webhookListen]), orNull(env[V.webhookUrl])),
    embedded: parseBool(env[V.embedded]) ?? false,
    reportDir: orNull(env[V.reportDir]),
    keep: parseBool(env[V.keep]) ?? false,
    runTmp: orNull(env[V.runTmp]),
    keysPerWorker: optionalNumber(env[V.keysPerWorker], (n) => Number.isInteger(n) && n >= 0),
    budgetKeys: decodeRunKeys(env[V.budgetKeys]),
    headers: headersFromList((env[V.headers] ?? '').split('\n')),
    caCertFile: orNull(env[V.caCertFile]),
    retries: numberFrom(env[V.retries], DEFAULT_RETRIES, (n) => Number.isInteger(n) && n >= 0),
    harAll: env[V.har] === 'all',
    driven: parseBool(env[V.driven]) ?? false,
    progress: parseBool(env[V.progress]) ?? false,
    startedAt: orNull(env[V.startedAt]),
    baselineFile: orNull(env[V.baselineFile]),
    shard: orNull(env[V.shard]),
    workers: numberFrom(env[V.workers], 0, (n) => Number.isInteger(n) && n > 0) || null,
    roundTripMs: optionalNumber(env[V.roundTripMs], (n) => n >= 0),
    selectedWork: selectedWorkFrom(env[V.selectedWork]),
    maxFailures: numberFrom(env[V.maxFailures], 0, (n) => Number.isInteger(n) && n >= 0),
    selection: {
      grep: orNull(env[V.grep]),
      grepInvert: orNull(env[V.grepInvert]),
      onlyIds: listOrNull(env[V.onlyIds]),
    },
    handoffFile: orNull(env[V.handoffFile]),
    suiteIndexOut: orNull(env[V.suiteIndexOut]),
  };
}

/** The settings of a process that sends requests (a worker): they must name the target. */
export function targetSettings<S extends { target: string }>(settings: S): S {
  if (!settings.target)
    throw new Error(
      'CLOUDCHECK_TARGET is not set: run the suite through `cloudcheck run` or `npx playwright test` (whose global setup starts the reference server)',
    );
  return settings;
}

let current: RunSettings | undefined;

/**
 * The settings of the run this process belongs to (the runner, a worker): read from the
 * environment the first time they are needed, then the same object for every reader of the process.
 */
export function processSettings(): RunSettings {
  return (current ??= settingsFromEnv(process.env, { requireTarget: false }));
}

/**
 * Settings completed in this process (the config's run id and directories, the global setup's
 * target and keys): kept as the process's settings, and written into the environment that
 * the workers started after this inherit (the run contract's one writer, settingsToEnv).
 */
export function publishSettings(settings: RunSettings): RunSettings {
  current = settings;
  Object.assign(process.env, settingsToEnv(settings));
  return settings;
}

/** The environment without the run contract's variables: what a runner of another run must not inherit. */
export function withoutRunVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names = new Set<string>(Object.values(RUN_VARIABLES));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
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
