import { expect, test } from '../base.ts';
import { diffReports, formatDiff } from '../../src/report/diff.ts';
import type { CheckFailure, CheckResult } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { fixture } from './helpers.ts';
import { emptyProfile, load as loadSection } from './fixtures/generate.ts';

const a = fixture('report-full.json');

function withStatus(
  r: ConformanceReport,
  changes: Record<string, CheckResult['status']>,
  extra: CheckResult[] = [],
  drop: string[] = [],
): ConformanceReport {
  const checks = r.checks
    .filter((c) => !drop.includes(c.id))
    .map((c) => (c.id in changes ? { ...c, status: changes[c.id]! } : c));
  return { ...r, run: { ...r.run, id: 'after' }, checks: [...checks, ...extra] };
}

test('fixed, broken, still failing, new and removed checks by id', () => {
  const b = withStatus(
    a,
    {
      'messaging.send.too-long': 'passed',
      'auth.no-key': 'failed',
      'storage.put-get': 'failed',
      'api-keys.secret-once': 'skipped',
    },
    [{ ...a.checks[0]!, id: 'auth.new-check', status: 'failed' }],
    ['compute.vps.reboot'],
  );
  const d = diffReports(a, b);
  expect(d.fixed.map((c) => c.id)).toEqual(['messaging.send.too-long']);
  expect(d.broken.map((c) => c.id)).toEqual(['auth.no-key', 'storage.put-get']);
  expect(d.broken[1]).toMatchObject({ before: 'skipped', after: 'failed' });
  expect(d.still_failing.map((c) => c.id).sort()).toEqual([
    'compute.vps.delete',
    'errors.envelope.sms-too-long',
    'errors.status.validation',
    'pagination.vps.meta',
  ]);
  expect(d.new_checks.map((c) => c.id)).toEqual(['auth.new-check']);
  expect(d.removed_checks.map((c) => c.id)).toEqual(['compute.vps.reboot']);
  expect(d.other_changes.map((c) => c.id)).toEqual(['api-keys.secret-once']);
  // MUST before SHOULD in every list.
  expect(d.still_failing.at(-1)!.level).toBe('SHOULD');
});

test('formatDiff names both runs and each non-empty group with its checks', () => {
  const b = withStatus(a, { 'messaging.send.too-long': 'passed', 'auth.no-key': 'failed' });
  const text = formatDiff(diffReports(a, b));
  expect(text).toContain(`A: ${a.run.id}`);
  expect(text).toContain('B: after');
  expect(text).toContain('fixed 1, broken 1, still failing 5, new 0, removed 0, other changes 0');
  expect(text).toMatch(/broken \(1\):\n {2}✗ MUST {3}AUTH-KEY-001 {5}auth\.no-key \(passed → failed\)/);
  expect(text).toMatch(/fixed \(1\):\n {2}✓ MUST {3}MSG-SEND-005/);
  expect(text).not.toContain('new checks');
  expect(formatDiff(diffReports(a, a))).toContain('fixed 0, broken 0');
});

test('two load runs: latency of each profile and status class both ran, before and after', () => {
  const latency = (p50: number, p99: number, max: number) => ({ count: 100, p50, p95: p50 * 2, p99, max, mean: p50 });
  const load = (profiles: Array<[string, Record<string, ReturnType<typeof latency>>]>) =>
    loadSection(profiles.map(([profile, latency_ms]) => emptyProfile({ profile, latency_ms })));
  const before = {
    ...a,
    load: load([
      ['smoke', { '2xx': latency(2, 8, 12) }],
      ['soak', { '2xx': latency(3, 9, 20), '429': latency(1, 2, 3) }],
    ]),
  };
  const after = {
    ...a,
    run: { ...a.run, id: 'after' },
    load: load([
      ['smoke', { '2xx': latency(3, 6, 12) }],
      ['soak', { '2xx': latency(3, 9, 20) }],
      ['burst-compute', { '2xx': latency(1, 1, 1) }],
    ]),
  };
  const d = diffReports(before, after);
  // Only what both ran: soak's 429s and the new burst profile have nothing to compare with.
  expect(d.load_latency.map((l) => `${l.profile} ${l.status_class}`)).toEqual(['smoke 2xx', 'soak 2xx']);
  expect(d.load_latency[0]).toMatchObject({ before: { p50: 2, p99: 8, max: 12 }, after: { p50: 3, p99: 6, max: 12 } });
  const text = formatDiff(d);
  expect(text).toContain('load latency, A → B');
  expect(text).toContain(
    'smoke 2xx: p50 2.00 → 3.00 (+50%), p95 4.00 → 6.00 (+50%), p99 8.00 → 6.00 (-25%), max 12.0 → 12.0 (+0%)',
  );
  // Reports without load results compare as before.
  expect(diffReports(a, { ...a, load: loadSection([]) }).load_latency).toEqual([]);
  const noLoad = { ...a, load: undefined };
  expect(formatDiff(diffReports(noLoad, noLoad))).not.toContain('load latency');
});

/** A failed MUST check of the target with its failure as data. */
function failedCheck(id: string, operation: string, failure: Partial<CheckFailure>): CheckResult {
  return {
    id,
    requirement: 'OBJ-LIST-003',
    level: 'MUST',
    class: 'storage-objects',
    operation,
    title: id,
    status: 'failed',
    classification: 'defect',
    failure: { kind: 'schema', subject: '/meta', headline: `${operation}: \`meta\` missing`, operation, ...failure },
  };
}

test('causes: fixed, new and unchanged with their check counts; a cause whose checks B did not run is not fixed', () => {
  const meta = (id: string, op: string) =>
    failedCheck(id, op, { keyword: 'required', expected: 'present', actual: 'absent' });
  const status = (id: string) =>
    failedCheck(id, 'POST /projects', { kind: 'status', subject: 'status', expected: '201', actual: '200' });
  const passed = (c: CheckResult): CheckResult => ({
    ...c,
    status: 'passed',
    classification: undefined,
    failure: undefined,
  });
  const base = { ...a, clusters: undefined };
  const before = { ...base, checks: [meta('m1', 'GET /vps'), meta('m2', 'GET /sms/messages'), status('s1')] };
  const after = {
    ...base,
    run: { ...base.run, id: 'after' },
    checks: [
      meta('m1', 'GET /vps'),
      meta('m2', 'GET /sms/messages'),
      meta('m3', 'GET /account/billing/history'),
      passed(status('s1')),
      failedCheck('h1', 'GET /vps', {
        kind: 'header',
        subject: 'x-ratelimit-remaining',
        expected: 'present',
        actual: 'absent',
      }),
    ],
  };
  const d = diffReports(before, after);
  expect(d.causes.unchanged).toEqual([
    expect.objectContaining({ cause: '`meta` missing', checks_before: 2, checks_after: 3 }),
  ]);
  expect(d.causes.fixed.map((c) => c.cause)).toEqual(['answered 200, expected 201']);
  expect(d.causes.new.map((c) => c.cause)).toEqual(['header x-ratelimit-remaining missing']);
  const text = formatDiff(d);
  expect(text).toContain('causes: fixed 1, new 1, unchanged 1');
  expect(text).toMatch(/unchanged causes \(1\):\n {2}· MUST {3}`meta` missing \(2 → 3 checks\) {2}cause-[0-9a-f]{10}/);
  // B ran none of the status cause's checks: not fixed, just not run.
  const partial = diffReports(before, { ...after, checks: after.checks.filter((c) => c.id !== 's1') });
  expect(partial.causes.fixed).toEqual([]);
  expect(partial.causes.not_run.map((c) => c.cause)).toEqual(['answered 200, expected 201']);
});

test('a partial run against a full one: what B did not run is one line, not one per check', () => {
  const b = { ...a, run: { ...a.run, id: 'after' }, checks: a.checks.slice(0, 1) };
  const many = {
    ...a,
    checks: Array.from({ length: 40 }, (_, i) => ({ ...a.checks[i % a.checks.length]!, id: `c${i}` })),
  };
  const text = formatDiff(diffReports(many, b));
  expect(text).toMatch(
    /removed checks \(only in A: not run in B\) \(40\): in \d+ class(es)?: [a-z-, ]+ \(--json lists them\)/,
  );
  expect(text).not.toMatch(/^ {2}- (MUST|SHOULD) +\S+ +c\d+/m);
});

test('load thresholds and invariants compare by profile and name: a profile that went from pass to fail is broken', () => {
  const line = (name: string, passed: boolean) => ({
    name,
    expected: '429 after 100',
    actual: passed ? '429 after 100' : 'no 429',
    passed,
  });
  const withLoad = (passed: boolean, id: string) => ({
    ...a,
    run: { ...a.run, id },
    load: loadSection([
      emptyProfile({ profile: 'burst-compute', passed, thresholds: [line('onset', passed), line('p99', true)] }),
    ]),
  });
  const d = diffReports(withLoad(true, 'before'), withLoad(false, 'after'));
  expect(d.load_broken).toEqual([
    expect.objectContaining({ profile: 'burst-compute', name: 'onset', before: 'passed', after: 'failed' }),
  ]);
  expect(d.load_fixed).toEqual([]);
  const text = formatDiff(d);
  expect(text).toContain('load thresholds and invariants: fixed 0, broken 1');
  expect(text).toContain('✗ burst-compute: onset (passed → failed; expected 429 after 100, got no 429)');
  expect(diffReports(withLoad(false, 'b'), withLoad(true, 'a')).load_fixed.map((l) => l.name)).toEqual(['onset']);
});
