/**
 * The sections of report.html, each a function from prepared data to an HTML fragment. Every
 * value from the report goes through `esc`; no fragment fetches anything.
 */
import { anchorId, esc } from './escape.ts';
import { curlBlock, renderExchange, statusClassName } from './exchanges.ts';
import {
  failureGroup,
  formatDuration,
  formatTime,
  type ClassRow,
  type Failures,
  type RequirementRow,
  type RequirementStatus,
} from './model.ts';
import type { LoadProfileView, LoadView } from './load.ts';
import { classificationOf } from '../gate.ts';
import { firstViolationAt, groupViolations } from '../load-lines.ts';
import { shownExchange } from '../failure-line.ts';
import type { CheckResult } from '../../model/finding.ts';
import type { ConformanceReport, Leak, OperationCoverage } from '../../model/report.ts';
import type { Requirement } from '../../../spec/requirement.ts';

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

export function checkAnchor(check: Pick<CheckResult, 'id'>): string {
  return anchorId('check', check.id);
}

export function requirementAnchor(id: string): string {
  return anchorId('req', id);
}

function levelBadge(level: string): string {
  return `<span class="badge lvl-${level === 'MUST' ? 'must' : 'should'}">${esc(level)}</span>`;
}

const STATUS_LABEL: Record<RequirementStatus, string> = {
  failed: 'failed',
  unchecked: 'cloudcheck error',
  environment: 'environment',
  passed: 'passed',
  skipped: 'skipped',
};

/** Failed SHOULD reads "deviation" (amber), failed MUST "failed" (red). */
function statusBadge(status: RequirementStatus | CheckResult['status'], level: string): string {
  if (status === 'failed')
    return level === 'MUST' ? '<span class="st st-fail">failed</span>' : '<span class="st st-dev">deviation</span>';
  return `<span class="st st-${status === 'environment' || status === 'unchecked' ? 'env' : status === 'passed' ? 'pass' : 'skip'}">${esc(STATUS_LABEL[status])}</span>`;
}

function checkStatusBadge(check: CheckResult): string {
  if (check.status === 'failed' && classificationOf(check) === 'environment')
    return statusBadge('environment', check.level);
  if (check.status === 'failed' && classificationOf(check) === 'cloudcheck-error')
    return statusBadge('unchecked', check.level);
  return statusBadge(check.status, check.level);
}

export interface VerdictInfo {
  tone: 'ok' | 'bad' | 'warn';
  text: string;
}

export function verdictOf(report: ConformanceReport, f: Failures, loadPassed: boolean | null): VerdictInfo {
  const s = report.summary;
  let text = s.headline;
  if (!text) {
    text =
      s.verdict === 'conformant' ? 'conformant (MUST)' : `non-conformant: ${plural(f.must.length, 'MUST failure')}`;
    text += `, ${plural(f.should.length, 'SHOULD deviation')}`;
  }
  if (report.checks.length === 0 && loadPassed !== null)
    return {
      tone: loadPassed ? 'ok' : 'bad',
      text: s.headline ?? (loadPassed ? 'load profiles passed' : 'load profiles failed'),
    };
  if (s.verdict === 'non-conformant') return { tone: 'bad', text };
  // Inconclusive is no pass: the page says so in the gate's colour.
  if (s.verdict === 'inconclusive' || report.run.interrupted) return { tone: s.gate?.passed ? 'warn' : 'bad', text };
  return { tone: f.should.length > 0 ? 'warn' : 'ok', text };
}

export function renderHeader(
  report: ConformanceReport,
  verdict: VerdictInfo,
  nav: Array<[string, string, number | null]>,
): string {
  const gate = report.summary.gate;
  const gateText = gate
    ? `<span class="gate ${gate.passed ? 'gate-ok' : 'gate-bad'}">gate ${gate.passed ? 'passed' : 'failed'}</span>`
    : '';
  const links = nav
    .map(
      ([href, label, n]) =>
        `<a href="#${esc(href)}">${esc(label)}${n !== null ? ` <span class="count">${esc(n)}</span>` : ''}</a>`,
    )
    .join('');
  return `<header class="top verdict-${verdict.tone}">
<div class="top-inner">
<div class="verdict"><span class="verdict-dot" aria-hidden="true"></span><h1>${esc(verdict.text)}</h1>${gateText}</div>
<div class="target" title="target">${esc(report.run.target)}</div>
<nav aria-label="sections">${links}</nav>
</div>
</header>`;
}

function fact(label: string, value: string): string {
  return `<div class="fact"><dt>${esc(label)}</dt><dd>${value}</dd></div>`;
}

type Tile = (tone: string, n: number, label: string, href: string | null) => string;

const tile: Tile = (tone, n, label, href) => {
  const inner = `<span class="n">${esc(n)}</span><span class="l">${esc(label)}</span>`;
  return href && n > 0
    ? `<a class="tile tile-${tone}" href="#${href}">${inner}</a>`
    : `<div class="tile tile-${tone}${n === 0 ? ' zero' : ''}">${inner}</div>`;
};

/** The tiles of a conformance run: failures by kind, then what passed and what was skipped. */
function conformanceTiles(f: Failures, s: ConformanceReport['summary']): string[] {
  return [
    tile('must', f.must.length, 'MUST failures', 'failures-must'),
    tile('should', f.should.length, 'SHOULD deviations', 'failures-should'),
    tile('env', f.environment.length, 'environment problems', 'failures-environment'),
    ...(f.cloudcheck.length ? [tile('env', f.cloudcheck.length, 'cloudcheck errors', 'failures-cloudcheck')] : []),
    tile('pass', s.passed, 'checks passed', null),
    tile('skip', s.skipped, 'checks skipped', null),
  ];
}

/** The tiles of a report of `cloudcheck load` alone: its profiles, failed and passed. */
function loadTiles(view: LoadView): string[] {
  const failed = view.profiles.filter((p) => !p.passed).length;
  return [
    tile('must', failed, 'load profiles failed', 'load'),
    tile('pass', view.profiles.length - failed, 'load profiles passed', null),
  ];
}

type RunFields = ConformanceReport['run'] & { merged_from?: unknown; merge_notes?: unknown };

/** What the run was: target, times, id; for a conformance run also its seed, mode, gate and classes. */
function runFacts(report: ConformanceReport, run: RunFields, conformance: boolean): string[] {
  const s = report.summary;
  const facts: string[] = [
    fact(
      'target',
      `<code>${esc(run.target)}</code>${run.embedded ? ' <span class="muted">(embedded reference server)</span>' : ''}`,
    ),
  ];
  if (run.s3_url) facts.push(fact('S3 endpoint', `<code>${esc(run.s3_url)}</code>`));
  facts.push(fact('started', esc(formatTime(run.started_at))));
  facts.push(fact('duration', esc(formatDuration(run.started_at, run.finished_at) ?? '?')));
  if (conformance) facts.push(fact('seed', `<code>${esc(run.seed)}</code>`));
  facts.push(fact('run id', `<code>${esc(run.id)}</code>`));
  if (run.shard)
    facts.push(fact('shard', esc(typeof run.shard === 'string' ? run.shard : `${run.shard.index}/${run.shard.total}`)));
  if (conformance) {
    facts.push(
      fact(
        'mode',
        run.strict ? 'strict (SHOULD deviations fail the gate)' : 'default (only MUST defects fail the gate)',
      ),
    );
    if (s.gate)
      facts.push(
        fact(
          'gate',
          `${s.gate.passed ? 'passed' : '<strong>failed</strong>'}: ${esc(s.gate.reason)}${s.gate.baseline ? ` (baseline <code>${esc(s.gate.baseline)}</code>)` : ''}`,
        ),
      );
    if (s.unjudged)
      facts.push(
        fact(
          'not judged',
          `${esc(plural(s.unjudged.checks.length, 'MUST check'))}: ${esc(s.unjudged.reasons.join('; '))}${s.unjudged.requirements.length ? `<br>${s.unjudged.requirements.map((r) => `<code>${esc(r)}</code>`).join(' ')}` : ''}`,
        ),
      );
    const classes = run.classes.length
      ? run.classes.map((c) => `<span class="chip">${esc(c)}</span>`).join(' ')
      : '<span class="muted">none</span>';
    facts.push(fact(`classes run (${run.classes.length})`, classes));
  }
  if (Array.isArray(run.merged_from))
    facts.push(fact('merged from', run.merged_from.map((id) => `<code>${esc(id)}</code>`).join(' ')));
  if (run.cloudcheck_version) facts.push(fact('cloudcheck', esc(run.cloudcheck_version)));
  return facts;
}

export function renderOverview(report: ConformanceReport, f: Failures, loadView: LoadView | null): string {
  const run = report.run as RunFields;
  // A report of `cloudcheck load` alone: no check ran, so there is no seed, mode, class or check count to show.
  const loadOnly = report.checks.length === 0 && loadView !== null ? loadView : null;
  const facts = runFacts(report, run, loadOnly === null);
  const tiles = loadOnly ? loadTiles(loadOnly) : conformanceTiles(f, report.summary);
  if (report.leaks.length)
    tiles.splice(loadOnly ? 1 : 3, 0, tile('must', report.leaks.length, 'resources left behind', 'leaks'));
  const notes: string[] = [];
  if (Array.isArray(run.merge_notes)) for (const n of run.merge_notes) notes.push(`<li>${esc(n)}</li>`);
  const lead =
    f.must.length + f.should.length + f.environment.length + f.cloudcheck.length > 0
      ? '<p class="lead">Each failure below names the requirement it breaks and where the specification says so, what was expected and what came back, the recorded exchanges, and a curl line to reproduce it (set <code class="nowrap">CLOUDCHECK_API_KEY</code> first).</p>'
      : report.checks.length > 0
        ? '<p class="lead">No check failed. The tables below show what was checked, per class and per requirement, and which operations and statuses the run exercised.</p>'
        : '';
  return `<section id="overview" class="overview">
<div class="tiles">${tiles.join('')}</div>
${lead}
<dl class="facts">${facts.join('')}</dl>
${notes.length ? `<details class="notes-box"${notes.length <= 3 ? ' open' : ''}><summary>${esc(plural(notes.length, 'note'))} on how this report was put together</summary><ul class="notes">${notes.join('')}</ul></details>` : ''}
</section>`;
}

export function renderLeaks(leaks: readonly Leak[]): string {
  if (leaks.length === 0) return '';
  const rows = leaks
    .map(
      (l) =>
        `<tr><td>${esc(l.kind)}</td><td><code>${esc(l.id)}</code></td><td>${l.delete_operation ? `<code>${esc(l.delete_operation)}</code>` : '<span class="muted">none</span>'}</td><td>${esc(l.reason)}</td></tr>`,
    )
    .join('');
  return `<section id="leaks" class="leaks">
<h2>${esc(plural(leaks.length, 'resource'))} left behind on the target</h2>
<p>The run created these and could not delete them. They are named with the run prefix; delete them by hand or with <code>cloudcheck sweep</code>.</p>
<div class="scroll"><table><thead><tr><th>kind</th><th>id</th><th>delete with</th><th>why it is still there</th></tr></thead><tbody>${rows}</tbody></table></div>
</section>`;
}

export function renderClasses(rows: readonly ClassRow[]): string {
  const cell = (n: number, cls: string): string => `<td class="num${n > 0 ? ` ${cls}` : ' zero'}">${esc(n)}</td>`;
  const cards = rows.map((r) => {
    const total = r.must.passed + r.must.failed + r.must.skipped + r.should.passed + r.should.failed + r.should.skipped;
    const tone =
      !r.claimed && total === 0
        ? 'unclaimed'
        : r.must.failed > 0
          ? 'must'
          : r.should.failed > 0
            ? 'should'
            : total === 0
              ? 'unclaimed'
              : r.must.passed + r.should.passed > 0
                ? 'pass'
                : 'unclaimed';
    const state = !r.claimed
      ? 'not claimed: skipped'
      : r.must.failed > 0
        ? `${plural(r.must.failed, 'MUST failure')}`
        : r.should.failed > 0
          ? plural(r.should.failed, 'deviation')
          : total === 0
            ? 'no checks'
            : 'all passed';
    const body =
      total === 0
        ? ''
        : `<table class="mini"><thead><tr><th></th><th>pass</th><th>fail</th><th>skip</th></tr></thead><tbody>
<tr><th>MUST</th><td class="num${r.must.passed ? ' c-pass' : ' zero'}">${r.must.passed}</td>${cell(r.must.failed, 'c-must')}<td class="num${r.must.skipped ? '' : ' zero'}">${r.must.skipped}</td></tr>
<tr><th>SHOULD</th><td class="num${r.should.passed ? ' c-pass' : ' zero'}">${r.should.passed}</td>${cell(r.should.failed, 'c-should')}<td class="num${r.should.skipped ? '' : ' zero'}">${r.should.skipped}</td></tr>
</tbody></table>${r.environment ? `<p class="envnote">${esc(plural(r.environment, 'environment problem'))}</p>` : ''}${r.cloudcheck ? `<p class="envnote">${esc(plural(r.cloudcheck, 'cloudcheck error'))}</p>` : ''}${r.waitedMs >= 1000 ? `<p class="waitnote">waited ${esc((r.waitedMs / 1000).toFixed(1))} s for the target</p>` : ''}`;
    const data = `data-passed="${r.counts.passed}" data-failed="${r.counts.failed}" data-skipped="${r.counts.skipped}"`;
    return `<div class="class-card tone-${tone}" data-class="${esc(r.name)}" ${data}><h3>${esc(r.name)}</h3><p class="state">${esc(state)}</p>${body}</div>`;
  });
  return `<section id="classes"><h2>Conformance classes</h2><div class="class-grid">${cards.join('')}</div></section>`;
}

function requirementBlock(check: CheckResult, req: Requirement | undefined): string {
  if (!req) {
    return `<div class="why"><h4>Requirement <a href="#${esc(requirementAnchor(check.requirement))}">${esc(check.requirement)}</a></h4><p class="statement muted">${esc(check.title)} <span class="muted">(the requirement catalogue was not available to this page)</span></p></div>`;
  }
  const assumption = req.assumption
    ? `<p class="assumption"><strong>Assumed convention</strong> (the specification is silent): ${esc(req.assumption)}</p>`
    : '';
  return `<div class="why"><h4>Requirement <a href="#${esc(requirementAnchor(req.id))}">${esc(req.id)}</a> ${levelBadge(req.level)}</h4>
<blockquote class="statement">${esc(req.statement)}</blockquote>
<p class="source">Source: <strong>${esc(req.source)}</strong> of the specification · class <code>${esc(req.class)}</code></p>${assumption}</div>`;
}

function whatBlock(check: CheckResult): string {
  const rows: string[] = [];
  if (check.expected !== undefined) rows.push(`<tr><th>expected</th><td><code>${esc(check.expected)}</code></td></tr>`);
  if (check.actual !== undefined)
    rows.push(`<tr><th>actual</th><td><code class="actual">${esc(check.actual)}</code></td></tr>`);
  const table = rows.length ? `<table class="ea">${rows.join('')}</table>` : '';
  const message = check.message ? `<pre class="message"><code>${esc(check.message)}</code></pre>` : '';
  const headline = check.failure ? `<p class="headline">${esc(check.failure.headline)}</p>` : '';
  if (!table && !message && !headline) return '';
  return `<div class="what"><h4>What happened</h4>${headline}${table}${message}</div>`;
}

export function renderFailureCard(check: CheckResult, req: Requirement | undefined, open: boolean): string {
  const group = failureGroup(check);
  const exchanges = check.exchanges ?? [];
  const last = shownExchange(check);
  const repro = last ? `<div class="repro"><h4>Reproduce</h4>${curlBlock(last.curl)}</div>` : '';
  const ex = exchanges.length
    ? `<div class="exchanges"><h4>${esc(plural(exchanges.length, 'exchange'))}</h4>${exchanges.map((e, i) => renderExchange(e, i, exchanges.length)).join('')}</div>`
    : '<p class="muted">No exchange was recorded for this check.</p>';
  const meta = [`check <code>${esc(check.id)}</code>`];
  if (check.location) meta.push(`at <code>${esc(check.location)}</code>`);
  if (check.duration_ms !== undefined) meta.push(`${esc(Math.round(check.duration_ms))} ms`);
  if (check.classification) meta.push(`classified <code>${esc(check.classification)}</code>`);
  const envNote =
    group === 'environment'
      ? '<p class="envflag">Not the target’s fault: the run itself had a problem here (network, timeout or the suite’s own rate budget).</p>'
      : group === 'cloudcheck'
        ? `<p class="envflag">Not the target’s fault: cloudcheck’s own code failed here, so the requirement went unchecked. Please report it with this stack.</p>${check.stack ? `<pre class="stack">${esc(check.stack)}</pre>` : ''}`
        : '';
  return `<details class="failure f-${group}" id="${esc(checkAnchor(check))}"${open ? ' open' : ''}>
<summary>${levelBadge(check.level)} <span class="rid">${esc(check.requirement)}</span> <span class="ftitle">${esc(check.title)}</span>${check.operation ? ` <code class="op">${esc(check.operation)}</code>` : ''}</summary>
<div class="fbody">${envNote}${requirementBlock(check, req)}${whatBlock(check)}${repro}${ex}<p class="meta">${meta.join(' · ')}</p></div>
</details>`;
}

/** How many MUST failures are open when the page loads; the rest open on click. */
const OPEN_FIRST = 5;

/** `openFirst`: MUST cards open on load (none when the causes above show their representatives). */
export function renderFailures(
  f: Failures,
  reqs: ReadonlyMap<string, Requirement>,
  openFirst: number = OPEN_FIRST,
): string {
  const total = f.must.length + f.should.length + f.environment.length + f.cloudcheck.length;
  if (total === 0) return `<section id="failures"><h2>Failures</h2><p class="allgood">No check failed.</p></section>`;
  const group = (id: string, title: string, blurb: string, list: CheckResult[], openFirst: number): string => {
    if (list.length === 0) return '';
    return `<div class="fgroup" id="${id}"><h3>${esc(title)} <span class="count">${list.length}</span></h3><p class="blurb">${blurb}</p>${list.map((c, i) => renderFailureCard(c, reqs.get(c.requirement), i < openFirst)).join('')}</div>`;
  };
  return `<section id="failures">
<div class="h2row"><h2>Failures</h2><span class="tools"><button type="button" data-expand="#failures">expand all</button><button type="button" data-collapse="#failures">collapse all</button></span></div>
${group('failures-must', 'MUST defects', 'The target contradicts the specification. Each one fails the gate.', f.must, openFirst)}
${group('failures-should', 'SHOULD deviations', 'The specification is silent here; the target does not follow the common convention cloudcheck assumes. They fail the gate only with <code>--strict</code>.', f.should, f.must.length === 0 ? openFirst : 0)}
${group('failures-cloudcheck', 'cloudcheck errors: not the target’s fault', 'cloudcheck’s own code failed (an exception in a check, a value an earlier step should have made). The requirement went unchecked: the run exits 2, never 1.', f.cloudcheck, 0)}
${group('failures-environment', 'Environment problems: not the target’s fault', 'The run could not judge these (network errors, timeouts, the suite’s own rate budget). They never fail the gate; rerun to get a verdict.', f.environment, 0)}
</section>`;
}

export function renderRequirements(rows: readonly RequirementRow[]): string {
  if (rows.length === 0) return '';
  const classes = [...new Set(rows.map((r) => r.class))].sort();
  const counts = (s: RequirementStatus): number => rows.filter((r) => r.status === s).length;
  const body = rows
    .map((r) => {
      const text = [r.id, r.statement, r.source ?? '', ...r.checks.flatMap((c) => [c.id, c.title, c.operation ?? ''])]
        .join(' ')
        .toLowerCase();
      const failedN = r.checks.filter((c) => c.status === 'failed').length;
      const items = r.checks
        .map((c) => {
          const name = `<code>${esc(c.id)}</code>`;
          const link = c.status === 'failed' ? `<a href="#${esc(checkAnchor(c))}">${name}</a>` : name;
          return `<li>${checkStatusBadge(c)} ${link} <span class="ctitle">${esc(c.title)}</span>${c.operation ? ` <code class="op">${esc(c.operation)}</code>` : ''}</li>`;
        })
        .join('');
      const summary = `${plural(r.checks.length, 'check')}${failedN ? `, ${failedN} failed` : ''}`;
      const statement = `${esc(r.statement)}${r.source ? `<span class="src">${esc(r.source)}</span>` : ''}${r.catalogued ? '' : '<span class="src">not in the requirement catalogue</span>'}`;
      return `<tr id="${esc(requirementAnchor(r.id))}" data-status="${r.status}" data-level="${esc(r.level)}" data-class="${esc(r.class)}" data-text="${esc(text)}" class="row-${r.status}${r.status === 'failed' ? `-${r.level === 'MUST' ? 'must' : 'should'}` : ''}">
<td class="rid"><code>${esc(r.id)}</code></td><td>${levelBadge(r.level)}</td><td>${esc(r.class)}</td><td class="stmt">${statement}</td><td>${statusBadge(r.status, r.level)}</td><td class="checks"><details${r.status === 'failed' ? ' open' : ''}><summary>${esc(summary)}</summary><ul>${items}</ul></details></td></tr>`;
    })
    .join('\n');
  const option = (v: string, label: string): string => `<option value="${esc(v)}">${esc(label)}</option>`;
  return `<section id="requirements">
<h2>Requirements <span class="count">${rows.length}</span></h2>
<p class="blurb">One row per requirement that had checks: ${counts('failed')} failed, ${counts('environment')} with environment problems only, ${counts('passed')} passed, ${counts('skipped')} skipped. Its status is the worst of its checks.</p>
<form class="filters" role="search" onsubmit="return false">
<label>status <select data-filter="status">${option('', 'any')}${option('failed', 'failed or deviation')}${option('environment', 'environment')}${option('passed', 'passed')}${option('skipped', 'skipped')}</select></label>
<label>level <select data-filter="level">${option('', 'any')}${option('MUST', 'MUST')}${option('SHOULD', 'SHOULD')}</select></label>
<label>class <select data-filter="class">${option('', 'any')}${classes.map((c) => option(c, c)).join('')}</select></label>
<label class="grow">text <input type="search" data-filter="text" placeholder="id, words of the statement, operation, check id" autocomplete="off"></label>
<output class="shown" aria-live="polite">${rows.length} of ${rows.length}</output>
</form>
<div class="scroll"><table class="reqs"><thead><tr><th>id</th><th>level</th><th>class</th><th>statement</th><th>status</th><th>checks</th></tr></thead>
<tbody>
${body}
</tbody></table></div>
<p class="empty-filter" hidden>No requirement matches these filters.</p>
</section>`;
}

function statusSort(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  if (Number.isFinite(na)) return -1;
  if (Number.isFinite(nb)) return 1;
  return a.localeCompare(b);
}

export function renderCoverage(operations: readonly OperationCoverage[]): string {
  if (operations.length === 0) return '';
  const columns = [
    ...new Set(
      operations.flatMap((o) => [...o.statuses_seen.map(String), ...(o.statuses_unexercised ?? []).map(String)]),
    ),
  ].sort(statusSort);
  const withChecks = operations.filter((o) => o.checks > 0).length;
  const unexercised = operations.reduce((n, o) => n + (o.statuses_unexercised?.length ?? 0), 0);
  const head = columns
    .map((c) => `<th class="sc ${statusClassName(Number(c) || undefined)}"><span>${esc(c)}</span></th>`)
    .join('');
  const rows = operations
    .map((o) => {
      const seen = new Set(o.statuses_seen.map(String));
      const doc = new Set((o.statuses_unexercised ?? []).map(String));
      const cells = columns
        .map((c) => {
          if (seen.has(c))
            return `<td class="cov seen ${statusClassName(Number(c) || undefined)}" title="${esc(`${o.operation}: ${c} seen`)}">●</td>`;
          if (doc.has(c))
            return `<td class="cov unex" title="${esc(`${o.operation}: ${c} documented, not exercised`)}">○</td>`;
          return '<td class="cov"></td>';
        })
        .join('');
      const [method, ...path] = o.operation.split(' ');
      const result =
        o.checks === 0
          ? '<span class="muted">no checks</span>'
          : `${o.failed ? `<span class="c-must">${esc(o.failed)} failed</span> · ` : ''}${esc(o.checks)}`;
      return `<tr class="${o.checks === 0 ? 'nochecks' : ''}"><td class="opn"><span class="method">${esc(method)}</span> ${esc(path.join(' '))}</td><td class="num">${result}</td>${cells}</tr>`;
    })
    .join('\n');
  return `<section id="coverage">
<h2>Coverage <span class="count">${withChecks}/${operations.length}</span></h2>
<p class="blurb">${withChecks} of ${operations.length} operations have checks. <span class="legend"><span class="cov seen s2xx">●</span> status seen in a response of this run · <span class="cov unex">○</span> documented in the OpenAPI document but not exercised (${unexercised})</span></p>
<div class="scroll"><table class="matrix"><thead><tr><th>operation</th><th>checks</th>${head}</tr></thead><tbody>
${rows}
</tbody></table></div>
</section>`;
}

function ms(v: number | null): string {
  return v === null
    ? '–'
    : `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')} ms`;
}

function renderProfile(p: LoadProfileView, index: number): string {
  const tone = p.passed ? 'pass' : 'fail';
  const stats = [`${p.sent.toLocaleString('en-US')} sent`, `${p.completed.toLocaleString('en-US')} completed`];
  if (p.networkErrors) stats.push(`${p.networkErrors.toLocaleString('en-US')} network errors`);
  stats.push(`${(p.durationMs / 1000).toFixed(1)} s`);
  if (p.runs > 1) stats.push(`merged from ${p.runs} runs`);
  const statuses = p.byStatus
    .map(
      ([s, n]) =>
        `<span class="chip ${statusClassName(Number(s) || undefined)}">${esc(s)} × ${esc(n.toLocaleString('en-US'))}</span>`,
    )
    .join(' ');
  const thresholds = p.thresholds.length
    ? `<div class="scroll"><table class="thresholds"><thead><tr><th>threshold</th><th>expected</th><th>actual</th><th></th></tr></thead><tbody>${p.thresholds
        .map(
          (t) =>
            `<tr class="${t.passed ? '' : 'tfail'}"><td>${esc(t.name)}</td><td><code>${esc(t.expected)}</code></td><td><code>${esc(t.actual)}</code></td><td>${t.passed ? '<span class="st st-pass">ok</span>' : '<span class="st st-fail">failed</span>'}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    : '<p class="muted">No thresholds recorded.</p>';
  const latency = p.latency.length
    ? `<div class="scroll"><table class="latency"><thead><tr><th>status class</th><th>responses</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>mean</th></tr></thead><tbody>${p.latency
        .map(
          (l) =>
            `<tr><td><span class="chip ${statusClassName(l.cls === '429' ? 429 : Number(l.cls[0]) * 100)}">${esc(l.cls)}</span></td><td class="num">${esc(l.count.toLocaleString('en-US'))}</td><td class="num">${ms(l.p50)}</td><td class="num">${ms(l.p95)}</td><td class="num">${ms(l.p99)}</td><td class="num">${ms(l.max)}</td><td class="num">${ms(l.mean)}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    : '';
  const chart = (kind: string, title: string, caption: string, present: boolean, missing: string): string =>
    `<figure class="chart-fig"><figcaption><strong>${esc(title)}</strong> <span class="muted">${esc(caption)}</span></figcaption>${present ? `<div class="chart" data-chart="${esc(`${kind}-${index}`)}" role="img" aria-label="${esc(title)}"></div>` : `<p class="nochart">${esc(missing)}</p>`}</figure>`;
  const charts = [
    chart(
      'spectrum',
      'Latency by percentile',
      p.spectrum?.source === 'summary'
        ? 'per status class (from p50/p95/p99/max only)'
        : 'per status class, from the HDR histograms',
      p.spectrum !== null,
      'no latency recorded',
    ),
    // A line needs two points: a profile that fitted in one second, or one sample, is said in words.
    chart(
      'throughput',
      '2xx throughput over time',
      'responses per second, and their mean latency',
      (p.throughput?.t.length ?? 0) > 1,
      p.throughput
        ? `all within one second: ${p.throughput.count[0] ?? 0} responses${p.throughput.meanMs[0] !== null && p.throughput.meanMs[0] !== undefined ? `, mean ${p.throughput.meanMs[0]} ms` : ''}`
        : 'no timeline recorded',
    ),
    chart(
      'remaining',
      'X-RateLimit-Remaining',
      'against request index, per key',
      (p.remaining?.x.length ?? 0) > 1,
      p.remaining
        ? `one sample: ${p.remaining.keys.map((k, i) => `${k} ${p.remaining!.ys[i]?.[0] ?? '–'}`).join(', ')}`
        : 'this profile recorded no X-RateLimit-Remaining samples',
    ),
  ];
  const violations = p.violations.length
    ? `<h4>Invariant violations <span class="count">${p.violations.length}</span></h4><ul class="violations">${groupViolations(
        p.violations,
      )
        .map(
          (g) =>
            `<li><code>${esc(g.invariant)}</code>${g.key ? ` key <code>${esc(g.key)}</code>` : ''}${g.count > 1 ? ` <span class="count">${esc(g.count)}×</span>` : ''}${firstViolationAt(g) ? ` ${g.count > 1 ? 'first at ' : 'at '}${esc(firstViolationAt(g))}` : ''}: ${esc(g.first.message)}</li>`,
        )
        .join('')}</ul>`
    : '';
  const notes = p.notes.length ? `<ul class="notes">${p.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  return `<article class="profile tone-${tone}" id="load-${esc(index)}">
<h3>${esc(p.name)} ${p.passed ? '<span class="st st-pass">passed</span>' : '<span class="st st-fail">failed</span>'}</h3>
${p.description ? `<p class="blurb">${esc(p.description)}</p>` : ''}
${p.error ? `<p class="perror">Could not run: ${esc(p.error)}</p>` : ''}
<p class="stats">${esc(stats.join(' · '))} ${statuses}</p>
<div class="chart-grid">${charts.join('')}</div>
<div class="two">${thresholds}${latency}</div>
${violations}${notes}
</article>`;
}

export function renderLoad(view: LoadView | null): string {
  if (!view) return '';
  const verdict = view.passed
    ? ' <span class="st st-pass">all profiles passed</span>'
    : ' <span class="st st-fail">a profile failed</span>';
  return `<section id="load"><h2>Load${verdict}</h2>${view.profiles.map(renderProfile).join('')}</section>`;
}

/** Requirements `cloudcheck run` cannot check: listed apart, so no one reads them as passed. */
export function renderNotCheckable(list: ConformanceReport['not_checkable']): string {
  if (!list?.length) return '';
  const items = list
    .map(
      (n) =>
        `<li>${levelBadge(n.level)} <span class="rid">${esc(n.requirement)}</span> <span class="muted">${esc(n.class)}</span>: ${esc(n.reason)}${n.checked_by ? ` Checked by <code>${esc(n.checked_by)}</code>.` : ''}</li>`,
    )
    .join('');
  return `<section id="not-checkable"><h2>Not checkable by <code>cloudcheck run</code> <span class="count">${list.length}</span></h2><p class="blurb">Neither passed nor failed: the run cannot observe these from outside at a cost a routine run should pay.</p><ul class="notcheckable">${items}</ul></section>`;
}
