/**
 * Flow: compute events. A webhook subscribed to vps.created and vps.deleted, then one VPS created
 * and deleted: each change arrives under its name, with the compute payload (`data.vps` with id,
 * name and status).
 *
 * How compute subscriptions are configured is not shown by the specification; this flow asks
 * POST /messaging/webhooks (the only subscription operation there is) and skips when the target
 * refuses compute event names there. It also skips when the target cannot reach this worker's
 * webhook receiver.
 */
import { defineFlow, expect, expectStatus, resourceOf, webhookReceiver } from '../../src/harness/check.ts';
import type { CheckContext, WebhookDelivery, WebhookReceiver } from '../../src/harness/check.ts';
import { computeCatalogue, waitForVps } from './_compute.ts';
import { ISO_TIMESTAMP } from './_messaging.ts';

interface State {
  /** Why compute events cannot be checked here; unset when they can. */
  unsupported?: string;
  hookUrl: string;
  vpsId: string;
  vpsName: string;
  created: WebhookDelivery;
}

const FLOW = 'flow.compute-events';
const EVENTS = ['vps.created', 'vps.deleted'];

async function receiverFor(ctx: CheckContext): Promise<WebhookReceiver> {
  ctx.requireWebhook();
  return (await webhookReceiver(ctx))!;
}

const eventOf = (d: WebhookDelivery): unknown =>
  d.json && typeof d.json === 'object' ? (d.json as { event?: unknown }).event : undefined;

/** The delivery of `event` about the flow's VPS (its id anywhere in the body: the data shape is checked apart). */
function waitForEvent(
  receiver: WebhookReceiver,
  ctx: CheckContext,
  state: State,
  event: string,
): Promise<WebhookDelivery[]> {
  return receiver.waitFor(
    `${event} of ${state.vpsId}`,
    (d) => d.path === new URL(state.hookUrl).pathname && eventOf(d) === event && d.rawBody.includes(state.vpsId),
    {
      timeoutMs: ctx.asyncTimeoutMs,
    },
  );
}

defineFlow<State>(
  {
    id: FLOW,
    class: 'webhooks',
    title: 'compute events: vps.created and vps.deleted reach a webhook with the compute payload',
    // Its VPS boots while it runs (created after its webhook, it cannot be made earlier): it
    // starts first, so the boot overlaps the rest of the run (scheduler.ts).
    tags: ['early'],
  },
  (step) => {
    step(
      {
        id: `${FLOW}.created`,
        requirement: 'HOOK-EVT-002',
        level: 'MUST',
        operation: 'POST /vps',
        title: 'creating a VPS sends vps.created to a webhook subscribed to it',
      },
      async ({ api, ledger, ctx, state }) => {
        const receiver = await receiverFor(ctx);
        state.hookUrl = receiver.endpoint('compute');
        const hook = await api.post('/messaging/webhooks', { url: state.hookUrl, events: EVENTS });
        if (hook.status >= 400 && hook.status < 500) {
          state.unsupported = `the target refuses compute event names in POST /messaging/webhooks (${hook.status}); how compute subscriptions are configured is not shown`;
          ctx.testInfo.skip(true, state.unsupported);
        }
        expectStatus(hook, [200, 201]);
        const hookId = resourceOf<{ id?: unknown }>(hook.body, 'webhook')?.id;
        if (typeof hookId === 'string') ledger.track('webhook', hookId);

        const catalogue = await computeCatalogue(api);
        state.vpsName = ctx.name('events');
        const res = await api.post('/vps', {
          name: state.vpsName,
          region: catalogue.region,
          image: catalogue.image,
          size: catalogue.size.slug,
        });
        expectStatus(res, [200, 201, 202], 'create the VPS');
        state.vpsId = ledger.track('vps', res.json<{ vps: { id: string } }>().vps.id);
        [state.created] = (await waitForEvent(receiver, ctx, state, 'vps.created')) as [WebhookDelivery];
      },
    );

    step(
      {
        id: `${FLOW}.payload`,
        requirement: 'HOOK-PAY-002',
        level: 'MUST',
        operation: null,
        title: 'the vps.created body carries event, timestamp and data.vps with id, name and status',
      },
      async ({ ctx, state }) => {
        ctx.testInfo.skip(state.unsupported !== undefined, state.unsupported ?? '');
        const body = state.created.json as
          | { event?: unknown; timestamp?: unknown; data?: { vps?: Record<string, unknown> } }
          | undefined;
        expect(body, `the delivery has a JSON object body: ${state.created.rawBody.slice(0, 200)}`).toBeTruthy();
        expect(body!.event).toBe('vps.created');
        expect(String(body!.timestamp), '`timestamp` is an ISO 8601 timestamp').toMatch(ISO_TIMESTAMP);
        expect(typeof body!.data, '`data` is an object').toBe('object');
        const vps = body!.data?.vps;
        expect(
          typeof vps === 'object' && vps !== null && !Array.isArray(vps),
          `\`data.vps\` is an object: ${state.created.rawBody.slice(0, 300)}`,
        ).toBe(true);
        expect(vps!.id, '`data.vps.id`').toBe(state.vpsId);
        expect(vps!.name, '`data.vps.name`').toBe(state.vpsName);
        expect(typeof vps!.status, '`data.vps.status`').toBe('string');
      },
    );

    step(
      {
        id: `${FLOW}.deleted`,
        requirement: 'HOOK-EVT-002',
        level: 'MUST',
        operation: 'DELETE /vps/{vps_id}',
        title: 'deleting the VPS sends vps.deleted to the webhook',
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.testInfo.skip(state.unsupported !== undefined, state.unsupported ?? '');
        const receiver = await receiverFor(ctx);
        // Deleted once it has settled, as a client would; a VPS still being created may refuse it.
        await waitForVps(api, ctx, state.vpsId, `VPS ${state.vpsId} running`, (vps) => vps.status === 'running');
        const res = await api.delete(`/vps/${encodeURIComponent(state.vpsId)}`);
        expect(res.status, `DELETE of the VPS (${res.text.slice(0, 200)})`).toBeLessThan(300);
        expect(res.status).toBeGreaterThanOrEqual(200);
        ledger.deleted('vps', state.vpsId);
        await waitForEvent(receiver, ctx, state, 'vps.deleted');
      },
    );
  },
);
