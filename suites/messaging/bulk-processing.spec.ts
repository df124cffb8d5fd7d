/**
 * The state a bulk send starts in: the campaign of an accepted POST /sms/bulk is `processing`
 * (MSG-BULK-005, "States and transitions"), whatever it becomes once the messages are delivered.
 */
import { defineCheck, expect, expectSuccess } from '../../src/harness/check.ts';

defineCheck(
  {
    id: 'messaging.bulk.processing',
    requirement: 'MSG-BULK-005',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/bulk',
    title: 'an accepted POST /sms/bulk answers its campaign in status processing',
  },
  async ({ api, ledger, ctx }) => {
    const recipients = [ctx.testNumbers.succeed, ctx.testNumbers.fail];
    const res = await api.post('/sms/bulk', {
      recipients,
      message: `cloudcheck ${ctx.runPrefix}bulk state`,
      campaign_name: ctx.name('campaign'),
    });
    expectSuccess(res);
    const campaign = res.json<{ campaign_id: string; status: string; messages?: Array<{ message_id: string }> }>();
    ledger.track('campaign', campaign.campaign_id);
    for (const m of campaign.messages ?? []) ledger.track('message', m.message_id);
    expect(campaign.status, 'the campaign of a bulk send that was just accepted').toBe('processing');
  },
);
