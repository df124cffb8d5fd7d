/**
 * The burst onset flow of the `rate-limits` class, once per area (messaging, compute). Not a spec
 * file: burst.spec.ts declares the flows.
 *
 * A FRESH key (created with the main key, revoked by the flow's ledger) sends one cheap read at a
 * time until the first 429, at most L + 5 requests, so its whole history is known and exact
 * values can be expected: Remaining 99, 98, ... 0, the 101st request of the minute refused. The
 * first step only collects; every later step judges one invariant with `checkRateLimitSequence`
 * (load/invariants.ts, the same checker the load profiles use) and points at its requirement.
 *
 * Requests carry the key explicitly (`key`), so the client neither paces nor retries them: the
 * check sees exactly what the target does.
 */
import { checkRateLimitSequence, intHeader, resetProblem, serverSeconds } from '../../src/rules/rate-limits.ts';
import type { InvariantName, ObservedResponse, RateLimitExpectation } from '../../src/rules/rate-limits.ts';
import { defineFlow, EnvironmentError, expect, expectErrorEnvelope, expectStatus } from '../../src/harness/check.ts';
import type { ApiResponse } from '../../src/harness/check.ts';

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
  throw new Error(
    `invariant ${invariant}: ${shown.join('; ')}${mine.length > 3 ? `; and ${mine.length - 3} more` : ''}`,
  );
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
        title: `X-RateLimit-Remaining of the fresh key is ${BURST_LIMIT - 1}, ${BURST_LIMIT - 2}, ... 0: one less per request, 0 before the 429`,
      },
      async ({ state }) => judge(state, 'remaining-decrements'),
    );

    step(
      {
        id: `${id}.reset-epoch`,
        requirement: 'RATE-HEADERS-003',
        level: 'MUST',
        operation: plan.operation,
        title: 'X-RateLimit-Reset is the end of the minute window in epoch seconds, measured against the response Date',
      },
      async ({ state }) => {
        judge(state, 'reset-epoch');
        // Tighter than the run-wide check: the nearest window of a fresh key is the minute.
        for (const r of state.responses) {
          const problem = resetProblem(r.headers['x-ratelimit-reset'], serverSeconds(r).seconds, 60);
          if (problem && r.headers['x-ratelimit-reset'] !== undefined)
            throw new Error(`invariant reset-epoch: request ${r.index + 1}: ${problem} (minute window)`);
        }
      },
    );

    step(
      {
        id: `${id}.429-shape`,
        requirement: 'RATE-HEADERS-006',
        level: 'SHOULD',
        operation: plan.operation,
        title:
          'the 429 carries the rate-limit headers with Remaining 0 and a Retry-After (>= 1 s) that agrees with Reset - Date',
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
        title: `X-RateLimit-Limit is ${BURST_LIMIT} throughout: the headers describe the minute window, the one nearest exhaustion`,
      },
      async ({ state }) => judge(state, 'limit-constant'),
    );
  });
}
