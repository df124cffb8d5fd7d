/** The webhook receiver (src/harness/webhook-receiver.ts) and its default listen address (settings.ts). */
import { createHmac } from 'node:crypto';
import { expect, test } from '../base.ts';
import { webhookSettings } from '../../src/harness/settings.ts';
import { WebhookReceiver, parseListen } from '../../src/harness/webhook-receiver.ts';

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  await res.text();
  return res.status;
}

test('records raw body and headers per endpoint, and waitFor resolves on a matching delivery', async () => {
  const receiver = await WebhookReceiver.start({ listen: '127.0.0.1:0' });
  try {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const a = receiver.endpoint('hook');
    const b = receiver.endpoint('hook');
    expect(a).not.toBe(b);
    const waiting = receiver.waitFor(
      'an sms.delivered at a',
      (d) => d.path === new URL(a).pathname && (d.json as { event?: string }).event === 'sms.delivered',
    );
    const raw = '{"event":"sms.delivered",  "data":{"message_id":"msg_1"}}';
    const signature = `t=1,v1=${createHmac('sha256', 's').update(`1.${raw}`).digest('hex')}`;
    expect(await post(b, '{"event":"sms.sent"}')).toBe(200);
    expect(await post(a, raw, { 'X-Webhook-Signature': signature })).toBe(200);
    const [delivery] = await waiting;
    // The raw body is kept byte for byte (the signature covers it), headers lowercased.
    expect(delivery!.rawBody).toBe(raw);
    expect(delivery!.headers['x-webhook-signature']).toBe(signature);
    expect(delivery!.method).toBe('POST');
    expect(receiver.deliveries(a)).toHaveLength(1);
    expect(receiver.deliveries(b)).toHaveLength(1);
    expect(receiver.deliveries()).toHaveLength(2);
  } finally {
    await receiver.close();
  }
});

test('waitFor times out with a message naming what it waited for (timeouts scaled)', async () => {
  const receiver = await WebhookReceiver.start({ listen: '127.0.0.1:0', timeoutScale: 2 });
  try {
    const started = Date.now();
    await expect(receiver.waitFor('nothing at all', () => false, { timeoutMs: 50 })).rejects.toThrow(
      /timed out after 100 ms waiting for nothing at all/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  } finally {
    await receiver.close();
  }
});

test('a public URL replaces the derived one (a tunnel in front of the listener)', async () => {
  const receiver = await WebhookReceiver.start({
    listen: '127.0.0.1:0',
    publicUrl: 'https://hooks.example.test/cloudcheck',
  });
  try {
    expect(receiver.url).toBe('https://hooks.example.test/cloudcheck/');
    expect(receiver.endpoint('x')).toMatch(/^https:\/\/hooks\.example\.test\/cloudcheck\/cc\/x-[0-9a-f]{12}$/);
  } finally {
    await receiver.close();
  }
});

test('listen addresses parse, bad ones are refused', () => {
  expect(parseListen('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
  expect(parseListen('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
  expect(() => parseListen('localhost')).toThrow(/HOST:PORT/);
  expect(() => parseListen('h:99999')).toThrow(/out of range/);
});

test('a loopback target gets a receiver on 127.0.0.1:0 by default; a remote one none; flags win', () => {
  expect(webhookSettings('http://127.0.0.1:4000/v1', null, null)).toEqual({ listen: '127.0.0.1:0', url: null });
  expect(webhookSettings('http://localhost:4000/v1', null, null)).toEqual({ listen: '127.0.0.1:0', url: null });
  expect(webhookSettings('http://[::1]:4000/v1', null, null)).toEqual({ listen: '127.0.0.1:0', url: null });
  expect(webhookSettings('https://api.example.com/v1', null, null)).toEqual({ listen: null, url: null });
  expect(webhookSettings('https://api.example.com/v1', '0.0.0.0:9000', 'https://me.example.net/')).toEqual({
    listen: '0.0.0.0:9000',
    url: 'https://me.example.net/',
  });
});

test('an endpoint handed out to refuse answers 503 to the first delivery of each event, 200 to the next ones', async () => {
  const receiver = await WebhookReceiver.start({ listen: '127.0.0.1:0' });
  try {
    const refusing = receiver.endpoint('retry', { refuseFirst: true });
    const plain = receiver.endpoint('plain');
    const first = '{"event":"sms.delivered","data":{"message_id":"msg_1"}}';
    const other = '{"event":"sms.delivered","data":{"message_id":"msg_2"}}';
    expect(await post(refusing, first)).toBe(503);
    expect(await post(refusing, first)).toBe(200);
    expect(await post(refusing, other)).toBe(503);
    expect(await post(plain, first)).toBe(200);
    // Refused deliveries are recorded too: a retry is seen as a second delivery of the same event.
    expect(receiver.deliveries(refusing)).toHaveLength(3);
  } finally {
    await receiver.close();
  }
});
