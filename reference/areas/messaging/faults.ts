/**
 * Deliberate non-conformances of the messaging area (`cloudcheck serve --fault NAME`). Each one
 * bends exactly one requirement of spec/requirements.yaml (a MUST, or the SHOULD of a convention);
 * the code it bends checks
 * `ctx.faults.has(...)` in place, so reading the area shows what the fault changes.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const MESSAGING_FAULTS = [
  // Refused with the wrong code rather than accepted: an accepted over-long message would also
  // show up in GET /sms/messages and break that list's schema (a second MUST).
  {
    name: 'msg-too-long-wrong-code',
    requirement: 'MSG-SEND-004',
    description:
      'POST /sms/send refuses messages over 1600 characters with validation_error instead of message_too_long.',
  },
  {
    name: 'msg-exact-limit-refused',
    requirement: 'MSG-SEND-003',
    description: 'POST /sms/send refuses a message of exactly 1600 characters (off by one).',
  },
  // Only `cloudcheck run --examples` sees it: the fixed checks send ASCII texts (the 1600-character
  // one included), whose bytes are their characters. It names the requirement of the check that
  // sends valid texts (the generated positive check of POST /sms/send: a valid send is accepted).
  {
    name: 'msg-length-in-bytes',
    requirement: 'MSG-FLD-001',
    description:
      'POST /sms/send counts the message limit in UTF-8 bytes, not characters: a text of at most 1600 characters beyond ASCII (é, ж, 中) is refused as message_too_long.',
  },
  {
    name: 'msg-bulk-phone-wrong-code',
    requirement: 'ERR-CODE-001',
    description: 'POST /sms/bulk refuses an invalid recipient with validation_error instead of invalid_phone_number.',
  },
  {
    name: 'msg-template-not-substituted',
    requirement: 'MSG-TPL-005',
    description: 'Template sends deliver the raw template content, placeholders included.',
  },
  {
    name: 'msg-fail-number-delivered',
    requirement: 'TEST-NUM-002',
    description: 'Messages to the fail test number end `delivered`.',
  },
  {
    name: 'msg-random-always-delivered',
    requirement: 'TEST-NUM-003',
    description: 'Messages to the random test number always end `delivered`.',
  },
  // A default page size of 20 keeps every body well-formed; a missing `meta` member would also
  // break the list's response schema (a second MUST).
  {
    name: 'msg-page-size-default-20',
    requirement: 'PAGE-SIZE-001',
    description: 'GET /sms/messages without per_page uses pages of 20 instead of 25.',
  },
  {
    name: 'msg-status-filter-ignored',
    requirement: 'MSG-LIST-002',
    description: 'GET /sms/messages ignores the `status` filter.',
  },
  {
    name: 'msg-bulk-not-processing',
    requirement: 'MSG-BULK-005',
    description: 'POST /sms/bulk answers the campaign as `completed` instead of `processing`.',
  },
  {
    name: 'msg-campaign-not-listed',
    requirement: 'MSG-CMP-001',
    description: 'GET /sms/campaigns leaves out the newest campaign.',
  },
  {
    name: 'msg-sender-type-unchecked',
    requirement: 'MSG-SID-004',
    description: 'POST /messaging/sender-ids accepts any `type`.',
  },
  {
    name: 'msg-analytics-group-by-unchecked',
    requirement: 'MSG-ANA-004',
    description: 'GET /messaging/analytics/delivery accepts any `group_by` (unknown values group by day).',
  },
  {
    name: 'webhook-data-incomplete',
    requirement: 'HOOK-PAY-001',
    description: 'Subscribed webhook deliveries of sms.* events lack `data.network` and `data.country`.',
  },
  {
    name: 'webhook-unsubscribed-delivered',
    requirement: 'HOOK-DLV-001',
    description: 'Webhooks receive sms.* events they did not subscribe to.',
  },
  {
    name: 'msg-random-number-refused',
    requirement: 'TEST-NUM-004',
    description: 'POST /sms/send refuses the random test number as invalid_phone_number.',
  },
  {
    name: 'msg-test-mode-status-queued',
    requirement: 'TEST-MODE-001',
    description: 'A test-mode send answers status `queued` instead of `sent`.',
  },
  {
    name: 'msg-succeed-number-failed',
    requirement: 'TEST-NUM-001',
    description: 'Messages to the succeed test number end `failed`.',
  },
  {
    name: 'webhook-secret-refused',
    requirement: 'HOOK-CFG-002',
    description: 'POST /messaging/webhooks refuses a `secret`.',
  },
  {
    name: 'webhook-callback-data-incomplete',
    requirement: 'HOOK-CB-001',
    description: 'Deliveries to a per-message callback_url lack `data.network` and `data.country`.',
  },
  {
    name: 'msg-send-cost-missing',
    requirement: 'MSG-SEND-005',
    description: 'An accepted POST /sms/send reports no `cost`.',
  },
  {
    name: 'msg-send-text-trimmed',
    requirement: 'MSG-SEND-006',
    description: 'POST /sms/send echoes the message text without its surrounding spaces.',
  },
  {
    name: 'msg-status-text-missing',
    requirement: 'MSG-SEND-008',
    description: 'GET /sms/status/{message_id} answers without the `message` text.',
  },
  { name: 'msg-send-204', requirement: 'ERR-STAT-002', description: 'POST /sms/send answers 204 with no body.' },
  {
    name: 'msg-list-meta-missing',
    requirement: 'MSG-LIST-001',
    description: 'GET /sms/messages answers without the `meta` object.',
  },
  {
    name: 'msg-list-range-ignored',
    requirement: 'MSG-LIST-004',
    description: 'GET /sms/messages ignores from_date and to_date.',
  },
  {
    name: 'msg-list-status-uppercase',
    requirement: 'MSG-FLD-005',
    description: 'GET /sms/messages spells statuses in capitals (`SENT`).',
  },
  {
    name: 'msg-list-to-without-plus',
    requirement: 'MSG-FLD-006',
    description: 'GET /sms/messages lists `to` without the leading + of the international format.',
  },
  {
    name: 'msg-template-unknown-not-found',
    requirement: 'ERR-CODE-006',
    description:
      'POST /sms/send-template refuses a template_id that names no template with 404 not_found instead of invalid_template.',
  },
  // Accepted rather than refused with another code: the contract's negative check is the one that sees it.
  {
    name: 'msg-send-message-optional',
    requirement: 'MSG-SEND-001',
    description: 'POST /sms/send without `message` is accepted and sends an empty message.',
  },
  {
    name: 'msg-list-to-filter-ignored',
    requirement: 'MSG-LIST-003',
    description: 'GET /sms/messages ignores the `to` filter.',
  },
  {
    name: 'msg-campaign-list-cost-text',
    requirement: 'MSG-CMP-002',
    description: 'GET /sms/campaigns lists `total_cost` as a string.',
  },
  {
    name: 'msg-campaign-details-id-renamed',
    requirement: 'MSG-CMP-005',
    description: 'GET /sms/campaigns/{campaign_id} answers the campaign under `id` instead of `campaign_id`.',
  },
  {
    name: 'msg-approved-sender-refused',
    requirement: 'MSG-SID-005',
    description: 'POST /sms/send refuses an approved sender ID as `from` (sender_id_not_approved).',
  },
  {
    name: 'msg-template-placeholders-refused',
    requirement: 'MSG-TPL-002',
    description: 'POST /messaging/templates refuses content holding {{placeholders}} as a validation error.',
  },
  {
    name: 'msg-template-not-listed',
    requirement: 'MSG-TPL-003',
    description: 'GET /messaging/templates leaves out the newest template.',
  },
  {
    name: 'msg-template-foreign-usable',
    requirement: 'MSG-TPL-006',
    description:
      "POST /sms/send-template sends with another account's template (templates are looked up in every account).",
  },
  {
    name: 'msg-contact-list-not-listed',
    requirement: 'MSG-CON-002',
    description: 'GET /messaging/contacts/lists leaves out the newest contact list.',
  },
  {
    name: 'msg-opt-out-not-listed',
    requirement: 'MSG-OPT-002',
    description: 'GET /messaging/opt-outs leaves out the newest opted-out number.',
  },
  // The summary is part of the analytics response schema too, so the contract check of MSG-ANA-001
  // sees it as well: no fault can drop a summary field and keep that schema.
  {
    name: 'msg-analytics-summary-rate-missing',
    requirement: 'MSG-ANA-002',
    description: 'GET /messaging/analytics/delivery answers a `summary` without `average_delivery_rate`.',
  },
  {
    name: 'msg-bulk-campaign-name-ignored',
    requirement: 'MSG-BULK-002',
    description: 'POST /sms/bulk ignores `campaign_name` and names the campaign itself.',
  },
  // `pending` is a message state the schema allows, so the bulk response keeps its shape (MSG-BULK-003).
  {
    name: 'msg-bulk-messages-pending',
    requirement: 'MSG-BULK-004',
    description: 'POST /sms/bulk lists each message in status `pending` instead of `sent`.',
  },
  // Only bulks without a campaign_name: the flows name their campaigns and look their messages up
  // (MSG-BULK-007, MSG-CMP-002), so that only MSG-BULK-006 fails.
  {
    name: 'msg-bulk-status-unknown',
    requirement: 'MSG-BULK-006',
    description: 'GET /sms/status/{message_id} answers 404 for the messages of a bulk send that named no campaign.',
  },
  // Empty strings keep the report's schema (nullable strings, MSG-FLD-002) but are not null.
  {
    name: 'msg-report-error-empty',
    requirement: 'MSG-FLD-003',
    description:
      'delivery_report carries `error_code` and `error_message` as empty strings instead of null when there is no error.',
  },
  {
    name: 'msg-list-timestamps-null',
    requirement: 'MSG-FLD-004',
    description: 'GET /sms/messages lists `sent_at` and `delivered_at` as null, also for delivered messages.',
  },
  {
    name: 'msg-campaign-completed-at-null',
    requirement: 'MSG-CMP-003',
    description: 'GET /sms/campaigns lists completed campaigns with `completed_at` null.',
  },
  // Only the details: the list and the bulk response keep `processing`/`completed`, which other
  // checks (MSG-BULK-005, MSG-CMP-002) wait for.
  {
    name: 'msg-campaign-status-capitalised',
    requirement: 'MSG-CMP-004',
    description: 'GET /sms/campaigns/{campaign_id} spells the campaign status with a capital (`Completed`).',
  },
  // Only with an explicit group_by: the plain request keeps rates within the schema's bounds,
  // which the generated check of the analytics response (MSG-ANA-001) validates.
  {
    name: 'msg-analytics-rate-basis-points',
    requirement: 'MSG-ANA-003',
    description:
      'GET /messaging/analytics/delivery with a group_by gives delivery rates in basis points (0 to 10000) instead of percent.',
  },
  {
    name: 'msg-sender-approved-at-null',
    requirement: 'MSG-SID-002',
    description: 'GET /messaging/sender-ids lists approved sender IDs with `approved_at` null.',
  },
  {
    name: 'msg-sender-country-wrong-code',
    requirement: 'ERR-CODE-002',
    description:
      'A send from a sender ID not approved for the destination country is refused with validation_error instead of sender_id_not_approved.',
  },
  // Sequence-only faults: each shows only after a particular order of operations (cloudcheck explore finds them).
  {
    name: 'msg-list-total-to-skips-bulk',
    requirement: 'PAGE-NUM-002',
    description:
      'GET /sms/messages with a `to` filter counts in meta.total (and pages) only the messages of single sends; those of bulk sends are listed but not counted.',
  },
  {
    name: 'msg-list-status-filter-first-page-only',
    requirement: 'MSG-LIST-002',
    description:
      'GET /sms/messages applies the `status` filter to the first page only; later pages are cut from the list without it.',
  },
  {
    name: 'msg-sender-details-missing',
    requirement: 'ERR-MAP-007',
    description: '`sender_id_not_approved` carries no `details` naming the `from` value.',
  },
  {
    name: 'msg-invalid-template-details-missing',
    requirement: 'ERR-MAP-008',
    description: '`invalid_template` carries no `details` naming the field.',
  },
  {
    name: 'msg-send-template-in-data',
    requirement: 'MSG-TPL-008',
    description: 'POST /sms/send-template answers the message under `data` instead of flat like POST /sms/send.',
  },
  {
    name: 'msg-test-mode-debited',
    requirement: 'TEST-MODE-003',
    description: 'Test-mode sends are debited from the wallet like live ones.',
  },
  {
    name: 'ids-unprefixed-messaging',
    requirement: 'MSG-ID-001',
    description: 'Messages, campaigns, templates, contact lists and webhooks get ids without their type prefix.',
  },
  {
    name: 'msg-campaign-details-newest',
    requirement: 'MSG-CMP-005',
    description:
      'GET /sms/campaigns/{campaign_id} answers the details of the newest campaign of the account, whichever is asked for (right only while there is one).',
  },
  {
    name: 'msg-campaign-total-by-name',
    requirement: 'MSG-BULK-007',
    description:
      "A campaign's total_messages (in the bulk answer and the list) counts the messages of every campaign of the account with its name.",
  },
  {
    name: 'msg-campaign-list-names-reversed',
    requirement: 'MSG-CMP-001',
    description:
      'GET /sms/campaigns gives the names in the opposite order to the campaigns: the newest listed with the oldest name (right while the account has one campaign).',
  },
  {
    name: 'msg-template-variables-stale',
    requirement: 'MSG-TPL-005',
    description:
      'A template sent again is filled with the variables of its first send (a rendered-text cache keyed by template).',
  },
  {
    name: 'msg-template-id-case-insensitive',
    requirement: 'MSG-TPL-006',
    description: 'POST /sms/send-template takes a template_id that matches a template of the account but for its case.',
  },
  {
    name: 'msg-template-unknown-cached-not-found',
    requirement: 'ERR-CODE-006',
    description:
      'A template_id that names no template is refused with invalid_template the first time, and with not_found when asked again (a cached negative lookup).',
  },
  {
    name: 'msg-template-list-drops-used',
    requirement: 'MSG-TPL-003',
    description: 'GET /messaging/templates leaves out the templates a message was sent from.',
  },
  {
    name: 'msg-list-leaves-out-template-sends',
    requirement: 'MSG-LIST-001',
    description: 'GET /sms/messages with a `to` filter leaves out the messages sent from a template.',
  },
  {
    name: 'msg-list-template-text-raw',
    requirement: 'MSG-FLD-006',
    description:
      "GET /sms/messages shows a message sent from a template with the template's content, placeholders and all, instead of the text sent (GET /sms/status shows the text sent).",
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof MESSAGING_FAULTS)[number]['name'], true> {}
}

export type MessagingFault = (typeof MESSAGING_FAULTS)[number]['name'];
