import { defineConfig } from '@playwright/test';

// The project's own tests (unit, reference-server behaviour, suite-vs-reference, faults, report page).
// They run with Playwright's runner too, so one tool drives everything; no browser is needed
// except by the report-page test, which launches Debian's chromium itself.
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  timeout: 120_000,
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../test-results/results.json' }]] : 'list',
  outputDir: '../test-results/artifacts',
});
