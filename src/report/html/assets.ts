/**
 * The page's own CSS and browser script, and the vendored chart library, read from disk once per
 * process and cached. The report must open from `file://` with no network, so everything is inlined.
 *
 * Chart library: uPlot (MIT, no dependencies, ~50 KB minified, canvas based). It draws thousands
 * of points fast, supports log scales (the latency percentile spectrum needs one) and several
 * y axes, and has no runtime network needs. Heavier libraries (Chart.js ~200 KB, ECharts ~1 MB)
 * would dominate the page for four line charts. It is pinned exactly in package.json.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface PageAssets {
  css: string;
  js: string;
  chartsJs: string;
}

export interface ChartLibrary {
  js: string;
  css: string;
  name: string;
}

let own: PageAssets | undefined;
let chartLib: ChartLibrary | undefined;

function readOwn(name: string): string {
  return readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8');
}

export function pageAssets(): PageAssets {
  own ??= { css: readOwn('page.css'), js: readOwn('page.js'), chartsJs: readOwn('charts.js') };
  return own;
}

/** uPlot's IIFE build and stylesheet from node_modules (resolved like any dependency). */
export function chartLibrary(): ChartLibrary {
  if (!chartLib) {
    const require = createRequire(import.meta.url);
    let js: string;
    let css: string;
    try {
      js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
      css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    } catch (error) {
      throw new Error(
        `report.html: the chart library uplot is not installed (run npm ci): ${(error as Error).message}`,
        { cause: error },
      );
    }
    chartLib = { js, css, name: 'uPlot 1.6.32' };
  }
  return chartLib;
}
