/**
 * GET /sms/messages and the fields of the messages it lists (Endpoints / Messaging, Resources and
 * their fields / Message, States and transitions). Each check sends its own test-mode message to
 * the succeed test number and reads the list of the last minutes, so other traffic of the account
 * cannot push it out of the first page, whatever order the target lists in.
 */
import { defineCheck, expect, expectSuccess } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, finalStatus } from '../flows/_messaging.ts';

interface Listed {
  message_id?: string;
  to?: string;
  message?: string;
  status?: string;
  from?: unknown;
  cost?: unknown;
  currency?: unknown;
  sent_at?: unknown;
  delivered_at?: unknown;
}

/** The spelling the specification gives every message status (States and transitions). */
const STATUSES = ['sent', 'delivered', 'failed', 'pending', 'expired', 'rejected'];

async function sendOne(api: ApiClient, ctx: CheckContext, text: string): Promise<string> {
  const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message: text });
  expectSuccess(res, 'a test-mode send to the succeed test number');
  const id = (res.body as { message_id?: unknown } | undefined)?.message_id;
  expect(typeof id, 'message_id of the send').toBe('string');
  return id as string;
}

/** GET /sms/messages from a few minutes ago on (one generous page). */
async function recent(
  api: ApiClient,
  query: Record<string, string | number> = {},
): Promise<{ body: { messages?: Listed[]; meta?: unknown } }> {
  const since = new Date(Date.now() - 5 * 60_000).toISOString();
  const res = await api.get('/sms/messages', { query: { from_date: since, per_page: 100, ...query } });
  expectSuccess(res);
  return { body: res.body ?? {} };
}

/**
 * The entries GET /sms/messages lists from a few minutes ago on, page by page (at most 10 pages of
 * 100): a busy account (a rate-limit burst) may list more than a page, in either order.
 */
async function recentEntries(api: ApiClient): Promise<Listed[]> {
  const entries: Listed[] = [];
  for (let page = 1; page <= 10; page++) {
    const { body } = await recent(api, { page });
    const messages = body.messages ?? [];
    entries.push(...messages);
    const pages = (body.meta as { pages?: unknown } | undefined)?.pages;
    if (messages.length < 100 || typeof pages !== 'number' || page >= pages) break;
  }
  return entries;
}

async function recentIds(api: ApiClient): Promise<Array<string | undefined>> {
  return (await recentEntries(api)).map((m) => m.message_id);
}

defineCheck(
  {
    id: 'messaging.list.includes-sent',
    requirement: 'MSG-LIST-001',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/messages',
    title: 'GET /sms/messages answers messages and meta, and lists a message just sent',
  },
  async ({ api, ctx }) => {
    const id = await sendOne(api, ctx, 'cloudcheck: listed');
    const { body } = await recent(api);
    expect(Array.isArray(body.messages), 'messages is an array').toBe(true);
    expect(typeof body.meta === 'object' && body.meta !== null, 'meta is an object').toBe(true);
    expect(await recentIds(api), 'the message just sent').toContain(id);
  },
);

defineCheck(
  {
    id: 'messaging.list.date-range',
    requirement: 'MSG-LIST-004',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/messages',
    title: 'GET /sms/messages with from_date and to_date lists only messages of that range',
  },
  async ({ api, ctx }) => {
    const id = await sendOne(api, ctx, 'cloudcheck: dated');
    const past = await api.get('/sms/messages', {
      query: { from_date: '2000-01-01', to_date: '2000-01-31', per_page: 100 },
    });
    expectSuccess(past);
    const listed = ((past.body as { messages?: Listed[] } | undefined)?.messages ?? []).map((m) => m.message_id);
    expect(listed, 'a month of the year 2000 holds no message sent today').not.toContain(id);
    expect(await recentIds(api), 'the last minutes hold it').toContain(id);
  },
);

defineCheck(
  {
    id: 'messaging.list.statuses',
    requirement: 'MSG-FLD-005',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/messages',
    title: 'every listed message has one of the six statuses, spelled as the specification spells them',
  },
  async ({ api, ctx }) => {
    await sendOne(api, ctx, 'cloudcheck: a status');
    const messages = (await recent(api)).body.messages ?? [];
    expect(
      messages.filter((m) => !STATUSES.includes(String(m.status))).map((m) => `${m.message_id}: ${m.status}`),
      `statuses outside ${STATUSES.join(', ')}`,
    ).toEqual([]);
  },
);

defineCheck(
  {
    id: 'messaging.list.to-and-text',
    requirement: 'MSG-FLD-006',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/messages',
    title: 'every listed message has its recipient in international format and a text of at most 1600 characters',
  },
  async ({ api, ctx }) => {
    await sendOne(api, ctx, 'cloudcheck: a recipient');
    const messages = (await recent(api)).body.messages ?? [];
    expect(messages.length, 'the message just sent is listed').toBeGreaterThan(0);
    const wrong = messages.filter(
      (m) => !/^\+[1-9]\d{1,14}$/.test(String(m.to)) || typeof m.message !== 'string' || [...m.message].length > 1600,
    );
    expect(
      wrong.map(
        (m) =>
          `${m.message_id}: to ${m.to}, ${typeof m.message === 'string' ? [...m.message].length : 'no'} characters`,
      ),
    ).toEqual([]);
  },
);

defineCheck(
  {
    id: 'messaging.list.entry-fields',
    requirement: 'MSG-FLD-004',
    level: 'MUST',
    class: 'messaging',
    operation: 'GET /sms/messages',
    title: 'a listed message carries the message fields with sent_at and delivered_at timestamps',
  },
  async ({ api, ctx }) => {
    const id = await sendOne(api, ctx, 'cloudcheck: timestamps');
    // Once final, so that a delivered message has its delivered_at.
    await finalStatus(api, ctx, id);
    const entry = (await recentEntries(api)).find((m) => m.message_id === id);
    expect(entry, `message ${id} in the list`).toBeTruthy();
    for (const field of ['to', 'message', 'from', 'status', 'currency'] as const)
      expect(typeof entry![field], `${field} is a string`).toBe('string');
    expect(typeof entry!.cost, 'cost is a number').toBe('number');
    expect(entry!.sent_at, 'sent_at of a message that was sent').toEqual(expect.stringMatching(ISO_TIMESTAMP));
    // A message that did not end delivered has no delivery time to give (null when unset).
    expect(Object.keys(entry!), 'the entry carries delivered_at').toContain('delivered_at');
    if (entry!.status === 'delivered')
      expect(entry!.delivered_at, 'delivered_at of a delivered message').toEqual(expect.stringMatching(ISO_TIMESTAMP));
    else if (entry!.delivered_at !== null)
      expect(entry!.delivered_at, 'delivered_at').toEqual(expect.stringMatching(ISO_TIMESTAMP));
  },
);
