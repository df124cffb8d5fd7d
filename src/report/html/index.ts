/**
 * report.html: one self-contained page (CSS, script, chart library and data inlined; nothing is
 * fetched, so it works from file:// and offline) that answers, in this order: what is the
 * verdict, what is wrong (its causes first, the largest first), why it matters (the requirement and its source), and how to reproduce
 * it (the exchanges and a curl line). Pure apart from reading its own assets once.
 */
import { chartLibrary, pageAssets } from './assets.ts';
import { esc, inlineScriptText, inlineStyleText, jsonForScript } from './escape.ts';
import { loadView, type LoadView } from './load.ts';
import { renderCauses } from './causes.ts';
import { classRows, failures, requirementRows } from './model.ts';
import {
  renderClasses,
  renderCoverage,
  renderFailures,
  renderHeader,
  renderLeaks,
  renderLoad,
  renderNotCheckable,
  renderOverview,
  renderRequirements,
  verdictOf,
} from './sections.ts';
import { loadRequirements } from '../../../spec/requirements.ts';
import type { ConformanceReport } from '../../model/report.ts';
import type { Requirement } from '../../../spec/requirement.ts';

export interface HtmlReportOptions {
  /** The requirement catalogue, for statements and sources; without it the check titles stand in. */
  requirements?: readonly Requirement[];
  /** Page title; defaults to "cloudcheck: <verdict>". */
  title?: string;
}

/** The data the chart script reads, keyed by the `data-chart` attribute of each chart slot. */
function chartData(view: LoadView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  view.profiles.forEach((p, i) => {
    if (p.spectrum)
      out[`spectrum-${i}`] = {
        kind: 'spectrum',
        x: p.spectrum.x,
        series: p.spectrum.series.map((s) => ({ label: s.cls, values: s.values })),
      };
    if (p.throughput)
      out[`throughput-${i}`] = {
        kind: 'throughput',
        x: p.throughput.t,
        count: p.throughput.count,
        mean: p.throughput.meanMs,
      };
    if (p.remaining)
      out[`remaining-${i}`] = {
        kind: 'remaining',
        x: p.remaining.x,
        series: p.remaining.keys.map((k, j) => ({ label: k, values: p.remaining!.ys[j] })),
      };
  });
  return out;
}

export function renderHtmlReport(report: ConformanceReport, opts: HtmlReportOptions = {}): string {
  const assets = pageAssets();
  const reqs = new Map((opts.requirements ?? []).map((r) => [r.id, r]));
  const f = failures(report.checks);
  const load = loadView(report.load);
  const verdict = verdictOf(report, f, load?.passed ?? null);
  const rows = requirementRows(report.checks, opts.requirements);
  const failedTotal = f.must.length + f.should.length + f.environment.length + f.cloudcheck.length;
  const nav: Array<[string, string, number | null]> = [];
  const causes = report.clusters?.length ?? 0;
  if (causes) nav.push(['causes', 'causes', causes]);
  if (report.leaks.length) nav.push(['leaks', 'leaks', report.leaks.length]);
  if (report.checks.length) {
    nav.push(['failures', 'failures', failedTotal]);
    nav.push(['classes', 'classes', null]);
    nav.push(['requirements', 'requirements', rows.length]);
  }
  if (report.coverage.operations.length) nav.push(['coverage', 'coverage', null]);
  if (load) nav.push(['load', 'load', load.profiles.length]);

  const charts = load ? chartData(load) : {};
  const hasCharts = Object.keys(charts).length > 0;
  // Chart code only when there is something to draw: a conformance-only page stays small.
  const chartHead = hasCharts ? `<style id="vendor-css">${inlineStyleText(chartLibrary().css)}</style>` : '';
  const chartBody = hasCharts
    ? `<script type="application/json" id="chart-data">${jsonForScript(charts)}</script>
<script id="vendor-js">${inlineScriptText(chartLibrary().js)}</script>
<script id="charts-js">${inlineScriptText(assets.chartsJs)}</script>`
    : '';
  const title = opts.title ?? `cloudcheck: ${verdict.text}`;
  const main = [
    renderOverview(report, f, load),
    renderCauses(report),
    renderLeaks(report.leaks),
    report.checks.length ? renderFailures(f, reqs, causes ? 0 : undefined) : '',
    report.checks.length ? renderClasses(classRows(report)) : '',
    renderRequirements(rows),
    renderNotCheckable(report.not_checkable),
    renderCoverage(report.coverage.operations),
    renderLoad(load),
  ]
    .filter(Boolean)
    .join('\n');
  const version = report.run.cloudcheck_version ? ` ${report.run.cloudcheck_version}` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="cloudcheck${esc(version)}">
<title>${esc(title)}</title>
<style id="page-css">${inlineStyleText(assets.css)}</style>
${chartHead}
</head>
<body>
${renderHeader(report, verdict, nav)}
<main>
${main}
</main>
<footer>cloudcheck${esc(version)} · report.json schema ${esc(report.schema_version)} · run <code>${esc(report.run.id)}</code>${hasCharts ? ` · charts drawn with ${esc(chartLibrary().name)} (MIT)` : ''}</footer>
<script id="page-js">${inlineScriptText(assets.js)}</script>
${chartBody}
</body>
</html>
`;
}

/**
 * The writer entry of report/writers.ts (its WRITERS list): loads the requirement
 * catalogue for statements and sources; the page still renders, with check titles, without it.
 */
export const htmlWriter = {
  file: 'report.html',
  write(report: ConformanceReport): string {
    return renderHtmlReport(report, { requirements: catalogue() });
  },
};

let cachedCatalogue: readonly Requirement[] | null | undefined;

function catalogue(): readonly Requirement[] | undefined {
  if (cachedCatalogue === undefined) {
    try {
      cachedCatalogue = loadRequirements();
    } catch {
      // A broken catalogue fails the run elsewhere, loudly; the page falls back to check titles.
      cachedCatalogue = null;
    }
  }
  return cachedCatalogue ?? undefined;
}
