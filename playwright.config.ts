/**
 * The conformance suite as a Playwright project set: one project per conformance class, each
 * selecting its checks by tag (`@class:<name>`). `cloudcheck run` drives it (the run's settings
 * cross as the run contract's variables, src/harness/settings.ts); `npx playwright test` works on
 * its own too: the global setup then starts the embedded reference server.
 *
 * This file is evaluated in the runner and again in every worker; the settings a direct run must
 * share (run id, report dir, temp dir, start time) are completed and published the first time,
 * and workers inherit them.
 */
import { defineConfig } from '@playwright/test';
import type { ReporterDescription } from '@playwright/test';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_CLASSES } from './spec/classes.ts';
import { DEFAULT_WORKERS, RUN_PREFIX, newRunId, processSettings, publishSettings } from './src/harness/settings.ts';
import type { RunSettings } from './src/harness/settings.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/** A direct run's settings, completed once: a driven run's CLI has set all of them. */
function completed(settings: RunSettings): RunSettings {
  if (settings.driven || (settings.runTmp && settings.reportDir && settings.startedAt)) return settings;
  const runId = settings.runId === 'adhoc' ? newRunId() : settings.runId;
  const done: RunSettings = {
    ...settings,
    runId,
    runPrefix: `${RUN_PREFIX}${runId}-`,
    reportDir: settings.reportDir ?? resolve(root, 'reports', runId),
    runTmp: settings.runTmp ?? join(tmpdir(), `cloudcheck-${runId}`),
    startedAt: settings.startedAt ?? new Date().toISOString(),
  };
  return publishSettings(done);
}

const settings = completed(processSettings());

/**
 * Run directly, a person also gets the list reporter; driven, the CLI prints the progress. The
 * scheduler reports nothing: it orders the run for its critical path and starts its slow
 * provisioning (src/harness/scheduler.ts).
 */
const reporter: ReporterDescription[] = [['./src/harness/scheduler.ts'], ['./src/report/playwright-reporter.ts']];
if (!settings.driven) reporter.unshift(['list']);

/**
 * Run directly, the suite has one project per class (`npx playwright test --project=compute`).
 * Driven by `cloudcheck run`, it has one project for all the selected classes: Playwright starts
 * fresh workers for every project, and each worker costs start-up time and an API key of budget.
 */
function classPattern(classes: readonly string[]): RegExp {
  const names = classes.map((name) => name.replace(/-/g, '\\-')).join('|');
  return new RegExp(`@class:(?:${names})(?![\\w-])`);
}

export default defineConfig({
  testDir: 'suites',
  testMatch: '**/*.spec.ts',
  // A check's own work plus two waits for asynchronous changes (ctx.poll), each bounded by the
  // run's --async-timeout: a slow but conformant target must fail on the wait's own message
  // ("waited N s for ..."), never on this timeout.
  timeout: 60_000 * Math.max(1, settings.timeoutScale) + 2 * settings.asyncTimeoutMs,
  expect: { timeout: 5_000 },
  fullyParallel: true,
  workers: settings.workers ?? DEFAULT_WORKERS,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter,
  outputDir: join(settings.runTmp!, 'artifacts'),
  globalSetup: './src/harness/global-setup.ts',
  globalTeardown: './src/harness/global-teardown.ts',
  // Driven, the selection (classes, --grep, --grep-invert) is made where checks are defined
  // (src/harness/selection.ts): a flow step selected alone brings the steps it depends on.
  projects: settings.driven
    ? [{ name: 'conformance' }]
    : CONFORMANCE_CLASSES.map((name) => ({ name, grep: classPattern([name]) })),
});
