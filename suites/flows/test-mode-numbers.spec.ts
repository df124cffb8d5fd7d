/**
 * Flow: the three test numbers in test mode. The succeed number ends `delivered` with
 * `delivered_at`, the fail number ends `failed` with an error in `delivery_report`, the random
 * number ends in one of the two; a bulk send to all three behaves the same; and every send the
 * flow made carried `X-Test-Mode: true` (the suite's safety rule, checked on the recorded requests).
 * By the convention, a test-mode send is priced but debits no wallet.
 */
import { defineFlow, expect, expectStatus, listOf } from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, finalStatus } from './_messaging.ts';
import type { MessageStatus } from './_messaging.ts';

type Kind = 'succeed' | 'fail' | 'random';
const KINDS: Kind[] = ['succeed', 'fail', 'random'];

interface SendAnswer {
  message_id: string;
  status: string;
  to: string;
}

interface State {
  ids: Record<Kind, string>;
  /** The answers of the three sends, as POST /sms/send gave them. */
  sent: Record<Kind, SendAnswer>;
  finals: Partial<Record<Kind, MessageStatus>>;
  bulk: Array<{ message_id: string; to: string; status: string }>;
  /** `X-Test-Mode` of every SMS send the flow made, as recorded by the client. */
  sendHeaders: Array<{ path: string; testMode: string | undefined }>;
}

const FLOW = 'flow.test-mode-numbers';

function remember(state: State, res: ApiResponse): void {
  state.sendHeaders ??= [];
  state.sendHeaders.push({
    path: new URL(res.exchange.request.url).pathname,
    testMode: res.exchange.request.headers['x-test-mode'],
  });
}

defineFlow<State>(
  { id: FLOW, class: 'test-mode', title: 'test-mode numbers: succeed delivered, fail failed, random either, bulk too' },
  (step) => {
    step(
      {
        id: `${FLOW}.accepted`,
        requirement: 'TEST-NUM-004',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'POST /sms/send accepts each of the three test numbers as a recipient',
      },
      async ({ api, ledger, ctx, state }) => {
        state.ids = {} as Record<Kind, string>;
        state.finals = {};
        state.sent = {} as Record<Kind, SendAnswer>;
        for (const kind of KINDS) {
          const to = ctx.testNumbers[kind];
          const res = await api.post('/sms/send', { to, message: `cloudcheck ${ctx.runPrefix}test-mode ${kind}` });
          remember(state, res);
          expectStatus(res, [200, 201], `test number ${kind}`);
          const message = res.json<SendAnswer>();
          state.ids[kind] = ledger.track('message', message.message_id);
          state.sent[kind] = message;
        }
      },
    );

    step(
      {
        id: `${FLOW}.send`,
        requirement: 'TEST-MODE-001',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'each test-mode send answers like a live send: the message to its number, status sent',
      },
      async ({ ctx, state }) => {
        for (const kind of KINDS) {
          const message = state.sent[kind];
          expect(typeof message.message_id, `message_id of the ${kind} send`).toBe('string');
          expect(message.to).toBe(ctx.testNumbers[kind]);
          expect(message.status, `a test-mode send to the ${kind} number answers sent`).toBe('sent');
        }
      },
    );

    step(
      {
        id: `${FLOW}.succeed`,
        requirement: 'TEST-NUM-001',
        level: 'MUST',
        operation: 'GET /sms/status/{message_id}',
        title: 'the succeed number ends delivered, with delivered_at',
      },
      async ({ api, ctx, state }) => {
        const message = await finalStatus(api, ctx, state.ids.succeed);
        state.finals.succeed = message;
        expect(message.status).toBe('delivered');
        expect(message.delivered_at, 'a delivered message carries delivered_at').toMatch(ISO_TIMESTAMP);
      },
    );

    step(
      {
        id: `${FLOW}.fail`,
        requirement: 'TEST-NUM-002',
        level: 'MUST',
        operation: 'GET /sms/status/{message_id}',
        title: 'the fail number ends failed, never delivered',
      },
      async ({ api, ctx, state }) => {
        const message = await finalStatus(api, ctx, state.ids.fail);
        state.finals.fail = message;
        expect(message.status).toBe('failed');
      },
    );

    step(
      {
        id: `${FLOW}.fail-report`,
        requirement: 'TEST-MODE-002',
        level: 'SHOULD',
        operation: 'GET /sms/status/{message_id}',
        title: 'the failed message names its error in delivery_report (error_code, error_message)',
      },
      async ({ state }) => {
        const report = state.finals.fail?.delivery_report;
        expect(report, 'delivery_report on the status response').toBeTruthy();
        expect(
          typeof report?.error_code === 'string' || typeof report?.error_code === 'number',
          'delivery_report.error_code is set',
        ).toBe(true);
        expect(typeof report?.error_message, 'delivery_report.error_message is set').toBe('string');
        expect(String(report?.error_message).length).toBeGreaterThan(0);
      },
    );

    step(
      {
        id: `${FLOW}.random`,
        requirement: 'TEST-NUM-003',
        level: 'MUST',
        operation: 'GET /sms/status/{message_id}',
        title: 'the random number ends either delivered or failed',
      },
      async ({ api, ctx, state }) => {
        const message = await finalStatus(api, ctx, state.ids.random);
        expect(['delivered', 'failed']).toContain(message.status);
        if (message.status === 'delivered') expect(message.delivered_at).toMatch(ISO_TIMESTAMP);
      },
    );

    step(
      {
        id: `${FLOW}.bulk`,
        requirement: 'TEST-MODE-004',
        level: 'SHOULD',
        operation: 'POST /sms/bulk',
        title: 'a test-mode bulk send to the three numbers ends each message as a single send would',
      },
      async ({ api, ledger, ctx, state }) => {
        const recipients = KINDS.map((k) => ctx.testNumbers[k]);
        const res = await api.post('/sms/bulk', {
          recipients,
          message: `cloudcheck ${ctx.runPrefix}test-mode bulk`,
          campaign_name: ctx.name('test-mode'),
        });
        remember(state, res);
        expectStatus(res, [200, 201]);
        const campaign = res.json<{
          campaign_id: string;
          messages: Array<{ message_id: string; to: string; status: string }>;
        }>();
        ledger.track('campaign', campaign.campaign_id);
        expect(campaign.messages.map((m) => m.to).sort()).toEqual([...recipients].sort());
        for (const m of campaign.messages) ledger.track('message', m.message_id);
        for (const kind of KINDS) {
          const entry = campaign.messages.find((m) => m.to === ctx.testNumbers[kind])!;
          const message = await finalStatus(api, ctx, entry.message_id);
          if (kind === 'succeed') expect(message.status, 'bulk: the succeed number').toBe('delivered');
          else if (kind === 'fail') expect(message.status, 'bulk: the fail number').toBe('failed');
          else expect(['delivered', 'failed'], 'bulk: the random number').toContain(message.status);
        }
      },
    );

    // The suite's own safety rule as much as the target's: this fails when the client stopped adding
    // the header (README, Safety against a shared target), which must never go unnoticed.
    step(
      {
        id: `${FLOW}.header`,
        requirement: 'TEST-MODE-001',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'every SMS send of the flow carried X-Test-Mode: true',
      },
      async ({ ctx, state }) => {
        ctx.testInfo.skip(ctx.liveSms, 'the run was started with --live-sms: sends go without X-Test-Mode on purpose');
        expect(state.sendHeaders.length, 'the flow recorded its sends').toBe(KINDS.length + 1);
        for (const send of state.sendHeaders) expect(send.testMode, `${send.path} carried X-Test-Mode`).toBe('true');
      },
    );

    step(
      {
        id: `${FLOW}.not-debited`,
        requirement: 'TEST-MODE-003',
        level: 'SHOULD',
        operation: 'POST /sms/send',
        title: 'a test-mode send is priced (cost above 0) and leaves every wallet balance of its account as it was',
      },
      async ({ api, ledger, ctx }) => {
        ctx.testInfo.skip(ctx.liveSms, 'the run was started with --live-sms: nothing is sent in test mode');
        // The other account: no check of the run moves its money (top-ups are the main account's).
        ctx.requireAlt();
        const alt = { account: 'alt' as const };
        const before = await balances(api, alt);
        const res = await api.post(
          '/sms/send',
          { to: ctx.testNumbers.succeed, message: `cloudcheck ${ctx.runPrefix}test-mode price` },
          alt,
        );
        expectStatus(res, [200, 201]);
        const sent = res.json<{ message_id: string; cost?: unknown }>();
        ledger.track('message', sent.message_id, alt);
        expect(
          typeof sent.cost === 'number' && sent.cost > 0,
          `a test-mode send is priced as a live one would be: cost ${JSON.stringify(sent.cost)}`,
        ).toBe(true);
        expect(await balances(api, alt), 'the available balance of each wallet after a test-mode send').toEqual(before);
      },
    );
  },
);

/** The available balance of each wallet of the account, by currency. */
async function balances(api: ApiClient, options: { account: 'main' | 'alt' }): Promise<Record<string, unknown>> {
  const res = await api.get('/account/wallets', options);
  expectStatus(res, 200, 'GET /account/wallets');
  const wallets = listOf<{ currency?: unknown; available_balance?: unknown }>(res.body, 'wallets') ?? [];
  return Object.fromEntries(wallets.map((w) => [String(w.currency), w.available_balance]));
}
