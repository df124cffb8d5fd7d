/**
 * The reference server's simulated carrier (docs/conventions.md, Messaging): the reject number ends
 * `rejected` after the delivery delay, the expire number stays `sent` until the validity period
 * has passed and ends `expired`; events, campaigns, list filters, analytics and charging agree.
 */
import { expect, test } from '../base.ts';
import type { RunningReference } from '../../reference/server.ts';
import {
  type Api,
  EVENT_DATA_FIELDS,
  NUMBERS,
  type Receiver,
  TEST_MODE,
  api,
  expectEventDocumented,
  finalStatus,
  obj,
  send,
  shareServerAndReceiver,
  sleep,
  startMessagingServer,
  startReceiver,
} from './messaging-helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const CARRIER = { reject: '+15005550002', expire: '+15005550003' };
/** Delivery and validity of the servers that check what happens between the two. */
const SLOW_EXPIRY = { smsDeliveryMs: 60, smsValidityMs: 900 };

let server: RunningReference;
let a: Api;
let receiver: Receiver;
shareServerAndReceiver((shared) => ({ server, a, receiver } = shared));

async function status(b: Api, id: unknown): Promise<Record<string, unknown>> {
  return obj((await b.call('GET /sms/status/{message_id}', `/sms/status/${String(id)}`)).body);
}

async function campaign(b: Api, id: string): Promise<Record<string, unknown>> {
  return obj(obj((await b.call('GET /sms/campaigns/{campaign_id}', `/sms/campaigns/${id}`)).body).campaign);
}

test('an unset validity period follows the delivery delay', () => {
  expect(server.context.options.delays.smsDeliveryMs).toBe(60);
  expect(server.context.options.delays.smsValidityMs).toBe(240);
  expect(server.context.options.carrierNumbers).toEqual(CARRIER);
});

for (const [mode, headers] of [
  ['test mode', TEST_MODE],
  ['live', {}],
] as const) {
  test(`${mode}: the reject number ends rejected with a carrier error and no delivered_at`, async () => {
    const sent = await send(a, { to: CARRIER.reject, message: 'reject me' }, headers);
    expect(sent.status).toBe('sent');
    const done = await finalStatus(a, String(sent.message_id));
    expect(done).toMatchObject({ status: 'rejected', delivered_at: null, to: CARRIER.reject });
    expect(done.sent_at).toMatch(ISO);
    const report = obj(done.delivery_report);
    expect(report).toMatchObject({ country: 'US', error_code: 'carrier_rejected' });
    expect(typeof report.error_message).toBe('string');
    expect(typeof report.network).toBe('string');
  });

  test(`${mode}: the expire number ends expired with a validity error and no delivered_at`, async () => {
    const sent = await send(a, { to: CARRIER.expire, message: 'expire me' }, headers);
    const done = await finalStatus(a, String(sent.message_id));
    expect(done).toMatchObject({ status: 'expired', delivered_at: null });
    expect(obj(done.delivery_report)).toMatchObject({ country: 'US', error_code: 'validity_expired' });
    expect(typeof obj(done.delivery_report).error_message).toBe('string');
  });
}

test('the expire number is still sent after the delivery delay, and expires once the validity period has passed', async () => {
  const own = await startMessagingServer({ delays: SLOW_EXPIRY });
  const hooks = await startReceiver();
  try {
    const b = api(own);
    const res = await b.call('POST /messaging/webhooks', '/messaging/webhooks', {
      url: `${hooks.url}/expiry`,
      events: ['sms.expired', 'sms.delivered'],
    });
    expect(res.status, res.text).toBe(201);
    const expiring = await send(b, { to: CARRIER.expire, message: 'slow' });
    const delivered = await send(b, { to: NUMBERS.succeed, message: 'fast' });
    expect((await finalStatus(b, String(delivered.message_id))).status).toBe('delivered');
    // The carrier answered the other message; this one has no answer yet.
    expect(await status(b, expiring.message_id)).toMatchObject({
      status: 'sent',
      delivered_at: null,
      delivery_report: { error_code: null, error_message: null },
    });
    const done = await finalStatus(b, String(expiring.message_id));
    expect(done.status).toBe('expired');
    await expect.poll(() => hooks.deliveries.filter((d) => d.body.event === 'sms.expired').length).toBe(1);
    const [event] = hooks.deliveries.filter((d) => d.body.event === 'sms.expired');
    await expectEventDocumented(event!.body);
    // Timers never fire early by more than clock rounding: the period counts from sent_at.
    const waited = Date.parse(String(event!.body.timestamp)) - Date.parse(String(done.sent_at));
    expect(waited).toBeGreaterThanOrEqual(SLOW_EXPIRY.smsValidityMs - 5);
  } finally {
    await own.close();
    await hooks.close();
  }
});

test('subscriptions to sms.rejected and sms.expired receive them with the payload; other subscriptions and callbacks get what they asked for', async () => {
  const subscribe = async (path: string, events: string[]) => {
    const res = await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
      url: `${receiver.url}${path}`,
      events,
      secret: 'whsec_carrier',
    });
    expect(res.status, res.text).toBe(201);
  };
  await subscribe('/carrier', ['sms.rejected', 'sms.expired']);
  await subscribe('/others', ['sms.sent', 'sms.delivered', 'sms.failed']);
  const rejected = await send(a, { to: CARRIER.reject, message: 'hook r', callback_url: `${receiver.url}/cb` });
  const expired = await send(a, { to: CARRIER.expire, message: 'hook e', callback_url: `${receiver.url}/cb` });
  await expect.poll(() => receiver.forMessage('/carrier', rejected.message_id).length).toBe(1);
  await expect.poll(() => receiver.forMessage('/carrier', expired.message_id).length, { timeout: 5000 }).toBe(1);
  for (const [message, event, to] of [
    [rejected, 'sms.rejected', CARRIER.reject],
    [expired, 'sms.expired', CARRIER.expire],
  ] as const) {
    const [delivery] = receiver.forMessage('/carrier', message.message_id);
    await expectEventDocumented(delivery!.body);
    expect(delivery!.body.event).toBe(event);
    expect(delivery!.body.timestamp).toMatch(ISO);
    expect(Object.keys(delivery!.body.data ?? {}).sort()).toEqual(EVENT_DATA_FIELDS);
    expect(delivery!.body.data).toMatchObject({
      message_id: message.message_id,
      to,
      from: 'CloudCheck',
      status: event.slice(4),
      delivered_at: null,
      country: 'US',
    });
    expect(typeof delivery!.body.data?.network).toBe('string');
    expect(delivery!.headers['x-webhook-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    await expect
      .poll(() => receiver.forMessage('/cb', message.message_id).map((d) => d.body.event))
      .toEqual(['sms.sent', event]);
  }
  // Let any stray delivery arrive before asserting that none came.
  await sleep(200);
  for (const message of [rejected, expired]) {
    expect(receiver.forMessage('/others', message.message_id).map((d) => d.body.event)).toEqual(['sms.sent']);
    expect(receiver.forMessage('/carrier', message.message_id)).toHaveLength(1);
  }
});

test('a campaign mixing succeed, fail, reject and expire numbers completes once the last message expires; counts, filters and analytics agree', async () => {
  const own = await startMessagingServer({ delays: SLOW_EXPIRY });
  try {
    const b = api(own);
    const recipients = [NUMBERS.succeed, CARRIER.reject, CARRIER.expire, NUMBERS.fail, NUMBERS.succeed, CARRIER.expire];
    const res = await b.call(
      'POST /sms/bulk',
      '/sms/bulk',
      { recipients, message: 'mixed', campaign_name: 'carrier' },
      TEST_MODE,
    );
    expect(res.status, res.text).toBe(201);
    const body = obj(res.body);
    expect(body.status).toBe('processing');
    const id = String(body.campaign_id);
    const ids = (body.messages as Array<Record<string, unknown>>).map((m) => String(m.message_id));

    // After the delivery delay: every message but the expiring ones is final, the campaign is not.
    await expect.poll(async () => (await status(b, ids[1])).status).toBe('rejected');
    const midway = await campaign(b, id);
    expect(midway).toMatchObject({
      status: 'processing',
      completed_at: null,
      delivered_messages: 2,
      failed_messages: 2,
    });
    expect((midway.messages as Array<Record<string, unknown>>).map((m) => m.status)).toEqual([
      'delivered',
      'rejected',
      'sent',
      'failed',
      'delivered',
      'sent',
    ]);

    await expect.poll(async () => (await campaign(b, id)).status, { timeout: 5000 }).toBe('completed');
    const done = await campaign(b, id);
    expect(done).toMatchObject({ total_messages: 6, delivered_messages: 2, failed_messages: 4 });
    expect(done.completed_at).toMatch(ISO);
    expect((done.messages as Array<Record<string, unknown>>).map((m) => m.status)).toEqual([
      'delivered',
      'rejected',
      'expired',
      'failed',
      'delivered',
      'expired',
    ]);
    const listed = (
      obj((await b.call('GET /sms/campaigns', '/sms/campaigns')).body).campaigns as Array<Record<string, unknown>>
    ).find((c) => c.campaign_id === id);
    expect(listed).toMatchObject({
      status: 'completed',
      delivered_messages: 2,
      failed_messages: 4,
      completed_at: done.completed_at,
    });

    // The status filter accepts every state, and the counts per state add up to the campaign's.
    const counts: Record<string, number> = {};
    for (const state of ['sent', 'delivered', 'failed', 'rejected', 'expired']) {
      const page = obj((await b.call('GET /sms/messages', `/sms/messages?status=${state}`)).body);
      const messages = page.messages as Array<Record<string, unknown>>;
      expect(messages.every((m) => m.status === state)).toBe(true);
      counts[state] = obj(page.meta).total as number;
    }
    expect(counts).toEqual({ sent: 0, delivered: 2, failed: 1, rejected: 1, expired: 2 });

    // Analytics: expired and rejected count as failed; the rate is delivered over all messages.
    const analytics = obj((await b.call('GET /messaging/analytics/delivery', '/messaging/analytics/delivery')).body);
    expect(analytics.analytics).toEqual([
      expect.objectContaining({ total_messages: 6, delivered: 2, failed: 4, delivery_rate: 33.33 }),
    ]);
    expect(analytics.summary).toMatchObject({
      total_messages: 6,
      total_delivered: 2,
      total_failed: 4,
      average_delivery_rate: 33.33,
    });
  } finally {
    await own.close();
  }
});

test('live sends to the carrier numbers are debited like failed ones, and stay debited', async () => {
  const own = await startMessagingServer();
  try {
    const b = api(own);
    const balance = async () => {
      const wallets = obj((await b.call('GET /account/wallets', '/account/wallets')).body).wallets as Array<
        Record<string, unknown>
      >;
      return Number(wallets.find((w) => w.currency === 'USD')?.available_balance);
    };
    const before = await balance();
    const ids = [];
    for (const to of [NUMBERS.fail, CARRIER.reject, CARRIER.expire])
      ids.push(String((await send(b, { to, message: 'live' }, {})).message_id));
    await send(b, { to: CARRIER.reject, message: 'test mode' });
    expect(await balance()).toBeCloseTo(before - 3 * 0.0075, 6);
    expect((await Promise.all(ids.map((id) => finalStatus(b, id)))).map((m) => m.status)).toEqual([
      'failed',
      'rejected',
      'expired',
    ]);
    expect(await balance()).toBeCloseTo(before - 3 * 0.0075, 6);
    const provider = own.context.services.resourceProviders.find((p) => p.service === 'messaging');
    const usage = provider!.usage(own.context.accounts.allAccounts()[0]!.id, 0, Date.now() + 1000);
    expect(usage.extra).toMatchObject({ messages_sent: 3 });
  } finally {
    await own.close();
  }
});

test('the carrier numbers are configurable, and the test numbers win over a carrier number set to one of them', async () => {
  const own = await startMessagingServer({ carrierNumbers: { reject: '+447700900555', expire: NUMBERS.succeed } });
  try {
    const b = api(own);
    const ids = [];
    for (const to of ['+447700900555', NUMBERS.succeed, CARRIER.reject, CARRIER.expire])
      ids.push(String((await send(b, { to, message: 'configured' })).message_id));
    const finals = [];
    for (const id of ids) finals.push((await finalStatus(b, id)).status);
    expect(finals).toEqual(['rejected', 'delivered', 'delivered', 'delivered']);
  } finally {
    await own.close();
  }
});

test('the random test number still ends only delivered or failed', async () => {
  const res = await a.call(
    'POST /sms/bulk',
    '/sms/bulk',
    { recipients: Array.from({ length: 40 }, () => NUMBERS.random), message: 'random' },
    TEST_MODE,
  );
  expect(res.status, res.text).toBe(201);
  const id = String(obj(res.body).campaign_id);
  await expect.poll(async () => (await campaign(a, id)).status).toBe('completed');
  const statuses = new Set(((await campaign(a, id)).messages as Array<Record<string, unknown>>).map((m) => m.status));
  expect([...statuses].sort()).toEqual(['delivered', 'failed']);
});
