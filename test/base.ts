/**
 * The `test` and `expect` of the project's own tests: Playwright's, made as cheap per test and per
 * assertion as the conformance suite's (src/harness/fixtures.ts, src/harness/expect.ts).
 *
 * Profiling `npm test`'s own workers (2026-11-26) put about a quarter of their CPU in Playwright's
 * bookkeeping rather than in the tests: every `expect(...)` records a step with a source-mapped
 * stack that crosses to the runner (the fuzz tests assert inside properties run hundreds of
 * times), and every test sets up and tears down the browser fixtures of the full `test` (trace
 * recording, context options) as steps of their own. Here:
 * - `test` is the root test type, without those fixtures: no test here uses a page (the report
 *   page's test launches chromium itself, and takes `expect` from Playwright beside `chromium`).
 *   Every file takes this one: a file on another test type needs workers of its own (Playwright
 *   keeps a worker to one set of fixtures), each a start-up more;
 * - `expect` decides assertions that pass with a narrower predicate first and hands everything
 *   else to Playwright's, so a failure reads exactly as Playwright's own.
 */
export { _baseTest as test } from '@playwright/test';
export { expect } from '../src/harness/expect.ts';
