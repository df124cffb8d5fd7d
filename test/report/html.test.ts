import { expect, test } from '../base.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderHtmlReport } from '../../src/report/html/index.ts';
import { finaliseReport } from '../../src/report/finalise.ts';
import { loadView } from '../../src/report/html/load.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { fixture, normaliseHtml, requirements } from './helpers.ts';
import { emptyProfile, load as loadSection } from './fixtures/generate.ts';

const full = fixture('report-full.json');

test('the page matches its snapshot (assets left out)', () => {
  const html = renderHtmlReport(full, { requirements: requirements() });
  expect(normaliseHtml(html)).toMatchSnapshot('report-full.html');
});

test('bodies, messages and ids are escaped: a <script> in a response body stays text', () => {
  const html = renderHtmlReport(full, { requirements: requirements() });
  expect(html).not.toContain('<script>alert("xss")</script>');
  expect(html).not.toContain('<html><script>alert(1)</script>');
  expect(html).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
  // Exactly the page's own script elements, none from the data.
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts).toEqual([
    '<script id="page-js">',
    '<script type="application/json" id="chart-data">',
    '<script id="vendor-js">',
    '<script id="charts-js">',
  ]);
});

test('hostile values cannot leave their element: titles, headers, chart data', () => {
  const evil = '</script><img src=x onerror=alert(1)>"\'<!--';
  const report: ConformanceReport = {
    ...full,
    checks: [
      {
        ...full.checks[3]!,
        title: evil,
        message: evil,
        exchanges: [
          {
            ...full.checks[3]!.exchanges![0]!,
            request: { method: 'GET', url: `http://h/${evil}`, headers: { [evil]: evil } },
          },
        ],
      },
    ],
    leaks: [{ kind: evil, id: evil, delete_operation: evil, reason: evil }],
    load: loadSection([
      emptyProfile({
        profile: evil,
        latency_ms: { '2xx': { count: 1, p50: 1, p95: 1, p99: 1, max: 1, mean: 1 } },
        rate_limit_series: [{ label: evil, header: 'x-ratelimit-remaining', points: [[0, 1]] }],
      }),
    ]),
  };
  const html = renderHtmlReport(report);
  expect(html).not.toContain('<img src=x');
  expect(html).not.toContain('</script><img');
  const data = /<script type="application\/json" id="chart-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  expect(data).not.toMatch(/[<>]/);
  expect(JSON.stringify(JSON.parse(data))).toContain('</script><img');
});

test('nothing is fetched: no network URL in src= or href=, no @import or url(http', () => {
  const html = renderHtmlReport(full, { requirements: requirements() });
  expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i);
  expect(html).not.toMatch(/@import|url\(\s*["']?(?:https?:)?\/\//i);
  // Every href is a fragment of the page itself.
  const hrefs = [...html.matchAll(/\bhref="([^"]*)"/g)].map((m) => m[1]);
  expect(hrefs.length).toBeGreaterThan(10);
  for (const h of hrefs) expect(h).toMatch(/^#/);
  // The target URL is shown as text.
  expect(html).toContain('http://127.0.0.1:8080/v1');
});

test('without load data no chart code is emitted', () => {
  const { load: _load, ...noLoad } = full;
  const html = renderHtmlReport(noLoad, { requirements: requirements() });
  expect(html).not.toContain('uPlot');
  expect(html).not.toContain('id="chart-data"');
  expect(html).not.toContain('id="load"');
  expect(html.length).toBeLessThan(renderHtmlReport(full).length - 40_000);
});

test('failures: MUST defects first, then SHOULD deviations, then environment problems, labelled', () => {
  const html = renderHtmlReport(full, { requirements: requirements() });
  const must = html.indexOf('id="failures-must"');
  const should = html.indexOf('id="failures-should"');
  const env = html.indexOf('id="failures-environment"');
  expect(must).toBeGreaterThan(0);
  expect(should).toBeGreaterThan(must);
  expect(env).toBeGreaterThan(should);
  expect(html.slice(env)).toContain('not the target’s fault');
  // MUST defects open, the rest on click.
  expect(html).toMatch(/<details class="failure f-must" id="check-pagination.vps.meta" open>/);
  expect(html).toMatch(/<details class="failure f-environment" id="check-compute.vps.delete">/);
  // The requirement and its source, expected/actual and the curl line with the key as a variable.
  expect(html).toContain('A message longer than 1600 characters is refused with a validation error.');
  expect(html).toContain('<strong>Endpoints / Messaging</strong>');
  expect(html).toContain('status 201 (the message was accepted)');
  expect(html).toContain('$CLOUDCHECK_API_KEY');
  expect(html).toContain('Assumed convention');
});

test('verdict, leaks and counts are on the page; the header carries the verdict', () => {
  const html = renderHtmlReport(full, { requirements: requirements() });
  expect(html).toContain('<h1>non-conformant: 3 MUST failures, 2 SHOULD deviations, 1 environment problem</h1>');
  expect(html).toContain('2 resources left behind on the target');
  expect(html).toContain('cc-20260115-100000-full-b1');
  const ok: ConformanceReport = {
    ...full,
    checks: full.checks.filter((c) => c.status !== 'failed'),
    leaks: [],
    summary: { ...full.summary, verdict: 'conformant', headline: 'conformant (MUST), 0 SHOULD deviations' },
  };
  const okHtml = renderHtmlReport(ok);
  expect(okHtml).toContain('class="top verdict-ok"');
  expect(okHtml).toContain('No check failed.');
  expect(okHtml).not.toContain('id="leaks"');
});

test('without the catalogue the check titles stand in for statements', () => {
  const html = renderHtmlReport(full);
  expect(html).toContain('the requirement catalogue was not available to this page');
  expect(html).toContain('a 1601-character message is refused');
});

test('a secret that slipped into a hand-made report is redacted on the page too (report merge finalises it)', () => {
  const leaked: ConformanceReport = {
    ...full,
    checks: [{ ...full.checks[0]!, status: 'failed', message: 'sent Authorization: Bearer sk_live_abcdefghijklmnop' }],
  };
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-html-secret-'));
  try {
    finaliseReport(leaked, dir);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('Bearer [REDACTED]');
    expect(html).not.toContain('sk_live_abcdefghijklmnop');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the load section gives the page its profiles; histograms give the spectrum', () => {
  expect(loadView(undefined)).toBeNull();
  const view = loadView(full.load)!;
  expect(view.passed).toBe(false);
  expect(view.profiles.map((p) => p.name)).toEqual(['burst-compute', 'smoke']);
  const p = view.profiles[0]!;
  expect(p.spectrum?.source).toBe('histogram');
  expect(p.spectrum?.series.map((s) => s.cls)).toEqual(['2xx', '4xx', '429']);
  // Percentiles rise monotonically along the spectrum.
  const v = p.spectrum!.series[0]!.values as number[];
  for (let i = 1; i < v.length; i++) expect(v[i]!).toBeGreaterThanOrEqual(v[i - 1]!);
  expect(p.throughput?.t.length).toBe(30);
  expect(p.remaining?.keys).toEqual(['main', 'k2']);
  // A histogram that does not decode: the spectrum falls back to the summary's percentiles.
  const broken = loadView(
    loadSection([
      emptyProfile({
        profile: 'x',
        histograms: { unit: 'us', classes: { '2xx': 'not base64!' } },
        latency_ms: { '2xx': { count: 3, p50: 1, p95: 2, p99: 3, max: 4, mean: 1.5 } },
      }),
    ]),
  )!;
  expect(broken.profiles[0]!.spectrum?.source).toBe('summary');
  expect(broken.profiles[0]!.throughput).toBeNull();
});

test('a short load profile: one point is said in words, not drawn; repeated violations are one counted line', () => {
  const profile = emptyProfile({
    profile: 'short',
    passed: false,
    timeline: [{ t: 0, count: 42, sum_ms: 84 }],
    rate_limit_series: [{ label: 'fresh-0', header: 'x-ratelimit-remaining', points: [[0, 99]] }],
    violations: [
      ...Array.from({ length: 200 }, (_, i) => ({
        invariant: 'remaining-decrements',
        index: 200 - i,
        key: 'fresh-0',
        message: `Remaining did not decrease at request ${201 - i}`,
      })),
      { invariant: 'onset', index: -1, message: 'no 429 after 105 requests' },
    ],
  });
  const html = renderHtmlReport(
    { ...full, load: { ...loadSection([profile]), passed: false } },
    { requirements: requirements() },
  );
  expect(html).toContain('all within one second: 42 responses, mean 2 ms');
  expect(html).toContain('one sample: fresh-0 99');
  expect(html).not.toContain('data-chart="throughput-0"');
  expect(html.match(/<li><code>remaining-decrements<\/code>/g)).toHaveLength(1);
  // The request is counted from 1, as the console says it (the report's index counts from 0).
  expect(html).toContain('200×</span> first at request 2: Remaining did not decrease at request 2');
  expect(html).toContain('<li><code>onset</code>: no 429 after 105 requests</li>');
});
