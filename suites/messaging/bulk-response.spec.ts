/**
 * What an accepted POST /sms/bulk answers (Endpoints / Messaging, Resources and their fields /
 * Campaign, States and transitions): the campaign name it was given, one entry per message with
 * its id, recipient and initial state, and message ids that GET /sms/status/{message_id} knows.
 * Each check sends its own test-mode bulk to the succeed and fail test numbers.
 */
import { defineCheck, expect, expectSuccess } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext, Ledger } from '../../src/harness/check.ts';
import { messageStatus, recordOf } from '../flows/_messaging.ts';

interface BulkEntry {
  message_id?: unknown;
  to?: unknown;
  status?: unknown;
}

interface BulkResult {
  campaign_id?: string;
  campaign_name?: unknown;
  messages?: BulkEntry[];
}

/** A test-mode bulk send whose campaign and messages the ledger cleans up. */
async function bulkSend(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
  name: string | undefined,
): Promise<BulkResult> {
  const recipients = [ctx.testNumbers.succeed, ctx.testNumbers.fail];
  const body = {
    recipients,
    message: `cloudcheck ${ctx.runPrefix}bulk response`,
    ...(name === undefined ? {} : { campaign_name: name }),
  };
  const res = await api.post('/sms/bulk', body);
  expectSuccess(res, 'a test-mode bulk send to the succeed and fail test numbers');
  // The specification shows this body flat; a wrapped one is read too (not this check's concern).
  const campaign = recordOf<BulkResult>(res.body, 'campaign');
  if (typeof campaign.campaign_id === 'string') ledger.track('campaign', campaign.campaign_id);
  for (const m of Array.isArray(campaign.messages) ? campaign.messages : [])
    if (typeof m?.message_id === 'string') ledger.track('message', m.message_id);
  return campaign;
}

function entriesOf(campaign: BulkResult): BulkEntry[] {
  expect(Array.isArray(campaign.messages), 'the bulk response carries an array `messages`').toBe(true);
  expect(campaign.messages!.length, 'one entry per recipient').toBeGreaterThan(0);
  return campaign.messages!;
}

defineCheck(
  {
    id: 'messaging.bulk.campaign-name',
    requirement: 'MSG-BULK-002',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/bulk',
    title: 'POST /sms/bulk echoes the campaign_name it was given',
  },
  async ({ api, ledger, ctx }) => {
    const name = ctx.name('named-campaign');
    const campaign = await bulkSend(api, ledger, ctx, name);
    expect(campaign.campaign_name, 'campaign_name of the response').toBe(name);
  },
);

defineCheck(
  {
    id: 'messaging.bulk.message-entries',
    requirement: 'MSG-BULK-004',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/bulk',
    title: 'each entry of the bulk response has message_id, to and status, and starts in status sent',
  },
  async ({ api, ledger, ctx }) => {
    const campaign = await bulkSend(api, ledger, ctx, ctx.name('campaign'));
    const wrong = entriesOf(campaign).filter(
      (m) => typeof m?.message_id !== 'string' || typeof m.to !== 'string' || m.status !== 'sent',
    );
    expect(
      wrong.map((m) => JSON.stringify(m)),
      'entries lacking message_id or to, or not in status sent',
    ).toEqual([]);
  },
);

defineCheck(
  {
    id: 'messaging.bulk.ids-known',
    requirement: 'MSG-BULK-006',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/status/{message_id}',
    title: 'every message_id of a bulk response can be looked up with GET /sms/status/{message_id}',
  },
  async ({ api, ledger, ctx }) => {
    // Without campaign_name (optional), the bulk the flows do not send: they name their campaigns.
    const campaign = await bulkSend(api, ledger, ctx, undefined);
    for (const entry of entriesOf(campaign)) {
      expect(typeof entry?.message_id, 'message_id of a bulk entry').toBe('string');
      const message = await messageStatus(api, entry.message_id as string);
      expect(message.message_id, 'GET /sms/status answers the message asked for').toBe(entry.message_id);
    }
  },
);
