/**
 * report.html in a real browser: Debian's chromium (a documented requirement of the project's
 * tests; CI installs it), driven by Playwright, loading the page from file:// with the network
 * features of the browser switched off.
 */
/* eslint-disable no-empty-pattern -- Playwright reads fixtures from a destructured first argument; these tests use none (chromium is launched by hand) */
import { existsSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, expect, type Browser, type Page } from '@playwright/test';
import { test } from '../base.ts';
import { renderHtmlReport } from '../../src/report/html/index.ts';
import { fixture, requirements } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

test.describe('report.html in chromium', () => {
  test.skip(
    !existsSync(CHROMIUM),
    `${CHROMIUM} is missing (apt-get install chromium); the page is only checked as text`,
  );

  let browser: Browser;
  test.beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  test.afterAll(async () => {
    await browser?.close();
  });

  /** Writes the fixture page and opens it; collects console errors, page errors and requests. */
  async function open(testInfo: { outputPath: (name: string) => string }, colorScheme: 'light' | 'dark' = 'light') {
    const file = testInfo.outputPath('report.html');
    writeFileSync(file, renderHtmlReport(fixture('report-full.json'), { requirements: requirements() }));
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    return { page, errors, requests, close: () => context.close() };
  }

  /** The little of a canvas the pixel count needs (the project's tsconfig has no DOM lib). */
  interface CanvasLike {
    width: number;
    height: number;
    getContext(
      kind: '2d',
    ): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
  }

  const visibleRows = (page: Page) => page.locator('table.reqs tbody tr:visible');

  test('loads from file:// with no console error and no request but itself', async ({}, testInfo) => {
    const { page, errors, requests, close } = await open(testInfo);
    await expect(page.locator('header.top h1')).toHaveText(/non-conformant: 3 MUST failures/);
    // The header stays visible while scrolling.
    await page.locator('#coverage').scrollIntoViewIfNeeded();
    await expect(page.locator('header.top h1')).toBeInViewport();
    expect(errors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
    await close();
  });

  test('the filters change the visible requirement rows', async ({}, testInfo) => {
    const { page, errors, close } = await open(testInfo);
    const all = await page.locator('table.reqs tbody tr').count();
    await expect(visibleRows(page)).toHaveCount(all);
    await page.selectOption('select[data-filter="status"]', 'failed');
    await expect(visibleRows(page)).toHaveCount(5);
    await page.selectOption('select[data-filter="level"]', 'SHOULD');
    await expect(visibleRows(page)).toHaveCount(2);
    await expect(page.locator('form.filters .shown')).toHaveText(`2 of ${all}`);
    await page.selectOption('select[data-filter="level"]', '');
    await page.selectOption('select[data-filter="class"]', 'messaging');
    await expect(visibleRows(page)).toHaveCount(1);
    await page.selectOption('select[data-filter="status"]', '');
    await page.selectOption('select[data-filter="class"]', '');
    await page.fill('input[data-filter="text"]', 'post /vps');
    await expect(visibleRows(page)).toHaveCount(3);
    await page.fill('input[data-filter="text"]', 'no such thing anywhere');
    await expect(visibleRows(page)).toHaveCount(0);
    await expect(page.locator('.empty-filter')).toBeVisible();
    await page.fill('input[data-filter="text"]', '');
    await expect(visibleRows(page)).toHaveCount(all);
    expect(errors).toEqual([]);
    await close();
  });

  test("a failure's details open on click and from a link in the requirement table", async ({}, testInfo) => {
    const { page, errors, close } = await open(testInfo);
    const env = page.locator('details#check-compute\\.vps\\.delete');
    await expect(env).not.toHaveAttribute('open');
    await env.locator('summary').first().click();
    await expect(env).toHaveAttribute('open');
    await expect(env.getByText('Not the target’s fault')).toBeVisible();
    await expect(env.getByText('connect ECONNRESET').first()).toBeVisible();
    const deviation = page.locator('details#check-compute\\.vps\\.reboot');
    await expect(deviation).not.toHaveAttribute('open');
    await page.locator('#req-VPS-ACTION-003 a[href="#check-compute.vps.reboot"]').click();
    await expect(deviation).toHaveAttribute('open');
    await expect(deviation.getByText('A VPS action answers 202 with the action resource.')).toBeVisible();
    // The escaped <script> body is shown as text, not run.
    await expect(page.getByText('<html><script>alert("xss")</script><body>Bad request</body></html>')).toBeVisible();
    // Collapse all / expand all.
    await page.click('button[data-collapse]');
    await expect(page.locator('details.failure[open]')).toHaveCount(0);
    await page.click('button[data-expand]');
    await expect(page.locator('details.failure:not([open])')).toHaveCount(0);
    expect(errors).toEqual([]);
    await close();
  });

  test('the copy button copies the curl line', async ({}, testInfo) => {
    const { page, errors, close } = await open(testInfo);
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'])
      .catch(() => undefined);
    const button = page.locator('#check-messaging\\.send\\.too-long .repro button.copy');
    await button.click();
    await expect(button).toHaveText('Copied');
    expect(errors).toEqual([]);
    await close();
  });

  test('the load charts render: canvases present and drawn on', async ({}, testInfo) => {
    const { page, errors, close } = await open(testInfo);
    await expect(page.locator('#load .chart canvas')).toHaveCount(6);
    const inked = await page.locator('#load .chart canvas').evaluateAll((canvases) =>
      (canvases as unknown as CanvasLike[]).map((c) => {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) return 0;
        const data = ctx.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      }),
    );
    for (const n of inked) expect(n).toBeGreaterThan(500);
    expect(errors).toEqual([]);
    await close();
  });

  test('screenshots, light and dark (kept as test artifacts)', async ({}, testInfo) => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors, close } = await open(testInfo, scheme);
      const path = testInfo.outputPath(`report-${scheme}.png`);
      await page.screenshot({ path, fullPage: true });
      await testInfo.attach(`report-${scheme}.png`, { path, contentType: 'image/png' });
      await page.emulateMedia({ media: 'print' });
      await expect(page.locator('header.top nav')).toBeHidden();
      expect(errors).toEqual([]);
      await close();
    }
  });
});
