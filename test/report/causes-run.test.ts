/**
 * Causes from real runs against the embedded server: a fault (and a legal variant under --strict)
 * whose failures share one cause must read as one cause in report.json, the console and the page,
 * and the page, opened in Chromium, must open on the causes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import { expect, test } from '../base.ts';
import { cli } from '../cli/helpers.ts';
import type { ConformanceReport } from '../../src/model/report.ts';

const CHROMIUM = '/usr/bin/chromium';

let dir: string;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cloudcheck-causes-'));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(name: string, args: string[], env: Record<string, string>) {
  const out = join(dir, name);
  const result = await cli(['run', '--workers', '1', '--report-dir', out, ...args], env);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ConformanceReport;
  return { ...result, out, report };
}

test('a list without `meta` (vps-list-meta-missing): every check it fails is one MUST cause, first on the page', async () => {
  test.setTimeout(180_000);
  const r = await run('meta', ['--grep', 'VPS-LIST-001|PAGE-NUM-001'], {
    CLOUDCHECK_EMBEDDED_FAULTS: 'vps-list-meta-missing',
  });
  expect(r.code, r.stderr).toBe(1);
  const failedChecks = r.report.checks.filter((c) => c.status === 'failed');
  expect(failedChecks.length).toBeGreaterThan(1);
  expect(r.report.clusters).toHaveLength(1);
  const cause = r.report.clusters![0]!;
  expect(cause).toMatchObject({ level: 'MUST', cause: '`meta` missing', kind: 'schema', subject: 'meta' });
  expect(cause.checks.sort()).toEqual(failedChecks.map((c) => c.id).sort());
  expect(cause.requirements).toEqual(['PAGE-NUM-001', 'VPS-LIST-001']);
  for (const c of failedChecks) expect(c.cluster).toBe(cause.id);
  expect(r.stdout).toContain('causes: 1 cause (1 MUST)');
  expect(r.stdout).toMatch(/MUST {3}GET \/vps: `meta` missing: \d+ checks/);

  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: the page is checked as text only`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await page.goto(pathToFileURL(join(r.out, 'report.html')).href);
    // The first section after the verdict's overview is the causes; its first cause is open and in view.
    expect(await page.locator('main > section').nth(1).getAttribute('id')).toBe('causes');
    const first = page.locator('#causes details.cause').first();
    expect(await first.getAttribute('open')).toBe('');
    expect(await first.locator('> summary').textContent()).toContain('GET /vps: `meta` missing');
    expect(await first.locator('.repro code').textContent()).toContain('curl');
    expect(await first.isVisible()).toBe(true);
    await first.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('causes.png') });
    expect(await page.locator('nav a[href="#causes"]').textContent()).toContain('causes 1');
  } finally {
    await browser.close();
  }
});

test('every validation refusal answered 400 (variant validation-400, --strict): one SHOULD cause over many operations', async () => {
  test.setTimeout(180_000);
  const r = await run('v400', ['--strict', '--grep', 'ERR-MAP-004'], {
    CLOUDCHECK_EMBEDDED_VARIANTS: 'validation-400',
  });
  expect(r.code, r.stderr).toBe(1);
  const failedChecks = r.report.checks.filter((c) => c.status === 'failed');
  expect(failedChecks.length).toBeGreaterThan(50);
  expect(r.report.clusters!.map((c) => `${c.level} ${c.cause}`)).toEqual(['SHOULD answered 400, convention 422']);
  expect(r.report.clusters![0]!.operations.length).toBeGreaterThan(20);
  const summary = readFileSync(join(r.out, 'summary.md'), 'utf8');
  expect(summary).toMatch(
    /## 1 cause \(1 SHOULD\)\n\n### 1\. SHOULD: answered 400, convention 422: \d+ checks over \d+ operations/,
  );
});
