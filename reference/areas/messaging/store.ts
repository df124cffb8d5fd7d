/**
 * The messaging state of one account, kept in memory. Records hold everything the API shows plus
 * the few internal facts (test mode, callback URL, campaign) that drive later transitions; the
 * response shapes are built from them in views.ts.
 */
import type { ReferenceContext } from '../../core/context.ts';

export const MESSAGE_STATES = ['pending', 'sent', 'delivered', 'failed', 'expired', 'rejected'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];
/** States a message never leaves. */
export const FINAL_STATES: readonly MessageState[] = ['delivered', 'failed', 'expired', 'rejected'];

export interface DeliveryReport {
  network: string;
  country: string;
  error_code: string | null;
  error_message: string | null;
}

export interface MessageRecord {
  message_id: string;
  to: string;
  message: string;
  from: string;
  status: MessageState;
  cost: number;
  currency: string;
  created_at: string;
  sent_at: string | null;
  delivered_at: string | null;
  delivery_report: DeliveryReport;
  /** Set for template sends; echoed in the send response. */
  template_id: string | null;
  campaign_id: string | null;
  callback_url: string | null;
  testMode: boolean;
  /** Whether the cost was debited from the wallet (live sends only). */
  charged: boolean;
  createdMs: number;
}

export interface CampaignRecord {
  campaign_id: string;
  campaign_name: string;
  total_cost: number;
  currency: string;
  status: 'processing' | 'completed';
  created_at: string;
  completed_at: string | null;
  messageIds: string[];
}

export interface SenderIdRecord {
  sender_id: string;
  type: 'alphanumeric' | 'numeric';
  status: 'pending' | 'approved';
  countries: string[];
  use_case: string;
  business_name: string;
  created_at: string;
  approved_at: string | null;
}

export interface TemplateRecord {
  id: string;
  name: string;
  content: string;
  category: string | null;
  variables: string[];
  created_at: string;
}

export interface ContactRecord {
  phone: string;
  name: string | null;
  email: string | null;
  created_at: string;
}

export interface ContactListRecord {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  /** By phone number: a number appears once per list. */
  contacts: Map<string, ContactRecord>;
}

export interface OptOutRecord {
  phone: string;
  created_at: string;
}

export interface MessagingState {
  /** Insertion order is creation order; lists reverse it for newest first. */
  messages: Map<string, MessageRecord>;
  campaigns: Map<string, CampaignRecord>;
  senderIds: Map<string, SenderIdRecord>;
  templates: Map<string, TemplateRecord>;
  contactLists: Map<string, ContactListRecord>;
  optOuts: Map<string, OptOutRecord>;
}

export function stateOf(ctx: ReferenceContext, accountId: string): MessagingState {
  return ctx.accountState(accountId, 'messaging', newMessagingState);
}

/** Module-level rather than inline: `stateOf` runs several times per request. */
function newMessagingState(): MessagingState {
  return {
    messages: new Map(),
    campaigns: new Map(),
    senderIds: new Map(),
    templates: new Map(),
    contactLists: new Map(),
    optOuts: new Map(),
  };
}

/** Newest first (docs/conventions.md, Pagination). */
export function newestFirst<T>(items: Iterable<T>): T[] {
  return [...items].reverse();
}
