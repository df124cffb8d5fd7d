/**
 * Response shapes. The specification shows the send, bulk, status and list bodies (flat); every
 * other body follows docs/conventions.md (wrapped in the resource's singular or plural name).
 */
import type { WebhookSubscription } from '../../core/events.ts';
import type {
  CampaignRecord,
  ContactListRecord,
  MessageRecord,
  MessagingState,
  OptOutRecord,
  SenderIdRecord,
  TemplateRecord,
} from './store.ts';

/** POST /sms/send and /sms/send-template: the fields the specification lists for the send response. */
export function sendView(m: MessageRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    message_id: m.message_id,
    to: m.to,
    message: m.message,
    from: m.from,
    status: m.status,
    cost: m.cost,
    currency: m.currency,
    created_at: m.created_at,
  };
  if (m.template_id !== null) view.template_id = m.template_id;
  return view;
}

/** GET /sms/messages entries: the message plus `sent_at` and `delivered_at`. */
export function listEntryView(m: MessageRecord): Record<string, unknown> {
  return { ...sendView(m), sent_at: m.sent_at, delivered_at: m.delivered_at };
}

/** GET /sms/status/{message_id}: the list entry plus the delivery report (status response only). */
export function statusView(m: MessageRecord): Record<string, unknown> {
  return { ...listEntryView(m), delivery_report: { ...m.delivery_report } };
}

function campaignCounts(state: MessagingState, c: CampaignRecord): { delivered: number; failed: number } {
  let delivered = 0;
  let failed = 0;
  for (const id of c.messageIds) {
    const status = state.messages.get(id)?.status;
    if (status === 'delivered') delivered++;
    else if (status === 'failed' || status === 'expired' || status === 'rejected') failed++;
  }
  return { delivered, failed };
}

function campaignMessages(state: MessagingState, c: CampaignRecord): Array<Record<string, unknown>> {
  return c.messageIds.flatMap((id) => {
    const m = state.messages.get(id);
    return m ? [{ message_id: m.message_id, to: m.to, status: m.status }] : [];
  });
}

function campaignBase(c: CampaignRecord): Record<string, unknown> {
  return {
    campaign_id: c.campaign_id,
    campaign_name: c.campaign_name,
    total_messages: c.messageIds.length,
    total_cost: c.total_cost,
    currency: c.currency,
    status: c.status,
    created_at: c.created_at,
  };
}

/** POST /sms/bulk: flat campaign with its messages, as the specification shows it. */
export function bulkView(state: MessagingState, c: CampaignRecord): Record<string, unknown> {
  return { ...campaignBase(c), messages: campaignMessages(state, c) };
}

/** GET /sms/campaigns entries: counts and `completed_at` (null while processing). */
export function campaignSummaryView(state: MessagingState, c: CampaignRecord): Record<string, unknown> {
  const counts = campaignCounts(state, c);
  return {
    ...campaignBase(c),
    delivered_messages: counts.delivered,
    failed_messages: counts.failed,
    completed_at: c.completed_at,
  };
}

/** GET /sms/campaigns/{id}: the list entry plus the current state of each message. */
export function campaignDetailsView(state: MessagingState, c: CampaignRecord): Record<string, unknown> {
  return { ...campaignSummaryView(state, c), messages: campaignMessages(state, c) };
}

/** Sender ids: the specification's fields; `use_case` and `business_name` are input only. */
export function senderIdView(s: SenderIdRecord): Record<string, unknown> {
  return {
    sender_id: s.sender_id,
    type: s.type,
    status: s.status,
    countries: [...s.countries],
    created_at: s.created_at,
    approved_at: s.approved_at,
  };
}

export function templateView(t: TemplateRecord): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    content: t.content,
    category: t.category,
    variables: [...t.variables],
    created_at: t.created_at,
  };
}

export function contactListView(l: ContactListRecord): Record<string, unknown> {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    contact_count: l.contacts.size,
    created_at: l.created_at,
  };
}

export function optOutView(o: OptOutRecord): Record<string, unknown> {
  return { phone: o.phone, created_at: o.created_at };
}

/** The configuration without its secret: a signing secret must never be readable back. */
export function webhookView(w: WebhookSubscription): Record<string, unknown> {
  return { id: w.id, url: w.url, events: [...w.events], created_at: w.created_at };
}
