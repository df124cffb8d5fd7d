/**
 * Playwright fixtures behind the check API (check.ts). Suites do not import this file directly:
 * they use `defineCheck` / `defineFlow`, which hand the fixtures to the check body.
 *
 * Worker scope (`harness`): the run settings, the request budgets (main account: the run's key
 * plus this worker's slice of the keys the runner created, run-keys.ts; alt account: the alt key),
 * one non-recording client used for teardown, the worker ledger and the flows' ledgers and state.
 * Its teardown deletes what is left (the runner revokes the keys, after every worker ended).
 *
 * Test scope: `api` (recording client; exchanges attached to the test at its end), `ledger`
 * (per check, torn down after the check even when it failed; a flow's steps share the flow's),
 * `ctx` (settings and small helpers).
 */
// The root test type, without Playwright's browser fixtures: checks drive HTTP through their own
// client, and the full `test` sets up two automatic fixtures per test (trace recording, browser
// context options) whose steps cost more CPU than a check's requests. `_baseTest` is exported and
// typed by @playwright/test (the version is pinned).
import { _baseTest as base } from '@playwright/test';
import type { TestInfo } from '@playwright/test';
import type { Faker } from '@faker-js/faker';
import type { Exchange } from '../model/finding.ts';
import { Budget } from './budget.ts';
import { ApiClient, closeProcessAgent } from './client.ts';
import { CloudcheckError, PrerequisiteMissingError, isEnvironmentError } from './errors.ts';
import { fail } from './failure.ts';
import { Ledger } from './ledger.ts';
import { addSecret } from './redact.ts';
import { sharedKeyReserve } from './concurrency.ts';
import { statsOf } from './request-stats.ts';
import { keysForWorker } from './run-keys.ts';
import { repeatedId } from './selection.ts';
import { checkSettingsOf, processSettings, targetSettings } from './settings.ts';
import { closeWebhookReceiver } from './webhook-receiver.ts';
import type { CheckSettings, RunSettings } from './settings.ts';

export const ANNOTATION = {
  id: 'cc.id',
  requirement: 'cc.requirement',
  level: 'cc.level',
  class: 'cc.class',
  operation: 'cc.operation',
  flow: 'cc.flow',
  classification: 'cc.classification',
  location: 'cc.location',
  /** A flow step that runs only to set up the state of a selected step after it (selection.ts). */
  setup: 'cc.setup',
  /** A SHOULD check's failed assertion (see check.ts `wrap`): the test passes, the report fails it. */
  deviation: 'cc.deviation',
  /** A standalone check's failure (check.ts `recordFailure`): the test passes, the report fails it. */
  failure: 'cc.failure',
  /** The failure of a `failure` or `deviation` as data (failure.ts FailureRecord, JSON): what the reporter reads. */
  failureData: 'cc.failure-data',
  /** The stack of a cloudcheck error recorded as a `failure`. */
  stack: 'cc.stack',
  /** A flow step skipped because an earlier step failed: that step's id (the report's `skipped_after`). */
  skippedAfter: 'cc.skipped-after',
  /** Milliseconds one `ctx.poll` waited (one annotation per wait); the report sums them per class. */
  waited: 'cc.waited',
  /** The provisions a check takes (provision.ts), comma-separated: the runner starts them early. */
  provision: 'cc.provision',
} as const;

/** Polls back off to this interval at most. */
const MAX_POLL_INTERVAL_MS = 5_000;

export interface PollOptions {
  /** Deadline of this wait (only for waits that are not for the target); default --async-timeout. */
  timeoutMs?: number;
  /** First interval between probes (doubling up to 5 s); default 100 ms. */
  intervalMs?: number;
  /** Epoch ms before which the probe cannot succeed (an expiry): the first probe waits for it. */
  notBefore?: number;
  /**
   * Judges what the last probe saw when the deadline passes (an assertion that throws): a wait
   * that ends on a wrong answer fails on that answer (a deleted VPS still answering 200), not
   * only on the time it took; when it does not throw, the wait fails as a timing failure.
   */
  atDeadline?: () => void;
}
const FIRST_POLL_INTERVAL_MS = 100;

export const EXCHANGES_ATTACHMENT = 'cloudcheck-exchanges';

/**
 * What a check that passed keeps of its exchanges: method, URL and status, enough for coverage
 * (`[method, url, status | null][]` as JSON in an annotation). Only a check the report fails needs
 * the whole exchanges (headers, bodies, curl lines); attaching them for every check cost more CPU
 * than the requests themselves (each attachment is a test step, serialised to the runner).
 */
export const SEEN_ANNOTATION = 'cc.seen';
/** What the check's own requests cost in time (request-stats.ts RequestStats, as JSON). */
export const REQUESTS_ANNOTATION = 'cc.requests';
/** How many of a check's requests were retries of one that got no answer (`--retries`). */
export const RETRIED_ANNOTATION = 'cc.retried';
export type SeenExchange = [method: string, url: string, status: number | null];

/** What `ctx` gives a check: the run's settings plus helpers that depend on the check. */
export interface CheckContext extends CheckSettings {
  /** The check's id; `<id>#k` in repetition k of a run with several (selection.ts). */
  checkId: string;
  /** A unique name with the run prefix: `cc-<runid>-<label>-<n>`, lowercase, at most 63 chars (bucket-safe). */
  name(label?: string): string;
  /** Faker seeded from the run seed and the check id: same seed, same data. */
  faker: Faker;
  /** A duration multiplied by CLOUDCHECK_TIMEOUT_SCALE. */
  scaled(ms: number): number;
  /**
   * Calls `probe` until it returns something other than undefined/false, every `intervalMs`, for
   * at most `timeoutMs` (both scaled). Throws with `what` in the message when time runs out.
   */
  poll<T>(what: string, probe: () => Promise<T | undefined | false>, options?: PollOptions): Promise<T>;
  /** Skips the check (status skipped, not failed) unless the run has a second account key. */
  requireAlt(): string;
  /** Skips the check unless the run allows money-moving operations (--allow-charges). */
  requireCharges(): void;
  /**
   * Skips the check unless the run has a webhook receiver the target can reach. Returns the
   * settings; `url` is null when the target calls the listen address itself (often port 0: the
   * bound URL is known only once listening). Use `webhookReceiver()` (webhook-receiver.ts) for the
   * receiver and its URLs.
   */
  requireWebhook(): { listen: string | null; url: string | null };
  /** Skips the check unless the run knows the S3-compatible endpoint. */
  requireS3(): string;
  testInfo: TestInfo;
}

interface FlowScope {
  ledger: Ledger;
  state: Record<string, unknown>;
}

/** Worker-scoped resources, one per Playwright worker process. */
export class WorkerHarness {
  readonly settings: RunSettings;
  readonly budgets: { main: Budget; alt: Budget | null };
  /** Non-recording client: key creation and teardown. */
  readonly client: ApiClient;
  readonly ledger: Ledger;
  private readonly flows = new Map<string, FlowScope>();

  /** `parallelIndex` (0..workers-1) picks this worker's share of the run's keys. */
  constructor(settings: RunSettings, workerIndex: number, parallelIndex = workerIndex, workers = 1) {
    this.settings = settings;
    const journal = settings.runTmp;
    this.ledger = new Ledger(`worker-${workerIndex}`, journal, { keep: settings.keep });
    this.budgets = mainAndAltBudgets(settings, parallelIndex, workers);
    this.client = new ApiClient({ settings, budgets: this.budgets });
  }

  clientFor = (account: 'main' | 'alt'): ApiClient | null =>
    account === 'alt' && !this.budgets.alt ? null : this.client;

  flow(flowId: string): FlowScope {
    let scope = this.flows.get(flowId);
    if (!scope) {
      scope = { ledger: new Ledger(`flow:${flowId}`, this.settings.runTmp, { keep: this.settings.keep }), state: {} };
      this.flows.set(flowId, scope);
    }
    return scope;
  }

  async endFlow(flowId: string): Promise<void> {
    const scope = this.flows.get(flowId);
    if (!scope) return;
    this.flows.delete(flowId);
    await scope.ledger.teardown(this.clientFor);
  }

  async close(): Promise<void> {
    for (const flowId of [...this.flows.keys()]) await this.endFlow(flowId);
    await this.ledger.teardown(this.clientFor);
    await closeWebhookReceiver();
    await closeProcessAgent();
  }
}

/**
 * The budgets of one worker. Main: the run's key and this worker's share of the budget keys (the
 * run's own and the more keys given); with those, the run's key is kept out of billing traffic
 * (its billing window is for key management). Without (keys per worker 0, or the target refused
 * to create keys, and no more keys given), the run's key does everything.
 * Every worker uses the run's key: each keeps a reserve on it that grows with the workers of the run.
 */
export function mainAndAltBudgets(
  settings: RunSettings,
  parallelIndex: number,
  workers: number,
): { main: Budget; alt: Budget | null } {
  // Up to a whole per-minute window: a busy run (or its teardown) waits for the next window of a
  // key rather than giving up a check or leaving a resource behind.
  const maxWaitMs = 65_000 * settings.timeoutScale;
  const own = keysForWorker(settings.budgetKeys, parallelIndex, workers);
  for (const key of own) addSecret(key);
  const shared = sharedKeyReserve(workers);
  return {
    main: new Budget([...own, settings.keys.main], {
      maxWaitMs,
      keptOut: own.length > 0 ? { billing: [settings.keys.main] } : undefined,
      reserveOf: { [settings.keys.main]: shared },
    }),
    alt: settings.keys.alt ? new Budget([settings.keys.alt], { maxWaitMs, reserve: shared }) : null,
  };
}

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

function annotationValue(testInfo: TestInfo, type: string): string | undefined {
  return testInfo.annotations.find((a) => a.type === type)?.description;
}

/** The check's id (its annotation; a test of the project's own without one: its title path). */
function checkIdOf(testInfo: TestInfo): string {
  return annotationValue(testInfo, ANNOTATION.id) ?? testInfo.titlePath.join(' ');
}

/**
 * The English instance alone (the package's index loads every locale, about 100 ms), loaded with
 * the first check: the runner loads this module with the suite files but runs no check, and
 * loading it costs about 30 ms of CPU there in every run.
 */
let englishFaker: Promise<Faker> | undefined;
function loadFaker(): Promise<Faker> {
  // A package that does not load is cloudcheck's error, never the target's (errors.ts, loadDependency).
  englishFaker ??= import('@faker-js/faker/locale/en').then(
    (m) => m.faker,
    (error: Error) => {
      throw new CloudcheckError(`cannot load @faker-js/faker: ${error.message}`, { cause: error });
    },
  );
  return englishFaker;
}

export function makeContext(settings: RunSettings, testInfo: TestInfo, faker: Faker): CheckContext {
  const checkId = checkIdOf(testInfo);
  // One instance per worker, reseeded per check: a worker runs one check at a time, and the
  // seed alone decides the data (same seed, same data; every repetition of a check the same).
  faker.seed(hashString(`${settings.seed}:${repeatedId(checkId)}`));
  let counter = 0;
  const scaled = (ms: number): number => Math.round(ms * settings.timeoutScale);
  return {
    ...checkSettingsOf(settings),
    checkId,
    testInfo,
    faker,
    scaled,
    name(label = 'r') {
      counter++;
      const tail = `${label}-${testInfo.workerIndex}${counter}${Math.random().toString(36).slice(2, 5)}`;
      return `${settings.runPrefix}${tail}`
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 63)
        .replace(/-+$/, '');
    },
    async poll<T>(what: string, probe: () => Promise<T | undefined | false>, options: PollOptions = {}): Promise<T> {
      // One deadline for every wait (--async-timeout), so a slow but conformant target passes;
      // `timeoutMs` only for waits that are not for the target (tests of the suite itself).
      const limit = options.timeoutMs ?? settings.asyncTimeoutMs;
      const started = Date.now();
      // A first look soon after: a reference server's boots and approvals take a few hundred ms,
      // and the doubling reaches a real cloud's pace (5 s) after six probes.
      let interval = options.intervalMs ?? FIRST_POLL_INTERVAL_MS;
      try {
        // Nothing can change before this moment (an expiry): waiting for it is part of the wait.
        if (options.notBefore !== undefined)
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, options.notBefore! - Date.now())));
        for (;;) {
          const value = await probe();
          if (value !== undefined && value !== false) return value;
          const waited = Date.now() - started;
          if (waited >= limit) {
            options.atDeadline?.();
            fail({
              kind: 'timing',
              subject: what,
              expected: `within ${(limit / 1000).toFixed(0)} s`,
              actual: `not after ${(waited / 1000).toFixed(1)} s`,
              says: `waited ${(waited / 1000).toFixed(1)} s (the deadline, --async-timeout) for ${what}, in vain`,
            });
          }
          await new Promise((resolve) => setTimeout(resolve, Math.min(interval, limit - waited)));
          // Back off: a real cloud takes minutes, and every poll counts against the rate budget.
          interval = Math.min(MAX_POLL_INTERVAL_MS, interval * 2);
        }
      } finally {
        testInfo.annotations.push({ type: ANNOTATION.waited, description: String(Date.now() - started) });
      }
    },
    requireAlt() {
      testInfo.skip(!settings.keys.alt, 'needs a second account: pass --alt-api-key');
      return settings.keys.alt!;
    },
    requireCharges() {
      testInfo.skip(!settings.allowCharges, 'moves money: pass --allow-charges');
    },
    requireWebhook() {
      testInfo.skip(
        !settings.webhook.url && !settings.webhook.listen,
        'needs a webhook receiver the target can reach: the target is not on loopback, so pass --webhook-listen HOST:PORT (and --webhook-url URL if it reaches this machine another way)',
      );
      return { ...settings.webhook };
    },
    requireS3() {
      testInfo.skip(!settings.s3Url, 'needs the S3-compatible endpoint: pass --s3-url');
      return settings.s3Url!;
    },
  };
}

export interface TestFixtures {
  api: ApiClient;
  ledger: Ledger;
  ctx: CheckContext;
  /** The flow's shared state object (empty object outside flows). */
  flowState: Record<string, unknown>;
}

export interface WorkerFixtures {
  harness: WorkerHarness;
}

/**
 * Fixtures are not test steps: a step captures a 50-frame stack through source maps and is sent to
 * the runner, twice per fixture per check (setup and teardown), which cost more CPU than most
 * checks' requests. Steps the checks make themselves (assertions that fail, test.step) remain.
 */
const BOXED = { scope: 'test', box: 'self' } as const;

/**
 * A fixture's own error (set-up or tear-down, outside the check's body) judged nothing of the
 * target: it is classified here, as data, `environment` or `cloudcheck-error` (errors.ts), the way
 * the check wrapper classifies the body's errors (check.ts). The check's own failures do not pass
 * through here: `use` returns when the body ends, however it ended.
 */
function outsideTheCheck<U>(
  fixture: (args: { harness: WorkerHarness }, use: U, testInfo: TestInfo) => Promise<void>,
): (args: { harness: WorkerHarness }, use: U, testInfo: TestInfo) => Promise<void> {
  // Destructured: Playwright reads a fixture's dependencies from its first parameter's pattern.
  return async ({ harness }, use, testInfo) => {
    try {
      await fixture({ harness }, use, testInfo);
    } catch (error) {
      const classification = isEnvironmentError(error) ? 'environment' : 'cloudcheck-error';
      testInfo.annotations.push({ type: ANNOTATION.classification, description: classification });
      throw error;
    }
  };
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  harness: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form for fixtures without dependencies
    async ({}, use, workerInfo) => {
      const settings = targetSettings(processSettings());
      // The number the global setup chose (published in the settings) when it chose one.
      const workers = settings.workers ?? workerInfo.config.workers;
      const harness = new WorkerHarness(settings, workerInfo.workerIndex, workerInfo.parallelIndex, workers);
      try {
        await use(harness);
      } finally {
        await harness.close();
      }
    },
    { scope: 'worker', timeout: 120_000, box: 'self' },
  ],
  api: [
    outsideTheCheck(async ({ harness }, use, testInfo) => {
      const exchanges: Exchange[] = [];
      const api = harness.client.forCheck(checkIdOf(testInfo), (exchange) => exchanges.push(exchange));
      await use(api);
      const stats = statsOf(api.sent);
      if (stats) testInfo.annotations.push({ type: REQUESTS_ANNOTATION, description: JSON.stringify(stats) });
      if (exchanges.length === 0) return;
      const retried = exchanges.filter((e) => (e.attempt ?? 1) > 1).length;
      if (retried > 0) testInfo.annotations.push({ type: RETRIED_ANNOTATION, description: String(retried) });
      const reportedAsPassed =
        testInfo.status === 'passed' &&
        !testInfo.annotations.some((a) => a.type === ANNOTATION.deviation || a.type === ANNOTATION.failure);
      // `--har all` keeps every check's exchanges; otherwise a pass keeps method, URL and status.
      if (reportedAsPassed && !harness.settings.harAll) {
        const seen: SeenExchange[] = exchanges.map((e) => [
          e.request.method,
          e.request.url,
          e.response?.status ?? null,
        ]);
        testInfo.annotations.push({ type: SEEN_ANNOTATION, description: JSON.stringify(seen) });
      } else {
        await testInfo.attach(EXCHANGES_ATTACHMENT, {
          body: JSON.stringify(exchanges),
          contentType: 'application/json',
        });
      }
    }),
    BOXED,
  ],
  ledger: [
    outsideTheCheck(async ({ harness }, use, testInfo) => {
      const flowId = annotationValue(testInfo, ANNOTATION.flow);
      if (flowId) {
        await use(harness.flow(flowId).ledger);
        return;
      }
      const ledger = new Ledger(
        `check:${annotationValue(testInfo, ANNOTATION.id) ?? testInfo.testId}`,
        harness.settings.runTmp,
        { keep: harness.settings.keep },
      );
      try {
        await use(ledger);
      } finally {
        const leaks = await ledger.teardown(harness.clientFor);
        for (const leak of leaks)
          testInfo.annotations.push({ type: 'cc.leak', description: `${leak.kind} ${leak.id}: ${leak.reason}` });
      }
    }),
    BOXED,
  ],
  ctx: [
    outsideTheCheck(async ({ harness }, use, testInfo) => {
      await use(makeContext(harness.settings, testInfo, await loadFaker()));
    }),
    BOXED,
  ],
  flowState: [
    async ({ harness }, use, testInfo) => {
      const flowId = annotationValue(testInfo, ANNOTATION.flow);
      await use(flowId ? harness.flow(flowId).state : {});
    },
    BOXED,
  ],
});

export { PrerequisiteMissingError };
