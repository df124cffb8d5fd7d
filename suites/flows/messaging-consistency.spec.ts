/**
 * Flow: messaging state that must stay consistent across operations. A bulk send's totals agree
 * with its messages; the campaign is listed and readable, and once completed its delivered and
 * failed counts match its messages, it carries completed_at and its status is spelled as the
 * specification spells it; the message list filters (status, to) and pagination agree with the
 * items; the analytics summary is the sum of its rows and its rates are percentages. (Sender IDs,
 * contact lists and opt-outs: messaging-lists.spec.ts.)
 */
import { defineFlow, expect, expectFields, expectStatus } from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, finalStatus, listOf, messageStatus, recordOf } from './_messaging.ts';
import type { MessageStatus } from './_messaging.ts';

interface Campaign {
  campaign_id: string;
  campaign_name: string;
  total_messages: number;
  total_cost: number;
  currency: string;
  status: string;
  delivered_messages?: number;
  failed_messages?: number;
  completed_at?: string | null;
  messages?: Array<{ message_id: string; to: string; status: string }>;
}

interface Meta {
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

interface State {
  campaign: Campaign;
  messages: MessageStatus[];
}

const FLOW = 'flow.messaging-consistency';

/** Money compared to the cent: totals may be rounded once, the parts each. */
const closeMoney = (a: number, b: number): boolean => Math.abs(a - b) < 0.011;

async function listMessages(
  api: ApiClient,
  query: Record<string, string | number>,
): Promise<{ messages: MessageStatus[]; meta: Meta; res: ApiResponse }> {
  const res = await api.get('/sms/messages', { query });
  expectStatus(res, 200);
  const body = res.json<{ messages: MessageStatus[]; meta: Meta }>();
  expectFields(body, { messages: 'array' }, 'GET /sms/messages', res);
  return { ...body, res };
}

defineFlow<State>(
  { id: FLOW, class: 'messaging', title: 'messaging consistency: campaign totals, list filters and pages, analytics' },
  (step) => {
    step(
      {
        id: `${FLOW}.bulk-totals`,
        requirement: 'MSG-BULK-007',
        level: 'SHOULD',
        operation: 'POST /sms/bulk',
        title: 'a bulk send answers 201 with total_messages and total_cost equal to the count and sum of its messages',
      },
      async ({ api, ledger, ctx, state }) => {
        // Distinct numbers: whether a bulk send may merge duplicate recipients is not shown.
        const recipients = [ctx.testNumbers.succeed, ctx.testNumbers.fail, ctx.testNumbers.random];
        const name = ctx.name('campaign');
        const res = await api.post('/sms/bulk', {
          recipients,
          message: `cloudcheck ${ctx.runPrefix}consistency`,
          campaign_name: name,
        });
        expectStatus(res, [200, 201, 202]);
        const campaign = res.json<Campaign>();
        state.campaign = campaign;
        ledger.track('campaign', campaign.campaign_id);
        for (const m of campaign.messages ?? []) ledger.track('message', m.message_id);
        expect(campaign.messages?.length, 'one entry in `messages` per recipient').toBe(recipients.length);
        expect(campaign.total_messages, 'total_messages is the number of recipients').toBe(recipients.length);
        state.messages = [];
        for (const m of campaign.messages!) state.messages.push(await messageStatus(api, m.message_id));
        const sum = state.messages.reduce((acc, m) => acc + m.cost, 0);
        expect(
          closeMoney(campaign.total_cost, sum),
          `total_cost ${campaign.total_cost} is the sum of the message costs ${sum}`,
        ).toBe(true);
        for (const m of state.messages) expect(m.currency).toBe(campaign.currency);
        // The convention last: the steps after this one need the campaign whatever the status was.
        expectStatus(res, 201);
      },
    );

    step(
      {
        id: `${FLOW}.campaign-listed`,
        requirement: 'MSG-CMP-001',
        level: 'MUST',
        operation: 'GET /sms/campaigns',
        title: 'the new campaign is in GET /sms/campaigns',
      },
      async ({ api, state }) => {
        const res = await api.get('/sms/campaigns');
        expectStatus(res, 200);
        const found = listOf<Campaign>(res.body, 'campaigns').find((c) => c.campaign_id === state.campaign.campaign_id);
        expect(found, `campaign ${state.campaign.campaign_id} in the listing`).toBeTruthy();
        expect(found?.total_messages).toBe(state.campaign.total_messages);
      },
    );

    step(
      {
        id: `${FLOW}.campaign-details`,
        requirement: 'MSG-CMP-005',
        level: 'MUST',
        operation: 'GET /sms/campaigns/{campaign_id}',
        title: 'GET /sms/campaigns/{campaign_id} answers the details of that campaign',
      },
      async ({ api, state }) => {
        const res = await api.get(`/sms/campaigns/${encodeURIComponent(state.campaign.campaign_id)}`);
        expectStatus(res, 200);
        const details = recordOf<Campaign>(res.body, 'campaign');
        expect(details.campaign_id).toBe(state.campaign.campaign_id);
        expect(details.campaign_name).toBe(state.campaign.campaign_name);
      },
    );

    step(
      {
        id: `${FLOW}.campaign-counts`,
        requirement: 'MSG-CMP-002',
        level: 'MUST',
        operation: 'GET /sms/campaigns',
        title:
          'the campaign list entry carries the fields of a campaign; once completed, it counts as delivered and failed exactly its delivered and failed messages',
      },
      async ({ api, ctx, state }) => {
        const finals: MessageStatus[] = [];
        for (const m of state.messages) finals.push(await finalStatus(api, ctx, m.message_id));
        state.messages = finals;
        const entry = await ctx.poll(`campaign ${state.campaign.campaign_id} to be completed`, async () => {
          const res = await api.get('/sms/campaigns');
          expectStatus(res, 200);
          const found = listOf<Campaign>(res.body, 'campaigns').find(
            (c) => c.campaign_id === state.campaign.campaign_id,
          );
          return found?.status === 'completed' ? found : undefined;
        });
        expectFields(
          entry,
          {
            campaign_id: 'string',
            campaign_name: 'string',
            currency: 'string',
            status: 'string',
            total_messages: 'integer',
            delivered_messages: 'integer',
            failed_messages: 'integer',
            total_cost: 'number',
            created_at: 'timestamp',
          },
          'GET /sms/campaigns entry',
        );
        const delivered = finals.filter((m) => m.status === 'delivered').length;
        const failed = finals.filter((m) => ['failed', 'expired', 'rejected'].includes(m.status)).length;
        expect(entry.delivered_messages, 'delivered_messages').toBe(delivered);
        expect(entry.failed_messages, 'failed_messages').toBe(failed);
        const res = await api.get(`/sms/campaigns/${encodeURIComponent(state.campaign.campaign_id)}`);
        expectStatus(res, 200);
        const details = recordOf<Campaign>(res.body, 'campaign');
        // Details agree with the listing (their spelling of the status is the step after next's).
        if (details.delivered_messages !== undefined) expect(details.delivered_messages).toBe(delivered);
        if (details.failed_messages !== undefined) expect(details.failed_messages).toBe(failed);
      },
    );

    step(
      {
        id: `${FLOW}.campaign-completed-at`,
        requirement: 'MSG-CMP-003',
        level: 'MUST',
        operation: 'GET /sms/campaigns',
        title: 'the completed campaign\u2019s list entry carries completed_at as a timestamp',
      },
      async ({ api, state }) => {
        const res = await api.get('/sms/campaigns');
        expectStatus(res, 200);
        const entry = listOf<Campaign>(res.body, 'campaigns').find((c) => c.campaign_id === state.campaign.campaign_id);
        expect(entry?.status, 'the campaign completed in the step before').toBe('completed');
        expect(entry?.completed_at, 'a completed campaign carries completed_at').toEqual(
          expect.stringMatching(ISO_TIMESTAMP),
        );
      },
    );

    step(
      {
        id: `${FLOW}.campaign-status-spelling`,
        requirement: 'MSG-CMP-004',
        level: 'MUST',
        operation: 'GET /sms/campaigns/{campaign_id}',
        title:
          'the campaign status is a plain string, processing and completed spelled exactly so, in the bulk response, the list and the details',
      },
      async ({ api, state }) => {
        const list = await api.get('/sms/campaigns');
        expectStatus(list, 200);
        const entry = listOf<Campaign>(list.body, 'campaigns').find(
          (c) => c.campaign_id === state.campaign.campaign_id,
        );
        const res = await api.get(`/sms/campaigns/${encodeURIComponent(state.campaign.campaign_id)}`);
        expectStatus(res, 200);
        const details = recordOf<Campaign>(res.body, 'campaign');
        // Other states are not excluded (the list is open): only a variant spelling of the two given
        // (case, separators) is wrong.
        const given = ['processing', 'completed'];
        for (const [where, status] of [
          ['POST /sms/bulk', state.campaign.status],
          ['GET /sms/campaigns', entry?.status],
          ['GET /sms/campaigns/{campaign_id}', details.status],
        ] as const) {
          expect(typeof status, `status of ${where}`).toBe('string');
          const loose = String(status)
            .toLowerCase()
            .replace(/[^a-z]/g, '');
          if (given.includes(loose)) expect(status, `status of ${where}`).toBe(loose);
        }
      },
    );

    step(
      {
        id: `${FLOW}.filter-status`,
        requirement: 'MSG-LIST-002',
        level: 'MUST',
        operation: 'GET /sms/messages',
        title: 'GET /sms/messages?status= returns only messages in that status, among them ours',
      },
      async ({ api, ctx, state }) => {
        const failed = state.messages.find((m) => m.to === ctx.testNumbers.fail)!;
        const delivered = state.messages.find((m) => m.to === ctx.testNumbers.succeed)!;
        for (const status of ['failed', 'delivered']) {
          const { messages } = await listMessages(api, { status, per_page: 100 });
          for (const m of messages) expect(m.status, `status=${status} lists ${m.message_id}`).toBe(status);
        }
        // Narrowed by recipient (newest first, so the flow's messages are on the first page even on a
        // busy account): each message is listed under its own status and not under the other.
        for (const [ours, status, other] of [
          [failed, 'failed', 'delivered'],
          [delivered, 'delivered', 'failed'],
        ] as const) {
          const listed = await listMessages(api, { status, to: ours.to, per_page: 100 });
          expect(
            listed.messages.map((m) => m.message_id),
            `status=${status}&to=${ours.to} lists our ${status} message`,
          ).toContain(ours.message_id);
          const unlisted = await listMessages(api, { status: other, to: ours.to, per_page: 100 });
          expect(
            unlisted.messages.map((m) => m.message_id),
            `status=${other}&to=${ours.to} leaves out our ${status} message`,
          ).not.toContain(ours.message_id);
        }
      },
    );

    step(
      {
        id: `${FLOW}.filter-to`,
        requirement: 'MSG-LIST-003',
        level: 'MUST',
        operation: 'GET /sms/messages',
        title: 'GET /sms/messages?to= returns only messages to that number, among them ours',
      },
      async ({ api, ctx, state }) => {
        const { messages } = await listMessages(api, { to: ctx.testNumbers.fail, per_page: 100 });
        for (const m of messages)
          expect(m.to, `to=${ctx.testNumbers.fail} lists ${m.message_id}`).toBe(ctx.testNumbers.fail);
        const ours = state.messages.filter((m) => m.to === ctx.testNumbers.fail).map((m) => m.message_id);
        for (const id of ours) expect(messages.map((m) => m.message_id)).toContain(id);
      },
    );

    step(
      {
        id: `${FLOW}.page-meta`,
        requirement: 'PAGE-META-001',
        level: 'MUST',
        class: 'pagination',
        operation: 'GET /sms/messages',
        title: 'GET /sms/messages carries meta with integer total, page, per_page and pages consistent with the items',
      },
      async ({ api }) => {
        const { messages, meta, res } = await listMessages(api, { per_page: 2 });
        expectFields(res.body, { meta: 'object' }, 'GET /sms/messages', res);
        const integers = { total: 'integer', page: 'integer', per_page: 'integer', pages: 'integer' } as const;
        expectFields(meta, integers, 'meta of GET /sms/messages', res);
        expect(meta.page).toBe(1);
        expect(meta.total, 'the account has at least the flow\u2019s three messages').toBeGreaterThanOrEqual(3);
        expect(messages.length).toBe(Math.min(2, meta.total));
      },
    );

    step(
      {
        id: `${FLOW}.page-default`,
        requirement: 'PAGE-SIZE-001',
        level: 'MUST',
        class: 'pagination',
        operation: 'GET /sms/messages',
        title: 'without per_page, GET /sms/messages uses pages of 25',
      },
      async ({ api }) => {
        const { messages, meta } = await listMessages(api, {});
        expect(meta.per_page, 'meta.per_page without per_page').toBe(25);
        expect(meta.page, 'meta.page without page').toBe(1);
        expect(messages.length, 'the first page holds min(total, 25) items').toBe(Math.min(meta.total, 25));
      },
    );

    step(
      {
        id: `${FLOW}.page-size`,
        requirement: 'PAGE-SIZE-003',
        level: 'MUST',
        class: 'pagination',
        operation: 'GET /sms/messages',
        title: 'per_page is respected on every page, and the last page holds the rest',
      },
      async ({ api }) => {
        const first = await listMessages(api, { per_page: 2, page: 1 });
        expect(first.meta.per_page).toBe(2);
        expect(first.messages.length).toBeLessThanOrEqual(2);
        const page = Math.max(1, first.meta.pages);
        const last = await listMessages(api, { per_page: 2, page });
        expect(last.meta.per_page).toBe(2);
        expect(last.meta.page).toBe(page);
        // Other checks of the run may send meanwhile, so the page is measured against its own total:
        // what was the last page may no longer be, and then it is full.
        const rest = last.meta.total - (page - 1) * 2;
        expect(
          last.messages.length,
          `page ${page} holds min(per_page, total - (page - 1) * per_page) items (total ${last.meta.total})`,
        ).toBe(Math.min(2, Math.max(0, rest)));
      },
    );

    step(
      {
        id: `${FLOW}.page-count`,
        requirement: 'PAGE-META-002',
        level: 'SHOULD',
        class: 'pagination',
        operation: 'GET /sms/messages',
        title: 'meta.pages is ceil(total / per_page)',
      },
      async ({ api }) => {
        for (const perPage of [1, 2, 7, 100]) {
          const { meta } = await listMessages(api, { per_page: perPage });
          expect(meta.pages, `per_page=${perPage}, total=${meta.total}`).toBe(Math.ceil(meta.total / perPage));
        }
      },
    );

    step(
      {
        id: `${FLOW}.analytics-sum`,
        requirement: 'MSG-ANA-002',
        level: 'MUST',
        operation: 'GET /messaging/analytics/delivery',
        title: 'the analytics summary holds its five numbers, and its totals are the sums of its rows',
      },
      async ({ api }) => {
        const res = await api.get('/messaging/analytics/delivery');
        expectStatus(res, 200);
        const body = res.json<{
          analytics: Array<{ total_messages: number; delivered: number; failed: number; total_cost: number }>;
          summary: { total_messages: number; total_delivered: number; total_failed: number; total_cost: number };
        }>();
        expect(Array.isArray(body.analytics), '`analytics` array').toBe(true);
        expectFields(
          body.summary,
          {
            total_messages: 'number',
            total_delivered: 'number',
            total_failed: 'number',
            average_delivery_rate: 'number',
            total_cost: 'number',
          },
          '`summary` of GET /messaging/analytics/delivery',
        );
        const sum = (pick: (r: (typeof body.analytics)[number]) => number): number =>
          body.analytics.reduce((acc, r) => acc + pick(r), 0);
        expect(body.summary.total_messages).toBe(sum((r) => r.total_messages));
        expect(body.summary.total_delivered).toBe(sum((r) => r.delivered));
        expect(body.summary.total_failed).toBe(sum((r) => r.failed));
        const cost = sum((r) => r.total_cost);
        expect(
          Math.abs(body.summary.total_cost - cost),
          `summary.total_cost ${body.summary.total_cost} vs rows ${cost}`,
        ).toBeLessThan(0.011 * Math.max(1, body.analytics.length));
        expect(body.summary.total_messages, 'the flow\u2019s messages are counted').toBeGreaterThanOrEqual(3);
      },
    );

    step(
      {
        id: `${FLOW}.analytics-rates`,
        requirement: 'MSG-ANA-003',
        level: 'MUST',
        operation: 'GET /messaging/analytics/delivery',
        title: 'delivery_rate and average_delivery_rate are percentages between 0 and 100, whatever the grouping',
      },
      async ({ api }) => {
        for (const query of [{}, { group_by: 'day' }, { group_by: 'week' }, { group_by: 'month' }]) {
          const res = await api.get('/messaging/analytics/delivery', { query });
          expectStatus(res, 200);
          const body = res.json<{
            analytics: Array<{ date?: string; delivery_rate: unknown }>;
            summary: { average_delivery_rate: unknown };
          }>();
          const asked = query.group_by ? `group_by=${query.group_by}` : 'no group_by';
          expect(Array.isArray(body.analytics), '`analytics` array').toBe(true);
          expect(body.analytics.length, `${asked}: the flow\u2019s messages give a row`).toBeGreaterThan(0);
          const rates = [
            ...body.analytics.map((r) => [`row ${r.date}`, r.delivery_rate] as const),
            ['summary.average_delivery_rate', body.summary?.average_delivery_rate] as const,
          ];
          for (const [what, rate] of rates) {
            expect(typeof rate, `${asked}, ${what} is a number`).toBe('number');
            expect(
              (rate as number) >= 0 && (rate as number) <= 100,
              `${asked}, ${what} = ${String(rate)} is between 0 and 100`,
            ).toBe(true);
          }
        }
      },
    );
  },
);
