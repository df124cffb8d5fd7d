/**
 * The page's first section after the verdict: the target's failures by cause, MUST first, the
 * largest first. Each cause shows its line ("answered 400, convention 422: 236 checks over 43
 * operations"), one representative failure with the exchange it judged and the curl line that
 * replays it, the operations and requirements it spans, and links to its member cards below.
 */
import { esc } from './escape.ts';
import { curlBlock, renderExchange } from './exchanges.ts';
import { causeCount, causeViews, replayNote, type CauseView } from '../cause-lines.ts';
import type { ConformanceReport } from '../../model/report.ts';
import { checkAnchor } from './sections.ts';

/** How many causes are open when the page loads; the rest open on click. */
const OPEN_FIRST = 3;

const codes = (items: readonly string[]): string => items.map((i) => `<code>${esc(i)}</code>`).join(', ');

function renderCause(v: CauseView, index: number, report: ConformanceReport): string {
  const c = v.cluster;
  const tone = c.level === 'MUST' ? 'must' : 'should';
  const rep = v.representative;
  const example =
    rep && v.example
      ? `<p class="headline">${esc(v.example)} <a class="muted" href="#${esc(checkAnchor(rep))}">${esc(rep.id)}</a></p>`
      : '';
  const exchange = v.exchange
    ? `<div class="exchanges">${renderExchange({ ...v.exchange, curl: '' }, 0, 1)}</div><div class="repro"><h4>Reproduce</h4>${curlBlock(v.exchange.curl)}<p class="muted">${esc(replayNote(report, rep, v.exchange))}</p></div>`
    : '';
  const spans = [
    c.operations.length > 1 ? `<p><strong>operations</strong> ${codes(c.operations)}</p>` : '',
    `<p><strong>requirements</strong> ${codes(c.requirements)}</p>`,
    c.cascaded.length ? `<p><strong>skipped after it</strong> (not causes of their own) ${codes(c.cascaded)}</p>` : '',
  ].join('');
  const members =
    c.checks.length > 1
      ? `<details class="members"><summary>the ${esc(c.checks.length)} checks of this cause</summary><p>${c.checks
          .map((id) => `<a href="#${esc(checkAnchor({ id }))}">${esc(id)}</a>`)
          .join(' ')}</p></details>`
      : '';
  return `<details class="cause f-${tone}" id="${esc(c.id)}" data-cause="${esc(c.id)}"${index < OPEN_FIRST ? ' open' : ''}>
<summary><span class="badge lvl-${tone}">${esc(c.level)}</span> <span class="cline">${esc(v.line)}</span></summary>
<div class="fbody">${example}${exchange}${spans}${members}</div>
</details>`;
}

export function renderCauses(report: ConformanceReport): string {
  const views = causeViews(report);
  if (views.length === 0) return '';
  return `<section id="causes">
<div class="h2row"><h2>Causes: ${esc(causeCount(views.map((v) => v.cluster)))}</h2><span class="tools"><button type="button" data-expand="#causes">expand all</button><button type="button" data-collapse="#causes">collapse all</button></span></div>
<p class="blurb">The target's failed checks grouped by what failed (the kind of expectation, the field or header, what was expected and what came), MUST first, the most checks first. Fix them in this order; each cause's checks are listed under Failures below.</p>
${views.map((v, i) => renderCause(v, i, report)).join('\n')}
</section>`;
}
