/**
 * Behaviour of the messaging area of the reference server: sends and their validation, test
 * numbers, sender ids, opt-outs, bulk campaigns, templates, history, analytics and isolation.
 */
import { expect, test } from '../base.ts';
import type { RunningReference } from '../../reference/server.ts';
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
} from './messaging-helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let server: RunningReference;
let a: Api;
test.beforeAll(async () => {
  server = await startMessagingServer();
  a = api(server);
});
test.afterAll(async () => {
  await server.close();
});

/** A number no other test uses, so filters and counts stay per test. */
let counter = 0;
function uniqueNumber(): string {
  counter++;
  return `+4420${String(process.pid % 1000).padStart(3, '0')}${String(Date.now() % 100000).padStart(5, '0')}${String(counter).padStart(2, '0')}`.slice(
    0,
    16,
  );
}

async function registerApprovedSender(id: string, countries: string[]): Promise<void> {
  const res = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
    sender_id: id,
    type: 'alphanumeric',
    countries,
    use_case: 'otp',
    business_name: 'Example',
  });
  expect(res.status, res.text).toBe(201);
  await expect
    .poll(async () => {
      const list = obj((await a.call('GET /messaging/sender-ids', '/messaging/sender-ids')).body).sender_ids as Array<
        Record<string, unknown>
      >;
      return list.find((s) => s.sender_id === id)?.status;
    })
    .toBe('approved');
}

test.describe('POST /sms/send', () => {
  test('answers 201 with the flat message in status sent', async () => {
    const body = await send(a, { to: NUMBERS.succeed, message: 'Your code is 123456' });
    expect(body.message_id).toMatch(/^msg_/);
    expect(body).toMatchObject({
      to: NUMBERS.succeed,
      message: 'Your code is 123456',
      from: 'CloudCheck',
      status: 'sent',
      cost: 0.0075,
      currency: 'USD',
    });
    expect(body.created_at).toMatch(ISO);
    expect(Object.keys(body).sort()).toEqual([
      'cost',
      'created_at',
      'currency',
      'from',
      'message',
      'message_id',
      'status',
      'to',
    ]);
  });

  test('prices per segment: 160 GSM characters are one segment, 161 are two, unicode splits at 70', async () => {
    expect((await send(a, { to: NUMBERS.succeed, message: 'a'.repeat(160) })).cost).toBe(0.0075);
    expect((await send(a, { to: NUMBERS.succeed, message: 'a'.repeat(161) })).cost).toBe(0.015);
    expect((await send(a, { to: NUMBERS.succeed, message: 'ж'.repeat(71) })).cost).toBe(0.015);
  });

  test('accepts exactly 1600 characters and refuses 1601 with message_too_long', async () => {
    expect((await send(a, { to: NUMBERS.succeed, message: 'x'.repeat(1600) })).message).toHaveLength(1600);
    const too = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'x'.repeat(1601) },
      TEST_MODE,
    );
    expect(too.status).toBe(422);
    expect(errorOf(too)).toMatchObject({
      code: 'message_too_long',
      details: { field: 'message', length: 1601, max: 1600 },
    });
    // Characters, not UTF-16 units: 1600 emoji are 1600 characters.
    expect(
      (await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: '😀'.repeat(1600) }, TEST_MODE))
        .status,
    ).toBe(201);
  });

  for (const [label, body, field] of [
    ['missing to', { message: 'hi' }, 'to'],
    ['missing message', { to: NUMBERS.succeed }, 'message'],
    ['empty message', { to: NUMBERS.succeed, message: '' }, 'message'],
    ['numeric to', { to: 15005550006, message: 'hi' }, 'to'],
    ['array message', { to: NUMBERS.succeed, message: ['hi'] }, 'message'],
    ['object from', { to: NUMBERS.succeed, message: 'hi', from: { id: 1 } }, 'from'],
    ['numeric callback_url', { to: NUMBERS.succeed, message: 'hi', callback_url: 5 }, 'callback_url'],
    ['ftp callback_url', { to: NUMBERS.succeed, message: 'hi', callback_url: 'ftp://example.org/x' }, 'callback_url'],
    ['relative callback_url', { to: NUMBERS.succeed, message: 'hi', callback_url: '/hooks' }, 'callback_url'],
  ] as const) {
    test(`refuses ${label} with validation_error naming the field`, async () => {
      const res = await a.call('POST /sms/send', '/sms/send', body, TEST_MODE);
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'validation_error', details: { field } });
    });
  }

  for (const bad of [
    '12345',
    '+1'.repeat(40),
    '+0123456789',
    '+1234567',
    '+1234567890123456',
    '15005550006',
    '+1 500 555 0006',
    '+1500555000a',
    '＋15005550006',
  ]) {
    test(`refuses ${JSON.stringify(bad)} with invalid_phone_number {field, value}`, async () => {
      const res = await a.call('POST /sms/send', '/sms/send', { to: bad, message: 'hi' }, TEST_MODE);
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_phone_number', details: { field: 'to', value: bad } });
    });
  }

  test('accepts the shortest and longest E.164 numbers', async () => {
    await send(a, { to: '+12345678', message: 'hi' });
    await send(a, { to: '+123456789012345', message: 'hi' });
  });

  test('from must be an approved sender id of the account, for the destination country', async () => {
    const unknown = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'hi', from: 'NOPE' },
      TEST_MODE,
    );
    expect(errorOf(unknown)).toMatchObject({
      code: 'sender_id_not_approved',
      details: { field: 'from', value: 'NOPE' },
    });
    expect(unknown.status).toBe(422);

    const reg = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'PENDING1',
      type: 'alphanumeric',
      countries: ['US'],
      use_case: 'otp',
      business_name: 'Example',
    });
    expect(obj(obj(reg.body).sender_id)).toMatchObject({ status: 'pending', approved_at: null });
    const pending = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'hi', from: 'PENDING1' },
      TEST_MODE,
    );
    expect(errorOf(pending).code).toBe('sender_id_not_approved');

    await registerApprovedSender('SHOPUS', ['US']);
    const ok = await send(a, { to: NUMBERS.succeed, message: 'hi', from: 'SHOPUS' });
    expect(ok.from).toBe('SHOPUS');
    const abroad = await a.call(
      'POST /sms/send',
      '/sms/send',
      { to: '+447700900123', message: 'hi', from: 'SHOPUS' },
      TEST_MODE,
    );
    expect(abroad.status).toBe(422);
    expect(errorOf(abroad).code).toBe('sender_id_not_approved');
    // Another account cannot use it.
    const alt = await api(server, server.altApiKey).call(
      'POST /sms/send',
      '/sms/send',
      { to: NUMBERS.succeed, message: 'hi', from: 'SHOPUS' },
      TEST_MODE,
    );
    expect(errorOf(alt).code).toBe('sender_id_not_approved');
  });

  test('a recipient who opted out is refused with recipient_opted_out and nothing is sent', async () => {
    const phone = uniqueNumber();
    const opt = await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone });
    expect(opt.status).toBe(201);
    const res = await a.call('POST /sms/send', '/sms/send', { to: phone, message: 'hi' }, TEST_MODE);
    expect(res.status).toBe(422);
    expect(errorOf(res)).toMatchObject({ code: 'recipient_opted_out', details: { field: 'to', value: phone } });
    const list = await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}`);
    expect(obj(list.body).messages).toEqual([]);
  });

  test('an opt-out never silences the test numbers, which always behave as designated', async () => {
    const own = await startMessagingServer();
    try {
      const b = api(own);
      expect((await b.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone: NUMBERS.fail })).status).toBe(
        201,
      );
      const sent = await send(b, { to: NUMBERS.fail, message: 'still tested' });
      expect((await finalStatus(b, String(sent.message_id))).status).toBe('failed');
    } finally {
      await own.close();
    }
  });

  test('live sends debit the wallet; test-mode sends are priced but not debited', async () => {
    const balance = async () => {
      const res = await a.call('GET /account/wallets', '/account/wallets');
      const wallets = obj(res.body).wallets as Array<Record<string, unknown>>;
      return Number(wallets.find((w) => w.currency === 'USD')?.available_balance);
    };
    const before = await balance();
    const test1 = await send(a, { to: NUMBERS.succeed, message: 'test mode' });
    expect(test1.cost).toBe(0.0075);
    expect(await balance()).toBeCloseTo(before, 6);
    await send(a, { to: NUMBERS.succeed, message: 'live' }, {});
    expect(await balance()).toBeCloseTo(before - 0.0075, 6);
  });
});

test.describe('test numbers and status', () => {
  test('the succeed number ends delivered with delivered_at and a clean report', async () => {
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'ok' });
    const early = obj((await a.call('GET /sms/status/{message_id}', `/sms/status/${String(message_id)}`)).body);
    expect(early).toMatchObject({ status: 'sent', delivered_at: null });
    expect(early.sent_at).toMatch(ISO);
    const done = await finalStatus(a, String(message_id));
    expect(done.status).toBe('delivered');
    expect(done.delivered_at).toMatch(ISO);
    expect(done.delivery_report).toEqual({
      network: 'Test Network',
      country: 'US',
      error_code: null,
      error_message: null,
    });
  });

  test('the fail number ends failed with error_code and error_message', async () => {
    const { message_id } = await send(a, { to: NUMBERS.fail, message: 'ko' });
    const done = await finalStatus(a, String(message_id));
    expect(done).toMatchObject({ status: 'failed', delivered_at: null });
    const report = obj(done.delivery_report);
    expect(typeof report.error_code).toBe('string');
    expect(typeof report.error_message).toBe('string');
  });

  test('the random number ends delivered or failed, and both happen', async () => {
    const outcomes = new Set<unknown>();
    const ids = [];
    for (let i = 0; i < 16; i++) ids.push(String((await send(a, { to: NUMBERS.random, message: `r${i}` })).message_id));
    for (const id of ids) outcomes.add((await finalStatus(a, id)).status);
    expect([...outcomes].sort()).toEqual(['delivered', 'failed']);
  });

  test('any other number ends delivered, with its country and a network', async () => {
    const { message_id } = await send(a, { to: '+447700900123', message: 'uk' });
    const done = await finalStatus(a, String(message_id));
    expect(done.status).toBe('delivered');
    expect(obj(done.delivery_report)).toMatchObject({ country: 'GB', error_code: null, error_message: null });
    expect(typeof obj(done.delivery_report).network).toBe('string');
  });

  test('unknown and foreign message ids are 404 not_found with resource message', async () => {
    const missing = await a.call('GET /sms/status/{message_id}', '/sms/status/msg_0000000000000000');
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', resource: 'message' });
    const { message_id } = await send(a, { to: NUMBERS.succeed, message: 'mine' });
    const foreign = await api(server, server.altApiKey).call(
      'GET /sms/status/{message_id}',
      `/sms/status/${String(message_id)}`,
    );
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).resource).toBe('message');
  });
});

test.describe('bulk and campaigns', () => {
  test('a bulk send answers a processing campaign whose messages are sent, then completes with counts', async () => {
    const recipients = [NUMBERS.succeed, NUMBERS.fail, '+447700900124'];
    const res = await a.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients, message: 'Maintenance at 22:00', campaign_name: 'maint' },
      TEST_MODE,
    );
    expect(res.status, res.text).toBe(201);
    const body = obj(res.body);
    expect(body.campaign_id).toMatch(/^cmp_/);
    expect(body).toMatchObject({ campaign_name: 'maint', total_messages: 3, currency: 'USD', status: 'processing' });
    expect(body.total_cost).toBeCloseTo(3 * 0.0075, 10);
    expect(body.created_at).toMatch(ISO);
    const messages = body.messages as Array<Record<string, unknown>>;
    expect(messages.map((m) => m.to)).toEqual(recipients);
    expect(messages.every((m) => m.status === 'sent' && String(m.message_id).startsWith('msg_'))).toBe(true);
    const costs = [];
    for (const m of messages) costs.push(Number((await finalStatus(a, String(m.message_id))).cost));
    expect(costs.reduce((s, c) => s + c, 0)).toBeCloseTo(Number(body.total_cost), 10);

    const id = String(body.campaign_id);
    await expect
      .poll(
        async () =>
          obj(obj((await a.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${id}`)).body).campaign).status,
      )
      .toBe('completed');
    const details = obj(obj((await a.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${id}`)).body).campaign);
    expect(details).toMatchObject({ campaign_id: id, total_messages: 3, delivered_messages: 2, failed_messages: 1 });
    expect(details.completed_at).toMatch(ISO);
    const list = obj((await a.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(list.find((c) => c.campaign_id === id)).toMatchObject({
      status: 'completed',
      delivered_messages: 2,
      failed_messages: 1,
    });
  });

  test('a campaign without a name gets a generated one', async () => {
    const res = await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE);
    expect(obj(res.body).campaign_name).toMatch(/^campaign-\d{8}-\d{6}$/);
  });

  for (const [label, body, code, field] of [
    ['missing recipients', { message: 'x' }, 'validation_error', 'recipients'],
    ['recipients not an array', { recipients: '+15005550006', message: 'x' }, 'validation_error', 'recipients'],
    ['empty recipients', { recipients: [], message: 'x' }, 'validation_error', 'recipients'],
    [
      'more than 1000 recipients',
      { recipients: Array.from({ length: 1001 }, () => NUMBERS.succeed), message: 'x' },
      'validation_error',
      'recipients',
    ],
    [
      'an invalid recipient',
      { recipients: [NUMBERS.succeed, '555'], message: 'x' },
      'invalid_phone_number',
      'recipients[1]',
    ],
    ['missing message', { recipients: [NUMBERS.succeed] }, 'validation_error', 'message'],
    ['message over 1600', { recipients: [NUMBERS.succeed], message: 'x'.repeat(1601) }, 'message_too_long', 'message'],
    [
      'numeric campaign_name',
      { recipients: [NUMBERS.succeed], message: 'x', campaign_name: 7 },
      'validation_error',
      'campaign_name',
    ],
  ] as const) {
    test(`bulk refuses ${label}`, async () => {
      const res = await a.call('POST /sms/bulk', '/sms/bulk', body, TEST_MODE);
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({ code, details: { field } });
    });
  }

  test('unknown and foreign campaigns are 404 with resource campaign', async () => {
    const missing = await a.call('GET /sms/campaigns/{campaign_id}', '/sms/campaigns/cmp_0000000000000000');
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', resource: 'campaign' });
    const made = obj(
      (await a.call('POST /sms/bulk', '/sms/bulk', { recipients: [NUMBERS.succeed], message: 'x' }, TEST_MODE)).body,
    );
    const alt = api(server, server.altApiKey);
    expect(
      (await alt.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${String(made.campaign_id)}`)).status,
    ).toBe(404);
    const altList = obj((await alt.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<
      Record<string, unknown>
    >;
    expect(altList.some((c) => c.campaign_id === made.campaign_id)).toBe(false);
  });
});

test.describe('templates', () => {
  test('a template lists its placeholders and a template send substitutes them', async () => {
    const created = await a.call('POST /messaging/templates', '/messaging/templates', {
      name: 'otp',
      content: 'Hi {{name}}, your code is {{ code }}. Bye {{name}}!',
      category: 'auth',
    });
    expect(created.status).toBe(201);
    const template = obj(obj(created.body).template);
    expect(template.id).toMatch(/^tpl_/);
    expect(template).toMatchObject({ name: 'otp', category: 'auth', variables: ['name', 'code'] });
    const list = obj((await a.call('GET /messaging/templates', '/messaging/templates')).body).templates as Array<
      Record<string, unknown>
    >;
    expect(list.some((t) => t.id === template.id)).toBe(true);

    const sent = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: NUMBERS.succeed, template_id: template.id, variables: { name: 'Ada', code: '123456' } },
      TEST_MODE,
    );
    expect(sent.status, sent.text).toBe(201);
    const message = obj(sent.body);
    expect(message).toMatchObject({
      status: 'sent',
      message: 'Hi Ada, your code is 123456. Bye Ada!',
      template_id: template.id,
      currency: 'USD',
    });
    const status = obj(
      (await a.call('GET /sms/status/{message_id}', `/sms/status/${String(message.message_id)}`)).body,
    );
    expect(status.message).toBe('Hi Ada, your code is 123456. Bye Ada!');
  });

  test('template without category has category null; missing name or content is refused', async () => {
    const res = await a.call('POST /messaging/templates', '/messaging/templates', {
      name: 'plain',
      content: 'No placeholders',
    });
    expect(obj(obj(res.body).template)).toMatchObject({ category: null, variables: [] });
    for (const body of [{ content: 'x' }, { name: 'x' }, { name: 'x', content: 5 }]) {
      const bad = await a.call('POST /messaging/templates', '/messaging/templates', body);
      expect(bad.status).toBe(422);
      expect(errorOf(bad).code).toBe('validation_error');
    }
  });

  test('unknown template or missing variable is invalid_template and sends nothing', async () => {
    const phone = uniqueNumber();
    const unknown = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: phone, template_id: 'tpl_0000000000000000', variables: {} },
      TEST_MODE,
    );
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown)).toMatchObject({ code: 'invalid_template', details: { field: 'template_id' } });
    const tpl = obj(
      obj(
        (await a.call('POST /messaging/templates', '/messaging/templates', { name: 'n', content: 'Code {{code}}' }))
          .body,
      ).template,
    );
    const missing = await a.call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: phone, template_id: tpl.id, variables: { other: 'x' } },
      TEST_MODE,
    );
    expect(missing.status).toBe(422);
    expect(errorOf(missing)).toMatchObject({
      code: 'invalid_template',
      details: { field: 'variables', missing: ['code'] },
    });
    // Another account's template is unknown here.
    const alt = await api(server, server.altApiKey).call(
      'POST /sms/send-template',
      '/sms/send-template',
      { to: phone, template_id: tpl.id, variables: { code: '1' } },
      TEST_MODE,
    );
    expect(errorOf(alt).code).toBe('invalid_template');
    const list = obj((await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}`)).body);
    expect(list.messages).toEqual([]);
  });

  for (const [label, body, field] of [
    ['missing to', { template_id: 'tpl_x', variables: {} }, 'to'],
    ['missing template_id', { to: NUMBERS.succeed, variables: {} }, 'template_id'],
    ['missing variables', { to: NUMBERS.succeed, template_id: 'tpl_x' }, 'variables'],
    ['array variables', { to: NUMBERS.succeed, template_id: 'tpl_x', variables: ['a'] }, 'variables'],
    [
      'a non-string variable value',
      { to: NUMBERS.succeed, template_id: 'TEMPLATE', variables: { code: 123456 } },
      'variables.code',
    ],
  ] as const) {
    test(`send-template refuses ${label}`, async () => {
      const tpl = obj(
        obj(
          (await a.call('POST /messaging/templates', '/messaging/templates', { name: 'v', content: 'Code {{code}}' }))
            .body,
        ).template,
      );
      const res = await a.call(
        'POST /sms/send-template',
        '/sms/send-template',
        'template_id' in body && body.template_id === 'TEMPLATE' ? { ...body, template_id: tpl.id } : body,
        TEST_MODE,
      );
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'validation_error', details: { field } });
    });
  }
});

test.describe('GET /sms/messages', () => {
  test('paginates newest first with meta, and filters by to, from and status', async () => {
    const phone = uniqueNumber();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(String((await send(a, { to: phone, message: `m${i}` })).message_id));
    const first = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&per_page=3`)).body,
    );
    expect(first.meta).toEqual({ total: 7, page: 1, per_page: 3, pages: 3 });
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const body = obj(
        (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&per_page=3&page=${page}`))
          .body,
      );
      const messages = body.messages as Array<Record<string, unknown>>;
      expect(messages.length).toBe(page === 3 ? 1 : 3);
      for (const m of messages) {
        expect(m.sent_at).toMatch(ISO);
        expect(m).toHaveProperty('delivered_at');
        expect(m).not.toHaveProperty('delivery_report');
      }
      seen.push(...messages.map((m) => String(m.message_id)));
    }
    expect(seen).toEqual([...ids].reverse());
    const past = obj((await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&page=9`)).body);
    expect(past.messages).toEqual([]);
    const defaults = obj((await a.call('GET /sms/messages', '/sms/messages')).body);
    expect(obj(defaults.meta)).toMatchObject({ page: 1, per_page: 25 });

    await expect
      .poll(
        async () =>
          obj(
            (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&status=delivered`)).body,
          ).messages,
      )
      .toHaveLength(7);
    const sentNow = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&status=sent`)).body,
    );
    expect(sentNow.messages).toEqual([]);
    const byFrom = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&from=Other`)).body,
    );
    expect(byFrom.messages).toEqual([]);
    const byDefaultFrom = obj(
      (await a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&from=CloudCheck`)).body,
    );
    expect(obj(byDefaultFrom.meta).total).toBe(7);
  });

  test('a + written unencoded in ?to= (read as a space) still filters by that number', async () => {
    const phone = uniqueNumber();
    await send(a, { to: phone, message: 'plus' });
    const raw = obj((await a.call('GET /sms/messages', `/sms/messages?to=${phone}`)).body);
    expect(obj(raw.meta).total).toBe(1);
  });

  test('filters by from_date and to_date as dates or date-times', async () => {
    const phone = uniqueNumber();
    await send(a, { to: phone, message: 'dated' });
    const today = new Date().toISOString().slice(0, 10);
    const q = (extra: string) => a.call('GET /sms/messages', `/sms/messages?to=${encodeURIComponent(phone)}&${extra}`);
    expect(obj(obj((await q(`from_date=${today}&to_date=${today}`)).body).meta).total).toBe(1);
    expect(obj(obj((await q('from_date=2999-01-01')).body).meta).total).toBe(0);
    expect(obj(obj((await q('to_date=2000-01-01')).body).meta).total).toBe(0);
    expect(
      obj(obj((await q(`from_date=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).body).meta)
        .total,
    ).toBe(1);
  });

  for (const query of [
    'from_date=yesterday',
    'to_date=2024-13-45',
    'status=lost',
    'per_page=101',
    'per_page=0',
    'page=0',
    'page=abc',
    'status=sent&status=failed',
  ]) {
    test(`refuses ?${query} with validation_error`, async () => {
      const res = await a.call('GET /sms/messages', `/sms/messages?${query}`);
      expect(res.status).toBe(422);
      expect(errorOf(res).code).toBe('validation_error');
    });
  }

  test('each of the six states is accepted as a filter', async () => {
    for (const status of ['pending', 'sent', 'delivered', 'failed', 'expired', 'rejected']) {
      expect((await a.call('GET /sms/messages', `/sms/messages?status=${status}`)).status).toBe(200);
    }
  });
});

test.describe('sender ids, contact lists and opt-outs', () => {
  test('a sender id registers pending and is approved after a delay', async () => {
    const res = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ACME2',
      type: 'alphanumeric',
      countries: ['US', 'GB'],
      use_case: 'alerts',
      business_name: 'Acme',
    });
    expect(res.status).toBe(201);
    const record = obj(obj(res.body).sender_id);
    expect(record).toMatchObject({
      sender_id: 'ACME2',
      type: 'alphanumeric',
      status: 'pending',
      countries: ['US', 'GB'],
      approved_at: null,
    });
    expect(record.created_at).toMatch(ISO);
    expect(record).not.toHaveProperty('use_case');
    await expect
      .poll(async () => {
        const list = obj((await a.call('GET /messaging/sender-ids', '/messaging/sender-ids')).body).sender_ids as Array<
          Record<string, unknown>
        >;
        return list.find((s) => s.sender_id === 'ACME2')?.status;
      })
      .toBe('approved');
    const list = obj((await a.call('GET /messaging/sender-ids', '/messaging/sender-ids')).body).sender_ids as Array<
      Record<string, unknown>
    >;
    expect(list.find((s) => s.sender_id === 'ACME2')?.approved_at).toMatch(ISO);
  });

  test('numeric sender ids are phone numbers', async () => {
    const ok = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: '+14155550123',
      type: 'numeric',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    expect(ok.status).toBe(201);
    const bad = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', {
      sender_id: 'ABC',
      type: 'numeric',
      countries: ['US'],
      use_case: 'x',
      business_name: 'y',
    });
    expect(errorOf(bad)).toMatchObject({ code: 'validation_error', details: { field: 'sender_id' } });
  });

  for (const [label, patch, field] of [
    ['type outside the enum', { type: 'emoji' }, 'type'],
    ['lowercase country', { countries: ['us'] }, 'countries'],
    ['countries not an array', { countries: 'US' }, 'countries'],
    ['empty countries', { countries: [] }, 'countries'],
    ['missing use_case', { use_case: undefined }, 'use_case'],
    ['missing business_name', { business_name: undefined }, 'business_name'],
    ['sender id over 11 characters', { sender_id: 'ABCDEFGHIJKL' }, 'sender_id'],
    ['sender id without letters', { sender_id: '12345' }, 'sender_id'],
  ] as const) {
    test(`sender id registration refuses ${label}`, async () => {
      const body = {
        sender_id: 'VALID1',
        type: 'alphanumeric',
        countries: ['US'],
        use_case: 'x',
        business_name: 'y',
        ...patch,
      };
      const res = await a.call('POST /messaging/sender-ids', '/messaging/sender-ids', body);
      expect(res.status).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'validation_error', details: { field } });
    });
  }

  test('contact lists: create, list, add contacts with duplicate counting', async () => {
    const created = await a.call('POST /messaging/contacts/lists', '/messaging/contacts/lists', {
      name: 'customers',
      description: 'opted in',
    });
    expect(created.status).toBe(201);
    const list = obj(obj(created.body).contact_list);
    expect(list.id).toMatch(/^cl_/);
    expect(list).toMatchObject({ name: 'customers', description: 'opted in', contact_count: 0 });
    const listed = obj((await a.call('GET /messaging/contacts/lists', '/messaging/contacts/lists')).body)
      .contact_lists as Array<Record<string, unknown>>;
    expect(listed.some((l) => l.id === list.id)).toBe(true);

    const path = `/messaging/contacts/lists/${String(list.id)}/contacts`;
    const op = 'POST /messaging/contacts/lists/{list_id}/contacts';
    const added = await a.call(op, path, {
      contacts: [
        { phone: '+15005550006', name: 'Ada', email: 'ada@example.org' },
        { phone: '+447700900123' },
        { phone: '+15005550006' },
      ],
    });
    expect(added.status, added.text).toBe(200);
    expect(obj(added.body)).toMatchObject({ list_id: list.id, added: 2, duplicates: 1, total_contacts: 2 });
    expect(obj(obj(added.body).contact_list).contact_count).toBe(2);
    const again = await a.call(op, path, { contacts: [{ phone: '+447700900123' }, { phone: '+4915112345678' }] });
    expect(obj(again.body)).toMatchObject({ added: 1, duplicates: 1, total_contacts: 3 });

    const badPhone = await a.call(op, path, { contacts: [{ phone: '+15005550006' }, { phone: '0800' }] });
    expect(errorOf(badPhone)).toMatchObject({
      code: 'invalid_phone_number',
      details: { field: 'contacts[1].phone', value: '0800' },
    });
    for (const body of [
      {},
      { contacts: 'x' },
      { contacts: [] },
      { contacts: ['+15005550006'] },
      { contacts: [{ phone: '+15005550006', email: 'nope' }] },
    ]) {
      const res = await a.call(op, path, body);
      expect(res.status).toBe(422);
      expect(errorOf(res).code).toBe('validation_error');
    }
    // A refused request added nothing.
    const after = obj((await a.call('GET /messaging/contacts/lists', '/messaging/contacts/lists')).body)
      .contact_lists as Array<Record<string, unknown>>;
    expect(after.find((l) => l.id === list.id)?.contact_count).toBe(3);

    const missing = await a.call(op, '/messaging/contacts/lists/cl_0000000000000000/contacts', {
      contacts: [{ phone: '+15005550006' }],
    });
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', resource: 'contact_list' });
    const foreign = await api(server, server.altApiKey).call(op, path, { contacts: [{ phone: '+15005550006' }] });
    expect(foreign.status).toBe(404);
  });

  test('contact list needs a name', async () => {
    const res = await a.call('POST /messaging/contacts/lists', '/messaging/contacts/lists', { description: 'x' });
    expect(errorOf(res)).toMatchObject({ code: 'validation_error', details: { field: 'name' } });
    const ok = obj(
      obj(
        (await a.call('POST /messaging/contacts/lists', '/messaging/contacts/lists', { name: 'no description' })).body,
      ).contact_list,
    );
    expect(ok.description).toBeNull();
  });

  test('opt-outs: add, list, idempotent, phone validated, per account', async () => {
    const phone = uniqueNumber();
    const first = await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone });
    expect(first.status).toBe(201);
    expect(obj(obj(first.body).opt_out)).toMatchObject({ phone });
    const second = await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone });
    expect(obj(obj(second.body).opt_out).created_at).toBe(obj(obj(first.body).opt_out).created_at);
    const list = obj((await a.call('GET /messaging/opt-outs', '/messaging/opt-outs')).body).opt_outs as Array<
      Record<string, unknown>
    >;
    expect(list.filter((o) => o.phone === phone)).toHaveLength(1);
    const bad = await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', { phone: 'call me' });
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_phone_number', details: { field: 'phone', value: 'call me' } });
    expect(errorOf(await a.call('POST /messaging/opt-outs', '/messaging/opt-outs', {})).code).toBe('validation_error');
    const altList = obj(
      (await api(server, server.altApiKey).call('GET /messaging/opt-outs', '/messaging/opt-outs')).body,
    ).opt_outs as Array<Record<string, unknown>>;
    expect(altList.some((o) => o.phone === phone)).toBe(false);
    // The other account may still message the number.
    expect(
      (await api(server, server.altApiKey).call('POST /sms/send', '/sms/send', { to: phone, message: 'hi' }, TEST_MODE))
        .status,
    ).toBe(201);
  });

  test('webhook configuration: 201 wrapper without the secret; events and url validated', async () => {
    const res = await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['sms.delivered', 'vps.created', 'sms.delivered'],
      secret: 's3cr3t',
    });
    expect(res.status).toBe(201);
    const hook = obj(obj(res.body).webhook);
    expect(hook.id).toMatch(/^wh_/);
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['sms.delivered', 'vps.created'] });
    expect(res.text).not.toContain('s3cr3t');
    for (const [body, field] of [
      [{ events: ['sms.sent'] }, 'url'],
      [{ url: 'ftp://x.org', events: ['sms.sent'] }, 'url'],
      [{ url: 'http://127.0.0.1:9' }, 'events'],
      [{ url: 'http://127.0.0.1:9', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:9', events: ['sms.read'] }, 'events'],
      [{ url: 'http://127.0.0.1:9', events: 'sms.sent' }, 'events'],
      [{ url: 'http://127.0.0.1:9', events: ['sms.sent'], secret: 42 }, 'secret'],
    ] as const) {
      const bad = await a.call('POST /messaging/webhooks', '/messaging/webhooks', body);
      expect(bad.status).toBe(422);
      expect(errorOf(bad)).toMatchObject({ code: 'validation_error', details: { field } });
    }
  });
});

test.describe('analytics, usage and SMS volume (own servers)', () => {
  test('delivery analytics rows add up to the summary', async () => {
    const own = await startMessagingServer();
    try {
      const b = api(own);
      const ids = [];
      for (const to of [NUMBERS.succeed, NUMBERS.succeed, NUMBERS.succeed, NUMBERS.fail])
        ids.push(String((await send(b, { to, message: 'x'.repeat(200) })).message_id));
      for (const id of ids) await finalStatus(b, id);
      const res = await b.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery');
      const body = obj(res.body);
      const rows = body.analytics as Array<Record<string, number>>;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        date: new Date().toISOString().slice(0, 10),
        total_messages: 4,
        delivered: 3,
        failed: 1,
        delivery_rate: 75,
      });
      expect(rows[0]?.total_cost).toBeCloseTo(4 * 0.015, 10);
      const summary = obj(body.summary);
      expect(summary).toMatchObject({
        total_messages: 4,
        total_delivered: 3,
        total_failed: 1,
        average_delivery_rate: 75,
      });
      expect(summary.total_cost).toBeCloseTo(
        rows.reduce((s, r) => s + (r.total_cost ?? 0), 0),
        10,
      );
      for (const groupBy of ['week', 'month']) {
        const grouped = obj(
          (await b.call('GET /messaging/analytics/delivery', `/messaging/analytics/delivery?group_by=${groupBy}`)).body,
        );
        const [row] = grouped.analytics as Array<Record<string, unknown>>;
        expect(row?.total_messages).toBe(4);
        const date = new Date(`${String(row?.date)}T00:00:00Z`);
        expect(groupBy === 'week' ? date.getUTCDay() : date.getUTCDate()).toBe(1);
      }
      const empty = obj(
        (await b.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery?from_date=2999-01-01')).body,
      );
      expect(empty).toEqual({
        analytics: [],
        summary: { total_messages: 0, total_delivered: 0, total_failed: 0, average_delivery_rate: 0, total_cost: 0 },
      });
      for (const query of ['group_by=year', 'from_date=nope', 'from_date=2026-02-01&to_date=2026-01-01']) {
        const bad = await b.call('GET /messaging/analytics/delivery', `/messaging/analytics/delivery?${query}`);
        expect(bad.status).toBe(422);
        expect(errorOf(bad).code).toBe('validation_error');
      }
    } finally {
      await own.close();
    }
  });

  test('the usage provider reports debited sends only', async () => {
    const own = await startMessagingServer();
    try {
      const b = api(own);
      await send(b, { to: NUMBERS.succeed, message: 'live 1' }, {});
      await send(b, { to: NUMBERS.succeed, message: 'live 2' }, {});
      await send(b, { to: NUMBERS.succeed, message: 'test' });
      const provider = own.context.services.resourceProviders.find((p) => p.service === 'messaging');
      const account = own.context.accounts.allAccounts()[0]!;
      const usage = provider!.usage(account.id, 0, Date.now() + 1000);
      expect(usage).toMatchObject({
        service: 'messaging',
        cost: 0.015,
        resources: [],
        extra: { messages_sent: 2, cost_per_message: 0.0075 },
      });
    } finally {
      await own.close();
    }
  });

  test('X-SMS-Remaining counts recipients, and a bulk over the remaining volume is 429 with no effect', async () => {
    const own = await startMessagingServer();
    try {
      const b = api(own, own.apiKey);
      const first = await b.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'one' }, TEST_MODE);
      expect(first.headers.get('x-sms-limit')).toBe('10000');
      expect(first.headers.get('x-sms-remaining')).toBe('9999');
      const all = Array.from({ length: 1000 }, () => NUMBERS.succeed);
      for (let i = 0; i < 9; i++) {
        const bulk = await b.call('POST /sms/bulk', '/sms/bulk', { recipients: all, message: 'volume' }, TEST_MODE);
        expect(bulk.status).toBe(201);
      }
      const last = await b.call(
        'POST /sms/bulk',
        '/sms/bulk',
        { recipients: all.slice(0, 994), message: 'volume' },
        TEST_MODE,
      );
      expect(last.headers.get('x-sms-remaining')).toBe('5');
      const over = await b.call(
        'POST /sms/bulk',
        '/sms/bulk',
        { recipients: all.slice(0, 6), message: 'too many' },
        TEST_MODE,
      );
      expect(over.status).toBe(429);
      expect(errorOf(over)).toMatchObject({
        code: 'rate_limit_exceeded',
        details: { window: 'sms-per-hour', limit: 10000 },
      });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.headers.get('x-sms-remaining')).toBe('5');
      const campaigns = obj((await b.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as unknown[];
      expect(campaigns).toHaveLength(10);
      const exact = await b.call(
        'POST /sms/bulk',
        '/sms/bulk',
        { recipients: all.slice(0, 5), message: 'fits' },
        TEST_MODE,
      );
      expect(exact.status).toBe(201);
      expect(exact.headers.get('x-sms-remaining')).toBe('0');
      const single = await b.call(
        'POST /sms/send',
        '/sms/send',
        { to: NUMBERS.succeed, message: 'no more' },
        TEST_MODE,
      );
      expect(single.status).toBe(429);
      // Invalid sends are refused for what they are, not counted as volume.
      const invalid = await b.call('POST /sms/send', '/sms/send', { to: 'bad', message: 'x' }, TEST_MODE);
      expect(errorOf(invalid).code).toBe('invalid_phone_number');
    } finally {
      await own.close();
    }
  });

  test('a live send the wallet cannot pay is insufficient_balance and gives the SMS volume back', async () => {
    const own = await startMessagingServer();
    try {
      const b = api(own, own.apiKey);
      const many = Array.from({ length: 1000 }, () => NUMBERS.succeed);
      // 500 USD at 0.0075 per segment: 1000 recipients x 7 segments (1071 chars) = 52.5 USD; 10 such bulks exceed it.
      const text = 'y'.repeat(1071);
      let refused: Awaited<ReturnType<Api['call']>> | undefined;
      let remainingBefore = '';
      for (let i = 0; i < 10 && !refused; i++) {
        const res = await b.call('POST /sms/bulk', '/sms/bulk', { recipients: many, message: text }, {});
        if (res.status === 422) refused = res;
        else remainingBefore = res.headers.get('x-sms-remaining') ?? '';
      }
      expect(refused, 'some bulk must exceed the balance').toBeDefined();
      expect(errorOf(refused!)).toMatchObject({ code: 'insufficient_balance', details: { currency: 'USD' } });
      expect(refused!.headers.get('x-sms-remaining')).toBe(remainingBefore);
    } finally {
      await own.close();
    }
  });
});

test('sends never block on delivery: a send answers before the carrier does', async () => {
  const started = Date.now();
  await send(a, { to: NUMBERS.succeed, message: 'fast' });
  expect(Date.now() - started).toBeLessThan(2000);
  await sleep(0);
});
