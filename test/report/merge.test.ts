import { expect, test } from '../base.ts';
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import type { LoadReport } from '../../src/model/load.ts';
import { mergeLoadReports } from '../../load/merge.ts';
import { mergeCoverage, mergeReports, mergeReportsWithNotes } from '../../src/report/merge.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { fixture } from './helpers.ts';

const s1 = fixture('shard-1.json');
const s2 = fixture('shard-2.json');

/** What `cloudcheck report merge` passes: the load tool's merge of load sections. */
const LOAD = { mergeLoad: mergeLoadReports };

function count2xx(load: LoadReport): number {
  const h = decodeFromCompressedBase64(load.profiles[0]!.histograms.classes['2xx']!);
  const n = h.totalCount;
  h.destroy();
  return n;
}

test('two shards merge: checks concatenated, summary recomputed, run times min/max', () => {
  const { report: m, notes } = mergeReportsWithNotes([s1, s2], LOAD);
  expect(notes).toEqual([]);
  expect(m.checks.length).toBe(s1.checks.length + s2.checks.length);
  expect(m.summary.passed + m.summary.failed + m.summary.skipped).toBe(m.checks.length);
  expect(m.summary.passed).toBe(s1.summary.passed + s2.summary.passed);
  expect(m.summary.failed).toBe(s1.summary.failed + s2.summary.failed);
  expect(m.summary.must.failed).toBe(s1.summary.must.failed + s2.summary.must.failed);
  expect(m.summary.verdict).toBe('non-conformant');
  expect(m.summary.headline).toBe('non-conformant: 3 MUST failures, 2 SHOULD deviations, 1 environment problem');
  expect(m.summary.gate?.passed).toBe(false);
  expect(m.run.started_at).toBe('2026-01-15T09:59:58.000Z');
  expect(m.run.finished_at).toBe('2026-01-15T10:04:00.000Z');
  expect(m.run.shard).toBeNull();
  expect((m.run as { merged_from?: string[] }).merged_from).toEqual([s1.run.id, s2.run.id]);
  expect(m.leaks.map((l) => l.id)).toEqual(['vps_1000', 'b1']);
});

test('coverage merges per operation: checks summed, statuses united, unexercised minus seen', () => {
  const m = mergeReports([s1, s2]);
  const send = m.coverage.operations.find((o) => o.operation === 'POST /sms/send')!;
  expect(send.checks).toBe(3);
  expect(send.statuses_seen).toEqual([201, 400]);
  expect(send.statuses_unexercised).toEqual(['422']);
  expect(send.passed).toBe(1);
  expect(send.failed).toBe(2);
  expect(m.coverage.operations.map((o) => o.operation)).toEqual(['POST /sms/send', 'GET /vps']);
  const patterns = mergeCoverage([
    [{ operation: 'GET /x', checks: 1, statuses_seen: [404], statuses_unexercised: ['4XX', '500', 'default'] }],
  ]);
  expect(patterns[0]!.statuses_unexercised).toEqual(['500', 'default']);
});

test("load sections merge by summing histograms (never averaging percentiles), with the load tool's merge the report command passes", () => {
  // Without a merge for them (the report layer knows nothing of load/), the profiles stay side by side.
  expect(mergeReports([s1, s2]).load?.profiles).toHaveLength(2);
  const load = mergeReports([s1, s2], LOAD).load!;
  expect(load.profiles).toHaveLength(1);
  const merged = load.profiles[0]!;
  expect(merged.runs).toBe(2);
  expect(count2xx(load)).toBe(count2xx(s1.load!) + count2xx(s2.load!));
  expect(merged.requests.sent).toBe(s1.load!.profiles[0]!.requests.sent + s2.load!.profiles[0]!.requests.sent);
  expect(merged.latency_ms['2xx']?.count).toBe(count2xx(load));
});

test('a check id in two shards keeps the worse status and says so', () => {
  const dup: ConformanceReport = {
    ...s2,
    checks: [...s2.checks, { ...s1.checks[0]!, status: 'failed', classification: 'defect' }],
  };
  const { report, notes } = mergeReportsWithNotes([s1, dup], LOAD);
  expect(report.checks.filter((c) => c.id === s1.checks[0]!.id)).toHaveLength(1);
  expect(report.checks.find((c) => c.id === s1.checks[0]!.id)!.status).toBe('failed');
  expect(notes).toHaveLength(1);
  expect(notes[0]).toContain('kept the worse: failed');
  expect((report.run as { merge_notes?: string[] }).merge_notes).toEqual(notes);
  // A pass over a skip, and the order of input does not matter for the outcome.
  const skip: ConformanceReport = { ...s2, checks: [{ ...s1.checks[0]!, status: 'skipped' }] };
  expect(mergeReports([skip, s1]).checks.find((c) => c.id === s1.checks[0]!.id)!.status).toBe('passed');
});

test('missing shards, other targets and unmergeable load data are noted', () => {
  const third: ConformanceReport = {
    ...s2,
    run: { ...s2.run, id: 'x3', shard: '3/3', target: 'http://127.0.0.1:9/v1' },
    checks: [],
    // A histogram that does not decode: the load module's merge throws on it.
    load: {
      ...s2.load!,
      profiles: [{ ...s2.load!.profiles[0]!, histograms: { unit: 'us', classes: { '2xx': 'not base64!' } } }],
    },
  };
  const first: ConformanceReport = { ...s1, run: { ...s1.run, shard: '1/3' } };
  const { report, notes } = mergeReportsWithNotes([first, third], LOAD);
  expect(notes.some((n) => n.includes('shard 2/3 missing'))).toBe(true);
  expect(notes.some((n) => n.includes('different targets'))).toBe(true);
  expect(notes.some((n) => n.includes('kept side by side'))).toBe(true);
  // Still one section of the report's type: the profiles side by side, each with its own figures.
  expect(report.load?.profiles.map((p) => p.profile)).toEqual(['burst-compute', 'burst-compute']);
});

test('the baseline each shard applied is kept: failures it excused stay excused', () => {
  // The shards also hold checks that got no answer: allowed here, so the gate judges the baseline alone.
  const gate = (r: ConformanceReport, newFailures: string[]): ConformanceReport => ({
    ...r,
    run: { ...r.run, allow_inconclusive: true },
    summary: {
      ...r.summary,
      gate: { passed: newFailures.length === 0, reason: '', baseline: 'baseline.txt', new_failures: newFailures },
    },
  });
  const mustIds = (r: ConformanceReport) =>
    r.checks
      .filter((c) => c.status === 'failed' && c.level === 'MUST' && c.classification === 'defect')
      .map((c) => c.id);
  const all = [...mustIds(s1), ...mustIds(s2)];
  expect(all.length).toBeGreaterThan(1);
  const excusedAll = mergeReports([gate(s1, []), gate(s2, [])]);
  expect(excusedAll.summary.gate?.passed).toBe(true);
  expect(excusedAll.summary.gate?.baseline).toBe('baseline.txt');
  const oneNew = mergeReports([gate(s1, mustIds(s1).slice(0, 1)), gate(s2, [])]);
  expect(oneNew.summary.gate?.passed).toBe(false);
  expect(oneNew.summary.gate?.new_failures).toEqual(mustIds(s1).slice(0, 1));
});

test('merging one unsharded report keeps its checks and gate; one shard alone fails the gate; none is an error', () => {
  const unsharded: ConformanceReport = { ...s1, run: { ...s1.run, shard: null } };
  const merged = mergeReports([unsharded]);
  expect(merged.checks).toEqual(unsharded.checks);
  expect(merged.summary.gate?.passed).toBe(unsharded.summary.gate?.passed);
  const alone = mergeReports([{ ...s1, checks: s1.checks.filter((c) => c.status !== 'failed') }]);
  expect(alone.summary.gate).toMatchObject({ passed: false });
  expect(alone.summary.gate?.reason).toContain('shard 2/2 missing');
  expect(() => mergeReports([])).toThrow(/no report/);
});
