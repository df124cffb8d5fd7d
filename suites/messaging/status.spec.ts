/**
 * The delivery report of GET /sms/status/{message_id} (Resources and their fields / Message): a
 * test-mode message to the succeed test number, read once it has reached its final state.
 */
import { defineCheck, expect, expectSuccess } from '../../src/harness/check.ts';
import { finalStatus } from '../flows/_messaging.ts';

defineCheck(
  {
    id: 'messaging.status.delivery-report',
    requirement: 'MSG-FLD-003',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/status/{message_id}',
    title:
      'delivery_report holds network and country strings, and error_code and error_message present and null when there is no error',
  },
  async ({ api, ledger, ctx }) => {
    const res = await api.post('/sms/send', {
      to: ctx.testNumbers.succeed,
      message: `cloudcheck ${ctx.runPrefix}report`,
    });
    expectSuccess(res, 'a test-mode send to the succeed test number');
    const id = (res.body as { message_id?: unknown } | undefined)?.message_id;
    expect(typeof id, 'message_id of the send').toBe('string');
    ledger.track('message', id as string);
    const message = await finalStatus(api, ctx, id as string);
    const report = message.delivery_report as Record<string, unknown> | undefined;
    expect(typeof report === 'object' && report !== null, 'delivery_report is an object').toBe(true);
    expect(typeof report!.network, 'delivery_report.network').toBe('string');
    expect(typeof report!.country, 'delivery_report.country').toBe('string');
    expect(Object.keys(report!), 'delivery_report carries error_code and error_message').toEqual(
      expect.arrayContaining(['error_code', 'error_message']),
    );
    // Only a delivered message is sure to have no error (the succeed number's is another requirement).
    if (message.status === 'delivered') {
      expect(report!.error_code, `error_code of delivered message ${message.message_id}`).toBeNull();
      expect(report!.error_message, `error_message of delivered message ${message.message_id}`).toBeNull();
    }
  },
);
