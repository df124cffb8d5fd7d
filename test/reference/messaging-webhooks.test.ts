/**
 * Messaging events of the reference server, received by a real HTTP listener on a free port:
 * subscriptions and their filters, the signature, per-message callback URLs and bulk sends.
 */
import { createHmac } from 'node:crypto';
import { expect, test } from '../base.ts';
import type { RunningReference } from '../../reference/server.ts';
import {
  type Api,
  type Delivery,
  EVENT_DATA_FIELDS,
  NUMBERS,
  type Receiver,
  api,
  expectEventDocumented,
  finalStatus,
  obj,
  send,
  shareServerAndReceiver,
  sleep,
} from './messaging-helpers.ts';

let server: RunningReference;
let a: Api;
let receiver: Receiver;
shareServerAndReceiver((shared) => ({ server, a, receiver } = shared));

function verifySignature(delivery: Delivery, secret: string): boolean {
  const header = String(delivery.headers['x-webhook-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${delivery.raw}`).digest('hex');
  return expected === match[2] && Math.abs(Number(match[1]) - Date.now() / 1000) < 60;
}

async function subscribe(path: string, events: string[], secret?: string): Promise<void> {
  const res = await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
    url: `${receiver.url}${path}`,
    events,
    ...(secret ? { secret } : {}),
  });
  expect(res.status, res.text).toBe(201);
}

test('a subscription receives the events it asked for, signed, and nothing else', async () => {
  await subscribe('/signed', ['sms.delivered', 'sms.failed'], 'whsec_test');
  const ok = await send(a, { to: NUMBERS.succeed, message: 'signed' });
  const ko = await send(a, { to: NUMBERS.fail, message: 'signed' });
  await expect.poll(() => receiver.forMessage('/signed', ok.message_id).length).toBe(1);
  await expect.poll(() => receiver.forMessage('/signed', ko.message_id).length).toBe(1);
  const [delivered] = receiver.forMessage('/signed', ok.message_id);
  const [failed] = receiver.forMessage('/signed', ko.message_id);
  expect(delivered?.body.event).toBe('sms.delivered');
  expect(failed?.body.event).toBe('sms.failed');
  for (const d of [delivered!, failed!]) {
    await expectEventDocumented(d.body);
    expect(verifySignature(d, 'whsec_test')).toBe(true);
    expect(verifySignature(d, 'wrong-secret')).toBe(false);
    expect(d.headers['content-type']).toContain('application/json');
    expect(d.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(Object.keys(d.body.data ?? {}).sort()).toEqual(EVENT_DATA_FIELDS);
  }
  expect(delivered?.body.data).toMatchObject({
    message_id: ok.message_id,
    to: NUMBERS.succeed,
    from: 'CloudCheck',
    status: 'delivered',
    network: 'Test Network',
    country: 'US',
  });
  expect(typeof delivered?.body.data?.delivered_at).toBe('string');
  expect(failed?.body.data).toMatchObject({ status: 'failed', delivered_at: null });
  // sms.sent happened too but was not subscribed here.
  await sleep(150);
  expect(receiver.deliveries.filter((d) => d.path === '/signed' && d.body.event === 'sms.sent')).toEqual([]);
});

test('without a secret, deliveries carry no signature; sms.sent arrives at send time', async () => {
  await subscribe('/unsigned', ['sms.sent']);
  const msg = await send(a, { to: NUMBERS.succeed, message: 'unsigned' });
  await expect.poll(() => receiver.forMessage('/unsigned', msg.message_id).length).toBe(1);
  const [sent] = receiver.forMessage('/unsigned', msg.message_id);
  expect(sent?.body).toMatchObject({ event: 'sms.sent', data: { status: 'sent', delivered_at: null } });
  expect(sent?.headers['x-webhook-signature']).toBeUndefined();
  await finalStatus(a, String(msg.message_id));
  await sleep(100);
  expect(receiver.forMessage('/unsigned', msg.message_id)).toHaveLength(1);
});

test("another account's events never reach this account's webhook", async () => {
  await subscribe('/mine', ['sms.sent', 'sms.delivered']);
  const other = await send(api(server, server.altApiKey), { to: NUMBERS.succeed, message: 'not yours' });
  await finalStatus(api(server, server.altApiKey), String(other.message_id));
  await sleep(150);
  expect(receiver.forMessage('/mine', other.message_id)).toEqual([]);
});

test('callback_url receives every status event of its message, unsigned', async () => {
  const msg = await send(a, { to: NUMBERS.fail, message: 'callback', callback_url: `${receiver.url}/callback` });
  await expect
    .poll(() => receiver.forMessage('/callback', msg.message_id).map((d) => d.body.event))
    .toEqual(['sms.sent', 'sms.failed']);
  const [, last] = receiver.forMessage('/callback', msg.message_id);
  expect(Object.keys(last?.body.data ?? {}).sort()).toEqual(EVENT_DATA_FIELDS);
  expect(last?.headers['x-webhook-signature']).toBeUndefined();
  // Only that message's events go to its callback.
  const other = await send(a, { to: NUMBERS.succeed, message: 'no callback' });
  await finalStatus(a, String(other.message_id));
  await sleep(100);
  expect(receiver.forMessage('/callback', other.message_id)).toEqual([]);
});

test('a bulk callback_url hears about each message of the campaign', async () => {
  const res = await a.call(
    'POST /sms/bulk',
    '/sms/bulk',
    { recipients: [NUMBERS.succeed, NUMBERS.fail], message: 'bulk cb', callback_url: `${receiver.url}/bulk` },
    { 'x-test-mode': 'true' },
  );
  const messages = obj(res.body).messages as Array<Record<string, unknown>>;
  for (const m of messages) {
    await expect.poll(() => receiver.forMessage('/bulk', m.message_id).length).toBe(2);
  }
  const finals = messages.map((m) => receiver.forMessage('/bulk', m.message_id)[1]?.body.event);
  expect(finals).toEqual(['sms.delivered', 'sms.failed']);
});

test('non-loopback webhook URLs are configured but never called', async () => {
  const res = await a.call('POST /messaging/webhooks', '/messaging/webhooks', {
    url: 'https://hooks.example.org/cloud',
    events: ['sms.sent'],
  });
  expect(res.status).toBe(201);
  await send(a, { to: NUMBERS.succeed, message: 'remote' });
  await expect
    .poll(() =>
      server.context.events.deliveries.some((d) => d.url === 'https://hooks.example.org/cloud' && d.status === null),
    )
    .toBe(true);
});
