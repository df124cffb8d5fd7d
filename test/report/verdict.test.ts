/**
 * The verdict (src/report/verdict.ts): nothing passes on no evidence. A MUST check without an
 * answer, a class named and never run, a selection of which nothing ran, an interrupted run: each
 * is inconclusive (gate failed, exit 2) unless allowed, never conformant; a defect is
 * non-conformant whatever else went unjudged. summary.md, JUnit, the page and a merge agree.
 */
import { expect, test } from '../base.ts';
import type { CheckResult } from '../../src/model/finding.ts';
import { summarize } from '../../src/report/gate.ts';
import { mergeReports } from '../../src/report/merge.ts';
import { writeMarkdown } from '../../src/report/markdown.ts';
import { writeJunit } from '../../src/report/junit.ts';
import { renderHtmlReport } from '../../src/report/html/index.ts';
import { unjudgedOf } from '../../src/report/verdict.ts';
import { exitCodeOfRun } from '../../src/cli/run-outcome.ts';
import { check, report } from '../harness/helpers.ts';

const pass = check({ id: 'p1', requirement: 'MSG-SEND-001' });
const noAnswer = check({
  id: 'e1',
  requirement: 'VOL-ATT-001',
  status: 'failed',
  classification: 'environment',
  message: 'NetworkError: POST /v1/storage/volumes/v1/attach failed without a response: read ECONNRESET',
});
const defect = check({ id: 'd1', requirement: 'MSG-SEND-005', status: 'failed', classification: 'defect' });

test('a MUST check without an answer makes the run inconclusive: the headline counts the judged and names the rest', () => {
  const s = summarize([pass, noAnswer]);
  expect(s.verdict).toBe('inconclusive');
  expect(s.headline).toBe(
    'inconclusive: 1 of 2 MUST checks judged; not judged: 1 requirement (VOL-ATT-001), 0 SHOULD deviations, 1 environment problem',
  );
  expect(s.unjudged).toMatchObject({ must_judged: 1, must_total: 2, checks: ['e1'], requirements: ['VOL-ATT-001'] });
  expect(s.gate?.passed).toBe(false);
  expect(s.gate?.reason).toContain('1 MUST check not judged (1 MUST check got no answer)');
  // Allowed on purpose: the gate passes and says so; the verdict stays what it is.
  const allowed = summarize([pass, noAnswer], { allowInconclusive: true });
  expect(allowed.verdict).toBe('inconclusive');
  expect(allowed.gate?.passed).toBe(true);
  expect(allowed.gate?.reason).toContain('allowed by --allow-inconclusive');
  // A SHOULD check without an answer leaves the MUST verdict standing.
  expect(summarize([pass, { ...noAnswer, level: 'SHOULD' }]).verdict).toBe('conformant');
});

test('a defect is non-conformant (exit 1) even with unjudged checks; cloudcheck errors are unjudged (exit 2)', () => {
  const s = summarize([pass, noAnswer, defect]);
  expect(s.verdict).toBe('non-conformant');
  expect(s.headline).toMatch(/^non-conformant: 1 MUST failure/);
  expect(exitCodeOfRun(report([pass, noAnswer, defect], { summary: s }), { interruptedExit: null, target: 't' })).toBe(
    1,
  );
  const own = check({ id: 'c1', requirement: 'VPS-CREATE-001', status: 'failed', classification: 'cloudcheck-error' });
  const withOwn = summarize([pass, own]);
  expect(withOwn.verdict).toBe('inconclusive');
  expect(withOwn.unjudged?.reasons).toEqual(["1 MUST check failed in cloudcheck's own code"]);
  expect(exitCodeOfRun(report([pass, own], { summary: withOwn }), { interruptedExit: null, target: 't' })).toBe(2);
});

test('flow steps skipped after a step without an answer are unjudged; after a defect the run is non-conformant', () => {
  const flow = 'flow.volumes';
  const cut = check({ ...noAnswer, id: 'flow.volumes.attach', flow });
  const after = check({
    id: 'flow.volumes.detach',
    requirement: 'VOL-ATT-003',
    status: 'skipped',
    message: "not run: the flow's step flow.volumes.attach failed before it",
    flow,
  });
  const unjudged = unjudgedOf([pass, cut, after]);
  expect(unjudged?.checks).toEqual(['flow.volumes.attach', 'flow.volumes.detach']);
  expect(unjudged?.requirements).toEqual(['VOL-ATT-001', 'VOL-ATT-003']);
  // A report written before checks named their flow: the skip message names the step.
  const { flow: _a, ...oldCut } = cut;
  const { flow: _b, ...oldAfter } = after;
  expect(unjudgedOf([pass, oldCut, oldAfter])?.checks).toEqual(['flow.volumes.attach', 'flow.volumes.detach']);
  // A check skipped for its own reason is skipped, not unjudged.
  expect(unjudgedOf([pass, check({ id: 's', status: 'skipped', message: 'moves money: pass --allow-charges' })])).toBe(
    null,
  );
});

test('a named class that could not run, or a selection of which nothing ran, is inconclusive and says why', () => {
  const s3 = (id: string, level: 'MUST' | 'SHOULD'): CheckResult =>
    check({
      id,
      class: 's3',
      level,
      requirement: `S3-${id}`,
      status: 'skipped',
      message: 'needs the S3-compatible endpoint: pass --s3-url',
    });
  const checks = [pass, s3('a', 'MUST'), s3('b', 'SHOULD')];
  // Left to the default (every class), a class that cannot run is not claimed.
  expect(summarize(checks).verdict).toBe('conformant');
  const named = summarize(checks, { claimedClasses: ['messaging', 's3'] });
  expect(named.verdict).toBe('inconclusive');
  expect(named.unjudged?.reasons).toEqual([
    'class s3 could not run: needs the S3-compatible endpoint: pass --s3-url (2)',
  ]);
  expect(named.headline).toContain('class s3 could not run');
  const nothing = summarize([s3('a', 'MUST')]);
  expect(nothing.verdict).toBe('inconclusive');
  expect(nothing.unjudged?.reasons[0]).toMatch(/^no selected check ran: needs the S3-compatible endpoint/);
});

test('an interrupted run is headed "interrupted" and never passes the gate, allowed or not', () => {
  const s = summarize([pass], { interrupted: true, allowInconclusive: true });
  expect(s.headline).toMatch(/^interrupted: /);
  expect(s.gate?.passed).toBe(false);
  expect(exitCodeOfRun(report([pass], { summary: s }), { interruptedExit: 143, target: 't' })).toBe(143);
});

test('summary.md, JUnit, the page and a merge agree on an inconclusive verdict', () => {
  const r = report([pass, noAnswer], { summary: summarize([pass, noAnswer]) });
  const md = writeMarkdown(r);
  expect(md.split('\n')[0]).toBe(`# cloudcheck: ${r.summary.headline}`);
  expect(md).toContain('- MUST requirements not judged: `VOL-ATT-001`');
  const junit = writeJunit(r);
  expect(junit).toContain('<testsuite name="cloudcheck.verdict" tests="1" failures="0" errors="1"');
  expect(junit).toContain('type="inconclusive"');
  expect(junit).toMatch(/<testsuites [^>]*errors="2"/);
  const page = renderHtmlReport(r);
  expect(page).toContain('verdict-bad');
  expect(page).toContain('not judged');
  const merged = mergeReports([r]);
  expect(merged.summary.verdict).toBe('inconclusive');
  expect(merged.summary.gate?.passed).toBe(false);
  // An interrupted or allowed run stays so when merged: any interrupted, all allowed.
  const interrupted = mergeReports([{ ...r, run: { ...r.run, interrupted: true } }]);
  expect(interrupted.summary.headline).toMatch(/^interrupted: /);
  const allowed = mergeReports([{ ...r, run: { ...r.run, allow_inconclusive: true } }]);
  expect(allowed.summary.gate?.passed).toBe(true);
});
