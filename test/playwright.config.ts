import { defineConfig } from '@playwright/test';
import { availableParallelism } from 'node:os';

// The project's own tests (unit, reference-server behaviour, suite-vs-reference, faults, report page).
// They run with Playwright's runner too, so one tool drives everything; no browser is needed
// except by the report-page test, which launches Debian's chromium itself.

/**
 * Files whose tests mostly wait (load windows, explored sequences waiting on boots and deliveries:
 * each file uses under half a core when run alone): one project with a worker of its own, first in
 * the order, so that the waits run beside the tests that keep the CPU busy instead of taking the
 * workers those need. Its files run one after another: together they must stay well inside the
 * run (the variant matrix, once here too, made this worker the run's critical path).
 */
const WAITING = ['load/reference.test.ts', 'explore/explore.test.ts'];

/**
 * Files whose tests run `cloudcheck` as a child process (up to minutes per test): one project
 * ahead of the rest, so the long runs start at once and the quick tests fill the gaps instead of
 * a long run forming the tail. One project, not one per file: a worker serves one project, and
 * each project of its own cost its workers' start-ups (about 2 s of CPU each). Within a project
 * Playwright takes the files in alphabetical order.
 */
const FIRST = [
  'flows/flows.test.ts',
  'trust/broken-target.test.ts',
  'trust/fault-matrix.test.ts',
  'trust/grep-walk.test.ts',
  'trust/safety.test.ts',
  'trust/variant-matrix.test.ts',
];

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  timeout: 120_000,
  fullyParallel: true,
  // Four at least: Playwright's default (half the cores) is one worker on a 2-core machine, where
  // most of these tests wait on the cloudcheck runs they start (13.5 minutes against 8.7 with two).
  // With fewer, all of them waited at once for part of the run: a core idle 150 core-seconds with
  // two, 41 with three, 29 with four (the static checks at low priority beside them, taking what
  // the tests leave). Plus one for the waiting project, which holds it most of the run.
  workers: (process.env.CI ? 4 : Math.max(4, Math.floor(availableParallelism() / 2))) + 1,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../test-results/results.json' }]] : 'list',
  outputDir: '../test-results/artifacts',
  // Without the project name (files are split into projects only to order them, above).
  snapshotPathTemplate: '{testDir}/{testFilePath}-snapshots/{arg}-{platform}{ext}',
  projects: [
    { name: 'waiting', testMatch: WAITING, workers: 1 },
    { name: 'long', testMatch: FIRST },
    { name: 'rest', testIgnore: [...WAITING, ...FIRST] },
  ],
});
