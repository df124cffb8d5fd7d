/**
 * Page numbers and the page-size ceiling of the three paginated lists (GET /sms/messages, GET /vps,
 * GET /account/billing/history). The page walk runs over a closed date window of messages this
 * check sent itself, so sends of other checks cannot shift items between pages; a walk whose
 * meta.total changed underway is simply walked again.
 */
import { defineCheck, expect, expectFields, expectStatus, expectSuccess } from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, CheckContext } from '../../src/harness/check.ts';

interface Meta {
  total: number;
  page: number;
  per_page: number;
  pages: number;
}

/** Each paginated list of the specification and the key of its items. */
const LISTS = [
  { path: '/sms/messages', items: 'messages' },
  { path: '/vps', items: 'vps_instances' },
  { path: '/account/billing/history', items: 'transactions' },
] as const;

function pageOf(res: ApiResponse, items: string): { items: Array<Record<string, unknown>>; meta: Meta } {
  expectSuccess(res);
  const body = res.body as Record<string, unknown> | undefined;
  // The array and `meta` as the generated list checks judge them: a list without `meta` is one cause.
  expectFields(body, { [items]: 'array', meta: 'object' }, 'the list', res);
  return { items: body![items] as Array<Record<string, unknown>>, meta: body!.meta as Meta };
}

defineCheck(
  {
    id: 'pagination.per-page-ceiling',
    requirement: 'PAGE-SIZE-002',
    level: 'MUST',
    class: 'pagination',
    operation: 'GET /sms/messages',
    title: 'per_page=1000 is refused or answered with pages of at most 100 items',
  },
  async ({ api }) => {
    for (const list of LISTS) {
      const res = await api.get(list.path, { query: { per_page: 1000 } });
      // Refusing the value is as good as capping it (per_page is "max 100").
      if (res.status >= 400 && res.status < 500) continue;
      const { items, meta } = pageOf(res, list.items);
      expect(items.length, `${list.path}?per_page=1000: items on the page`).toBeLessThanOrEqual(100);
      expect(meta.per_page, `${list.path}?per_page=1000: meta.per_page, the size of its pages`).toBeLessThanOrEqual(
        100,
      );
    }
  },
);

defineCheck(
  {
    id: 'pagination.first-page-default',
    requirement: 'PAGE-NUM-001',
    level: 'MUST',
    class: 'pagination',
    operation: 'GET /sms/messages',
    title: 'without page, each paginated list answers page 1',
  },
  async ({ api }) => {
    for (const list of LISTS) {
      const { meta } = pageOf(await api.get(list.path), list.items);
      expect(meta.page, `${list.path} without page: meta.page`).toBe(1);
    }
  },
);

/** Three test-mode messages sent one after the other, in that order: their ids and created_at. */
async function sendThree(
  api: ApiClient,
  ctx: CheckContext,
  label: string,
): Promise<Array<{ id: string; createdAt: string }>> {
  const sent: Array<{ id: string; createdAt: string }> = [];
  for (let i = 0; i < 3; i++) {
    const res = await api.post('/sms/send', {
      to: ctx.testNumbers.succeed,
      message: `cloudcheck ${ctx.runPrefix}${label} ${i}`,
    });
    expectStatus(res, [200, 201]);
    const message = res.json<{ message_id: string; created_at: string }>();
    sent.push({ id: message.message_id, createdAt: message.created_at });
  }
  return sent;
}

/** Walks every page of the window; undefined when meta.total moved underway (walk again). */
async function walk(
  api: ApiClient,
  query: Record<string, string>,
  perPage: number,
): Promise<{ ids: string[]; total: number } | undefined> {
  const ids: string[] = [];
  const first = pageOf(await api.get('/sms/messages', { query: { ...query, per_page: perPage } }), 'messages');
  expect(first.meta.page, 'meta.page of page 1').toBe(1);
  ids.push(...first.items.map((m) => String(m.message_id)));
  for (let page = 2; page <= first.meta.pages; page++) {
    const next = pageOf(await api.get('/sms/messages', { query: { ...query, per_page: perPage, page } }), 'messages');
    if (next.meta.total !== first.meta.total) return undefined;
    expect(next.meta.page, `meta.page of page ${page}`).toBe(page);
    ids.push(...next.items.map((m) => String(m.message_id)));
  }
  return { ids, total: first.meta.total };
}

defineCheck(
  {
    id: 'pagination.page-walk',
    requirement: 'PAGE-NUM-002',
    level: 'MUST',
    class: 'pagination',
    operation: 'GET /sms/messages',
    title: 'page=N answers meta.page N; walking all pages yields each message once, meta.total in all',
  },
  async ({ api, ctx }) => {
    const sent = await sendThree(api, ctx, 'page-walk');
    // A window from our first to our last message: closed, so nothing new enters it.
    const window = { from_date: sent[0]!.createdAt, to_date: sent.at(-1)!.createdAt };
    let result: { ids: string[]; total: number } | undefined;
    for (let attempt = 0; attempt < 5 && result === undefined; attempt++) result = await walk(api, window, 1);
    expect(result, 'meta.total stayed the same over one of five walks').toBeTruthy();
    expect(
      new Set(result!.ids).size,
      `message ids over all pages (${result!.ids.join(', ')}) are each listed once`,
    ).toBe(result!.ids.length);
    expect(result!.ids.length, 'items over all pages vs meta.total').toBe(result!.total);
  },
);

defineCheck(
  {
    id: 'pagination.newest-first',
    requirement: 'PAGE-ORD-001',
    level: 'SHOULD',
    class: 'pagination',
    operation: 'GET /sms/messages',
    title: 'GET /sms/messages lists three messages sent one after the other newest first',
  },
  async ({ api, ctx }) => {
    const sent = await sendThree(api, ctx, 'newest-first');
    // The window of our own messages: other checks' sends inside it are left out of the comparison.
    const window = { from_date: sent[0]!.createdAt, to_date: sent.at(-1)!.createdAt, per_page: 100 };
    const { items } = pageOf(await api.get('/sms/messages', { query: window }), 'messages');
    const ours = new Set(sent.map((m) => m.id));
    expect(
      items.map((m) => String(m.message_id)).filter((id) => ours.has(id)),
      'our messages in the order the list gives them',
    ).toEqual(sent.map((m) => m.id).reverse());
  },
);
