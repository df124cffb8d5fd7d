/**
 * The boundary the generated negative checks do not test from the accepting side: a message of
 * exactly 1600 characters (the specification's limit) is sent, not refused (MSG-SEND-003).
 */
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';

const LIMIT = 1600;

defineCheck(
  {
    id: 'messaging.send.exact-limit',
    requirement: 'MSG-SEND-003',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: 'POST /sms/send accepts a message of exactly 1600 characters',
  },
  async ({ api, ledger, ctx }) => {
    const prefix = `cloudcheck ${ctx.runPrefix}limit `;
    const message = prefix + 'x'.repeat(LIMIT - prefix.length);
    expect(message.length).toBe(LIMIT);
    const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message });
    expectStatus(res, [200, 201, 202], 'a message of exactly 1600 characters is within the limit');
    const id = (res.body as { message_id?: unknown } | undefined)?.message_id;
    if (typeof id === 'string') ledger.track('message', id);
  },
);
