/**
 * The terminal summary of a load profile: throughput first (requests/s, bytes), and nothing
 * dropped silently (requests still in flight when the duration ended are said).
 */
import { expect, test } from '../base.ts';
import type { ProfileResult } from '../../src/model/load.ts';
import { formatProfile } from '../../load/summary.ts';
import { emptyProfile } from '../report/fixtures/generate.ts';

function result(requests: ProfileResult['requests']): ProfileResult {
  return emptyProfile({ profile: 'p', duration_ms: 10_000, requests });
}

test('requests per second and bytes received, per profile', () => {
  const text = formatProfile(
    result({ sent: 1000, completed: 1000, network_errors: 0, by_status: { 200: 1000 }, bytes_received: 2_500_000 }),
  );
  expect(text).toContain('throughput 100.0 req/s, 2.50 MB received (0.25 MB/s)');
  expect(text).not.toContain('in flight');
});

test('requests still in flight when the duration ended are counted in the summary, not dropped', () => {
  const text = formatProfile(result({ sent: 818, completed: 810, network_errors: 0, by_status: { 200: 810 } }));
  expect(text).toContain('8 requests still in flight when the duration ended (not counted)');
});

test('violations are grouped by invariant and key with a count and the first one; long reasons are never cut', () => {
  const r = result({ sent: 300, completed: 300, network_errors: 0, by_status: { 200: 300 } });
  r.passed = false;
  r.violations = [
    ...Array.from({ length: 200 }, (_, i) => ({
      invariant: 'remaining-decrements' as const,
      index: 200 - i,
      key: 'fresh-0',
      message: `Remaining did not decrease at request ${201 - i}`,
    })),
    { invariant: 'onset', index: -1, message: 'no 429 after 105 requests' },
  ];
  const reason = `expected the first 429 at request 101 of the minute window, and the long explanation goes on ${'and on '.repeat(10)}until here`;
  r.thresholds = [{ name: 'invariant onset', expected: 'first 429 at 101', actual: reason, passed: false }];
  const text = formatProfile(r);
  const lines = text.split('\n').filter((l) => l.includes('violated'));
  expect(lines).toEqual([
    '  violated remaining-decrements on key fresh-0: 200 times (first at request 2): Remaining did not decrease at request 2',
    '  violated onset: 1 time: no 429 after 105 requests',
  ]);
  expect(text).toContain(reason);
  expect(text).not.toContain('...');
});
