/** Shared by the report tests: the fixtures and a normaliser for the HTML snapshot. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConformanceReport } from '../../src/model/report.ts';
import type { Requirement } from '../../spec/requirement.ts';

export function fixture<T = ConformanceReport>(name: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8')) as T;
}

export const requirements = (): Requirement[] => fixture<Requirement[]>('requirements.json');

/**
 * The page without its inlined assets (own CSS and JS, uPlot): the snapshot then follows the
 * page's structure and data, not every stylesheet tweak or a library upgrade.
 */
export function normaliseHtml(html: string): string {
  return html
    .replace(/(<style id="[\w-]+">)[\s\S]*?(<\/style>)/g, '$1[inlined css]$2')
    .replace(/(<script id="(?:page-js|vendor-js|charts-js)">)[\s\S]*?(<\/script>)/g, '$1[inlined js]$2');
}
