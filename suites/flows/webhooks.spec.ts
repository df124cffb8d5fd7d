/**
 * Flow: messaging webhooks end to end. A webhook subscribed to sms.sent and sms.delivered with a
 * secret; test-mode sends to the succeed and fail numbers (the first with a per-message
 * `callback_url`). The subscribed events arrive with the specification's payload, the unsubscribed
 * one (sms.failed) does not, the callback URL receives its message's status, and every delivery
 * of the webhook carries a signature that verifies (docs/conventions.md). A delivery answered 503
 * comes again (the convention: retried with backoff).
 *
 * The target calls this worker's webhook receiver (src/harness/webhook-receiver.ts); against a
 * remote target that cannot reach it, the flow skips.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  addSecret,
  defineFlow,
  expect,
  expectStatus,
  expectWrappedIn,
  resourceOf,
  webhookReceiver,
} from '../../src/harness/check.ts';
import type { CheckContext, WebhookDelivery, WebhookReceiver } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, finalStatus } from './_messaging.ts';

const SUBSCRIBED = ['sms.sent', 'sms.delivered'];
/** How long a refused delivery may take to come again (docs/conventions.md, Messaging). */
const RETRY_WITHIN_MS = 30_000;
const DATA_FIELDS = ['message_id', 'to', 'from', 'status', 'delivered_at', 'network', 'country'];

interface Payload {
  event?: unknown;
  timestamp?: unknown;
  data?: Record<string, unknown>;
}

interface State {
  hookUrl: string;
  callbackUrl: string;
  secret: string;
  /** message ids: the succeed one has the callback_url. */
  delivered: string;
  failed: string;
}

const FLOW = 'flow.webhooks';

async function receiverFor(ctx: CheckContext): Promise<WebhookReceiver> {
  ctx.requireWebhook();
  return (await webhookReceiver(ctx))!;
}

const payloadOf = (d: WebhookDelivery): Payload => (d.json && typeof d.json === 'object' ? d.json : {});
const messageIdOf = (d: WebhookDelivery): unknown => payloadOf(d).data?.message_id;
const eventOf = (d: WebhookDelivery): unknown => payloadOf(d).event;
/** Deliveries made to one endpoint URL of the receiver. */
const at =
  (url: string) =>
  (d: WebhookDelivery): boolean =>
    d.path === new URL(url).pathname;

/** Deliveries of the flow's own messages to `url` (the account's other sends reach the same subscription). */
function ours(receiver: WebhookReceiver, url: string, state: State): WebhookDelivery[] {
  return receiver.deliveries(url).filter((d) => messageIdOf(d) === state.delivered || messageIdOf(d) === state.failed);
}

function expectPayload(d: WebhookDelivery): void {
  const body = payloadOf(d);
  expect(d.json, `delivery #${d.seq} has a JSON object body: ${d.rawBody.slice(0, 200)}`).toBeTruthy();
  expect(typeof body.event, 'payload `event` is a string').toBe('string');
  expect(String(body.timestamp), 'payload `timestamp` is an ISO 8601 timestamp').toMatch(ISO_TIMESTAMP);
  expect(typeof body.data, 'payload `data` is an object').toBe('object');
  for (const field of DATA_FIELDS)
    expect(Object.keys(body.data ?? {}), `${String(body.event)} data carries \`${field}\``).toContain(field);
}

/** `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/conventions.md, Messaging). */
function verifySignature(header: string | undefined, secret: string, rawBody: string): string | null {
  if (!header) return 'no X-Webhook-Signature header';
  const parts = new Map(header.split(',').map((p) => p.trim().split('=') as [string, string]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !/^\d+$/.test(t) || !v1) return `malformed X-Webhook-Signature "${header}"`;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex');
  const ok = v1.length === expected.length && timingSafeEqual(Buffer.from(v1), Buffer.from(expected));
  if (!ok) return `v1 does not match HMAC-SHA256(secret, "<t>.<raw body>")`;
  if (Math.abs(Number(t) - Date.now() / 1000) > 300) return `t=${t} is more than 5 minutes away from now`;
  return null;
}

defineFlow<State>(
  {
    id: FLOW,
    class: 'webhooks',
    title: 'webhooks: subscribed events with the payload, no unsubscribed ones, callback_url, signature',
  },
  (step) => {
    step(
      {
        id: `${FLOW}.configure`,
        requirement: 'HOOK-CFG-002',
        level: 'MUST',
        operation: 'POST /messaging/webhooks',
        title: 'POST /messaging/webhooks accepts sms.sent and sms.delivered with a secret',
      },
      async ({ api, ledger, ctx, state }) => {
        const receiver = await receiverFor(ctx);
        state.hookUrl = receiver.endpoint('hook');
        state.callbackUrl = receiver.endpoint('callback');
        state.secret = `cc-${randomBytes(18).toString('hex')}`;
        addSecret(state.secret);
        const res = await api.post('/messaging/webhooks', {
          url: state.hookUrl,
          events: SUBSCRIBED,
          secret: state.secret,
        });
        expectStatus(res, [200, 201]);
        const id = resourceOf<{ id?: unknown }>(res.body, 'webhook')?.id;
        if (typeof id === 'string') ledger.track('webhook', id);
      },
    );

    step(
      {
        id: `${FLOW}.configure-shape`,
        requirement: 'HOOK-CFG-003',
        level: 'SHOULD',
        operation: 'POST /messaging/webhooks',
        title: 'the configuration answers 201 {"webhook": {id, url, events}} and never echoes the secret',
      },
      async ({ api, ctx }) => {
        // A second, identical subscription would double every delivery: this one listens elsewhere.
        const receiver = await receiverFor(ctx);
        const url = receiver.endpoint('shape');
        const secret = `cc-${randomBytes(18).toString('hex')}`;
        addSecret(secret);
        const res = await api.post('/messaging/webhooks', { url, events: ['sms.rejected'], secret });
        expectStatus(res, 201);
        const webhook = expectWrappedIn<{ id?: unknown; url?: unknown; events?: unknown }>(res, 'webhook');
        expect(typeof webhook.id, '`webhook.id`').toBe('string');
        expect(webhook.url).toBe(url);
        expect(webhook.events).toEqual(['sms.rejected']);
        expect(res.text.includes(secret), 'the secret is not in the response').toBe(false);
      },
    );

    step(
      {
        id: `${FLOW}.subscribed-delivered`,
        requirement: 'HOOK-DLV-001',
        level: 'MUST',
        operation: 'POST /messaging/webhooks',
        title: 'the subscribed sms.sent and sms.delivered events of a test-mode send reach the webhook URL',
      },
      async ({ api, ledger, ctx, state }) => {
        const receiver = await receiverFor(ctx);
        const send = async (to: string, extra: Record<string, unknown>): Promise<string> => {
          const res = await api.post('/sms/send', { to, message: `cloudcheck ${ctx.runPrefix}webhooks`, ...extra });
          expectStatus(res, [200, 201]);
          return ledger.track('message', res.json<{ message_id: string }>().message_id);
        };
        state.delivered = await send(ctx.testNumbers.succeed, { callback_url: state.callbackUrl });
        state.failed = await send(ctx.testNumbers.fail, {});
        for (const event of SUBSCRIBED) {
          await receiver.waitFor(
            `${event} of ${state.delivered}`,
            (d) => at(state.hookUrl)(d) && messageIdOf(d) === state.delivered && eventOf(d) === event,
            {
              timeoutMs: ctx.asyncTimeoutMs,
            },
          );
        }
        await receiver.waitFor(
          `sms.sent of ${state.failed}`,
          (d) => at(state.hookUrl)(d) && messageIdOf(d) === state.failed && eventOf(d) === 'sms.sent',
          {
            timeoutMs: ctx.asyncTimeoutMs,
          },
        );
      },
    );

    step(
      {
        id: `${FLOW}.payload`,
        requirement: 'HOOK-PAY-001',
        level: 'MUST',
        operation: null,
        title:
          'each delivery carries event, timestamp and data with message_id, to, from, status, delivered_at, network, country',
      },
      async ({ ctx, state }) => {
        const receiver = await receiverFor(ctx);
        const deliveries = ours(receiver, state.hookUrl, state);
        expect(deliveries.length).toBeGreaterThanOrEqual(3);
        for (const d of deliveries) {
          expectPayload(d);
          const data = payloadOf(d).data!;
          expect(data.to).toBe(data.message_id === state.delivered ? ctx.testNumbers.succeed : ctx.testNumbers.fail);
        }
        const delivered = deliveries.find(
          (d) => payloadOf(d).event === 'sms.delivered' && messageIdOf(d) === state.delivered,
        );
        expect(String(payloadOf(delivered!).data?.delivered_at), 'sms.delivered carries delivered_at').toMatch(
          ISO_TIMESTAMP,
        );
      },
    );

    step(
      {
        id: `${FLOW}.event-status`,
        requirement: 'HOOK-EVT-001',
        level: 'MUST',
        operation: null,
        title: 'an sms.<state> event carries data.status <state>',
      },
      async ({ ctx, state }) => {
        const receiver = await receiverFor(ctx);
        for (const d of ours(receiver, state.hookUrl, state)) {
          const body = payloadOf(d);
          expect(`sms.${String(body.data?.status)}`, `delivery #${d.seq}`).toBe(body.event);
        }
      },
    );

    step(
      {
        id: `${FLOW}.unsubscribed-absent`,
        requirement: 'HOOK-DLV-001',
        level: 'MUST',
        operation: 'POST /messaging/webhooks',
        title: 'the unsubscribed sms.failed event of a failed message does not reach the webhook URL',
      },
      async ({ api, ctx, state }) => {
        const receiver = await receiverFor(ctx);
        const failed = await finalStatus(api, ctx, state.failed);
        await finalStatus(api, ctx, state.delivered);
        // Give a late (unwanted) delivery the time a wanted one took, and at least a second.
        await new Promise((resolve) => setTimeout(resolve, ctx.scaled(1_000)));
        const unwanted = ours(receiver, state.hookUrl, state).filter(
          (d) => !SUBSCRIBED.includes(String(payloadOf(d).event)),
        );
        expect(
          unwanted.map((d) => `${String(payloadOf(d).event)} of ${String(messageIdOf(d))}`),
          `only ${SUBSCRIBED.join(' and ')} were subscribed (the failed message is ${failed.status})`,
        ).toEqual([]);
      },
    );

    step(
      {
        id: `${FLOW}.callback-url`,
        requirement: 'HOOK-CB-001',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'the per-message callback_url receives the delivery status of its message',
      },
      async ({ ctx, state }) => {
        const receiver = await receiverFor(ctx);
        const [d] = await receiver.waitFor(
          `the delivery status of ${state.delivered} at its callback_url`,
          (x) => at(state.callbackUrl)(x) && eventOf(x) === 'sms.delivered',
          {
            timeoutMs: ctx.asyncTimeoutMs,
          },
        );
        expectPayload(d!);
        expect(payloadOf(d!).data?.message_id).toBe(state.delivered);
        expect(payloadOf(d!).data?.status).toBe('delivered');
        for (const other of receiver.deliveries(state.callbackUrl))
          expect(messageIdOf(other), 'the callback only hears of its own message').toBe(state.delivered);
      },
    );

    step(
      {
        id: `${FLOW}.signature`,
        requirement: 'HOOK-SIG-001',
        level: 'SHOULD',
        operation: 'POST /messaging/webhooks',
        title: 'every delivery of the webhook carries an X-Webhook-Signature that verifies with the secret',
      },
      async ({ ctx, state }) => {
        const receiver = await receiverFor(ctx);
        const deliveries = receiver.deliveries(state.hookUrl);
        expect(deliveries.length).toBeGreaterThan(0);
        for (const d of deliveries) {
          expect(d.method, 'deliveries are POSTs').toBe('POST');
          expect(
            verifySignature(d.headers['x-webhook-signature'], state.secret, d.rawBody),
            `delivery #${d.seq} (${String(payloadOf(d).event)})`,
          ).toBeNull();
        }
      },
    );

    step(
      {
        id: `${FLOW}.retried`,
        requirement: 'HOOK-DLV-002',
        level: 'SHOULD',
        operation: 'POST /messaging/webhooks',
        title: `deliveries are POSTs of a JSON body, and one answered 503 comes again within ${RETRY_WITHIN_MS / 1000} s`,
      },
      async ({ api, ledger, ctx }) => {
        const receiver = await receiverFor(ctx);
        const url = receiver.endpoint('retry', { refuseFirst: true });
        const configured = await api.post('/messaging/webhooks', { url, events: ['sms.delivered'] });
        expectStatus(configured, [200, 201]);
        const hook = resourceOf<{ id?: unknown }>(configured.body, 'webhook')?.id;
        if (typeof hook === 'string') ledger.track('webhook', hook);
        const sent = await api.post('/sms/send', {
          to: ctx.testNumbers.succeed,
          message: `cloudcheck ${ctx.runPrefix}webhook retry`,
        });
        expectStatus(sent, [200, 201]);
        const id = ledger.track('message', sent.json<{ message_id: string }>().message_id);
        const deliveries = await receiver.waitFor(
          `sms.delivered of ${id} at an endpoint that answered its first delivery 503, once more`,
          (d) => at(url)(d) && messageIdOf(d) === id && eventOf(d) === 'sms.delivered',
          { timeoutMs: Math.min(ctx.asyncTimeoutMs, RETRY_WITHIN_MS), count: 2 },
        );
        for (const d of deliveries) {
          expect(d.method, `delivery #${d.seq} is a POST`).toBe('POST');
          expect(d.headers['content-type'] ?? '', `delivery #${d.seq} is labelled JSON`).toMatch(/json/i);
          expect(d.json, `delivery #${d.seq} has a JSON body: ${d.rawBody.slice(0, 200)}`).toBeTruthy();
        }
      },
    );
  },
);
