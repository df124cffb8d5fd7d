/**
 * The configuration side of messaging: sender ids, templates, contact lists, opt-outs and
 * webhooks. Their bodies are not shown by the specification, so wrappers, statuses and record
 * fields follow docs/conventions.md.
 */
import type { FastifyInstance } from 'fastify';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { Fields, isPlainObject } from '../../core/validation.ts';
import { isE164 } from './catalog.ts';
import { MAX_MESSAGE_LENGTH, phoneError, readHttpUrl } from './input.ts';
import { type SenderIdRecord, newestFirst, stateOf } from './store.ts';
import { placeholdersOf } from './templates.ts';
import { contactListView, optOutView, senderIdView, templateView, webhookView } from './views.ts';

/** Alphanumeric sender ids: 1 to 11 letters or digits, at least one letter (the carriers' rule). */
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9]{1,11}$/;
/** Numeric sender ids: a phone number, with or without the leading `+` (short codes too). */
const NUMERIC_SENDER = /^\+?[1-9]\d{2,14}$/;
const COUNTRY = /^[A-Z]{2}$/;

/** Event names a webhook may subscribe to: the specification's sms.* and, per conventions, compute's. */
export const WEBHOOK_EVENTS = [
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.expired',
  'sms.rejected',
  'vps.created',
  'vps.started',
  'vps.stopped',
  'vps.deleted',
  'vps.resized',
  'snapshot.created',
  'snapshot.deleted',
] as const;

const MAX_CONTACTS_PER_REQUEST = 10_000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function registerConfigRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  // ---- sender ids -----------------------------------------------------------------------------
  app.get('/messaging/sender-ids', async (request) => {
    const { account } = authOf(request);
    const records = newestFirst(stateOf(ctx, account.id).senderIds.values()).map(senderIdView);
    if (ctx.faults.has('msg-sender-approved-at-null')) for (const record of records) record.approved_at = null;
    return { sender_ids: records };
  });

  app.post('/messaging/sender-ids', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const senderId = fields.string('sender_id', { required: true, max: 16 });
    const type = ctx.faults.has('msg-sender-type-unchecked')
      ? fields.string('type', { required: true, max: 64 })
      : fields.string('type', { required: true, oneOf: ['alphanumeric', 'numeric'] });
    const countries = fields.stringArray('countries', {
      required: true,
      minItems: 1,
      maxItems: 250,
      itemPattern: COUNTRY,
    });
    const useCase = fields.string('use_case', { required: true, max: 1000 });
    const businessName = fields.string('business_name', { required: true, max: 200 });
    const pattern = type === 'numeric' ? NUMERIC_SENDER : ALPHANUMERIC_SENDER;
    if (!pattern.test(senderId)) {
      fields.fail(
        'sender_id',
        type === 'numeric'
          ? 'A numeric sender_id is a phone number or short code.'
          : 'An alphanumeric sender_id has 1 to 11 letters or digits, at least one letter.',
        {
          value: senderId,
        },
      );
    }
    const state = stateOf(ctx, account.id);
    const now = isoTimestamp(ctx.clock.now());
    const existing = state.senderIds.get(senderId);
    let record: SenderIdRecord;
    if (existing) {
      // Registering again (a suite rerun, or new countries) keeps one record per sender id; new
      // countries send it back to review, known ones leave an approval in place.
      const added = [...new Set(countries)].filter((c) => !existing.countries.includes(c));
      existing.use_case = useCase;
      existing.business_name = businessName;
      if (added.length > 0) {
        existing.countries.push(...added);
        existing.status = 'pending';
        existing.approved_at = null;
        scheduleApproval(ctx, existing);
      }
      record = existing;
    } else {
      record = {
        sender_id: senderId,
        type: type === 'numeric' ? 'numeric' : 'alphanumeric',
        status: 'pending',
        countries: [...new Set(countries)],
        use_case: useCase,
        business_name: businessName,
        created_at: now,
        approved_at: null,
      };
      state.senderIds.set(senderId, record);
      scheduleApproval(ctx, record);
    }
    return reply.status(201).send({ sender_id: senderIdView(record) });
  });

  // ---- templates ------------------------------------------------------------------------------
  app.get('/messaging/templates', async (request) => {
    const { account } = authOf(request);
    const state = stateOf(ctx, account.id);
    let templates = newestFirst(state.templates.values());
    if (ctx.faults.has('msg-template-not-listed')) templates = templates.slice(1);
    // Fault msg-template-list-drops-used: a template a message was sent from is no longer listed.
    if (ctx.faults.has('msg-template-list-drops-used')) {
      const used = new Set([...state.messages.values()].map((m) => m.template_id));
      templates = templates.filter((t) => !used.has(t.id));
    }
    return { templates: templates.map(templateView) };
  });

  app.post('/messaging/templates', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const name = fields.string('name', { required: true, max: 200 });
    // A template longer than one message could never be sent.
    const content = fields.string('content', { required: true, max: MAX_MESSAGE_LENGTH });
    if (ctx.faults.has('msg-template-placeholders-refused') && placeholdersOf(content).length > 0)
      fields.fail('content', 'content may not hold placeholders.');
    const category = fields.string('category', { max: 100 }) ?? null;
    const template = {
      id: newId('tpl'),
      name,
      content,
      category,
      variables: placeholdersOf(content),
      created_at: isoTimestamp(ctx.clock.now()),
    };
    stateOf(ctx, account.id).templates.set(template.id, template);
    return reply.status(201).send({ template: templateView(template) });
  });

  // ---- contact lists --------------------------------------------------------------------------
  app.get('/messaging/contacts/lists', async (request) => {
    const { account } = authOf(request);
    const lists = newestFirst(stateOf(ctx, account.id).contactLists.values());
    return {
      contact_lists: (ctx.faults.has('msg-contact-list-not-listed') ? lists.slice(1) : lists).map(contactListView),
    };
  });

  app.post('/messaging/contacts/lists', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const name = fields.string('name', { required: true, max: 200 });
    const description = fields.string('description', { max: 1000 }) ?? null;
    const list = { id: newId('cl'), name, description, created_at: isoTimestamp(ctx.clock.now()), contacts: new Map() };
    stateOf(ctx, account.id).contactLists.set(list.id, list);
    return reply.status(201).send({ contact_list: contactListView(list) });
  });

  app.post<{ Params: { list_id: string } }>('/messaging/contacts/lists/:list_id/contacts', async (request) => {
    const { account } = authOf(request);
    const list = stateOf(ctx, account.id).contactLists.get(request.params.list_id);
    // The list is looked up first: a foreign or unknown list is 404 whatever the body says.
    if (!list) throw notFound('contact_list');
    // Annotated so TypeScript narrows after `fields.fail` (which never returns).
    const fields: Fields = new Fields('messaging', request.body);
    const raw = fields.raw('contacts');
    if (raw === undefined || raw === null) fields.fail('contacts', 'contacts is required.');
    if (!Array.isArray(raw)) fields.fail('contacts', 'contacts must be an array of objects.');
    if (raw.length === 0) fields.fail('contacts', 'contacts must have at least 1 item(s).');
    if (raw.length > MAX_CONTACTS_PER_REQUEST)
      fields.fail('contacts', `contacts must have at most ${MAX_CONTACTS_PER_REQUEST} items.`);
    // Validate every entry before adding any, so a refused request changes nothing.
    const entries = raw.map((item: unknown, index: number) => readContact(fields, item, `contacts[${index}]`));
    const now = isoTimestamp(ctx.clock.now());
    let added = 0;
    let duplicates = 0;
    for (const entry of entries) {
      if (list.contacts.has(entry.phone)) {
        duplicates++;
      } else {
        list.contacts.set(entry.phone, { ...entry, created_at: now });
        added++;
      }
    }
    // Not shown by the specification nor fixed by conventions.md: the counts, plus the updated
    // list in its `contact_list` wrapper so a client sees the list as GET would show it.
    return {
      list_id: list.id,
      added,
      duplicates,
      total_contacts: list.contacts.size,
      contact_list: contactListView(list),
    };
  });

  // ---- opt-outs -------------------------------------------------------------------------------
  app.get('/messaging/opt-outs', async (request) => {
    const { account } = authOf(request);
    const optOuts = newestFirst(stateOf(ctx, account.id).optOuts.values());
    return { opt_outs: (ctx.faults.has('msg-opt-out-not-listed') ? optOuts.slice(1) : optOuts).map(optOutView) };
  });

  app.post('/messaging/opt-outs', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const phone = fields.string('phone', { required: true });
    if (!isE164(phone)) throw phoneError('phone', phone);
    const optOuts = stateOf(ctx, account.id).optOuts;
    // Opting out twice is not an error: the number simply stays opted out since the first time.
    const entry = optOuts.get(phone) ?? { phone, created_at: isoTimestamp(ctx.clock.now()) };
    optOuts.set(phone, entry);
    return reply.status(201).send({ opt_out: optOutView(entry) });
  });

  // ---- webhooks -------------------------------------------------------------------------------
  app.post('/messaging/webhooks', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', request.body);
    const url = readHttpUrl(fields, 'url', { required: true })!;
    const events = fields.stringArray('events', { required: true, minItems: 1, maxItems: 100, oneOf: WEBHOOK_EVENTS });
    const secret = fields.string('secret', { min: 1, max: 256 });
    if (secret !== undefined && ctx.faults.has('webhook-secret-refused'))
      fields.fail('secret', 'secret is not a known field.');
    const subscription = ctx.events.subscribe(account.id, {
      url,
      events: [...new Set(events)],
      secret: secret ?? null,
    });
    return reply.status(201).send({ webhook: webhookView(subscription) });
  });
}

/** One entry of `contacts`; problems name the full path (`contacts[2].phone`) so the caller finds them. */
function readContact(
  fields: Fields,
  item: unknown,
  at: string,
): { phone: string; name: string | null; email: string | null } {
  if (!isPlainObject(item)) fields.fail(at, `${at} must be an object.`);
  const text = (name: string, max: number, required = false): string | null => {
    const value = item[name];
    if (value === undefined || value === null) {
      if (required) fields.fail(`${at}.${name}`, `${at}.${name} is required.`);
      return null;
    }
    if (typeof value !== 'string') fields.fail(`${at}.${name}`, `${at}.${name} must be a string.`);
    if (value.length > max) fields.fail(`${at}.${name}`, `${at}.${name} must be at most ${max} characters.`);
    return value;
  };
  const phone = text('phone', Infinity, true) ?? '';
  if (!isE164(phone)) throw phoneError(`${at}.phone`, phone);
  const email = text('email', 320);
  if (email !== null && !EMAIL.test(email))
    fields.fail(`${at}.email`, `${at}.email is not an email address.`, { value: email });
  return { phone, name: text('name', 200), email };
}

/** Registrations are reviewed by nobody in the reference server: they are approved after a delay. */
function scheduleApproval(ctx: ReferenceContext, record: SenderIdRecord): void {
  ctx.clock.schedule(ctx.options.delays.senderApprovalMs, () => {
    if (record.status !== 'pending') return;
    record.status = 'approved';
    record.approved_at = isoTimestamp(ctx.clock.now());
  });
}
