import { expect, test } from '../base.ts';
import {
  HeaderTracker,
  checkRateLimitSequence,
  checkUntouchedKey,
  resetProblem,
  type ObservedResponse,
  type RateLimitExpectation,
} from '../../src/rules/rate-limits.ts';

// A minute boundary: 1_700_000_040 is divisible by 60.
const T0 = 1_700_000_040;
const L = 100;
const burst: RateLimitExpectation = { limit: L, window: 'minute', headers: true };

interface SimOptions {
  limit?: number;
  count?: number;
  /** Server second at which request i is handled. */
  secondOf?: (i: number) => number;
  smsHeaders?: boolean;
  units?: (i: number) => number;
  smsLimit?: number;
  counter?: 'requests' | 'sms';
}

/** What a conforming server answers to `count` sequential requests of a fresh key. */
function simulate(o: SimOptions = {}): ObservedResponse[] {
  const limit = o.limit ?? L;
  const count = o.count ?? limit + 5;
  const secondOf = o.secondOf ?? ((i: number) => T0 + 5 + Math.floor(i / 50));
  const smsLimit = o.smsLimit ?? 10_000;
  const used = new Map<number, number>();
  let sms = 0;
  const out: ObservedResponse[] = [];
  for (let i = 0; i < count; i++) {
    const sec = secondOf(i);
    const end = (Math.floor(sec / 60) + 1) * 60;
    const u = o.units?.(i) ?? 1;
    const n = used.get(end) ?? 0;
    const reject = o.counter === 'sms' ? sms + u > smsLimit : n >= limit;
    if (!reject) {
      used.set(end, n + 1);
      sms += u;
    }
    const remaining = Math.max(0, limit - (used.get(end) ?? 0));
    const headers: Record<string, string> = {
      date: new Date(sec * 1000).toUTCString(),
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(end),
    };
    if (o.smsHeaders) {
      headers['x-sms-limit'] = String(smsLimit);
      headers['x-sms-remaining'] = String(smsLimit - sms);
    }
    if (reject)
      headers['retry-after'] = String(o.counter === 'sms' ? (Math.floor(sec / 3600) + 1) * 3600 - sec : end - sec);
    out.push({
      index: i,
      sentAt: sec * 1000,
      receivedAt: sec * 1000 + 3,
      status: reject ? 429 : 201,
      headers,
      errorCode: reject ? 'rate_limit_exceeded' : null,
      sideEffect: !reject,
      units: u,
    });
  }
  return out;
}

const names = (vs: { invariant: string }[]) => [...new Set(vs.map((v) => v.invariant))].sort();

test.describe('checkRateLimitSequence', () => {
  test('a conforming burst has no violations', () => {
    expect(checkRateLimitSequence(simulate(), burst, { completeHistory: true })).toEqual([]);
  });

  test('a burst straddling a minute boundary is judged per window', () => {
    // 60 requests in the last second of one minute, the rest in the next minute.
    const seq = simulate({ count: 170, secondOf: (i) => (i < 60 ? T0 + 59 : T0 + 60) });
    expect(checkRateLimitSequence(seq, burst, { completeHistory: true })).toEqual([]);
    // The first 429 is request 160: 60 in the first window, then 100 in the second.
    expect(seq.findIndex((r) => r.status === 429)).toBe(160);
  });

  test('onset: a missing 429 after L', () => {
    const seq = simulate().map((r) => (r.status === 429 ? { ...r, status: 201, errorCode: null } : r));
    const v = checkRateLimitSequence(seq, burst, { completeHistory: true, only: ['onset'] });
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ invariant: 'onset', index: 100 });
    expect(v[0]?.message).toContain('missing 429');
  });

  test('onset: an early 429', () => {
    const seq = simulate();
    seq[42] = { ...seq[42]!, status: 429, errorCode: 'rate_limit_exceeded' };
    const v = checkRateLimitSequence(seq, burst, { completeHistory: true, only: ['onset'] });
    expect(v[0]).toMatchObject({ invariant: 'onset', index: 42 });
    expect(v[0]?.message).toContain('early 429');
  });

  test('remaining-decrements: frozen, rising and negative Remaining', () => {
    const frozen = simulate().map((r) => ({ ...r, headers: { ...r.headers, 'x-ratelimit-remaining': '99' } }));
    expect(
      names(checkRateLimitSequence(frozen, burst, { completeHistory: true, only: ['remaining-decrements'] })),
    ).toEqual(['remaining-decrements']);
    const rising = simulate();
    rising[10] = { ...rising[10]!, headers: { ...rising[10]!.headers, 'x-ratelimit-remaining': '95' } };
    const v = checkRateLimitSequence(rising, burst, { completeHistory: true, only: ['remaining-decrements'] });
    expect(v[0]).toMatchObject({ invariant: 'remaining-decrements', index: 10 });
    const negative = simulate();
    negative[3] = { ...negative[3]!, headers: { ...negative[3]!.headers, 'x-ratelimit-remaining': '-1' } };
    expect(
      checkRateLimitSequence(negative, burst, { completeHistory: true, only: ['remaining-decrements'] })[0]?.message,
    ).toContain('negative');
  });

  test('limit-constant: Limit changing inside a window', () => {
    const seq = simulate();
    seq[50] = { ...seq[50]!, headers: { ...seq[50]!.headers, 'x-ratelimit-limit': '1000' } };
    const v = checkRateLimitSequence(seq, burst, { completeHistory: true, only: ['limit-constant'] });
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ invariant: 'limit-constant', index: 50 });
  });

  test('reset-epoch: milliseconds, deltas, past and far-future values fail; judged against Date', () => {
    const millis = simulate().map((r) => ({
      ...r,
      headers: { ...r.headers, 'x-ratelimit-reset': String(Number(r.headers['x-ratelimit-reset']) * 1000) },
    }));
    const vm = checkRateLimitSequence(millis, burst, { completeHistory: true, only: ['reset-epoch'] });
    expect(vm.length).toBeGreaterThan(0);
    expect(vm[0]?.message).toContain('milliseconds');
    const delta = simulate().map((r) => ({ ...r, headers: { ...r.headers, 'x-ratelimit-reset': '55' } }));
    expect(
      checkRateLimitSequence(delta, burst, { completeHistory: true, only: ['reset-epoch'] })[0]?.message,
    ).toContain('delta');
    // The client clock is an hour off; the server's Date is what counts, so no violation.
    const skewed = simulate().map((r) => ({ ...r, receivedAt: r.receivedAt + 3_600_000 }));
    expect(checkRateLimitSequence(skewed, burst, { completeHistory: true, only: ['reset-epoch'] })).toEqual([]);
    expect(resetProblem(String(T0), T0 + 10, 60)).toContain('past');
    expect(resetProblem(String(T0 + 7200), T0, 3600)).toContain('more than');
    expect(resetProblem('12.5', T0, 60)).toContain('not an integer');
    expect(resetProblem(String(T0 + 60), T0 + 1, 60)).toBeNull();
  });

  test('headers-present: a response without the headers, and X-SMS-* on messaging', () => {
    const seq = simulate();
    const { 'x-ratelimit-remaining': _drop, ...rest } = seq[7]!.headers;
    seq[7] = { ...seq[7]!, headers: rest };
    const v = checkRateLimitSequence(seq, burst, { completeHistory: true, only: ['headers-present'] });
    expect(v).toEqual([expect.objectContaining({ invariant: 'headers-present', index: 7 })]);
    const noSms = checkRateLimitSequence(
      simulate(),
      { ...burst, smsHeaders: true },
      { completeHistory: true, only: ['headers-present'] },
    );
    expect(noSms.length).toBeGreaterThan(0);
    expect(noSms[0]?.message).toContain('x-sms-limit');
    expect(
      checkRateLimitSequence(simulate({ smsHeaders: true }), { ...burst, smsHeaders: true }, { completeHistory: true }),
    ).toEqual([]);
  });

  test('429-code and 429-shape: code, Retry-After consistency and headers', () => {
    const wrongCode = simulate().map((r) => (r.status === 429 ? { ...r, errorCode: 'too_many' } : r));
    expect(names(checkRateLimitSequence(wrongCode, burst, { completeHistory: true }))).toEqual(['429-code']);
    const noRetry = simulate().map((r) => {
      if (r.status !== 429) return r;
      const { 'retry-after': _x, ...h } = r.headers;
      return { ...r, headers: h };
    });
    expect(checkRateLimitSequence(noRetry, burst, { completeHistory: true })[0]?.message).toContain('no Retry-After');
    const badRetry = simulate().map((r) =>
      r.status === 429 ? { ...r, headers: { ...r.headers, 'retry-after': '3600' } } : r,
    );
    expect(checkRateLimitSequence(badRetry, burst, { completeHistory: true })[0]?.message).toContain('disagrees');
    // Within the 2 s tolerance.
    const closeRetry = simulate().map((r) =>
      r.status === 429
        ? { ...r, headers: { ...r.headers, 'retry-after': String(Number(r.headers['retry-after']) + 2) } }
        : r,
    );
    expect(checkRateLimitSequence(closeRetry, burst, { completeHistory: true })).toEqual([]);
  });

  test('no-side-effect: a 429 that still created something', () => {
    const seq = simulate();
    seq[101] = { ...seq[101]!, sideEffect: true };
    expect(checkRateLimitSequence(seq, burst, { completeHistory: true })).toEqual([
      expect.objectContaining({ invariant: 'no-side-effect', index: 101 }),
    ]);
  });

  test('recovery: still 429 after Reset passed; fine when accepted again', () => {
    const seq = simulate({ count: 102 });
    const last = seq[101]!;
    const after = T0 + 61;
    const accepted: ObservedResponse = {
      index: 102,
      sentAt: after * 1000,
      receivedAt: after * 1000 + 2,
      status: 201,
      headers: {
        date: new Date(after * 1000).toUTCString(),
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': String(T0 + 120),
      },
    };
    expect(checkRateLimitSequence([...seq, accepted], burst, { completeHistory: true })).toEqual([]);
    const stuck: ObservedResponse = {
      ...last,
      index: 102,
      sentAt: after * 1000,
      receivedAt: after * 1000,
      headers: { ...last.headers, date: new Date(after * 1000).toUTCString(), 'x-ratelimit-reset': String(T0 + 120) },
    };
    expect(
      names(checkRateLimitSequence([...seq, stuck], burst, { completeHistory: true, only: ['recovery'] })),
    ).toEqual(['recovery']);
  });

  test('sms counter: X-SMS-Remaining counts recipients and the 429 comes when recipients exceed the limit', () => {
    const sms: RateLimitExpectation = {
      limit: 10_000,
      window: 'hour',
      counter: 'sms',
      headers: true,
      smsHeaders: true,
    };
    // 125 recipients per bulk send: 80 sends use all 10000, the 81st is rejected.
    const seq = simulate({
      count: 83,
      counter: 'sms',
      units: () => 125,
      smsHeaders: true,
      limit: 100,
      secondOf: () => T0 + 5,
    });
    expect(seq.findIndex((r) => r.status === 429)).toBe(80);
    expect(checkRateLimitSequence(seq, sms, { completeHistory: true })).toEqual([]);
    // A server that counts one SMS per request instead of per recipient.
    const perRequest = seq.map((r, i) => ({
      ...r,
      headers: { ...r.headers, 'x-sms-remaining': String(10_000 - Math.min(i + 1, 80)) },
    }));
    expect(names(checkRateLimitSequence(perRequest, sms, { completeHistory: true }))).toEqual(['sms-remaining']);
  });

  test('concurrent ordering: counts and distinct Remaining values, not arrival order', () => {
    // 200 simultaneous requests, arriving shuffled: exactly 100 accepted.
    const seq = simulate({ count: 200, secondOf: () => T0 + 5 });
    const shuffled = seq.map((r, i) => ({ ...r, index: (i * 37) % 200, receivedAt: r.receivedAt + ((i * 53) % 17) }));
    expect(checkRateLimitSequence(shuffled, burst, { completeHistory: true, ordering: 'concurrent' })).toEqual([]);
    // Non-atomic: 130 accepted, with duplicated Remaining values.
    const racy = seq.map((r, i) =>
      i < 130
        ? {
            ...r,
            status: 201,
            errorCode: null,
            headers: { ...r.headers, 'x-ratelimit-remaining': String(Math.max(0, 99 - Math.floor(i * 0.77))) },
          }
        : r,
    );
    expect(names(checkRateLimitSequence(racy, burst, { completeHistory: true, ordering: 'concurrent' }))).toEqual([
      'onset',
      'remaining-decrements',
    ]);
  });

  test('storage hourly quota without headers: onset from status only, window from Date', () => {
    const seq = simulate({ limit: 1000, count: 1003, secondOf: (i) => T0 + 100 + Math.floor(i / 200) }).map((r) => ({
      ...r,
      headers: Object.fromEntries(Object.entries(r.headers).filter(([k]) => k === 'date' || k === 'retry-after')),
    }));
    // Retry-After as the hour end relative to Date.
    for (const r of seq) if (r.status === 429) r.headers['retry-after'] = String(3600 - ((T0 + 105) % 3600));
    const quota: RateLimitExpectation = { limit: 1000, window: 'hour', headers: false };
    expect(checkRateLimitSequence(seq, quota, { completeHistory: true })).toEqual([]);
    const v = checkRateLimitSequence(seq.slice(0, 1000), { ...quota, limit: 900 }, { completeHistory: true });
    expect(v[0]).toMatchObject({ invariant: 'onset', index: 900 });
  });
});

test.describe('checkUntouchedKey', () => {
  test('isolation: fresh key starts at Limit - 1 and is never rejected', () => {
    expect(checkUntouchedKey(simulate({ count: 5 }), burst)).toEqual([]);
    const shared = simulate({ count: 5 }).map((r) => ({
      ...r,
      headers: { ...r.headers, 'x-ratelimit-remaining': '0' },
      status: 429,
      errorCode: 'rate_limit_exceeded',
    }));
    expect(names(checkUntouchedKey(shared, burst))).toEqual(['isolation']);
  });
});

test.describe('HeaderTracker', () => {
  const feedAll = (t: HeaderTracker, key: string, path: string, rs: ObservedResponse[]) =>
    rs.forEach((r) => t.feed(key, path, r));

  test('a clean run, interleaved keys and out-of-order arrival within tolerance', () => {
    const t = new HeaderTracker({ maxInFlight: 4 });
    const a = simulate({ count: 60 });
    const b = simulate({ count: 60 });
    // Swap neighbours: responses arrive out of order by one.
    for (let i = 0; i + 1 < a.length; i += 2) [a[i], a[i + 1]] = [a[i + 1]!, a[i]!];
    for (let i = 0; i < 60; i++) {
      t.feed('a', '/regions', a[i]!);
      t.feed('b', '/vps', b[i]!);
    }
    // Storage has no header requirement.
    t.feed('a', '/storage/buckets', { index: 99, sentAt: 0, receivedAt: 0, status: 200, headers: {} });
    expect(t.result()).toEqual([]);
  });

  test('missing headers on compute, X-SMS-* on messaging, reported once per key', () => {
    const t = new HeaderTracker();
    const rs = simulate({ count: 20 }).map((r) => ({ ...r, headers: { date: r.headers.date } }));
    feedAll(t, 'k', '/regions', rs);
    expect(t.result()).toHaveLength(1);
    expect(t.result()[0]).toMatchObject({ invariant: 'headers-present', key: 'k' });
    const m = new HeaderTracker();
    feedAll(m, 'k', '/sms/send', simulate({ count: 3 }));
    expect(m.result()[0]?.message).toContain('x-sms-remaining');
  });

  test('frozen Remaining', () => {
    const t = new HeaderTracker({ maxInFlight: 1 });
    feedAll(
      t,
      'k',
      '/regions',
      simulate({ count: 30 }).map((r) => ({ ...r, headers: { ...r.headers, 'x-ratelimit-remaining': '77' } })),
    );
    expect(names(t.result())).toEqual(['remaining-decrements']);
    expect(t.result()[0]?.message).toContain('stayed 77');
  });

  test('Remaining rising beyond the in-flight tolerance', () => {
    const t = new HeaderTracker({ maxInFlight: 2 });
    const rs = simulate({ count: 30 });
    rs[20] = { ...rs[20]!, headers: { ...rs[20]!.headers, 'x-ratelimit-remaining': '95' } };
    feedAll(t, 'k', '/regions', rs);
    expect(names(t.result())).toEqual(['remaining-decrements']);
    expect(t.result()[0]?.message).toContain('rose');
  });

  test('Reset in milliseconds and Limit changing', () => {
    const t = new HeaderTracker();
    feedAll(
      t,
      'k',
      '/regions',
      simulate({ count: 5 }).map((r) => ({
        ...r,
        headers: { ...r.headers, 'x-ratelimit-reset': String(Number(r.headers['x-ratelimit-reset']) * 1000) },
      })),
    );
    expect(names(t.result())).toEqual(['reset-epoch']);
    const u = new HeaderTracker();
    const rs = simulate({ count: 5 });
    rs[3] = { ...rs[3]!, headers: { ...rs[3]!.headers, 'x-ratelimit-limit': '1000' } };
    feedAll(u, 'k', '/regions', rs);
    expect(names(u.result())).toEqual(['limit-constant']);
  });
});

test.describe('partial history (an already used key)', () => {
  test('onset is not judged in the first window, but Remaining must still drop by one per request', () => {
    // The key had 30 requests before the sequence starts.
    const seq = simulate({ count: 105 })
      .slice(30)
      .map((r, i) => ({ ...r, index: i }));
    expect(checkRateLimitSequence(seq, burst)).toEqual([]);
    const frozen = seq.map((r) => ({ ...r, headers: { ...r.headers, 'x-ratelimit-remaining': '100' } }));
    expect(names(checkRateLimitSequence(frozen, burst))).toContain('remaining-decrements');
  });
});

test('HeaderTracker: per-area minute windows of one key do not look like a rising Remaining', () => {
  const t = new HeaderTracker({ maxInFlight: 1 });
  const compute = simulate({ count: 40 });
  const messaging = simulate({ count: 10, smsHeaders: true });
  for (let i = 0; i < 40; i++) {
    t.feed('k', '/regions', compute[i]!);
    if (i < 10) t.feed('k', '/sms/messages', messaging[i]!);
  }
  expect(t.result()).toEqual([]);
});

test.describe('which window the headers describe (RATE-HEADERS-005 is a convention)', () => {
  const SPEC_INVARIANTS = [
    'onset',
    'remaining-decrements',
    'limit-constant',
    'reset-epoch',
    'headers-present',
    '429-shape',
    '429-code',
    'recovery',
  ] as const;
  const HOUR_END = (Math.floor(T0 / 3600) + 1) * 3600;

  /** The key's hourly window in the headers (Limit 1000) while the minute's burst refuses the 101st. */
  function hourlyHeaders(): ObservedResponse[] {
    let used = 0;
    return simulate().map((r) => {
      if (r.status !== 429) used += 1;
      return {
        ...r,
        headers: {
          ...r.headers,
          'x-ratelimit-limit': '1000',
          'x-ratelimit-remaining': String(1000 - used),
          'x-ratelimit-reset': String(HOUR_END),
        },
      };
    });
  }

  test('headers of the hourly window pass every invariant of the specification, and fail nearest-window', () => {
    const seq = hourlyHeaders();
    expect(checkRateLimitSequence(seq, burst, { completeHistory: true, only: SPEC_INVARIANTS })).toEqual([]);
    const v = checkRateLimitSequence(seq, burst, { completeHistory: true });
    expect(names(v)).toEqual(['nearest-window']);
    expect(v[0]?.message).toContain('X-RateLimit-Limit is 1000, expected 100');
    // The same headers fed to the run-wide tracker: nothing to report.
    const t = new HeaderTracker({ maxInFlight: 1 });
    for (const r of seq) t.feed('k', '/regions', r);
    expect(t.result()).toEqual([]);
  });

  test('nearest-window: Remaining exactly L-1 ... 0, 0 on the 429, Reset within the window', () => {
    const skipping = simulate().map((r) =>
      r.index >= 10
        ? {
            ...r,
            headers: {
              ...r.headers,
              'x-ratelimit-remaining': String(Math.max(0, Number(r.headers['x-ratelimit-remaining']) - 5)),
            },
          }
        : r,
    );
    // Falling by more than one is the specification's (a shared window); the exact count is the convention's.
    expect(names(checkRateLimitSequence(skipping, burst, { completeHistory: true }))).toEqual(['nearest-window']);
    const notZero = simulate().map((r) =>
      r.status === 429 ? { ...r, headers: { ...r.headers, 'x-ratelimit-remaining': '3' } } : r,
    );
    const v = checkRateLimitSequence(notZero, burst, { completeHistory: true, only: ['nearest-window'] });
    expect(v[0]?.message).toContain('on a 429');
  });

  test('a window opened by the key first request (not aligned to the epoch) is judged by its own Reset', () => {
    // The burst starts 40 s into a minute and runs across the epoch minute's end: one window all the same.
    const start = T0 + 40;
    const seq = simulate({ secondOf: (i) => start + Math.floor(i / 5) }).map((r, i) => {
      const sec = start + Math.floor(i / 5);
      const accepted = Math.min(i + 1, L);
      return {
        ...r,
        status: i < L ? 201 : 429,
        errorCode: i < L ? null : 'rate_limit_exceeded',
        sideEffect: i < L,
        headers: {
          date: new Date(sec * 1000).toUTCString(),
          'x-ratelimit-limit': String(L),
          'x-ratelimit-remaining': String(L - accepted),
          'x-ratelimit-reset': String(start + 60),
          ...(i < L ? {} : { 'retry-after': String(start + 60 - sec) }),
        },
      };
    });
    expect(checkRateLimitSequence(seq, burst, { completeHistory: true })).toEqual([]);
  });
});
