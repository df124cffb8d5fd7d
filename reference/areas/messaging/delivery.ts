/**
 * The life of a message: checks shared by every send operation, charging, creation in `sent`,
 * the simulated carrier that moves it to its final state after `delays.smsDeliveryMs` (or, for
 * a message it never confirms, to `expired` after `delays.smsValidityMs`), campaign completion,
 * and the sms.* events of each transition.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError, fieldError } from '../../core/errors.ts';
import { authOf, setSmsHeaders, takeSmsVolume } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { RULES } from '../../core/rate-limit.ts';
import type { WalletService } from '../../core/services.ts';
import { CURRENCY, TEST_NETWORK, countryOf, networkOf, priceOf, roundMoney } from './catalog.ts';
import {
  type CampaignRecord,
  FINAL_STATES,
  type MessageRecord,
  type MessageState,
  type MessagingState,
  stateOf,
} from './store.ts';

/** The sender a message carries when the request names none. */
export const DEFAULT_SENDER = 'CloudCheck';

export interface SendPlan {
  recipients: string[];
  text: string;
  from: string | undefined;
  callbackUrl: string | undefined;
  testMode: boolean;
  templateId?: string;
  campaignId?: string;
}

/** `X-Test-Mode: true` (any case): nothing reaches a carrier and nothing is debited. */
export function isTestMode(request: FastifyRequest): boolean {
  const header = request.headers['x-test-mode'];
  return (
    String(Array.isArray(header) ? header[0] : (header ?? ''))
      .trim()
      .toLowerCase() === 'true'
  );
}

/**
 * `from` must be a sender id of the account that is approved for every destination country.
 * The specification names one code for both cases ("not approved for the target country").
 */
export function checkSender(
  ctx: ReferenceContext,
  state: MessagingState,
  from: string | undefined,
  recipients: readonly string[],
): void {
  if (from === undefined) return;
  const problem = senderProblem(state, from, recipients);
  const code = ctx.faults.has('msg-sender-country-wrong-code') ? 'validation_error' : 'sender_id_not_approved';
  if (problem && ctx.faults.has('msg-sender-details-missing'))
    throw new ApiError(code, `Sender ID ${from} ${problem}.`);
  if (problem) throw fieldError('messaging', 'from', `Sender ID ${from} ${problem}.`, code, { value: from });
}

function senderProblem(state: MessagingState, from: string, recipients: readonly string[]): string | undefined {
  const sender = state.senderIds.get(from);
  if (!sender) return 'is not a registered sender ID of this account';
  if (sender.status !== 'approved') return 'is not approved yet';
  const outside = recipients.map(countryOf).find((country) => !sender.countries.includes(country));
  return outside === undefined ? undefined : `is not approved for ${outside}`;
}

/**
 * Opted-out numbers receive nothing: the send is refused instead of silently dropped. The three
 * test numbers are exempt: the specification says they *always* succeed or fail, and an opt-out
 * recorded for one (the document's own example uses the succeed number) must not break test mode.
 */
export function checkOptOuts(
  ctx: ReferenceContext,
  state: MessagingState,
  recipients: readonly string[],
  field: string,
): void {
  const blocked = recipients.find((phone) => state.optOuts.has(phone) && !isTestNumber(ctx, phone));
  if (blocked !== undefined)
    throw fieldError('messaging', field, `${blocked} has opted out of messages.`, 'recipient_opted_out', {
      value: blocked,
    });
}

/** Billing may be left out of a trimmed server (the area list is configurable): then nothing is debited. */
function walletOf(ctx: ReferenceContext): WalletService | undefined {
  try {
    return ctx.services.get('wallet');
  } catch {
    return undefined;
  }
}

/**
 * Counts the SMS volume (one per recipient, after validation, docs/conventions.md) and debits
 * live sends. When the wallet refuses, the volume is given back: a refused send sent nothing.
 */
export function takeVolumeAndCharge(
  ctx: ReferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  plan: SendPlan,
  charge: { amount: number; description: string; resourceId: string },
): boolean {
  takeSmsVolume(ctx, request, reply, plan.recipients.length);
  // Test-mode sends are priced but not debited (docs/conventions.md, Messaging).
  if (plan.testMode && !ctx.faults.has('msg-test-mode-debited')) return false;
  const wallet = walletOf(ctx);
  if (!wallet) return false;
  const auth = authOf(request);
  try {
    wallet.charge(auth.account.id, {
      amount: charge.amount,
      currency: CURRENCY,
      description: charge.description,
      service: 'messaging',
      resourceId: charge.resourceId,
    });
  } catch (error) {
    if (!auth.key.unlimited) {
      ctx.limiter.refund(auth.key.id, [ctx.limiter.peek(auth.key.id, RULES.sms)], plan.recipients.length);
      setSmsHeaders(ctx, reply, auth.key.id);
    }
    throw error;
  }
  return true;
}

/** Creates one `sent` message per recipient, emits sms.sent and schedules the carrier's answer. */
export function createMessages(
  ctx: ReferenceContext,
  accountId: string,
  plan: SendPlan,
  ids: readonly string[],
  charged: boolean,
): MessageRecord[] {
  const state = stateOf(ctx, accountId);
  const nowMs = ctx.clock.now();
  const now = isoTimestamp(nowMs);
  // Variant `test-mode-unpriced`: a test-mode send costs nothing.
  const cost = plan.testMode && ctx.variants.has('test-mode-unpriced') ? 0 : priceOf(plan.text);
  const records = plan.recipients.map((to, index): MessageRecord => {
    const country = countryOf(to);
    const record: MessageRecord = {
      message_id: ids[index] ?? newId('msg'),
      to,
      message: plan.text,
      from: plan.from ?? DEFAULT_SENDER,
      status: 'sent',
      cost,
      currency: CURRENCY,
      created_at: now,
      sent_at: now,
      delivered_at: null,
      delivery_report: {
        network: isTestNumber(ctx, to) ? TEST_NETWORK : networkOf(to, country),
        country,
        error_code: null,
        error_message: null,
      },
      template_id: plan.templateId ?? null,
      campaign_id: plan.campaignId ?? null,
      callback_url: plan.callbackUrl ?? null,
      testMode: plan.testMode,
      charged,
      createdMs: nowMs,
    };
    state.messages.set(record.message_id, record);
    return record;
  });
  for (const record of records) emitStatus(ctx, accountId, record);
  // One timer per send operation: a bulk of 1000 schedules one job, not 1000.
  ctx.clock.schedule(ctx.options.delays.smsDeliveryMs, () =>
    carrierAnswers(ctx, accountId, state, records, plan.campaignId),
  );
  return records;
}

function isTestNumber(ctx: ReferenceContext, phone: string): boolean {
  const numbers = ctx.options.testNumbers;
  return phone === numbers.succeed || phone === numbers.fail || phone === numbers.random;
}

/**
 * The carrier's answer to one send operation, `delays.smsDeliveryMs` after it. Messages it never
 * confirms (the expire number) stay `sent` until the validity period, counted from sending, has
 * passed: one more timer for all of them, and only when the operation has any.
 */
function carrierAnswers(
  ctx: ReferenceContext,
  accountId: string,
  state: MessagingState,
  records: readonly MessageRecord[],
  campaignId: string | undefined,
): void {
  let unconfirmed: MessageRecord[] | undefined;
  for (const record of records) {
    if (!finish(ctx, accountId, record)) (unconfirmed ??= []).push(record);
  }
  if (campaignId) completeCampaignIfDone(ctx, state, campaignId);
  if (!unconfirmed) return;
  const waiting = unconfirmed;
  const left = waiting[0]!.createdMs + ctx.options.delays.smsValidityMs - ctx.clock.now();
  ctx.clock.schedule(Math.max(0, left), () => {
    for (const record of waiting) if (record.status === 'sent') settle(ctx, accountId, record, 'expired');
    if (campaignId) completeCampaignIfDone(ctx, state, campaignId);
  });
}

type FinalState = Exclude<MessageState, 'pending' | 'sent'>;
/** `undefined`: the carrier never answers, and the message expires. */
type CarrierOutcome = Exclude<FinalState, 'expired'> | undefined;

/**
 * What the (simulated) carrier answers. The three test numbers behave as the specification says
 * whatever the test-mode header (no real SMS is ever sent to them), and win over a carrier number
 * configured to the same value; the two carrier numbers (a reference-server convention,
 * docs/conventions.md) are rejected or never confirmed, with or without the header; any other
 * number is delivered, because the reference server has no real carrier to fail.
 */
function outcomeFor(ctx: ReferenceContext, to: string): CarrierOutcome {
  const numbers = ctx.options.testNumbers;
  if (to === numbers.fail) return ctx.faults.has('msg-fail-number-delivered') ? 'delivered' : 'failed';
  if (to === numbers.random) {
    if (ctx.faults.has('msg-random-always-delivered')) return 'delivered';
    return ctx.rng.next() < 0.5 ? 'delivered' : 'failed';
  }
  if (to === numbers.succeed) return ctx.faults.has('msg-succeed-number-failed') ? 'failed' : 'delivered';
  const carrier = ctx.options.carrierNumbers;
  if (to === carrier.reject) return 'rejected';
  if (to === carrier.expire) return undefined;
  return 'delivered';
}

/** Moves the message to its carrier's answer; false when the carrier stays silent (still `sent`). */
function finish(ctx: ReferenceContext, accountId: string, record: MessageRecord): boolean {
  if (FINAL_STATES.includes(record.status)) return true;
  const status = outcomeFor(ctx, record.to);
  if (status === undefined) return false;
  settle(ctx, accountId, record, status);
  return true;
}

/** `error_code` and `error_message` of each unsuccessful final state. */
function carrierError(
  ctx: ReferenceContext,
  record: MessageRecord,
  status: Exclude<FinalState, 'delivered'>,
): [string, string] {
  switch (status) {
    case 'failed':
      return [
        'undeliverable',
        record.to === ctx.options.testNumbers.fail
          ? 'The fail test number never receives messages.'
          : 'The handset could not be reached.',
      ];
    case 'rejected':
      return ['carrier_rejected', 'The carrier rejected the message.'];
    case 'expired':
      return ['validity_expired', 'The carrier did not confirm delivery within the validity period.'];
  }
}

/** Moves a message that is still `sent` to a final state and emits its event. */
function settle(ctx: ReferenceContext, accountId: string, record: MessageRecord, status: FinalState): void {
  record.status = status;
  if (status === 'delivered') {
    record.delivered_at = isoTimestamp(ctx.clock.now());
  } else {
    const [code, message] = carrierError(ctx, record, status);
    record.delivery_report.error_code = code;
    record.delivery_report.error_message = message;
  }
  emitStatus(ctx, accountId, record);
}

function completeCampaignIfDone(ctx: ReferenceContext, state: MessagingState, campaignId: string): void {
  const campaign: CampaignRecord | undefined = state.campaigns.get(campaignId);
  if (!campaign || campaign.status === 'completed') return;
  const done = campaign.messageIds.every((id) => {
    const status = state.messages.get(id)?.status;
    return status !== undefined && FINAL_STATES.includes(status);
  });
  if (done) {
    campaign.status = 'completed';
    campaign.completed_at = isoTimestamp(ctx.clock.now());
  }
}

/** The specification's messaging payload data. */
function eventData(record: MessageRecord): Record<string, unknown> {
  return {
    message_id: record.message_id,
    to: record.to,
    from: record.from,
    status: record.status,
    delivered_at: record.delivered_at,
    network: record.delivery_report.network,
    country: record.delivery_report.country,
  };
}

/** An account id no one subscribes under: `emit` then reaches only the explicit targets. */
const CALLBACKS_ONLY = '';

/**
 * Emits `sms.<status>` to the account's subscriptions and to the message's callback_url (which
 * receives every status event of its message, unsigned: it has no secret).
 */
function emitStatus(ctx: ReferenceContext, accountId: string, record: MessageRecord): void {
  if (record.status === 'pending') return; // no `sms.pending` event exists
  // Nobody to tell (no callback_url, no webhook on the account, whatever the faults): building
  // the payload would be wasted work on every send and every final state.
  if (!record.callback_url && !ctx.events.hasSubscriptions(accountId)) return;
  const event = `sms.${record.status}`;
  const data = eventData(record);
  const callbacks = record.callback_url ? [{ url: record.callback_url, secret: null }] : [];
  const extra: Array<{ url: string; secret: string | null }> = [...callbacks];
  if (ctx.faults.has('webhook-unsubscribed-delivered')) {
    for (const s of ctx.events.subscriptionsOf(accountId))
      if (!s.events.includes(event)) extra.push({ url: s.url, secret: s.secret });
  }
  if (ctx.faults.has('webhook-data-incomplete')) {
    const { network: _network, country: _country, ...rest } = data;
    ctx.events.emit(accountId, event, rest);
    if (callbacks.length > 0) ctx.events.emit(CALLBACKS_ONLY, event, data, callbacks);
    return;
  }
  if (ctx.faults.has('webhook-callback-data-incomplete') && callbacks.length > 0) {
    const { network: _network, country: _country, ...rest } = data;
    ctx.events.emit(accountId, event, data, extra.slice(callbacks.length));
    ctx.events.emit(CALLBACKS_ONLY, event, rest, callbacks);
    return;
  }
  ctx.events.emit(accountId, event, data, extra);
}

export function sumCosts(records: readonly MessageRecord[]): number {
  return roundMoney(records.reduce((sum, r) => sum + r.cost, 0));
}
