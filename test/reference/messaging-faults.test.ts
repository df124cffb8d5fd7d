/**
 * Every deliberate fault of the messaging area is observable: with the fault on, a small
 * scenario shows the deviation (the same scenario conforms without it, see messaging.test.ts).
 * Each fault names a requirement of the catalogue: a MUST, or the SHOULD of a convention.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '../base.ts';
import { parse } from 'yaml';
import { MESSAGING_FAULTS, type MessagingFault } from '../../reference/areas/messaging/faults.ts';
import { type RunningReference, listFaults } from '../../reference/server.ts';
import {
  type Api,
  NUMBERS,
  TEST_MODE,
  api,
  errorOf,
  finalStatus,
  obj,
  send,
  sleep,
  startMessagingServer,
  startReceiver,
} from './messaging-helpers.ts';

/** Faulty servers answer off-document on purpose: no OpenAPI check here. */
const faulty = (server: RunningReference): Api => api(server, undefined, () => true);
const faultyAs = (server: RunningReference, key: string): Api => api(server, key, () => true);

async function withFault(
  fault: MessagingFault,
  run: (a: Api, server: RunningReference) => Promise<void>,
): Promise<void> {
  const server = await startMessagingServer({ faults: [fault] });
  try {
    await run(faulty(server), server);
  } finally {
    await server.close();
  }
}

test('every messaging fault points at a requirement in force of the catalogue, and names are unique', () => {
  const catalogue = parse(readFileSync(new URL('../../spec/requirements.yaml', import.meta.url), 'utf8')) as Array<{
    id: string;
    level: string;
    retired?: boolean;
  }>;
  const byId = new Map(catalogue.map((r) => [r.id, r]));
  for (const fault of MESSAGING_FAULTS) {
    const requirement = byId.get(fault.requirement);
    expect(requirement, `${fault.name} → ${fault.requirement}`).toBeDefined();
    expect(['MUST', 'SHOULD'], `${fault.name} → ${fault.requirement}`).toContain(requirement?.level);
    expect(requirement?.retired ?? false).toBe(false);
  }
  const names = listFaults().map((f) => f.name);
  expect(new Set(names).size).toBe(names.length);
  for (const fault of MESSAGING_FAULTS) expect(names).toContain(fault.name);
});

/** A template of the account with that content: its id. */
async function template(a: Api, content: string): Promise<string> {
  const res = await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content });
  return String(obj(obj(res.body).template).id);
}

/** A test-mode send from a template to the succeed number: its answer. */
async function sendTemplate(a: Api, id: string, variables: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await a.call(
    'POST /sms/send-template',
    '/sms/send-template',
    { to: NUMBERS.succeed, template_id: id, variables },
    TEST_MODE,
  );
  return obj(res.body);
}

const scenarios: Record<MessagingFault, (a: Api, server: RunningReference) => Promise<void>> = {
  'msg-sender-details-missing': async (a) => {
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'x', from: 'CCNOSENDER' },
      TEST_MODE,
    );
    expect([res.status, errorOf(res).code, errorOf(res).details]).toEqual([422, 'sender_id_not_approved', undefined]);
  },
  'msg-invalid-template-details-missing': async (a) => {
    const res = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: 'tpl_none', variables: {} },
      TEST_MODE,
    );
    expect([res.status, errorOf(res).code, errorOf(res).details]).toEqual([422, 'invalid_template', undefined]);
  },
  'msg-send-template-in-data': async (a) => {
    const tpl = obj(
      obj((await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'hi' })).body)
        .template,
    );
    const res = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: tpl.id, variables: {} },
      TEST_MODE,
    );
    expect(res.status).toBe(201);
    expect(obj(obj(res.body).data).message_id).toBeDefined();
  },
  'msg-test-mode-debited': async (a) => {
    const balance = async () =>
      (
        obj((await a.call('GET /account/wallets', '/account/wallets')).body).wallets as Array<{
          available_balance: number;
        }>
      )[0]!.available_balance;
    const before = await balance();
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect(await balance()).toBeLessThan(before);
  },
  'ids-unprefixed-messaging': async (a) => {
    expect(String((await send(a, { to: NUMBERS.succeed, message: 'x' })).message_id)).not.toMatch(/^msg_/);
  },
  'msg-too-long-wrong-code': async (a) => {
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'x'.repeat(1601) },
      TEST_MODE,
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).code).toBe('validation_error');
    expect(obj(obj((await a.call('GET /sms/messages', '/sms/messages')).body).meta).total).toBe(0);
  },
  'msg-exact-limit-refused': async (a) => {
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'x'.repeat(1600) },
      TEST_MODE,
    );
    expect(res.status).toBe(422);
  },
  'msg-length-in-bytes': async (a) => {
    // 1600 characters of ASCII still pass (what the fixed checks send); 801 of `é` (1602 bytes) do not.
    expect(
      (await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'x'.repeat(1600) }, TEST_MODE))
        .status,
    ).toBe(201);
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'é'.repeat(801) },
      TEST_MODE,
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).code).toBe('message_too_long');
    expect(
      (await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'é'.repeat(800) }, TEST_MODE))
        .status,
    ).toBe(201);
  },
  'msg-bulk-phone-wrong-code': async (a) => {
    const res = await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients: [NUMBERS.succeed, '12345'], message: 'hi' },
      TEST_MODE,
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).code).toBe('validation_error');
    // Only the bulk is bent: the single send keeps its code.
    expect(errorOf(await a.call('POST /sms/send', '/sms/send', { to: '12345', message: 'hi' }, TEST_MODE)).code).toBe(
      'invalid_phone_number',
    );
  },
  'msg-template-not-substituted': async (a) => {
    const tpl = obj(
      obj(
        (await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'Code {{code}}' }))
          .body,
      ).template,
    );
    const res = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: tpl.id, variables: { code: '42' } },
      TEST_MODE,
    );
    expect(obj(res.body).message).toBe('Code {{code}}');
  },
  'msg-fail-number-delivered': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.fail, message: 'x' });
    expect((await finalStatus(a, String(message_id))).status).toBe('delivered');
  },
  'msg-random-always-delivered': async (a) => {
    const ids = [];
    for (let i = 0; i < 16; i++) ids.push(String((await send(a, { to: NUMBERS.random, message: 'x' })).message_id));
    for (const id of ids) expect((await finalStatus(a, id)).status).toBe('delivered');
  },
  'msg-page-size-default-20': async (a) => {
    await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients: Array.from({ length: 30 }, () => NUMBERS.succeed), message: 'x' },
      TEST_MODE,
    );
    const body = obj((await a.call('GET /sms/messages', '/sms/messages')).body);
    expect(obj(body.meta)).toEqual({ total: 30, page: 1, per_page: 20, pages: 2 });
    expect(body.messages).toHaveLength(20);
    // An explicit per_page is still honoured.
    expect(obj(obj((await a.call('GET /sms/messages', '/sms/messages?per_page=25')).body).meta).per_page).toBe(25);
  },
  'msg-status-filter-ignored': async (a) => {
    const ok = await send(a, { to: NUMBERS.succeed, message: 'x' });
    await finalStatus(a, String(ok.message_id));
    const failed = obj((await a.call('GET /sms/messages', '/sms/messages?status=failed')).body).messages as Array<
      Record<string, unknown>
    >;
    expect(failed.map((m) => m.status)).toContain('delivered');
  },
  'msg-bulk-not-processing': async (a) => {
    const res = await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE);
    expect(obj(res.body).status).toBe('completed');
  },
  'msg-campaign-not-listed': async (a) => {
    const made = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    const list = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(list.some((c) => c.campaign_id === made.campaign_id)).toBe(false);
  },
  'msg-sender-type-unchecked': async (a) => {
    const res = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ACME',
      type: 'emoji',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    expect(res.status).toBe(201);
  },
  'msg-analytics-group-by-unchecked': async (a) => {
    expect(
      (await a.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery?group_by=year')).status,
    ).toBe(200);
  },
  'webhook-data-incomplete': async (a) => {
    const receiver = await startReceiver();
    try {
      await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
        url: `${receiver.url}/sub`,
        events: ['sms.sent'],
      });
      const msg = await send(a, { to: NUMBERS.succeed, message: 'x', callback_url: `${receiver.url}/cb` });
      await expect
        .poll(() => receiver.deliveries.filter((d) => d.body.data?.message_id === msg.message_id).length)
        .toBeGreaterThanOrEqual(2);
      const sub = receiver.deliveries.find((d) => d.path === '/sub');
      expect(sub?.body.data).not.toHaveProperty('network');
      expect(sub?.body.data).not.toHaveProperty('country');
      // The callback keeps the full payload: only the subscription payload (HOOK-PAY-001) is bent.
      expect(receiver.deliveries.find((d) => d.path === '/cb')?.body.data).toHaveProperty('network');
    } finally {
      await receiver.close();
    }
  },
  'webhook-unsubscribed-delivered': async (a) => {
    const receiver = await startReceiver();
    try {
      await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
        url: `${receiver.url}/only-failed`,
        events: ['sms.failed'],
      });
      const msg = await send(a, { to: NUMBERS.succeed, message: 'x' });
      await finalStatus(a, String(msg.message_id));
      await sleep(100);
      expect(receiver.deliveries.map((d) => d.body.event)).toEqual(
        expect.arrayContaining(['sms.sent', 'sms.delivered']),
      );
    } finally {
      await receiver.close();
    }
  },
  'msg-random-number-refused': async (a) => {
    const res = await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.random, message: 'x' }, TEST_MODE);
    expect(errorOf(res).code).toBe('invalid_phone_number');
  },
  'msg-list-meta-missing': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect(Object.keys(obj((await a.call('GET /sms/messages', '/sms/messages')).body))).not.toContain('meta');
  },
  'msg-list-range-ignored': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect(
      obj(obj((await a.call('GET /sms/messages', '/sms/messages?from_date=2000-01-01&to_date=2000-01-31')).body).meta)
        .total,
    ).toBe(1);
  },
  'msg-list-status-uppercase': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    const entries = obj((await a.call('GET /sms/messages', '/sms/messages')).body).messages as Array<{
      status: string;
    }>;
    expect(entries[0]!.status).toBe(entries[0]!.status.toUpperCase());
  },
  'msg-list-to-without-plus': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    const entries = obj((await a.call('GET /sms/messages', '/sms/messages')).body).messages as Array<{ to: string }>;
    expect(entries[0]!.to).toBe(NUMBERS.succeed.slice(1));
  },
  'msg-send-cost-missing': async (a) => {
    expect(Object.keys(await send(a, { to: NUMBERS.succeed, message: 'x' }))).not.toContain('cost');
  },
  'msg-send-text-trimmed': async (a) => {
    expect((await send(a, { to: NUMBERS.succeed, message: '  padded  ' })).message).toBe('padded');
  },
  'msg-status-text-missing': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect(Object.keys(await finalStatus(a, String(message_id)))).not.toContain('message');
  },
  'msg-send-204': async (a) => {
    expect((await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'x' }, TEST_MODE)).status).toBe(
      204,
    );
  },
  'msg-test-mode-status-queued': async (a) => {
    expect((await send(a, { to: NUMBERS.succeed, message: 'x' })).status).toBe('queued');
  },
  'msg-succeed-number-failed': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect((await finalStatus(a, String(message_id))).status).toBe('failed');
  },
  'webhook-secret-refused': async (a) => {
    const res = await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['sms.sent'],
      secret: 's3cret',
    });
    expect(res.status).toBe(422);
  },
  'webhook-callback-data-incomplete': async (a) => {
    const receiver = await startReceiver();
    try {
      await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
        url: `${receiver.url}/sub`,
        events: ['sms.sent'],
      });
      const msg = await send(a, { to: NUMBERS.succeed, message: 'x', callback_url: `${receiver.url}/cb` });
      await expect
        .poll(() => receiver.deliveries.filter((d) => d.body.data?.message_id === msg.message_id).length)
        .toBeGreaterThanOrEqual(2);
      expect(receiver.deliveries.find((d) => d.path === '/cb')?.body.data).not.toHaveProperty('network');
      // The subscription keeps the full payload: only the callback (HOOK-CB-001) is bent.
      expect(receiver.deliveries.find((d) => d.path === '/sub')?.body.data).toHaveProperty('network');
    } finally {
      await receiver.close();
    }
  },
  'msg-template-unknown-not-found': async (a) => {
    const res = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: 'tpl_missing', variables: {} },
      TEST_MODE,
    );
    expect(res.status).toBe(404);
    expect(errorOf(res).code).toBe('not_found');
  },
  'msg-send-message-optional': async (a) => {
    const res = await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed }, TEST_MODE);
    expect(res.status).toBe(201);
    expect(obj(res.body).message).toBe('');
    // `to` is still required.
    expect((await a.call('POST /sms/send', '/sms/send', { message: 'x' }, TEST_MODE)).status).toBe(422);
  },
  'msg-list-to-filter-ignored': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    const listed = obj((await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(NUMBERS.fail)}`)).body)
      .messages as Array<{ to: string }>;
    expect(listed.map((m) => m.to)).toContain(NUMBERS.succeed);
  },
  'msg-campaign-list-cost-text': async (a) => {
    await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE);
    const list = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(typeof list[0]!.total_cost).toBe('string');
  },
  'msg-campaign-details-id-renamed': async (a) => {
    const made = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    const details = obj(
      obj((await a.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${String(made.campaign_id)}`)).body)
        .campaign,
    );
    expect(details).not.toHaveProperty('campaign_id');
    expect(details.id).toBe(made.campaign_id);
  },
  'msg-approved-sender-refused': async (a) => {
    await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ACME',
      type: 'alphanumeric',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    await expect
      .poll(
        async () =>
          (
            obj((await a.call('GET /messaging/sender-ids', '/messaging/sender-ids')).body).sender_ids as Array<{
              status: string;
            }>
          )[0]!.status,
      )
      .toBe('approved');
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'x', from: 'ACME' },
      TEST_MODE,
    );
    expect(errorOf(res).code).toBe('sender_id_not_approved');
  },
  'msg-template-placeholders-refused': async (a) => {
    expect(
      (await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'Code {{code}}' }))
        .status,
    ).toBe(422);
    expect(
      (await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'No placeholder' }))
        .status,
    ).toBe(201);
  },
  'msg-template-not-listed': async (a) => {
    const tpl = obj(
      obj((await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'hello' })).body)
        .template,
    );
    const list = obj((await a.call('GET /messaging/templates', '/messaging/templates')).body).templates as Array<{
      id: string;
    }>;
    expect(list.map((t) => t.id)).not.toContain(tpl.id);
  },
  'msg-template-foreign-usable': async (a, server) => {
    const tpl = obj(
      obj(
        (await a.call('POST /messaging/templates', '/messaging/templates', { name: 't', content: 'Code {{code}}' }))
          .body,
      ).template,
    );
    const other = faultyAs(server, server.altApiKey);
    const res = await other.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: tpl.id, variables: { code: '1' } },
      TEST_MODE,
    );
    expect(res.status).toBe(201);
    expect(obj(res.body).message).toBe('Code 1');
  },
  'msg-contact-list-not-listed': async (a) => {
    const list = obj(
      obj((await a.call('POST /messaging/contacts/lists', '/messaging/contacts/lists', { name: 'l' })).body)
        .contact_list,
    );
    const lists = obj((await a.call('GET /messaging/contacts/lists', '/messaging/contacts/lists')).body)
      .contact_lists as Array<{ id: string }>;
    expect(lists.map((l) => l.id)).not.toContain(list.id);
  },
  'msg-opt-out-not-listed': async (a) => {
    await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone: '+15555550123' });
    const entries = obj((await a.call('GET /messaging/opt-outs', '/messaging/opt-outs')).body).opt_outs as Array<{
      phone: string;
    }>;
    expect(entries.map((e) => e.phone)).not.toContain('+15555550123');
  },
  'msg-analytics-summary-rate-missing': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'x' });
    const body = obj((await a.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery')).body);
    expect(obj(body.summary)).not.toHaveProperty('average_delivery_rate');
    expect(obj(body.summary).total_messages).toBe(1);
  },
  'msg-bulk-campaign-name-ignored': async (a) => {
    const res = await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients: [NUMBERS.succeed], message: 'x', campaign_name: 'spring-sale' },
      TEST_MODE,
    );
    expect(res.status).toBe(201);
    expect(obj(res.body).campaign_name).not.toBe('spring-sale');
  },
  'msg-bulk-messages-pending': async (a) => {
    const res = await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients: [NUMBERS.succeed, NUMBERS.fail], message: 'x' },
      TEST_MODE,
    );
    expect((obj(res.body).messages as Array<{ status: string }>).map((m) => m.status)).toEqual(['pending', 'pending']);
    // The campaign itself is still `processing` (MSG-BULK-005 untouched).
    expect(obj(res.body).status).toBe('processing');
  },
  'msg-bulk-status-unknown': async (a) => {
    const bulk = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    const [entry] = bulk.messages as Array<{ message_id: string }>;
    expect((await a.call('GET /sms/status/{message_id}', `/sms/status/${entry!.message_id}`)).status).toBe(404);
    // A named campaign's messages and a single send are still found.
    const named = obj(
      (
        await a.call(
          'POST /sms/bulk',
          '/sms/bulk',
          { recipients: [NUMBERS.succeed], message: 'x', campaign_name: 'n' },
          TEST_MODE,
        )
      ).body,
    );
    expect(
      (
        await a.call(
          'GET /sms/status/{message_id}',
          `/sms/status/${(named.messages as Array<{ message_id: string }>)[0]!.message_id}`,
        )
      ).status,
    ).toBe(200);
    const single = await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect((await a.call('GET /sms/status/{message_id}', `/sms/status/${String(single.message_id)}`)).status).toBe(200);
  },
  'msg-report-error-empty': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'x' });
    const message = await finalStatus(a, String(message_id));
    expect(message.status).toBe('delivered');
    expect(obj(message.delivery_report)).toMatchObject({ error_code: '', error_message: '' });
  },
  'msg-list-timestamps-null': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'x' });
    expect((await finalStatus(a, String(message_id))).delivered_at).toEqual(expect.any(String));
    const [entry] = obj((await a.call('GET /sms/messages', '/sms/messages')).body).messages as Array<
      Record<string, unknown>
    >;
    expect(entry).toMatchObject({ message_id, status: 'delivered', sent_at: null, delivered_at: null });
  },
  'msg-campaign-completed-at-null': async (a) => {
    const bulk = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    await finalStatus(a, String((bulk.messages as Array<{ message_id: string }>)[0]!.message_id));
    await sleep(20);
    const [entry] = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(entry).toMatchObject({ campaign_id: bulk.campaign_id, status: 'completed', completed_at: null });
  },
  'msg-campaign-status-capitalised': async (a) => {
    const bulk = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    expect(bulk.status).toBe('processing');
    const details = obj(
      obj((await a.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${String(bulk.campaign_id)}`)).body)
        .campaign,
    );
    expect(details.status).toBe('Processing');
    const [entry] = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(entry!.status).toBe('processing');
  },
  'msg-analytics-rate-basis-points': async (a) => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'x' });
    await finalStatus(a, String(message_id));
    const grouped = obj(
      (await a.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery?group_by=day')).body,
    );
    expect(obj(grouped.summary).average_delivery_rate).toBe(10_000);
    expect((grouped.analytics as Array<{ delivery_rate: number }>)[0]!.delivery_rate).toBe(10_000);
    // Without group_by the rates stay percentages.
    expect(
      obj(obj((await a.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery')).body).summary)
        .average_delivery_rate,
    ).toBe(100);
  },
  'msg-sender-approved-at-null': async (a) => {
    await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ACME',
      type: 'alphanumeric',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    await sleep(150);
    const [record] = obj((await a.call('GET /messaging/sender-ids', '/messaging/sender-ids')).body).sender_ids as Array<
      Record<string, unknown>
    >;
    expect(record).toMatchObject({ sender_id: 'ACME', status: 'approved', approved_at: null });
  },
  'msg-sender-country-wrong-code': async (a) => {
    await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ACME',
      type: 'alphanumeric',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    await sleep(150);
    // Approved for the US: a US send goes, a British one is refused with the wrong code.
    expect((await send(a, { to: NUMBERS.succeed, message: 'x', from: 'ACME' })).from).toBe('ACME');
    const res = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: '+447700900123', message: 'x', from: 'ACME' },
      TEST_MODE,
    );
    expect(res.status).toBe(422);
    expect(errorOf(res).code).toBe('validation_error');
  },
  'msg-list-total-to-skips-bulk': async (a) => {
    await send(a, { to: NUMBERS.succeed, message: 'single' });
    await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients: [NUMBERS.succeed, NUMBERS.fail], message: 'bulk' },
      TEST_MODE,
    );
    const byTo = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(NUMBERS.succeed)}`)).body,
    );
    // Two messages to the number are listed, one counted.
    expect((byTo.messages as unknown[]).length).toBe(2);
    expect(obj(byTo.meta)).toMatchObject({ total: 1, pages: 1 });
    // Without the `to` filter the count is right.
    expect(obj(obj((await a.call('GET /sms/messages', '/sms/messages')).body).meta).total).toBe(3);
  },
  'msg-list-status-filter-first-page-only': async (a) => {
    for (const to of [NUMBERS.succeed, NUMBERS.fail, NUMBERS.succeed])
      await finalStatus(a, String((await send(a, { to, message: 'x' })).message_id));
    const page = async (n: number) =>
      obj((await a.call('GET /sms/messages', `/sms/messages?status=delivered&per_page=1&page=${n}`)).body)
        .messages as Array<Record<string, unknown>>;
    expect((await page(1)).map((m) => m.status)).toEqual(['delivered']);
    // Page 2 of the unfiltered list (newest first: delivered, failed, delivered) is the failed message.
    expect((await page(2)).map((m) => m.status)).toEqual(['failed']);
  },
  'msg-campaign-list-names-reversed': async (a) => {
    for (const name of ['first', 'second'])
      await a.call(
        'POST /sms/bulk',
        '/sms/bulk',
        { recipients: [NUMBERS.succeed], message: 'x', campaign_name: name },
        TEST_MODE,
      );
    const listed = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<{
      campaign_name: string;
    }>;
    // Newest first, each with the other's name.
    expect(listed.map((c) => c.campaign_name)).toEqual(['first', 'second']);
  },
  'msg-campaign-total-by-name': async (a) => {
    const bulk = async (to: string[]) =>
      obj(
        (
          await a.call(
            'POST /sms/bulk',
            '/sms/bulk',
            { recipients: to, message: 'x', campaign_name: 'same' },
            TEST_MODE,
          )
        ).body,
      );
    expect((await bulk([NUMBERS.succeed])).total_messages).toBe(1);
    expect((await bulk([NUMBERS.succeed, NUMBERS.fail])).total_messages).toBe(3);
  },
  'msg-template-variables-stale': async (a) => {
    const id = await template(a, 'Code {{code}}');
    expect(await sendTemplate(a, id, { code: '1' })).toMatchObject({ message: 'Code 1' });
    expect(await sendTemplate(a, id, { code: '2' })).toMatchObject({ message: 'Code 1' });
  },
  'msg-template-id-case-insensitive': async (a) => {
    const id = await template(a, 'Hi');
    expect(id.toUpperCase()).not.toBe(id);
    expect(await sendTemplate(a, id.toUpperCase(), {})).toMatchObject({ message: 'Hi' });
  },
  'msg-template-unknown-cached-not-found': async (a) => {
    const unknown = async () =>
      errorOf(
        await a.call(
          'POST /sms/send-template',
          '/sms/send-template',
          { to: NUMBERS.succeed, template_id: 'tpl_nothing', variables: {} },
          TEST_MODE,
        ),
      ).code;
    expect(await unknown()).toBe('invalid_template');
    expect(await unknown()).toBe('not_found');
  },
  'msg-template-list-drops-used': async (a) => {
    const id = await template(a, 'Hi');
    const listed = async () =>
      (
        obj((await a.call('GET /messaging/templates', '/messaging/templates')).body).templates as Array<{ id: string }>
      ).map((t) => t.id);
    expect(await listed()).toContain(id);
    await sendTemplate(a, id, {});
    expect(await listed()).not.toContain(id);
  },
  'msg-list-leaves-out-template-sends': async (a) => {
    const sent = await sendTemplate(a, await template(a, 'Hi'), {});
    const listed = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(NUMBERS.succeed)}`)).body,
    ).messages as Array<{ message_id: string }>;
    expect(listed.map((m) => m.message_id)).not.toContain(sent.message_id);
  },
  'msg-list-template-text-raw': async (a) => {
    const sent = await sendTemplate(a, await template(a, 'Code {{code}}'), { code: '7' });
    expect(sent.message).toBe('Code 7');
    const listed = obj((await a.call('GET /sms/messages', '/sms/messages')).body).messages as Array<{
      message_id: string;
      message: string;
    }>;
    expect(listed.find((m) => m.message_id === sent.message_id)?.message).toBe('Code {{code}}');
  },
  'msg-campaign-details-newest': async (a) => {
    const first = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    const details = async () =>
      obj(
        obj((await a.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${String(first.campaign_id)}`)).body)
          .campaign,
      );
    expect((await details()).campaign_id).toBe(first.campaign_id);
    const second = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.fail], message: 'y' }, TEST_MODE)).body,
    );
    expect((await details()).campaign_id).toBe(second.campaign_id);
  },
};

for (const fault of MESSAGING_FAULTS) {
  test(`fault ${fault.name} (${fault.requirement}) is observable`, async () => {
    await withFault(fault.name, scenarios[fault.name]);
  });
}
