/**
 * The sending and reading side of messaging: POST /sms/send, /sms/bulk, /sms/send-template,
 * GET /sms/status/{message_id}, /sms/messages, /sms/campaigns and /sms/campaigns/{campaign_id}.
 */
import type { FastifyInstance } from 'fastify';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError, fieldError, notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { paginate, readPageQuery } from '../../core/pagination.ts';
import { Fields, isPlainObject } from '../../core/validation.ts';
import { CURRENCY, isE164, priceOf, roundMoney } from './catalog.ts';
import { inRange, readDateRange } from './dates.ts';
import {
  type SendPlan,
  checkOptOuts,
  checkSender,
  createMessages,
  isTestMode,
  sumCosts,
  takeVolumeAndCharge,
} from './delivery.ts';
import {
  MAX_MESSAGE_LENGTH,
  checkMessageLength,
  phoneError,
  readFrom,
  readHttpUrl,
  readMessageText,
  readPhone,
} from './input.ts';
import { MESSAGE_STATES, newestFirst, stateOf } from './store.ts';
import { renderTemplate } from './templates.ts';
import { bulkView, campaignDetailsView, campaignSummaryView, listEntryView, sendView, statusView } from './views.ts';

/**
 * A `+` written unencoded in a query string arrives as a space (form encoding); `?to=+1500...` is
 * such a common way to write a phone filter that it is read as meant.
 */
function plusRestored(value: string | undefined): string | undefined {
  return value !== undefined && SPACE_THEN_DIGITS.test(value) ? `+${value.slice(1)}` : value;
}

const SPACE_THEN_DIGITS = /^ \d+$/;

/** Fault `msg-bulk-status-unknown`: the messages of bulks that named no campaign, which GET /sms/status then misses. */
const UNNAMED_BULK_MESSAGES = new WeakSet<object>();

/** Recipients per bulk request: the specification gives no cap; one keeps a request bounded. */
export const MAX_BULK_RECIPIENTS = 1000;

export function registerSmsRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  // Fault msg-template-variables-stale: the text of each template's first send, by template.
  const firstRender = new Map<string, string>();
  // Fault msg-template-unknown-cached-not-found: the unknown template ids asked before, by account.
  const unknownAsked = new Set<string>();

  app.post('/sms/send', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const to = readPhone(fields, 'to');
    if (ctx.faults.has('msg-random-number-refused') && to === ctx.options.testNumbers.random)
      throw phoneError('to', to);
    const wrongCode = ctx.faults.has('msg-too-long-wrong-code');
    const max = ctx.faults.has('msg-exact-limit-refused')
      ? MAX_MESSAGE_LENGTH - 1
      : wrongCode
        ? Infinity
        : MAX_MESSAGE_LENGTH;
    // Fault msg-send-message-optional: a missing `message` is read as an empty text.
    const text =
      ctx.faults.has('msg-send-message-optional') && fields.raw('message') === undefined
        ? ''
        : readMessageText(fields, 'message', max);
    if (wrongCode && [...text].length > MAX_MESSAGE_LENGTH) fields.fail('message', 'message is too long.');
    // Fault msg-length-in-bytes: the limit measured in UTF-8 bytes, as a byte-oriented store would.
    if (ctx.faults.has('msg-length-in-bytes') && Buffer.byteLength(text) > MAX_MESSAGE_LENGTH) {
      const length = Buffer.byteLength(text);
      throw fieldError(
        'messaging',
        'message',
        `message is ${length} characters long; the limit is ${MAX_MESSAGE_LENGTH}.`,
        'message_too_long',
        { length, max: MAX_MESSAGE_LENGTH },
      );
    }
    const from = readFrom(fields);
    const callbackUrl = readHttpUrl(fields, 'callback_url');
    const state = stateOf(ctx, account.id);
    const recipients = [to];
    if (
      from !== undefined &&
      ctx.faults.has('msg-approved-sender-refused') &&
      state.senderIds.get(from)?.status === 'approved'
    ) {
      throw fieldError('messaging', 'from', `Sender ID ${from} is not approved.`, 'sender_id_not_approved', {
        value: from,
      });
    }
    checkSender(ctx, state, from, recipients);
    checkOptOuts(ctx, state, recipients, 'to');
    const plan: SendPlan = { recipients, text, from, callbackUrl, testMode: isTestMode(request) };
    const id = newId('msg');
    const charged = takeVolumeAndCharge(ctx, request, reply, plan, {
      amount: priceOf(text),
      description: `SMS to ${to}`,
      resourceId: id,
    });
    const [message] = createMessages(ctx, account.id, plan, [id], charged);
    const view = sendView(message!);
    if (plan.testMode && ctx.faults.has('msg-test-mode-status-queued')) view.status = 'queued';
    if (ctx.faults.has('msg-send-cost-missing')) delete view.cost;
    if (ctx.faults.has('msg-send-text-trimmed')) view.message = String(view.message).trim();
    if (ctx.faults.has('msg-send-204')) return reply.status(204).send();
    return reply.status(201).send(view);
  });

  app.post('/sms/bulk', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const recipients = fields.stringArray('recipients', { required: true, minItems: 1, maxItems: MAX_BULK_RECIPIENTS });
    recipients.forEach((phone, index) => {
      if (isE164(phone)) return;
      if (ctx.faults.has('msg-bulk-phone-wrong-code')) fields.fail(`recipients[${index}]`, 'Not a phone number.');
      throw phoneError(`recipients[${index}]`, phone);
    });
    const text = readMessageText(fields);
    const from = readFrom(fields);
    const campaignName = fields.string('campaign_name', { min: 1, max: 200 });
    const callbackUrl = readHttpUrl(fields, 'callback_url');
    const state = stateOf(ctx, account.id);
    checkSender(ctx, state, from, recipients);
    checkOptOuts(ctx, state, recipients, 'recipients');

    const campaignId = newId('cmp');
    const plan: SendPlan = { recipients, text, from, callbackUrl, testMode: isTestMode(request), campaignId };
    const total = roundMoney(recipients.length * priceOf(text));
    const charged = takeVolumeAndCharge(ctx, request, reply, plan, {
      amount: total,
      description: `Bulk SMS to ${recipients.length} recipients`,
      resourceId: campaignId,
    });
    const now = ctx.clock.now();
    const campaign = {
      campaign_id: campaignId,
      campaign_name:
        (ctx.faults.has('msg-bulk-campaign-name-ignored') ? undefined : campaignName) ??
        `campaign-${isoTimestamp(now).slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}`,
      total_cost: 0,
      currency: CURRENCY,
      status: 'processing' as const,
      created_at: isoTimestamp(now),
      completed_at: null,
      messageIds: [] as string[],
    };
    state.campaigns.set(campaignId, campaign);
    const messages = createMessages(
      ctx,
      account.id,
      plan,
      recipients.map(() => newId('msg')),
      charged,
    );
    campaign.messageIds = messages.map((m) => m.message_id);
    if (ctx.faults.has('msg-bulk-status-unknown') && campaignName === undefined)
      for (const m of messages) UNNAMED_BULK_MESSAGES.add(m);
    campaign.total_cost = sumCosts(messages);
    const view = bulkView(state, campaign);
    if (ctx.faults.has('msg-campaign-total-by-name')) view.total_messages = totalByName(state, campaign.campaign_name);
    if (ctx.faults.has('msg-bulk-not-processing')) view.status = 'completed';
    if (ctx.faults.has('msg-bulk-messages-pending'))
      for (const entry of view.messages as Array<{ status: string }>) entry.status = 'pending';
    return reply.status(201).send(view);
  });

  app.post('/sms/send-template', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const to = readPhone(fields, 'to');
    const templateId = fields.string('template_id', { required: true, max: 128 });
    const variables = fields.object('variables', { required: true })!;
    const from = readFrom(fields);
    const state = stateOf(ctx, account.id);
    // Fault msg-template-foreign-usable: the template is looked up in every account, not the caller's.
    const template = ctx.faults.has('msg-template-foreign-usable')
      ? ctx.accounts
          .allAccounts()
          .map((a) => stateOf(ctx, a.id).templates.get(templateId))
          .find((t) => t !== undefined)
      : (state.templates.get(templateId) ??
        (ctx.faults.has('msg-template-id-case-insensitive')
          ? [...state.templates.values()].find((t) => t.id.toLowerCase() === templateId.toLowerCase())
          : undefined));
    if (!template && ctx.faults.has('msg-template-unknown-not-found')) throw notFound('template');
    if (!template && ctx.faults.has('msg-template-unknown-cached-not-found')) {
      const asked = `${account.id}\n${templateId}`;
      if (unknownAsked.has(asked)) throw notFound('template');
      unknownAsked.add(asked);
    }
    const { template: found, text } = withoutDetailsUnder(ctx, () => {
      if (!template) {
        throw fieldError('messaging', 'template_id', `No template ${templateId} in this account.`, 'invalid_template', {
          value: templateId,
        });
      }
      let substituted = ctx.faults.has('msg-template-not-substituted')
        ? template.content
        : renderTemplate(template, variables);
      // Fault msg-template-variables-stale: each template keeps the text of its first send.
      if (ctx.faults.has('msg-template-variables-stale')) {
        substituted = firstRender.get(template.id) ?? substituted;
        firstRender.set(template.id, substituted);
      }
      return { template, text: substituted };
    });
    checkMessageLength(text, 'variables');
    checkSender(ctx, state, from, [to]);
    checkOptOuts(ctx, state, [to], 'to');
    const plan: SendPlan = {
      recipients: [to],
      text,
      from,
      callbackUrl: undefined,
      testMode: isTestMode(request),
      templateId: found.id,
    };
    const id = newId('msg');
    const charged = takeVolumeAndCharge(ctx, request, reply, plan, {
      amount: priceOf(text),
      description: `SMS to ${to} (template ${found.name})`,
      resourceId: id,
    });
    const [message] = createMessages(ctx, account.id, plan, [id], charged);
    const view = sendView(message!);
    return reply.status(201).send(ctx.faults.has('msg-send-template-in-data') ? { data: view } : view);
  });

  app.get<{ Params: { message_id: string } }>('/sms/status/:message_id', async (request) => {
    const { account } = authOf(request);
    const message = stateOf(ctx, account.id).messages.get(request.params.message_id);
    if (!message || UNNAMED_BULK_MESSAGES.has(message)) throw notFound('message');
    const view = statusView(message);
    if (ctx.faults.has('msg-status-text-missing')) delete view.message;
    const report = view.delivery_report as { error_code: string | null; error_message: string | null };
    if (ctx.faults.has('msg-report-error-empty') && report.error_code === null) {
      report.error_code = '';
      report.error_message = '';
    }
    return view;
  });

  app.get('/sms/messages', async (request) => {
    const { account } = authOf(request);
    const query = isPlainObject(request.query) ? request.query : {};
    const fields = new Fields('messaging', query);
    const range = readDateRange(fields);
    const status = fields.string('status', { oneOf: MESSAGE_STATES });
    const to = plusRestored(fields.string('to'));
    const from = plusRestored(fields.string('from'));
    const { page, perPage: asked } = readPageQuery('messaging', query, ctx.variants, ctx.faults);
    const perPage =
      ctx.faults.has('msg-page-size-default-20') && (query.per_page === undefined || query.per_page === '')
        ? 20
        : asked;
    // Fault msg-list-status-filter-first-page-only: pages after the first are cut from the list without the status filter.
    const ignoreStatus =
      ctx.faults.has('msg-status-filter-ignored') ||
      (ctx.faults.has('msg-list-status-filter-first-page-only') && page > 1);
    const matching = newestFirst(stateOf(ctx, account.id).messages.values()).filter(
      (m) =>
        (ctx.faults.has('msg-list-range-ignored') || inRange(range, m.createdMs)) &&
        (status === undefined || ignoreStatus || m.status === status) &&
        (to === undefined || ctx.faults.has('msg-list-to-filter-ignored') || m.to === to) &&
        (from === undefined || m.from === from),
    );
    // Fault msg-list-leaves-out-template-sends: with a `to` filter, template sends are not listed.
    if (to !== undefined && ctx.faults.has('msg-list-leaves-out-template-sends'))
      matching.splice(0, matching.length, ...matching.filter((m) => m.template_id === null));
    const { items, meta } = paginate(matching, page, perPage, ctx.variants, ctx.faults);
    // Fault msg-list-total-to-skips-bulk: with a `to` filter, meta counts only the messages of single sends (bulk ones are still listed).
    if (ctx.faults.has('msg-list-total-to-skips-bulk') && to !== undefined && typeof meta.total === 'number') {
      const total = matching.filter((m) => m.campaign_id === null).length;
      Object.assign(meta, { total, pages: Math.ceil(total / perPage) });
    }
    const messages = items.map(listEntryView);
    // Fault msg-list-template-text-raw: a template send listed with the template's content.
    if (ctx.faults.has('msg-list-template-text-raw'))
      for (const [i, m] of items.entries()) {
        const template = m.template_id === null ? undefined : stateOf(ctx, account.id).templates.get(m.template_id);
        if (template) messages[i]!.message = template.content;
      }
    for (const entry of messages) {
      if (ctx.faults.has('msg-list-status-uppercase')) entry.status = String(entry.status).toUpperCase();
      if (ctx.faults.has('msg-list-to-without-plus')) entry.to = String(entry.to).replace(/^\+/, '');
      if (ctx.faults.has('msg-list-timestamps-null')) {
        entry.sent_at = null;
        entry.delivered_at = null;
      }
    }
    return ctx.faults.has('msg-list-meta-missing') ? { messages } : { messages, meta };
  });

  app.get('/sms/campaigns', async (request) => {
    const { account } = authOf(request);
    const state = stateOf(ctx, account.id);
    let campaigns = newestFirst(state.campaigns.values());
    if (ctx.faults.has('msg-campaign-not-listed')) campaigns = campaigns.slice(1);
    const entries = campaigns.map((c) => campaignSummaryView(state, c));
    // Fault msg-campaign-list-names-reversed: names zipped in the other order.
    if (ctx.faults.has('msg-campaign-list-names-reversed'))
      for (const [i, entry] of entries.entries())
        entry.campaign_name = campaigns[campaigns.length - 1 - i]!.campaign_name;
    if (ctx.faults.has('msg-campaign-total-by-name'))
      for (const [i, c] of campaigns.entries()) entries[i]!.total_messages = totalByName(state, c.campaign_name);
    if (ctx.faults.has('msg-campaign-list-cost-text'))
      for (const entry of entries) entry.total_cost = String(entry.total_cost);
    if (ctx.faults.has('msg-campaign-completed-at-null')) for (const entry of entries) entry.completed_at = null;
    return { campaigns: entries };
  });

  app.get<{ Params: { campaign_id: string } }>('/sms/campaigns/:campaign_id', async (request) => {
    const { account } = authOf(request);
    const state = stateOf(ctx, account.id);
    const asked = state.campaigns.get(request.params.campaign_id);
    if (!asked) throw notFound('campaign');
    // Fault msg-campaign-details-newest: once the account has several campaigns, the details are always the newest one's.
    const campaign = ctx.faults.has('msg-campaign-details-newest') ? newestFirst(state.campaigns.values())[0]! : asked;
    const details = campaignDetailsView(state, campaign);
    if (ctx.faults.has('msg-campaign-details-id-renamed')) {
      const { campaign_id: id, ...rest } = details;
      return { campaign: { id, ...rest } };
    }
    if (ctx.faults.has('msg-campaign-status-capitalised'))
      details.status = String(details.status).replace(/^./, (c) => c.toUpperCase());
    return { campaign: details };
  });
}

/** Fault msg-campaign-total-by-name: the messages of every campaign of the account with that name. */
function totalByName(state: ReturnType<typeof stateOf>, name: string): number {
  return [...state.campaigns.values()]
    .filter((c) => c.campaign_name === name)
    .reduce((n, c) => n + c.messageIds.length, 0);
}

/** Fault `msg-invalid-template-details-missing`: an `invalid_template` refusal without its details. */
function withoutDetailsUnder<T>(ctx: ReferenceContext, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (
      error instanceof ApiError &&
      error.code === 'invalid_template' &&
      ctx.faults.has('msg-invalid-template-details-missing')
    )
      throw new ApiError('invalid_template', error.message);
    throw error;
  }
}
