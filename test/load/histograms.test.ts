import { expect, test } from '../base.ts';
import fc from 'fast-check';
import { LatencyHistograms, statusClass } from '../../load/histograms.ts';
import { mergeLoadReports, mergeProfileResults } from '../../load/merge.ts';
import { latencyDrift, measuredThresholds } from '../../load/result.ts';
import type { ProfileResult } from '../../src/model/load.ts';

function result(latencies: Record<number, number[]>, extra: Partial<ProfileResult> = {}): ProfileResult {
  const h = new LatencyHistograms();
  const byStatus: Record<string, number> = {};
  let n = 0;
  for (const [status, values] of Object.entries(latencies)) {
    for (const v of values) h.record(Number(status), v);
    byStatus[status] = values.length;
    n += values.length;
  }
  const r: ProfileResult = {
    profile: 'p',
    file: 'load/profiles/p.yaml',
    target: 'http://127.0.0.1:1/v1',
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T00:00:10.000Z',
    duration_ms: 10_000,
    runs: 1,
    requests: { sent: n, completed: n, network_errors: 0, by_status: byStatus },
    latency_ms: h.summary(),
    histograms: h.serialize(),
    timeline: [],
    expectations: { latency: { '2xx': { p99: 50 } } },
    invariants_checked: ['onset'],
    violations: [],
    thresholds: [],
    passed: true,
    notes: [],
    ...extra,
  };
  h.destroy();
  return r;
}

test('status classes keep 429s apart from 2xx and 4xx', () => {
  expect([200, 204, 304, 404, 429, 503].map(statusClass)).toEqual(['2xx', '2xx', '2xx', '4xx', '429', '5xx']);
  const h = new LatencyHistograms();
  for (let i = 0; i < 100; i++) h.record(200, 40);
  for (let i = 0; i < 900; i++) h.record(429, 0.2);
  const s = h.summary();
  // Fast 429s do not flatter the 2xx percentiles.
  expect(s['2xx']?.p50).toBeCloseTo(40, 0);
  expect(s['429']?.p99).toBeLessThan(1);
  expect(s['4xx']).toBeUndefined();
  h.destroy();
});

test('coordinated-omission correction back-fills the samples a stall suppressed', () => {
  const plain = new LatencyHistograms();
  const corrected = new LatencyHistograms();
  for (let i = 0; i < 99; i++) {
    plain.record(200, 1);
    corrected.record(200, 1, 10);
  }
  plain.record(200, 1000);
  corrected.record(200, 1000, 10);
  // One 1 s stall at a 10 ms interval hides ~99 requests that would each have waited.
  expect(corrected.summary()['2xx']!.count).toBeGreaterThan(150);
  expect(corrected.summary()['2xx']!.p95).toBeGreaterThan(plain.summary()['2xx']!.p95 * 10);
});

test('serialised histograms round-trip and merge by summing, not by averaging percentiles', () => {
  // Machine A: 1000 fast responses; machine B: 1000 slow ones.
  const a = result({ 200: Array.from({ length: 1000 }, () => 2) });
  const b = result({ 200: Array.from({ length: 1000 }, () => 100), 429: [0.5, 0.5] });
  const m = mergeProfileResults([a, b]);
  expect(m.runs).toBe(2);
  expect(m.requests.sent).toBe(2002);
  expect(m.requests.by_status).toEqual({ 200: 2000, 429: 2 });
  expect(m.latency_ms['2xx']?.count).toBe(2000);
  // The true p99 of the union is ~100 ms; averaging the two p99s would give ~51 ms.
  expect(m.latency_ms['2xx']!.p99).toBeGreaterThan(99);
  expect(m.latency_ms['2xx']!.p50).toBeLessThanOrEqual(100);
  expect(m.latency_ms['429']?.count).toBe(2);
  // Thresholds are re-evaluated on the merged histograms: p99 <= 50 fails now.
  expect(m.thresholds.find((t) => t.name === 'latency 2xx p99')?.passed).toBe(false);
  expect(m.passed).toBe(false);
  expect(() => mergeProfileResults([a, { ...b, profile: 'other' }])).toThrow(/cannot merge/);
});

test('merged violations fail the merged profile; reports merge per profile name', () => {
  const ok = result({ 200: [1, 2, 3] });
  const bad = result({ 200: [1, 2, 3] }, { violations: [{ invariant: 'onset', index: 100, message: 'missing 429' }] });
  const m = mergeProfileResults([ok, bad]);
  expect(m.thresholds.find((t) => t.invariant === 'onset')?.passed).toBe(false);
  const rep = (p: ProfileResult[]) => ({
    schema_version: 1 as const,
    target: 't',
    started_at: p[0]!.started_at,
    finished_at: p[0]!.finished_at,
    passed: true,
    profiles: p,
  });
  const merged = mergeLoadReports([rep([ok, { ...ok, profile: 'q' }]), rep([bad])]);
  expect(merged.profiles.map((p) => p.profile).sort()).toEqual(['p', 'q']);
  expect(merged.passed).toBe(false);
});

test('latency drift compares the last quarter with the first, with a 2 ms floor', () => {
  const steady = Array.from({ length: 20 }, (_, t) => ({ t, count: 10, sum_ms: 10 * (t < 5 ? 0.5 : 1.5) }));
  expect(latencyDrift(steady)).toBe(1);
  const growing = Array.from({ length: 20 }, (_, t) => ({ t, count: 10, sum_ms: 10 * (t + 1) * 2 }));
  expect(latencyDrift(growing)!).toBeGreaterThan(3);
  const lines = measuredThresholds({
    requests: { sent: 10, completed: 10, network_errors: 1, by_status: { 200: 8, 500: 1 } },
    latency_ms: {},
    timeline: growing,
    expectations: { max_error_rate: 0, max_5xx: 0, latency_drift: 3 },
  });
  expect(lines.map((l) => [l.name, l.passed])).toEqual([
    ['non-429 error rate', false],
    ['5xx responses', false],
    ['latency drift (mean 2xx, last/first quarter)', false],
  ]);
});

test('no percentile is above the maximum, whatever the bucket edges (property)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.001, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
      (latencies) => {
        const h = new LatencyHistograms();
        for (const ms of latencies) h.record(200, ms);
        const s = h.summary()['2xx']!;
        expect(s.p50).toBeLessThanOrEqual(s.p95);
        expect(s.p95).toBeLessThanOrEqual(s.p99);
        expect(s.p99).toBeLessThanOrEqual(s.max);
      },
    ),
  );
});
