/**
 * The conformance suite as a Playwright project set: one project per conformance class, each
 * selecting its checks by tag (`@class:<name>`). `cloudcheck run` drives it (passing settings as
 * CLOUDCHECK_* environment variables, the classes in CLOUDCHECK_RUN_CLASSES); `npx playwright test`
 * works on its own too: the global setup then starts the embedded reference server.
 *
 * This file is evaluated in the runner and again in every worker; values that must be the same
 * everywhere (run id, report dir, temp dir) are put into process.env the first time, and workers
 * inherit them.
 */
import { defineConfig } from '@playwright/test';
import type { ReporterDescription } from '@playwright/test';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_CLASSES } from './spec/classes.ts';
import { ASYNC_TIMEOUT_DEFAULT_S, newRunId } from './src/harness/settings.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const env = process.env;
env.CLOUDCHECK_RUN_ID ||= newRunId();
env.CLOUDCHECK_REPORT_DIR ||= resolve(root, 'reports', env.CLOUDCHECK_RUN_ID);
env.CLOUDCHECK_RUN_TMP ||= join(tmpdir(), `cloudcheck-${env.CLOUDCHECK_RUN_ID}`);
env.CLOUDCHECK_STARTED_AT ||= new Date().toISOString();

/** `cloudcheck run` sets CLOUDCHECK_DRIVEN; a person running Playwright directly also gets the list reporter. */
const driven = env.CLOUDCHECK_DRIVEN === '1';
const reporter: ReporterDescription[] = [['./src/report/playwright-reporter.ts']];
if (!driven) reporter.unshift(['list']);

// `cloudcheck run --workers N` (CLOUDCHECK_WORKERS).
const workers = Number(env.CLOUDCHECK_WORKERS ?? 2);

function asyncTimeoutSeconds(): number {
  const seconds = Number(env.CLOUDCHECK_ASYNC_TIMEOUT ?? ASYNC_TIMEOUT_DEFAULT_S);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : ASYNC_TIMEOUT_DEFAULT_S;
}

/**
 * Run directly, the suite has one project per class (`npx playwright test --project=compute`).
 * Driven by `cloudcheck run`, it has one project for all the selected classes: Playwright starts
 * fresh workers for every project, and each worker costs start-up time and an API key of budget.
 */
const runClasses = env.CLOUDCHECK_RUN_CLASSES ? env.CLOUDCHECK_RUN_CLASSES.split(',').filter(Boolean) : null;
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
  timeout: 60_000 * Math.max(1, Number(env.CLOUDCHECK_TIMEOUT_SCALE ?? 1) || 1) + 2 * 1000 * asyncTimeoutSeconds(),
  expect: { timeout: 5_000 },
  fullyParallel: true,
  workers: Number.isFinite(workers) && workers > 0 ? workers : 2,
  retries: 0,
  forbidOnly: !!env.CI,
  reporter,
  outputDir: join(env.CLOUDCHECK_RUN_TMP, 'artifacts'),
  globalSetup: './src/harness/global-setup.ts',
  globalTeardown: './src/harness/global-teardown.ts',
  // Driven, the selection (classes, --grep, --grep-invert) is made where checks are defined
  // (src/harness/selection.ts): a flow step selected alone brings the steps it depends on.
  projects: runClasses ? [{ name: 'conformance' }] : CONFORMANCE_CLASSES.map((name) => ({ name, grep: classPattern([name]) })),
});
