/**
 * junit.xml writer: one testsuite per conformance class, one testcase per check (CI systems show
 * these natively). MUST failures are `<failure>`; SHOULD deviations are `<failure>` only in strict
 * runs, otherwise a property plus system-out, so CI does not turn red for a convention;
 * `environment` and `cloudcheck-error` failures are `<error>` (the run or the suite, not the target)
 * and skipped checks `<skipped>`. A check of a cause (report.json `clusters`) names it in two
 * properties, `cause` (its id) and `cause_text` (its words).
 * Pure; no runner imports.
 */
import { loadOutcome } from './load-lines.ts';
import { classCounts, type StatusCounts } from './class-counts.ts';
import { classificationOf } from '../report/gate.ts';
import { failureLine, shownExchange } from './failure-line.ts';
import type { CheckResult } from '../model/finding.ts';
import type { ConformanceReport } from '../model/report.ts';

export function xmlEscape(text: string): string {
  return (
    text
      // XML 1.0 forbids most control characters even escaped.
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

function cdata(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return `<![CDATA[${text.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '').replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

function describe(check: CheckResult): string {
  const lines = [`${check.level} ${check.requirement}: ${check.title}`];
  if (check.operation) lines.push(`operation: ${check.operation}`);
  if (check.failure) lines.push(check.failure.headline);
  if (check.message) lines.push(check.message);
  if (check.expected !== undefined) lines.push(`expected: ${check.expected}`);
  if (check.actual !== undefined) lines.push(`actual: ${check.actual}`);
  const last = shownExchange(check);
  if (last) lines.push(`reproduce: ${last.curl}`);
  return lines.join('\n');
}

/**
 * cloudcheck's own counts of a class (JUnit's failures leave out SHOULD deviations outside strict
 * mode and put environment problems under errors): the same numbers every other output shows.
 */
function suiteProperties(n: StatusCounts): string {
  const props = (['passed', 'failed', 'skipped'] as const)
    .map((k) => `      <property name="cloudcheck.${k}" value="${n[k]}"/>`)
    .join('\n');
  return `    <properties>\n${props}\n    </properties>`;
}

export function writeJunit(report: ConformanceReport): string {
  const strict = report.run.strict ?? false;
  const byClass = new Map<string, CheckResult[]>();
  for (const check of report.checks) {
    const list = byClass.get(check.class) ?? [];
    list.push(check);
    byClass.set(check.class, list);
  }
  const counts = classCounts(report.checks);
  const causes = new Map((report.clusters ?? []).map((c) => [c.id, c.cause]));
  const seconds = (ms: number | undefined): string => ((ms ?? 0) / 1000).toFixed(3);
  let totalFailures = 0;
  let totalErrors = 0;
  let totalSkipped = 0;
  const suites: string[] = [];
  for (const [cls, checks] of byClass) {
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    let time = 0;
    const cases: string[] = [];
    for (const check of checks) {
      time += check.duration_ms ?? 0;
      const attrs = `name="${xmlEscape(`[${check.requirement}] ${check.title}`)}" classname="${xmlEscape(`cloudcheck.${cls}`)}" time="${seconds(check.duration_ms)}"`;
      const props = [
        ['check_id', check.id],
        ['requirement', check.requirement],
        ['level', check.level],
        ['operation', check.operation ?? ''],
        ...(check.status === 'failed' ? [['classification', classificationOf(check)]] : []),
        // The cause this check's failure (or the failed step it was skipped after) belongs to.
        ...(check.cluster
          ? [
              ['cause', check.cluster],
              ['cause_text', causes.get(check.cluster) ?? ''],
            ]
          : []),
      ]
        .map(([n, v]) => `        <property name="${xmlEscape(n!)}" value="${xmlEscape(v!)}"/>`)
        .join('\n');
      const inner: string[] = [`      <properties>\n${props}\n      </properties>`];
      if (check.status === 'skipped') {
        skipped++;
        inner.push(`      <skipped${check.message ? ` message="${xmlEscape(check.message)}"` : ''}/>`);
      } else if (check.status === 'failed') {
        const c = classificationOf(check);
        const message = xmlEscape((failureLine(check) ?? 'failed').slice(0, 500));
        if (c === 'environment' || c === 'cloudcheck-error') {
          errors++;
          inner.push(
            `      <error message="${message}" type="${c}">${cdata(c === 'cloudcheck-error' && check.stack ? `${describe(check)}\n${check.stack}` : describe(check))}</error>`,
          );
        } else if (check.level === 'MUST' || strict) {
          failures++;
          inner.push(`      <failure message="${message}" type="${c}">${cdata(describe(check))}</failure>`);
        } else {
          inner.push(
            `      <system-out>${cdata(`SHOULD deviation (not a failure without --strict)\n${describe(check)}`)}</system-out>`,
          );
        }
      }
      cases.push(`    <testcase ${attrs}>\n${inner.join('\n')}\n    </testcase>`);
    }
    totalFailures += failures;
    totalErrors += errors;
    totalSkipped += skipped;
    suites.push(
      `  <testsuite name="${xmlEscape(cls)}" tests="${checks.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(time)}" timestamp="${xmlEscape(report.run.started_at)}">\n${suiteProperties(counts.get(cls)!)}\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  // Load profiles (cloudcheck load): one test case per threshold or invariant line.
  const load = loadOutcome(report.load);
  let loadTests = 0;
  for (const profile of load?.profiles ?? []) {
    const lines = profile.error
      ? [{ name: 'profile ran', expected: 'ran', actual: profile.error, passed: false }]
      : profile.lines;
    const cases = lines.map((line) => {
      const failure = line.passed
        ? ''
        : `\n      <failure message="${xmlEscape(`${line.name}: expected ${line.expected}, got ${line.actual}`.slice(0, 500))}" type="load"/>`;
      return `    <testcase classname="load.${xmlEscape(profile.profile)}" name="${xmlEscape(line.name)}">${failure}${failure ? '\n    ' : ''}</testcase>`;
    });
    const failed = lines.filter((l) => !l.passed).length;
    loadTests += lines.length;
    totalFailures += failed;
    suites.push(
      `  <testsuite name="load.${xmlEscape(profile.profile)}" tests="${lines.length}" failures="${failed}" errors="0" skipped="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  // An inconclusive verdict is one test case of its own: checks that were skipped (a class that
  // could not run) would otherwise leave a CI page green where the gate did not pass.
  const unjudged = report.summary.verdict === 'inconclusive' ? report.summary.unjudged : undefined;
  if (unjudged) {
    totalErrors++;
    const text = `${report.summary.headline ?? 'inconclusive'}\n${unjudged.reasons.join('\n')}\nMUST requirements not judged: ${unjudged.requirements.join(', ')}`;
    suites.push(
      `  <testsuite name="cloudcheck.verdict" tests="1" failures="0" errors="1" skipped="0">\n    <testcase classname="cloudcheck.verdict" name="every selected MUST check judged">\n      <error message="${xmlEscape(`inconclusive: ${unjudged.reasons.join('; ')}`.slice(0, 500))}" type="inconclusive">${cdata(text)}</error>\n    </testcase>\n  </testsuite>`,
    );
  }
  const total = report.checks.length + loadTests + (unjudged ? 1 : 0);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="${xmlEscape(`cloudcheck ${report.run.id}`)}" tests="${total}" failures="${totalFailures}" errors="${totalErrors}" skipped="${totalSkipped}">\n` +
    `${suites.join('\n')}${suites.length ? '\n' : ''}</testsuites>\n`
  );
}
