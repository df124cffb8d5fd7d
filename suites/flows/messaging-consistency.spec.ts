/**
 * Flow: messaging state that must stay consistent across operations. A bulk send's totals agree
 * with its messages; the campaign is listed and readable, and once completed its delivered and
 * failed counts match its messages, it carries completed_at and its status is spelled as the
 * specification spells it; the message list filters (status, to) and pagination agree
 * with the items; the analytics summary is the sum of its rows and its rates are percentages; a
 * sender ID registration becomes approved, is listed with its fields, and is then usable as `from`
 * but refused for a country it was not approved for; a contact list counts the contacts added; and a number on
 * the opt-out list cannot be sent to.
 */
import { defineFlow, expect, expectErrorEnvelope, expectStatus } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, finalStatus, listOf, messageStatus, recordOf } from './_messaging.ts';
import type { MessageStatus } from './_messaging.ts';
import type { ApiClient } from '../../src/harness/client.ts';
import { expectFields } from '../../src/harness/resource.ts';

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
  country: string;
  senderId: string;
  listId: string;
  optedOut: string;
}

const FLOW = 'flow.messaging-consistency';

/** Money compared to the cent: totals may be rounded once, the parts each. */
const closeMoney = (a: number, b: number): boolean => Math.abs(a - b) < 0.011;

async function listMessages(api: ApiClient, query: Record<string, string | number>): Promise<{ messages: MessageStatus[]; meta: Meta }> {
  const res = await api.get('/sms/messages', { query });
  expectStatus(res, 200);
  const body = res.json<{ messages: MessageStatus[]; meta: Meta }>();
  expect(Array.isArray(body.messages), '`messages` array').toBe(true);
  return body;
}

defineFlow<State>({ id: FLOW, class: 'messaging', title: 'messaging consistency: campaign totals, list filters and pages, analytics, sender id, contacts, opt-outs' }, (step) => {
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
      const res = await api.post('/sms/bulk', { recipients, message: `cloudcheck ${ctx.runPrefix}consistency`, campaign_name: name });
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
      expect(closeMoney(campaign.total_cost, sum), `total_cost ${campaign.total_cost} is the sum of the message costs ${sum}`).toBe(true);
      for (const m of state.messages) expect(m.currency).toBe(campaign.currency);
      state.country = state.messages.find((m) => m.to === ctx.testNumbers.succeed)?.delivery_report?.country ?? 'US';
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
      title: 'the campaign list entry carries the fields of a campaign; once completed, it counts as delivered and failed exactly its delivered and failed messages',
    },
    async ({ api, ctx, state }) => {
      const finals: MessageStatus[] = [];
      for (const m of state.messages) finals.push(await finalStatus(api, ctx, m.message_id));
      state.messages = finals;
      const entry = await ctx.poll(`campaign ${state.campaign.campaign_id} to be completed`, async () => {
        const res = await api.get('/sms/campaigns');
        expectStatus(res, 200);
        const found = listOf<Campaign>(res.body, 'campaigns').find((c) => c.campaign_id === state.campaign.campaign_id);
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
      expect(entry?.completed_at, 'a completed campaign carries completed_at').toEqual(expect.stringMatching(ISO_TIMESTAMP));
    },
  );

  step(
    {
      id: `${FLOW}.campaign-status-spelling`,
      requirement: 'MSG-CMP-004',
      level: 'MUST',
      operation: 'GET /sms/campaigns/{campaign_id}',
      title: 'the campaign status is a plain string, processing and completed spelled exactly so, in the bulk response, the list and the details',
    },
    async ({ api, state }) => {
      const list = await api.get('/sms/campaigns');
      expectStatus(list, 200);
      const entry = listOf<Campaign>(list.body, 'campaigns').find((c) => c.campaign_id === state.campaign.campaign_id);
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
      for (const m of messages) expect(m.to, `to=${ctx.testNumbers.fail} lists ${m.message_id}`).toBe(ctx.testNumbers.fail);
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
      const { messages, meta } = await listMessages(api, { per_page: 2 });
      expect(meta, '`meta` object').toBeTruthy();
      for (const field of ['total', 'page', 'per_page', 'pages'] as const) expect(Number.isInteger(meta[field]), `meta.${field} is an integer`).toBe(true);
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
      expect(last.messages.length, `page ${page} holds min(per_page, total - (page - 1) * per_page) items (total ${last.meta.total})`).toBe(Math.min(2, Math.max(0, rest)));
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
        { total_messages: 'number', total_delivered: 'number', total_failed: 'number', average_delivery_rate: 'number', total_cost: 'number' },
        '`summary` of GET /messaging/analytics/delivery',
      );
      const sum = (pick: (r: (typeof body.analytics)[number]) => number): number => body.analytics.reduce((acc, r) => acc + pick(r), 0);
      expect(body.summary.total_messages).toBe(sum((r) => r.total_messages));
      expect(body.summary.total_delivered).toBe(sum((r) => r.delivered));
      expect(body.summary.total_failed).toBe(sum((r) => r.failed));
      const cost = sum((r) => r.total_cost);
      expect(Math.abs(body.summary.total_cost - cost), `summary.total_cost ${body.summary.total_cost} vs rows ${cost}`).toBeLessThan(0.011 * Math.max(1, body.analytics.length));
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
        const body = res.json<{ analytics: Array<{ date?: string; delivery_rate: unknown }>; summary: { average_delivery_rate: unknown } }>();
        const asked = query.group_by ? `group_by=${query.group_by}` : 'no group_by';
        expect(Array.isArray(body.analytics), '`analytics` array').toBe(true);
        expect(body.analytics.length, `${asked}: the flow\u2019s messages give a row`).toBeGreaterThan(0);
        const rates = [...body.analytics.map((r) => [`row ${r.date}`, r.delivery_rate] as const), ['summary.average_delivery_rate', body.summary?.average_delivery_rate] as const];
        for (const [what, rate] of rates) {
          expect(typeof rate, `${asked}, ${what} is a number`).toBe('number');
          expect((rate as number) >= 0 && (rate as number) <= 100, `${asked}, ${what} = ${String(rate)} is between 0 and 100`).toBe(true);
        }
      }
    },
  );

  step(
    {
      id: `${FLOW}.sender-register`,
      requirement: 'MSG-SID-006',
      level: 'SHOULD',
      operation: 'POST /messaging/sender-ids',
      title: 'a sender ID registration answers 201 {"sender_id": {...}} and is then listed',
    },
    async ({ api, ledger, ctx, state }) => {
      // Alphanumeric sender ids are at most 11 characters: "CC" and nine of the run's own.
      const tail = `${ctx.runId}${ctx.name('s')}`
        .replace(/[^a-z0-9]/gi, '')
        .toUpperCase()
        .slice(-9);
      state.senderId = `CC${tail}`;
      const res = await api.post('/messaging/sender-ids', {
        sender_id: state.senderId,
        type: 'alphanumeric',
        countries: [state.country],
        use_case: 'cloudcheck conformance run (test mode only)',
        business_name: 'cloudcheck',
      });
      expectStatus(res, 201);
      ledger.track('sender-id', state.senderId);
      const record = (res.body as { sender_id?: { sender_id?: string; status?: string } } | undefined)?.sender_id;
      expect(typeof record, 'the registration is wrapped in `sender_id`').toBe('object');
      expect(record?.sender_id).toBe(state.senderId);
      const list = await api.get('/messaging/sender-ids');
      expectStatus(list, 200);
      expect(listOf<{ sender_id: string }>(list.body, 'sender_ids').map((s) => s.sender_id)).toContain(state.senderId);
    },
  );

  step(
    {
      id: `${FLOW}.sender-approved`,
      requirement: 'MSG-SID-005',
      level: 'MUST',
      operation: 'POST /sms/send',
      title: 'the registered sender ID becomes approved and can then be used as `from`',
    },
    async ({ api, ledger, ctx, state }) => {
      const record = await ctx.poll(`sender ID ${state.senderId} to be approved`, async () => {
        const res = await api.get('/messaging/sender-ids');
        expectStatus(res, 200);
        const found = listOf<{ sender_id: string; status: string; approved_at?: string | null }>(res.body, 'sender_ids').find((s) => s.sender_id === state.senderId);
        return found?.status === 'approved' ? found : undefined;
      });
      expect(record.status).toBe('approved');
      const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message: `cloudcheck ${ctx.runPrefix}sender`, from: state.senderId });
      expectStatus(res, [200, 201]);
      const message = res.json<{ message_id: string; from: string }>();
      ledger.track('message', message.message_id);
      expect(message.from, 'the message carries the approved sender ID').toBe(state.senderId);
    },
  );

  step(
    {
      id: `${FLOW}.sender-fields`,
      requirement: 'MSG-SID-002',
      level: 'MUST',
      operation: 'GET /messaging/sender-ids',
      title: 'the approved sender ID is listed with sender_id, type, status, countries, created_at and approved_at',
    },
    async ({ api, state }) => {
      const res = await api.get('/messaging/sender-ids');
      expectStatus(res, 200);
      const record = listOf<Record<string, unknown>>(res.body, 'sender_ids').find((s) => s.sender_id === state.senderId);
      expect(record, `sender ID ${state.senderId} in the listing`).toBeTruthy();
      expect(typeof record!.sender_id, 'sender_id is a string').toBe('string');
      expect(['alphanumeric', 'numeric'], 'type').toContain(record!.type);
      expect(typeof record!.status, 'status is a string').toBe('string');
      const countries = record!.countries;
      expect(Array.isArray(countries) && countries.every((c) => typeof c === 'string' && c.length > 0), `countries ${JSON.stringify(countries)} is an array of country codes`).toBe(true);
      expect(record!.created_at, 'created_at').toEqual(expect.stringMatching(ISO_TIMESTAMP));
      // Approved in the step before, so its approval time is known.
      expect(record!.approved_at, 'approved_at of an approved sender ID').toEqual(expect.stringMatching(ISO_TIMESTAMP));
    },
  );

  step(
    {
      id: `${FLOW}.sender-other-country`,
      requirement: 'ERR-CODE-002',
      level: 'MUST',
      operation: 'POST /sms/send',
      title: 'a send from the sender ID to a country it is not approved for is refused with sender_id_not_approved',
    },
    async ({ api, ledger, ctx, state }) => {
      // Only with X-Test-Mode (added by the client): a target that wrongly accepts must still send nothing real.
      ctx.testInfo.skip(ctx.liveSms, 'with --live-sms this would send a real SMS to a non-test number');
      // Numbers reserved for fiction: the UK's drama range (+44 7700 900xxx), or the NANP's 555-01xx
      // when the sender ID was approved for the United Kingdom.
      const to = state.country.toUpperCase() === 'GB' ? '+12025550143' : '+447700900123';
      const res = await api.post('/sms/send', { to, message: `cloudcheck ${ctx.runPrefix}other country`, from: state.senderId });
      if (res.status < 300) {
        const id = (res.body as { message_id?: string } | undefined)?.message_id;
        if (id) ledger.track('message', id);
      }
      expect(res.status >= 400 && res.status < 500, `a send from ${state.senderId} (approved for ${state.country}) to ${to} is refused, got ${res.status}`).toBe(true);
      expectErrorEnvelope(res, 'sender_id_not_approved');
    },
  );

  step(
    {
      id: `${FLOW}.contacts`,
      requirement: 'MSG-CON-002',
      level: 'MUST',
      operation: 'GET /messaging/contacts/lists',
      title: 'a new contact list is listed by GET /messaging/contacts/lists',
    },
    async ({ api, ledger, ctx, state }) => {
      const name = ctx.name('contacts');
      const res = await api.post('/messaging/contacts/lists', { name, description: 'cloudcheck' });
      expectStatus(res, [200, 201]);
      const list = recordOf<{ id: string; name: string }>(res.body, 'contact_list');
      expect(typeof list.id).toBe('string');
      state.listId = ledger.track('contact-list', list.id);
      const lists = await api.get('/messaging/contacts/lists');
      expectStatus(lists, 200);
      const found = listOf<{ id: string; name: string }>(lists.body, 'contact_lists').find((l) => l.id === state.listId);
      expect(found?.name).toBe(name);
    },
  );

  step(
    {
      id: `${FLOW}.contacts-count`,
      requirement: 'MSG-CON-004',
      level: 'SHOULD',
      operation: 'POST /messaging/contacts/lists/{list_id}/contacts',
      title: 'adding contacts answers 200 and the list counts them',
    },
    async ({ api, state }) => {
      const contacts = [
        { phone: '+15555550101', name: 'cloudcheck one', email: 'one@example.com' },
        { phone: '+15555550102', name: 'cloudcheck two', email: 'two@example.com' },
      ];
      const res = await api.post(`/messaging/contacts/lists/${encodeURIComponent(state.listId)}/contacts`, { contacts });
      expectStatus(res, 200);
      // The record's fields are not shown by the specification: the count is read from whichever
      // of the usual names the list (or the add result) uses.
      const countOf = (record: Record<string, unknown> | undefined): number | undefined => {
        for (const field of ['contact_count', 'contacts_count', 'total_contacts', 'count']) if (typeof record?.[field] === 'number') return record[field];
        return undefined;
      };
      const lists = await api.get('/messaging/contacts/lists');
      expectStatus(lists, 200);
      const entry = listOf<Record<string, unknown>>(lists.body, 'contact_lists').find((l) => l.id === state.listId);
      const result = res.body as Record<string, unknown> | undefined;
      const count = countOf(entry) ?? countOf(result) ?? countOf(result?.contact_list as Record<string, unknown> | undefined);
      expect(count, 'the contact list reports how many contacts it holds').toBe(contacts.length);
    },
  );

  step(
    {
      id: `${FLOW}.opt-out-listed`,
      requirement: 'MSG-OPT-002',
      level: 'MUST',
      operation: 'GET /messaging/opt-outs',
      title: 'an opted-out number is listed by GET /messaging/opt-outs',
    },
    async ({ api, ledger, state }) => {
      // A fictional number (555-01xx is reserved for fiction in the NANP), never a real person's.
      state.optedOut = '+15555550123';
      const res = await api.post('/messaging/opt-outs', { phone: state.optedOut });
      expectStatus(res, [200, 201]);
      ledger.track('opt-out', state.optedOut);
      const list = await api.get('/messaging/opt-outs');
      expectStatus(list, 200);
      const entries = listOf<{ phone?: string } | string>(list.body, 'opt_outs');
      expect(entries.map((e) => (typeof e === 'string' ? e : e.phone))).toContain(state.optedOut);
    },
  );

  step(
    {
      id: `${FLOW}.opt-out-refused`,
      requirement: 'ERR-MAP-010',
      level: 'SHOULD',
      operation: 'POST /sms/send',
      title: 'a send to an opted-out number is refused with 422 recipient_opted_out',
    },
    async ({ api, ledger, ctx, state }) => {
      // Only with X-Test-Mode (added by the client): a target that wrongly accepts must still send nothing real.
      ctx.testInfo.skip(ctx.liveSms, 'with --live-sms this would send a real SMS to a non-test number');
      const res = await api.post('/sms/send', { to: state.optedOut, message: `cloudcheck ${ctx.runPrefix}opt-out` });
      if (res.status < 300) {
        const id = (res.body as { message_id?: string } | undefined)?.message_id;
        if (id) ledger.track('message', id);
      }
      expectStatus(res, 422);
      expectErrorEnvelope(res, 'recipient_opted_out');
    },
  );
});
