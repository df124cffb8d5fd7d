/**
 * summary.md writer: the verdict, the target's failures by cause (the largest first, each with a
 * representative failure and its curl line), counts per class, the failures that are not the
 * target's, and the leaks. Suited to a CI job summary (e.g. $GITHUB_STEP_SUMMARY). Pure.
 */
import { classificationOf } from './gate.ts';
import { loadOutcome } from './load-lines.ts';
import { classCounts } from './class-counts.ts';
import type { ConformanceClass } from '../../spec/classes.ts';
import { failureLine, shownExchange } from './failure-line.ts';
import { causeCount, causeViews, replayNote } from './cause-lines.ts';
import type { CheckResult } from '../model/finding.ts';
import type { ConformanceReport } from '../model/report.ts';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** How many member checks a cause lists by name; the rest are in report.json and the page. */
const MEMBERS_LISTED = 30;

/**
 * The target's failures by cause, MUST first, the largest first: one heading per cause, its
 * representative failure with the curl line that replays it, the operations and requirements it
 * spans, and its member checks folded (a <details> block, which CI job summaries render).
 */
function causeSections(report: ConformanceReport): string[] {
  const views = causeViews(report);
  if (views.length === 0) return [];
  const out: string[] = [`## ${causeCount(views.map((v) => v.cluster))}`, ''];
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  views.forEach((v, i) => {
    const c = v.cluster;
    out.push(`### ${i + 1}. ${c.level}: ${cell(v.line)}`, '');
    if (v.representative && v.example)
      out.push(`- e.g. \`${v.representative.id}\` [${v.representative.requirement}]: ${cell(v.example.slice(0, 400))}`);
    if (c.operations.length > 1) out.push(`- operations: ${c.operations.map((o) => `\`${o}\``).join(', ')}`);
    out.push(`- requirements: ${c.requirements.map((r) => `\`${r}\``).join(', ')}`);
    if (c.cascaded.length)
      out.push(`- skipped after it (not causes of their own): ${c.cascaded.map((id) => `\`${id}\``).join(', ')}`);
    if (v.exchange)
      out.push('', '```sh', v.exchange.curl, '```', '', `_${replayNote(report, v.representative, v.exchange)}_`);
    if (c.checks.length > 1) {
      out.push('', `<details><summary>the ${c.checks.length} checks of this cause</summary>`, '');
      for (const id of c.checks.slice(0, MEMBERS_LISTED)) {
        const m = byId.get(id);
        out.push(`- \`${id}\`${m ? ` [${m.requirement}]: ${cell((failureLine(m) ?? m.title).slice(0, 200))}` : ''}`);
      }
      if (c.checks.length > MEMBERS_LISTED) out.push(`- … and ${c.checks.length - MEMBERS_LISTED} more in report.json`);
      out.push('', '</details>');
    }
    out.push('');
  });
  return out;
}

export function writeMarkdown(report: ConformanceReport): string {
  const s = report.summary;
  const out: string[] = [];
  out.push(`# cloudcheck: ${s.headline ?? s.verdict}`, '');
  out.push(`- target: \`${report.run.target}\`${report.run.embedded ? ' (embedded reference server)' : ''}`);
  out.push(
    `- run: \`${report.run.id}\`, seed ${report.run.seed}, ${report.run.started_at} → ${report.run.finished_at}`,
  );
  if (s.gate)
    out.push(
      `- gate: **${s.gate.passed ? 'passed' : 'failed'}** (${s.gate.reason})${report.run.strict ? ', strict' : ''}`,
    );
  out.push(
    `- checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped; MUST ${s.must.passed}/${s.must.failed}/${s.must.skipped}, SHOULD ${s.should.passed}/${s.should.failed}/${s.should.skipped} (passed/failed/skipped)`,
  );
  if (s.unjudged) {
    out.push(
      `- not judged: ${s.unjudged.checks.length} of ${s.unjudged.must_total} MUST checks (${cell(s.unjudged.reasons.join('; '))})`,
    );
    if (s.unjudged.requirements.length)
      out.push(`- MUST requirements not judged: ${s.unjudged.requirements.map((r) => `\`${r}\``).join(', ')}`);
  }
  const rerun = report.checks.filter((c) => (c.attempt ?? 1) > 1);
  if (rerun.length)
    out.push(
      `- run again after no answer (\`--rerun-unanswered\`): ${rerun.length} check${rerun.length === 1 ? '' : 's'}, ${rerun.filter((c) => c.status !== 'failed' || c.classification !== 'environment').length} judged on a later attempt`,
    );
  out.push('');
  out.push(...causeSections(report));
  out.push('| class | passed | failed | skipped | waited (s) |', '|---|---:|---:|---:|---:|');
  const counts = classCounts(report.checks);
  for (const cls of [...counts.keys()].sort()) {
    const n = counts.get(cls)!;
    out.push(
      `| ${cls} | ${n.passed} | ${n.failed} | ${n.skipped} | ${((report.waits?.[cls as ConformanceClass] ?? 0) / 1000).toFixed(1)} |`,
    );
  }
  const thirdParty = report.third_party_output ?? [];
  if (thirdParty.length) {
    out.push(
      '',
      `## Third-party output (${thirdParty.length})`,
      '',
      'Printed by libraries or Node in the workers during the run (kept out of the console):',
      '',
    );
    for (const line of thirdParty.slice(0, 20))
      out.push(
        `- \`${line.text.replace(/`/g, "'")}\`${line.count > 1 ? ` (${line.count}×)` : ''}${line.check ? ` first in ${line.check}` : ''}`,
      );
    if (thirdParty.length > 20) out.push(`- … and ${thirdParty.length - 20} more in report.json`);
  }
  const retried = report.checks.reduce((total, c) => total + (c.retried_requests ?? 0), 0);
  if (retried > 0)
    out.push(
      '',
      `${retried} request${retried === 1 ? ' was' : 's were'} sent again after getting no answer (\`--retries\`); each check's count is in report.json (\`retried_requests\`).`,
    );
  const section = (title: string, checks: CheckResult[]): void => {
    if (checks.length === 0) return;
    out.push('', `## ${title} (${checks.length})`, '');
    for (const c of checks) {
      out.push(`### [${c.requirement}] ${cell(c.title)}`, '');
      out.push(`- check \`${c.id}\`, ${c.level}, class ${c.class}${c.operation ? `, \`${c.operation}\`` : ''}`);
      const line = failureLine(c);
      if (line) out.push(`- ${cell(line.slice(0, 400))}`);
      if (c.expected !== undefined) out.push(`- expected: \`${cell(c.expected)}\``);
      if (c.actual !== undefined) out.push(`- actual: \`${cell(c.actual)}\``);
      const last = shownExchange(c);
      if (last) out.push('', '```sh', last.curl, '```');
      out.push('');
    }
  };
  const failed = report.checks.filter((c) => c.status === 'failed');
  // A report written before causes were computed lists the target's failures one by one.
  if (!report.clusters) {
    section(
      'MUST failures',
      failed.filter((c) => c.level === 'MUST' && classificationOf(c) === 'defect'),
    );
    section(
      'SHOULD deviations',
      failed.filter((c) => c.level === 'SHOULD' && classificationOf(c) === 'spec-gap'),
    );
  }
  section(
    'cloudcheck errors (not the target: these requirements went unchecked)',
    failed.filter((c) => classificationOf(c) === 'cloudcheck-error'),
  );
  section(
    'Environment problems (not the target)',
    failed.filter((c) => classificationOf(c) === 'environment'),
  );
  if (report.not_checkable?.length) {
    out.push(
      '',
      `## Not checkable by \`cloudcheck run\` (${report.not_checkable.length}): neither passed nor failed`,
      '',
    );
    for (const n of report.not_checkable)
      out.push(
        `- **${n.requirement}** (${n.level}, ${n.class}): ${cell(n.reason)}${n.checked_by ? ` Checked by \`${n.checked_by}\`.` : ''}`,
      );
  }
  if (report.leaks.length) {
    out.push('', `## Leaked resources (${report.leaks.length})`, '', '| kind | id | reason |', '|---|---|---|');
    for (const l of report.leaks) out.push(`| ${cell(l.kind)} | \`${cell(l.id)}\` | ${cell(l.reason)} |`);
  }
  const load = loadOutcome(report.load);
  if (load) {
    out.push('', `## Load profiles: ${load.passed ? 'passed' : 'FAILED'}`, '');
    for (const p of load.profiles) {
      out.push(`### ${p.passed ? '✓' : '✗'} ${cell(p.profile)}`, '');
      if (p.error) out.push(`- could not run: ${cell(p.error)}`, '');
      if (p.lines.length) {
        out.push('| | expectation | expected | actual |', '|---|---|---|---|');
        for (const l of p.lines)
          out.push(`| ${l.passed ? 'ok' : '**failed**'} | ${cell(l.name)} | ${cell(l.expected)} | ${cell(l.actual)} |`);
        out.push('');
      }
    }
  }
  const uncovered = report.coverage.operations.filter((o) => o.checks === 0);
  if (uncovered.length)
    out.push('', `Operations without checks: ${uncovered.map((o) => `\`${o.operation}\``).join(', ')}`);
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
