/**
 * How a key's use is counted and shown outside the burst: each recipient of a bulk send is one
 * SMS against the hourly volume (RATE-CNT-002), and storage, billing and project responses, which
 * need not carry X-RateLimit-* at all, follow the rules of messaging and compute when they do
 * (RATE-HEADERS-007). Each check uses a fresh key of its own (created with the main key, revoked
 * by its ledger), so that what its headers count is its own requests and nothing else.
 */
import {
  EnvironmentError,
  checkRateLimitSequence,
  defineCheck,
  expect,
  expectSuccess,
  intHeader,
  test,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, CheckContext, Ledger, ObservedResponse } from '../../src/harness/check.ts';

/** A key of the run's account with no history: created with the main key, revoked after the check. */
async function freshKey(api: ApiClient, ledger: Ledger, ctx: CheckContext, label: string): Promise<string> {
  const res = await api.post(
    '/account/api-keys',
    { name: ctx.name(label), permissions: ['read', 'write'] },
    { key: ctx.keys.main },
  );
  const record = (res.body as { api_key?: { id?: unknown; key?: unknown } } | undefined)?.api_key;
  if (res.status >= 300 || typeof record?.id !== 'string' || typeof record.key !== 'string')
    throw new EnvironmentError(
      `cannot create a fresh API key (POST /account/api-keys answered ${res.status}); the check counts what one key alone did`,
    );
  ledger.track('api-key', record.id);
  return record.key;
}

defineCheck(
  {
    id: 'rate-limits.sms-volume.per-recipient',
    requirement: 'RATE-CNT-002',
    level: 'SHOULD',
    class: 'rate-limits',
    operation: 'POST /sms/bulk',
    title: 'a bulk send to three recipients lowers X-SMS-Remaining of a fresh key by three',
  },
  async ({ api, ledger, ctx }) => {
    const key = await freshKey(api, ledger, ctx, 'sms-volume');
    const before = await api.get('/sms/campaigns', { key });
    expectSuccess(before, 'GET /sms/campaigns with the fresh key');
    const recipients = [ctx.testNumbers.succeed, ctx.testNumbers.fail, ctx.testNumbers.random];
    const sent = await api.post('/sms/bulk', { recipients, message: `cloudcheck ${ctx.runPrefix}sms volume` }, { key });
    expectSuccess(sent, 'a test-mode bulk send to the three test numbers');
    const body = sent.body as { campaign_id?: unknown; messages?: Array<{ message_id?: unknown }> } | undefined;
    if (typeof body?.campaign_id === 'string') ledger.track('campaign', body.campaign_id);
    for (const m of body?.messages ?? []) if (typeof m?.message_id === 'string') ledger.track('message', m.message_id);
    const remaining = (res: ApiResponse): number | undefined =>
      intHeader({ index: 0, sentAt: 0, receivedAt: 0, status: res.status, headers: res.headers }, 'x-sms-remaining');
    const [first, after] = [remaining(before), remaining(sent)];
    // Without the header (RATE-HEADERS-004's business) there is nothing to count with.
    if (first === undefined || after === undefined) test.skip(true, 'no X-SMS-Remaining to count with');
    expect(
      first! - after!,
      `X-SMS-Remaining went from ${first} to ${after} over one bulk send to ${recipients.length} recipients`,
    ).toBe(recipients.length);
  },
);

/** The paths of the areas whose rate-limit headers the specification does not ask for. */
const OTHER_AREAS = ['/storage/buckets', '/account', '/projects'];

defineCheck(
  {
    id: 'rate-limits.other-areas.headers',
    requirement: 'RATE-HEADERS-007',
    level: 'SHOULD',
    class: 'rate-limits',
    operation: null,
    title:
      'storage, billing and project responses that carry X-RateLimit-* follow the rules of messaging and compute: integers, Remaining not above Limit and falling, Reset an epoch timestamp',
  },
  async ({ api, ledger, ctx }) => {
    const key = await freshKey(api, ledger, ctx, 'rl-other');
    for (const path of OTHER_AREAS) {
      const responses: ObservedResponse[] = [];
      for (let index = 0; index < 4; index++) {
        const sentAt = Date.now();
        const res = await api.get(path, { key });
        expectSuccess(res, `GET ${path} with the fresh key`);
        responses.push({ index, sentAt, receivedAt: Date.now(), status: res.status, headers: res.headers });
      }
      const carrying = responses.filter((r) => Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit-')));
      // Not required there: a target that sends none passes.
      if (carrying.length === 0) continue;
      for (const r of carrying) {
        const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) =>
          intHeader(r, h),
        );
        expect(
          limit !== undefined && remaining !== undefined && reset !== undefined,
          `GET ${path} (request ${r.index + 1}) carries X-RateLimit-* but not all three as integers: ${JSON.stringify(r.headers)}`,
        ).toBe(true);
        expect(remaining!, `GET ${path}: X-RateLimit-Remaining is not above X-RateLimit-Limit`).toBeLessThanOrEqual(
          limit!,
        );
      }
      const violations = checkRateLimitSequence(
        carrying,
        { limit: 1, window: 'hour', headers: false },
        { only: ['remaining-decrements', 'reset-epoch'] },
      );
      expect(
        violations.map((v) => `${v.invariant}: ${v.message}`),
        `GET ${path} with one fresh key, four times in a row`,
      ).toEqual([]);
    }
  },
);
