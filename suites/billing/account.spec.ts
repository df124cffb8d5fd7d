/**
 * The account itself (States and transitions): checks of GET /account that no generated check
 * makes, since the schema cannot say which status a working key's account has. Also the fields of
 * the billing history's transactions and of current usage, read as the account has them (an
 * empty history is skipped: it shows no transaction to look at).
 */
import {
  defineCheck,
  expect,
  expectFields,
  expectResource,
  expectSuccess,
  listOf,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient } from '../../src/harness/check.ts';

defineCheck(
  {
    id: 'billing.account.active',
    requirement: 'ACCT-GET-002',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account',
    title: 'the account of a working API key reports status active',
  },
  async ({ api }) => {
    // The run's key works (every other request of the run proves it), so its account is active.
    const account = expectResource<{ status?: unknown }>(await api.get('/account'), 'account');
    expect(account.status, 'account.status of a working key').toBe('active');
  },
);

interface History {
  transactions: Array<Record<string, unknown>>;
}

/** The first page of the billing history, as large as a page may be: `transactions` plus `meta` (shown). */
async function readHistory(api: ApiClient): Promise<History> {
  const res = await api.get('/account/billing/history', { query: { per_page: 100 } });
  expectSuccess(res);
  const transactions = listOf<Record<string, unknown>>(res.body, 'transactions');
  expect(Array.isArray(transactions), 'GET /account/billing/history answers an array `transactions`').toBe(true);
  return { transactions: transactions! };
}

defineCheck(
  {
    id: 'billing.history.transaction-fields',
    requirement: 'BILL-HIST-002',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account/billing/history',
    title: 'every transaction of the billing history carries its fields with their types',
  },
  async ({ api, ctx }) => {
    const { transactions } = await readHistory(api);
    ctx.testInfo.skip(transactions.length === 0, 'the billing history is empty');
    for (const txn of transactions) {
      const what = `transaction ${String(txn.id)}`;
      expectFields(
        txn,
        {
          id: 'string',
          currency: 'string',
          description: 'string',
          status: 'string',
          service: 'string',
          resource_id: 'string',
          amount: 'number',
          created_at: 'timestamp',
        },
        what,
      );
      expect(['charge', 'payment', 'refund'], `type of ${what}`).toContain(txn.type);
    }
  },
);

defineCheck(
  {
    id: 'billing.history.status-completed',
    requirement: 'BILL-HIST-005',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account/billing/history',
    title: 'transaction status is a plain string, and the completed state is spelled exactly completed',
  },
  async ({ api, ctx }) => {
    const { transactions } = await readHistory(api);
    ctx.testInfo.skip(transactions.length === 0, 'the billing history is empty');
    const notString = transactions
      .filter((t) => typeof t.status !== 'string')
      .map((t) => `${String(t.id)}: ${JSON.stringify(t.status)}`);
    expect(notString, 'transactions whose status is not a plain string').toEqual([]);
    // Other states are the target's own words; one that reads "completed" must be spelled so.
    const misspelt = transactions
      .filter(
        (t) =>
          typeof t.status === 'string' && t.status.trim().toLowerCase() === 'completed' && t.status !== 'completed',
      )
      .map((t) => `${String(t.id)}: ${JSON.stringify(t.status)}`);
    expect(misspelt, 'transactions in the completed state not spelled exactly `completed`').toEqual([]);
  },
);

defineCheck(
  {
    id: 'billing.usage.services-shape',
    requirement: 'BILL-USE-002',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account/usage',
    title:
      'usage.services: compute and storage carry cost and resources entries, messaging cost, messages_sent and cost_per_message',
  },
  async ({ api }) => {
    const res = await api.get('/account/usage');
    expectSuccess(res);
    const usage = resourceOf<{ services?: unknown }>(res.body, 'usage', 'services');
    expect(isRecord(usage?.services), `GET /account/usage answers usage.services: ${res.text.slice(0, 300)}`).toBe(
      true,
    );
    const services = usage!.services as Record<string, unknown>;
    // The specification names these fields without giving their types: presence is what it states.
    const entryFields = {
      compute: ['type', 'id', 'name', 'cost', 'hours'],
      storage: ['type', 'bucket', 'cost', 'storage_gb', 'bandwidth_gb'],
    } as const;
    for (const service of ['compute', 'storage'] as const) {
      const entry = services[service];
      expectPresent(entry, ['cost', 'resources'], `usage.services.${service}`);
      const resources = (entry as Record<string, unknown>).resources;
      expect(
        Array.isArray(resources),
        `usage.services.${service}.resources is an array, is ${JSON.stringify(resources)}`,
      ).toBe(true);
      // A fresh account may have no resources: the entries' fields are checked where there are some.
      for (const [i, resource] of (resources as unknown[]).entries())
        expectPresent(resource, entryFields[service], `usage.services.${service}.resources[${i}]`);
    }
    expectPresent(services.messaging, ['cost', 'messages_sent', 'cost_per_message'], 'usage.services.messaging');
  },
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Asserts an object holding each of `fields` (any value), listing every absent one at once. */
function expectPresent(record: unknown, fields: readonly string[], what: string): void {
  expect(isRecord(record), `${what} should be a JSON object, is ${JSON.stringify(record)}`).toBe(true);
  expect(
    fields.filter((f) => !(f in (record as Record<string, unknown>))),
    `${what}: absent fields`,
  ).toEqual([]);
}
