/**
 * Unit tests of the run-wide rate-limit invariants: the writer (src/harness/rate-observer.ts) and
 * the reader (src/report/rate-invariants.ts), with made-up responses and no server.
 */
import { expect, test } from '../base.ts';
import { mkdtempSync, readFileSync, readdirSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateObserver, keyIdOf, observationOf } from '../../src/harness/rate-observer.ts';
import type { RateObservation } from '../../src/harness/rate-observer.ts';
import { RUN_CHECKS, maxInFlight, rateInvariantChecks, readObservations } from '../../src/report/rate-invariants.ts';

const KEY = 'cc_secret_key_that_must_not_leak_123';
const MINUTE_END = 1_800_000_060; // a whole minute, epoch seconds
const DATE = (s: number) => new Date(s * 1000).toUTCString();

/** A fresh key's sequence on one area: n reads in one minute, Remaining 99, 98, ... */
function sequence(
  n: number,
  options: { path?: string; keyId?: string; headers?: (i: number) => Record<string, string> } = {},
): RateObservation[] {
  const path = options.path ?? '/regions';
  const area = path.startsWith('/sms') ? 'messaging' : 'compute';
  return Array.from({ length: n }, (_, i): RateObservation => {
    const date = MINUTE_END - 40;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': String(99 - i),
      'x-ratelimit-reset': String(MINUTE_END),
      date: DATE(date),
      ...(area === 'messaging' ? { 'x-sms-limit': '10000', 'x-sms-remaining': '10000' } : {}),
      ...(options.headers?.(i) ?? {}),
    };
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
    return {
      keyId: options.keyId ?? 'k1',
      area,
      method: 'GET',
      path,
      status: 200,
      headers,
      errorCode: null,
      sentAt: date * 1000 + i * 10,
      receivedAt: date * 1000 + i * 10 + 5,
      pid: 1,
      seq: i,
    };
  });
}

function byId(checks: ReturnType<typeof rateInvariantChecks>, id: string) {
  return checks.find((c) => c.id === id)!;
}

test('a correct run passes every run-wide check', () => {
  const checks = rateInvariantChecks([...sequence(30), ...sequence(30, { path: '/sms/campaigns', keyId: 'k2' })]);
  expect(checks).toHaveLength(Object.keys(RUN_CHECKS).length);
  expect(checks.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  // Rate-limit headers, plus the 429 code (ERR-CODE-005).
  expect(
    checks.every(
      (c) =>
        c.class === 'rate-limits' && (c.requirement.startsWith('RATE-HEADERS-') || c.requirement === 'ERR-CODE-005'),
    ),
  ).toBe(true);
});

test('no observations: skipped, not passed', () => {
  expect(rateInvariantChecks([]).every((c) => c.status === 'skipped')).toBe(true);
});

test('a frozen Remaining fails remaining-decrements (RATE-HEADERS-002)', () => {
  const checks = rateInvariantChecks(sequence(20, { headers: () => ({ 'x-ratelimit-remaining': '100' }) }));
  const c = byId(checks, RUN_CHECKS.remaining.id);
  expect(c.status).toBe('failed');
  expect(c.requirement).toBe('RATE-HEADERS-002');
  expect(c.message).toContain('remaining-decrements');
  expect(c.exchanges?.length).toBeGreaterThan(0);
});

test('Reset in milliseconds fails reset-epoch (RATE-HEADERS-003)', () => {
  const c = byId(
    rateInvariantChecks(sequence(3, { headers: () => ({ 'x-ratelimit-reset': String(MINUTE_END * 1000) }) })),
    RUN_CHECKS.reset.id,
  );
  expect(c.status).toBe('failed');
  expect(c.message).toContain('milliseconds');
});

test('missing headers are split by requirement: successes (001), X-SMS (004), errors (005)', () => {
  const missingOnOk = rateInvariantChecks(
    sequence(3, {
      headers: (i): Record<string, string> =>
        i === 1 ? { 'x-ratelimit-limit': '', 'x-ratelimit-remaining': '', 'x-ratelimit-reset': '' } : {},
    }),
  );
  expect(byId(missingOnOk, RUN_CHECKS.headersOk.id).status).toBe('failed');
  expect(byId(missingOnOk, RUN_CHECKS.headersOnErrors.id).status).toBe('passed');

  const noSms = rateInvariantChecks(
    sequence(3, { path: '/sms/campaigns', headers: () => ({ 'x-sms-limit': '', 'x-sms-remaining': '' }) }),
  );
  expect(byId(noSms, RUN_CHECKS.smsHeaders.id).status).toBe('failed');
  expect(byId(noSms, RUN_CHECKS.headersOk.id).status).toBe('passed');

  const errors = sequence(3);
  errors[2] = { ...errors[2]!, status: 404, errorCode: 'not_found', headers: { date: errors[2]!.headers.date! } };
  const onError = rateInvariantChecks(errors);
  expect(byId(onError, RUN_CHECKS.headersOnErrors.id).status).toBe('failed');
  expect(byId(onError, RUN_CHECKS.headersOk.id).status).toBe('passed');
});

test('out-of-order responses of concurrent requests are tolerated, up to the overlap seen', () => {
  const seq = sequence(12);
  // Requests 4 and 5 were in flight together and came back swapped.
  for (const o of seq) {
    o.sentAt = o.receivedAt - 5;
  }
  const a = seq[4]!;
  const b = seq[5]!;
  b.sentAt = a.sentAt;
  [a.receivedAt, b.receivedAt] = [b.receivedAt, a.receivedAt];
  expect(maxInFlight(seq)).toBe(2);
  expect(byId(rateInvariantChecks(seq), RUN_CHECKS.remaining.id).status).toBe('passed');
});

test('the writer hashes the key, keeps only a few headers and skips other areas', () => {
  const x = {
    method: 'GET',
    authorization: `Bearer ${KEY}`,
    status: 200,
    headers: { 'x-ratelimit-limit': '100', 'set-cookie': 'a=b', date: DATE(MINUTE_END) },
    body: {},
    sentAt: 1,
    receivedAt: 2,
  };
  const o = observationOf({ ...x, path: '/vps/vps_1' }, 0)!;
  expect(o.keyId).toBe(keyIdOf(KEY));
  expect(JSON.stringify(o)).not.toContain(KEY);
  expect(Object.keys(o.headers).sort()).toEqual(['date', 'x-ratelimit-limit']);
  expect(observationOf({ ...x, path: '/storage/buckets' }, 0)).toBeNull();
  expect(observationOf({ ...x, path: '/regions', authorization: undefined }, 0)).toBeNull();

  const dir = mkdtempSync(join(tmpdir(), 'cc-rate-obs-'));
  try {
    const observer = new RateObserver(join(dir, 'run'));
    observer.record({ ...x, path: '/sms/campaigns', status: 429, body: { error: { code: 'rate_limit_exceeded' } } });
    observer.record({ ...x, path: '/account' });
    const files = readdirSync(join(dir, 'run'));
    expect(files).toHaveLength(1);
    appendFileSync(join(dir, 'run', files[0]!), '{"torn": ');
    expect(readFileSync(join(dir, 'run', files[0]!), 'utf8')).not.toContain(KEY);
    const read = readObservations(join(dir, 'run'));
    expect(read).toHaveLength(1);
    expect(read[0]!.errorCode).toBe('rate_limit_exceeded');
    expect(read[0]!.area).toBe('messaging');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
