import { expect, test } from '../base.ts';
import { decideGate, parseBaseline, summarize } from '../../src/report/gate.ts';
import { check, report } from '../harness/helpers.ts';

const mustFail = check({ id: 'm1', requirement: 'MSG-SEND-005', status: 'failed' });
const shouldFail = check({ id: 's1', requirement: 'ERR-STATUS-002', level: 'SHOULD', status: 'failed' });
const envFail = check({ id: 'e1', requirement: 'VPS-CREATE-001', status: 'failed', classification: 'environment' });
const pass = check({ id: 'p1' });

test('a MUST defect fails the gate; a SHOULD deviation only with strict', () => {
  expect(decideGate([pass, mustFail]).passed).toBe(false);
  expect(decideGate([pass, shouldFail]).passed).toBe(true);
  expect(decideGate([pass, shouldFail], { strict: true }).passed).toBe(false);
});

test('environment failures never fail the gate, strict or not', () => {
  expect(decideGate([envFail]).passed).toBe(true);
  expect(decideGate([envFail], { strict: true }).passed).toBe(true);
});

test('a baseline excuses known failures by requirement or check id, not new ones', () => {
  const g = decideGate([mustFail, check({ id: 'm2', requirement: 'NEW-001', status: 'failed' })], {
    baseline: new Set(['MSG-SEND-005']),
  });
  expect(g.passed).toBe(false);
  expect(g.new_failures).toEqual(['m2']);
  expect(g.known_failures).toEqual(['m1']);
  expect(decideGate([mustFail], { baseline: new Set(['m1']) }).passed).toBe(true);
});

test('summary: verdict and headline', () => {
  const s = summarize([pass, mustFail, shouldFail, shouldFail, envFail]);
  expect(s.verdict).toBe('non-conformant');
  expect(s.headline).toBe('non-conformant: 1 MUST failure, 2 SHOULD deviations, 1 environment problem');
  expect(s.must).toEqual({ passed: 1, failed: 2, skipped: 0 });
  const ok = summarize([pass, shouldFail, shouldFail, shouldFail]);
  expect(ok.verdict).toBe('conformant');
  expect(ok.headline).toBe('conformant (MUST), 3 SHOULD deviations');
  expect(ok.gate?.passed).toBe(true);
});

test('baseline formats: report.json, text lines, YAML list, YAML object', () => {
  const fromReport = parseBaseline(JSON.stringify(report([mustFail, pass])));
  expect([...fromReport].sort()).toEqual(['MSG-SEND-005', 'm1']);
  expect([...parseBaseline('# known\nMSG-SEND-005\nERR-STATUS-002 # flaky\n')]).toEqual([
    'MSG-SEND-005',
    'ERR-STATUS-002',
  ]);
  expect([...parseBaseline('- A-1\n- B-2\n')]).toEqual(['A-1', 'B-2']);
  expect([...parseBaseline('requirements:\n  - A-1\n')]).toEqual(['A-1']);
  expect(() => parseBaseline('{"nope": 1}', 'b.json')).toThrow(/b\.json/);
});
