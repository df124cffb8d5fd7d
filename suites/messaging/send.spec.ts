/**
 * What an accepted POST /sms/send reports (Endpoints / Messaging, States and transitions, Errors).
 * The body of a send is shown by the specification (a flat message), so it is read as such. Every
 * send carries X-Test-Mode (the client adds it) and goes to the test number that succeeds.
 */
import { defineCheck, expect, expectFields, expectSuccess } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext } from '../../src/harness/check.ts';

interface SentMessage {
  message_id?: string;
  to?: string;
  message?: string;
  status?: string;
}

async function send(
  api: ApiClient,
  ctx: CheckContext,
  message: string,
): Promise<{ status: number; text: string; body: SentMessage }> {
  const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message });
  expectSuccess(res, 'a test-mode send to the succeed test number');
  return { status: res.status, text: res.text, body: res.body ?? {} };
}

defineCheck(
  {
    id: 'messaging.send.accepted-fields',
    requirement: 'MSG-SEND-005',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: 'an accepted send reports status sent with cost, currency and created_at',
  },
  async ({ api, ctx }) => {
    const { body } = await send(api, ctx, 'cloudcheck: accepted send');
    expect(body.status, 'status of an accepted send').toBe('sent');
    expectFields(body, { cost: 'number', currency: 'string', created_at: 'timestamp' }, 'POST /sms/send');
  },
);

defineCheck(
  {
    id: 'messaging.send.echo',
    requirement: 'MSG-SEND-006',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: 'an accepted send echoes to and message exactly as sent',
  },
  async ({ api, ctx }) => {
    // Spaces at both ends and a character outside ASCII: the echo is the text as sent.
    const text = '  cloudcheck: échoed as sent  ';
    const { body } = await send(api, ctx, text);
    expect(body.to, 'to').toBe(ctx.testNumbers.succeed);
    expect(body.message, 'message').toBe(text);
  },
);

defineCheck(
  {
    id: 'messaging.send.status-identifies',
    requirement: 'MSG-SEND-008',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/status/{message_id}',
    title: 'GET /sms/status/{message_id} answers the same message_id, to and message',
  },
  async ({ api, ctx }) => {
    const text = 'cloudcheck: identified by its id';
    const { body } = await send(api, ctx, text);
    expect(typeof body.message_id, 'message_id of the send').toBe('string');
    const res = await api.get(`/sms/status/${encodeURIComponent(body.message_id!)}`);
    expectSuccess(res);
    expect(res.body, `GET /sms/status/${body.message_id}`).toMatchObject({
      message_id: body.message_id,
      to: ctx.testNumbers.succeed,
      message: text,
    });
  },
);

defineCheck(
  {
    id: 'messaging.send.never-204',
    requirement: 'ERR-STAT-002',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: 'a messaging success carries a body: an accepted send is not a 204',
  },
  async ({ api, ctx }) => {
    const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message: 'cloudcheck: a body, please' });
    expect(res.status, 'an accepted send').not.toBe(204);
    expectSuccess(res);
    expect(res.text.length, 'the body of an accepted send').toBeGreaterThan(0);
  },
);
