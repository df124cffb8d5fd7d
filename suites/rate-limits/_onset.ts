/**
 * The burst onset flow of the `rate-limits` class, once per area (messaging, compute). Not a spec
 * file: burst.spec.ts declares the flows.
 *
 * A FRESH key (created with the main key, revoked by the flow's ledger) sends one cheap read at a
 * time until the first 429, at most L + 5 requests, so its whole history is known: the 101st
 * request of the minute is refused. The first step only collects; every later step judges one
 * invariant with `checkRateLimitSequence` (src/rules/rate-limits.ts, the same checker the load
 * profiles use) and points at its requirement. The specification does not say which of the key's
 * windows the headers describe, so the MUST steps hold for any of them (integers, Remaining falls
 * and never rises in the window Limit and Reset name, Reset an epoch timestamp after Date); that
 * they describe the minute, the window nearest exhaustion (Remaining 99, 98, ... 0), is the
 * convention's step (RATE-HEADERS-005).
 *
 * Requests carry the key explicitly (`key`), so the client neither paces nor retries them: the
 * check sees exactly what the target does.
 */
import { checkRateLimitSequence, intHeader, serverSeconds } from '../../src/rules/rate-limits.ts';
import type { InvariantName, ObservedResponse, RateLimitExpectation } from '../../src/rules/rate-limits.ts';
import {
  EnvironmentError,
  defineFlow,
  expect,
  expectErrorEnvelope,
  expectStatus,
  expectSuccess,
  fail,
  listOf,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, Ledger } from '../../src/harness/check.ts';

/** The burst limit the specification gives for messaging and compute ("Limits"). */
export const BURST_LIMIT = 100;
/** Extra requests allowed past L before giving up on seeing a 429. */
const SLACK = 5;
/**
 * Start the burst in a fresh minute when fewer seconds remain in the current one than the burst
 * needs: five times the probe's round trip per request, plus 5 s (room for a machine that gets
 * busier during the burst), and never more than this (a target too slow for it cannot fit a
 * burst in a minute anyway: the roll-over is then reported).
 */
const MAX_SECONDS_NEEDED = 15;

/** Seconds a burst of `requests` needs, from the round trip of one request (ms). */
export function secondsNeeded(roundTripMs: number, requests: number): number {
  return Math.min(MAX_SECONDS_NEEDED, 5 + (5 * roundTripMs * requests) / 1000);
}

export interface OnsetState {
  responses: ObservedResponse[];
  /** The first 429, kept whole for the envelope check. */
  first429: ApiResponse | null;
  /** Distinct minute windows the requests fell into (server time). */
  windows: number;
  /** The fresh key, exhausted for the rest of its minute once the first 429 came. */
  key: string;
}

interface AreaPlan {
  area: 'messaging' | 'compute';
  /** A cheap read of the area: nothing is created or sent. */
  path: string;
  operation: string;
}

const PLANS: Record<'messaging' | 'compute', AreaPlan> = {
  messaging: { area: 'messaging', path: '/sms/campaigns', operation: 'GET /sms/campaigns' },
  compute: { area: 'compute', path: '/regions', operation: 'GET /regions' },
};

function errorCodeOf(res: ApiResponse): string | null {
  const code = (res.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : null;
}

/** Seconds left in the current minute window by the server's clock: Reset when it is plausible epoch seconds, else Date. */
function secondsLeft(r: ObservedResponse): number {
  const date = serverSeconds(r).seconds;
  const reset = intHeader(r, 'x-ratelimit-reset');
  if (reset !== undefined && reset - date >= 0 && reset - date <= 61) return reset - date;
  return 60 - (date % 60);
}

/** The end of the minute window a response belongs to (server clock), for roll-over detection. */
function minuteOf(r: ObservedResponse): number {
  return serverSeconds(r).seconds + secondsLeft(r);
}

function failOn(violations: ReturnType<typeof checkRateLimitSequence>, invariant: InvariantName): void {
  const mine = violations.filter((v) => v.invariant === invariant);
  if (mine.length === 0) return;
  const shown = mine.slice(0, 3).map((v) => `${v.message}${v.index >= 0 ? ` (request ${v.index + 1})` : ''}`);
  // The run-wide check of the same invariant (src/report/rate-invariants.ts) fails in the same
  // terms: one wrong header is one cause, whichever of them saw it.
  fail({
    kind: 'invariant',
    subject: invariant,
    expected: 'holds',
    actual: 'violated',
    says: `invariant ${invariant}: ${shown.join('; ')}${mine.length > 3 ? `; and ${mine.length - 3} more` : ''}`,
  });
}

export function defineOnsetFlow(area: 'messaging' | 'compute'): void {
  const plan = PLANS[area];
  const expectation: RateLimitExpectation = { limit: BURST_LIMIT, window: 'minute', headers: true, smsHeaders: false };
  const judge = (
    state: OnsetState,
    invariant: InvariantName,
    responses: ObservedResponse[] = state.responses,
  ): void => {
    failOn(
      checkRateLimitSequence(responses, expectation, {
        ordering: 'sequential',
        completeHistory: true,
        only: [invariant],
      }),
      invariant,
    );
  };
  const id = `rate-limits.burst-${area}`;

  defineFlow<OnsetState>({ id, class: 'rate-limits', title: `burst onset on ${area} with a fresh key` }, (step) => {
    step(
      {
        id: `${id}.collect`,
        requirement: 'RATE-BURST-001',
        level: 'MUST',
        operation: plan.operation,
        title: `a fresh key sends ${plan.operation} one at a time until the first 429 (at most ${BURST_LIMIT + SLACK} in a minute); every answer is 2xx or 429`,
      },
      async ({ api, ledger, ctx, state }) => {
        const created = await api.post(
          '/account/api-keys',
          {
            name: ctx.name(`rl-${area}`),
            permissions: ['read', 'write'],
            expires_at: new Date(Date.now() + 3 * 3_600_000).toISOString(),
          },
          { key: ctx.keys.main },
        );
        if (created.status < 200 || created.status >= 300) {
          throw new EnvironmentError(
            `cannot create a fresh API key for the burst (POST /account/api-keys answered ${created.status}); the onset needs a key with no history`,
          );
        }
        const body = created.body as
          | { api_key?: { id?: unknown; key?: unknown }; id?: unknown; key?: unknown }
          | undefined;
        const record = body?.api_key ?? body;
        if (typeof record?.id !== 'string' || typeof record.key !== 'string')
          throw new Error('POST /account/api-keys answered without api_key.id and api_key.key');
        ledger.track('api-key', record.id);
        const key = record.key;

        const responses: ObservedResponse[] = [];
        let first429: ApiResponse | null = null;
        const send = async (): Promise<ApiResponse> => {
          const sentAt = Date.now();
          const res = await api.get(plan.path, { key });
          responses.push({
            index: responses.length,
            sentAt,
            receivedAt: Date.now(),
            status: res.status,
            headers: res.headers,
            errorCode: errorCodeOf(res),
            operation: plan.operation,
          });
          return res;
        };

        // Probe, then start in a fresh minute if this one is nearly over (bounded wait).
        let res = await send();
        const probe = responses[0]!;
        const left = secondsLeft(probe);
        const needed = secondsNeeded(probe.receivedAt - probe.sentAt, BURST_LIMIT + SLACK);
        if (res.status !== 429 && left < needed) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(left + 1, needed + 1) * 1000));
        }
        // Bounded: the probe plus at most L + SLACK requests.
        for (let i = 0; i < BURST_LIMIT + SLACK && res.status !== 429; i++) res = await send();
        if (res.status === 429) first429 = res;
        state.responses = responses;
        state.first429 = first429;
        state.key = key;
        state.windows = new Set(responses.map(minuteOf)).size;

        const odd = responses.find((r) => !(r.status >= 200 && r.status < 300) && r.status !== 429);
        if (odd) {
          throw new Error(
            `${plan.operation} with the fresh key answered ${odd.status} at request ${odd.index + 1}${odd.errorCode ? ` (${odd.errorCode})` : ''}; expected 2xx until the limit, then 429`,
          );
        }
      },
    );

    step(
      {
        id: `${id}.onset`,
        requirement: 'RATE-BURST-001',
        level: 'MUST',
        operation: plan.operation,
        title: `the ${BURST_LIMIT + 1}st ${area} request of a minute is the first one refused with 429`,
      },
      async ({ state }) => {
        const violations = checkRateLimitSequence(state.responses, expectation, {
          ordering: 'sequential',
          completeHistory: true,
          only: ['onset'],
        });
        if (violations.length === 0 && !state.first429 && state.windows > 1) {
          // The minute ended during the burst despite starting with enough time: nothing to judge.
          throw new EnvironmentError(
            `the minute window rolled over during the burst (${state.responses.length} requests over ${state.windows} minutes) and no 429 came; rerun`,
          );
        }
        failOn(violations, 'onset');
        expect(state.first429, `no 429 after ${state.responses.length} requests`).not.toBeNull();
      },
    );

    step(
      {
        id: `${id}.429-envelope`,
        requirement: 'ERR-CODE-005',
        level: 'MUST',
        operation: plan.operation,
        title: `the ${area} 429 carries the error envelope with code rate_limit_exceeded`,
      },
      async ({ state }) => {
        expect(state.first429, 'a 429 was observed').not.toBeNull();
        expectStatus(state.first429!, 429);
        expectErrorEnvelope(state.first429!, 'rate_limit_exceeded');
      },
    );

    step(
      {
        id: `${id}.headers`,
        requirement: 'RATE-HEADERS-001',
        level: 'MUST',
        operation: plan.operation,
        title: `every successful ${area} response carries X-RateLimit-Limit, -Remaining and -Reset as integers`,
      },
      async ({ state }) => {
        judge(
          state,
          'headers-present',
          state.responses.filter((r) => r.status >= 200 && r.status < 300),
        );
        for (const r of state.responses) {
          const limit = intHeader(r, 'x-ratelimit-limit');
          const remaining = intHeader(r, 'x-ratelimit-remaining');
          if (limit !== undefined && remaining !== undefined && remaining > limit) {
            throw new Error(
              `X-RateLimit-Remaining ${remaining} is above X-RateLimit-Limit ${limit} (request ${r.index + 1})`,
            );
          }
        }
      },
    );

    if (area === 'messaging') {
      step(
        {
          id: `${id}.sms-headers`,
          requirement: 'RATE-HEADERS-004',
          level: 'MUST',
          operation: plan.operation,
          title:
            'every successful messaging response carries X-SMS-Limit and X-SMS-Remaining; reads leave X-SMS-Remaining at the limit',
        },
        async ({ state }) => {
          const ok = state.responses.filter((r) => r.status >= 200 && r.status < 300);
          for (const r of ok) {
            const missing = ['x-sms-limit', 'x-sms-remaining'].filter((h) => intHeader(r, h) === undefined);
            if (missing.length)
              throw new Error(
                `${plan.operation} response ${r.index + 1} (status ${r.status}) lacks integer ${missing.join(', ')}`,
              );
          }
          // The fresh key sent no SMS (reads only): X-SMS-Remaining must equal the hourly 10000.
          failOn(
            checkRateLimitSequence(
              ok,
              { limit: 10_000, window: 'hour', counter: 'sms', smsHeaders: true, smsLimit: 10_000 },
              { completeHistory: true, only: ['sms-remaining'] },
            ),
            'sms-remaining',
          );
        },
      );
    }

    step(
      {
        id: `${id}.remaining`,
        requirement: 'RATE-HEADERS-002',
        level: 'MUST',
        operation: plan.operation,
        title:
          'X-RateLimit-Remaining of the fresh key falls with every request and never rises, within the window its Limit and Reset name',
      },
      async ({ state }) => judge(state, 'remaining-decrements'),
    );

    step(
      {
        id: `${id}.reset-epoch`,
        requirement: 'RATE-HEADERS-003',
        level: 'MUST',
        operation: plan.operation,
        title:
          "X-RateLimit-Reset is an epoch timestamp in seconds, not before the response's Date and at most an hour after it",
      },
      async ({ state }) => judge(state, 'reset-epoch'),
    );

    step(
      {
        id: `${id}.429-shape`,
        requirement: 'RATE-HEADERS-006',
        level: 'SHOULD',
        operation: plan.operation,
        title: 'the 429 carries a Retry-After (>= 1 s) that agrees with the end of the exhausted window',
      },
      async ({ state }) => {
        expect(state.first429, 'a 429 was observed').not.toBeNull();
        judge(state, '429-shape');
      },
    );

    step(
      {
        id: `${id}.limit`,
        requirement: 'RATE-HEADERS-005',
        level: 'SHOULD',
        operation: plan.operation,
        title: `the headers describe the minute window, the one nearest exhaustion: Limit ${BURST_LIMIT} throughout, Remaining ${BURST_LIMIT - 1}, ${BURST_LIMIT - 2}, ... 0 before the 429, Reset the minute's end`,
      },
      async ({ state }) => {
        judge(state, 'limit-constant');
        judge(state, 'nearest-window');
      },
    );

    step(
      {
        id: `${id}.429-details`,
        requirement: 'ERR-MAP-015',
        level: 'SHOULD',
        operation: plan.operation,
        title: `the ${area} 429 carries details {limit, window, reset} describing the exhausted minute window`,
      },
      async ({ state }) => {
        expect(state.first429, 'a 429 was observed').not.toBeNull();
        expectBurstDetails(state.first429!);
      },
    );

    step(
      {
        id: `${id}.fixed-windows`,
        requirement: 'RATE-WIN-001',
        level: 'SHOULD',
        operation: plan.operation,
        title:
          "the windows are the key's own and fixed on the epoch: Reset is the end of the minute (or hour) the response's Date falls in, and nothing was counted against the fresh key before its first request",
      },
      async ({ state }) => expectFixedWindows(state.responses),
    );

    if (area === 'messaging') {
      step(
        {
          id: `${id}.refused-write`,
          requirement: 'RATE-CNT-001',
          level: 'SHOULD',
          operation: 'POST /messaging/templates',
          title:
            'a template created with the exhausted key in its minute is refused with 429 and does not exist afterwards',
        },
        async ({ api, ledger, ctx, state }) => {
          expect(state.first429, 'a 429 was observed').not.toBeNull();
          await expectRefusedWriteUndone(api, ledger, ctx.name('rl-refused'), state.key);
        },
      );
    }
  });
}

/** ERR-MAP-015: the 429's details name the exhausted window: its limit, a name, its end. */
function expectBurstDetails(res: ApiResponse): void {
  const details = (res.body as { error?: { details?: unknown } } | undefined)?.error?.details as
    | { limit?: unknown; window?: unknown; reset?: unknown }
    | undefined;
  expect(
    typeof details === 'object' && details !== null && !Array.isArray(details),
    `the 429's error.details is an object {limit, window, reset}: ${res.text.slice(0, 300)}`,
  ).toBe(true);
  expect(details!.limit, 'error.details.limit of the exhausted burst window').toBe(BURST_LIMIT);
  expect(typeof details!.window === 'string' && details!.window !== '', 'error.details.window names the window').toBe(
    true,
  );
  const date = Date.parse(res.headers.date ?? '');
  const now = Number.isFinite(date) ? Math.floor(date / 1000) : Math.floor(Date.now() / 1000);
  const reset = details!.reset;
  expect(
    typeof reset === 'number' && Number.isInteger(reset) && reset >= now && reset <= now + 61,
    `error.details.reset ${JSON.stringify(reset)} is the end of the minute window in epoch seconds (Date ${now})`,
  ).toBe(true);
}

/** RATE-WIN-001: epoch-aligned windows (minute or hour), counted per key. */
function expectFixedWindows(responses: readonly ObservedResponse[]): void {
  for (const r of responses) {
    const reset = intHeader(r, 'x-ratelimit-reset');
    if (reset === undefined) continue;
    // A second of slack: Date may be stamped just after the window the limiter counted in ended.
    const ends = [0, 1].flatMap((slack) => {
      const date = serverSeconds(r).seconds - slack;
      return [(Math.floor(date / 60) + 1) * 60, (Math.floor(date / 3600) + 1) * 3600];
    });
    if (!ends.includes(reset))
      throw new Error(
        `X-RateLimit-Reset ${reset} of request ${r.index + 1} is not the end of the minute or hour its Date (${r.headers.date}) falls in: the windows should be fixed and aligned to the epoch`,
      );
  }
  const first = responses.find((r) => r.status >= 200 && r.status < 300);
  const limit = first && intHeader(first, 'x-ratelimit-limit');
  const remaining = first && intHeader(first, 'x-ratelimit-remaining');
  if (limit !== undefined && remaining !== undefined && remaining !== limit - 1)
    throw new Error(
      `the fresh key's first X-RateLimit-Remaining is ${remaining} of ${limit}: requests it never made were counted against it (limits should be per key)`,
    );
}

/**
 * RATE-CNT-001: a write the exhausted key sends in its minute is refused and leaves nothing. A
 * write that is served instead (the minute ended first) says nothing: it is removed again, and the
 * check could not be made.
 */
async function expectRefusedWriteUndone(api: ApiClient, ledger: Ledger, name: string, key: string): Promise<void> {
  const res = await api.post('/messaging/templates', { name, content: 'cloudcheck refused {{code}}' }, { key });
  if (res.status !== 429) {
    const id = resourceOf<{ id?: unknown }>(res.body, 'template')?.id;
    if (res.status < 300 && typeof id === 'string') ledger.track('template', id);
    throw new EnvironmentError(
      `POST /messaging/templates with the exhausted key answered ${res.status}, not 429: its minute window ended before the write; rerun`,
    );
  }
  const list = await api.get('/messaging/templates');
  expectSuccess(list, 'GET /messaging/templates after the refused write');
  const created = (listOf<{ id?: unknown; name?: unknown }>(list.body, 'templates') ?? []).find((t) => t.name === name);
  if (typeof created?.id === 'string') ledger.track('template', created.id);
  expect(created, `the template "${name}" whose creation was answered 429 exists`).toBeUndefined();
}
