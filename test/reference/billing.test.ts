import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { SHORT_DELAYS, api, expectError, fakeProvider, json, newAccount } from './billing-fixtures.ts';

type Wallet = {
  currency: string;
  available_balance: number;
  pending_balance: number;
  reserved_balance: number;
  total_balance: number;
};
type Txn = {
  id: string;
  type: string;
  amount: number;
  created_at: string;
  service: string;
  resource_id: string;
  status: string;
};
type Meta = { total: number; page: number; per_page: number; pages: number };
type PaymentMethod = {
  id: string;
  type: string;
  brand: string | null;
  last4: string;
  exp_month: number | null;
  exp_year: number | null;
  is_default: boolean;
};

let server: RunningReference;
const compute = fakeProvider('compute');
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: SHORT_DELAYS });
  server.context.services.addResourceProvider(compute);
});
test.afterAll(async () => {
  await server.close();
});

const fresh = () => {
  const { key, accountId } = newAccount(server);
  return { a: api(server, key), accountId };
};

test.describe('account', () => {
  test('GET /account carries every field with its type', async () => {
    const { a, accountId } = fresh();
    const res = await a.call('GET', '/account');
    expect(res.status).toBe(200);
    const account = json<{ account: Record<string, unknown> }>(res).account;
    expect(account.id).toBe(accountId);
    expect(account.id).toMatch(/^acct_/);
    for (const field of ['email', 'name', 'status', 'created_at', 'currency', 'timezone'])
      expect(typeof account[field]).toBe('string');
    expect(account.company).toBeNull();
    expect(account.verified).toBe(true);
    expect(account.status).toBe('active');
  });

  test('PUT /account round trip: changed fields persist, others stay', async () => {
    const { a } = fresh();
    const before = json<{ account: Record<string, unknown> }>(await a.call('GET', '/account')).account;
    const res = await a.call('PUT', '/account', { name: 'Renamed Ltd', company: 'ACME', timezone: 'Europe/Berlin' });
    expect(res.status).toBe(200);
    expect(json<{ account: Record<string, unknown> }>(res).account).toMatchObject({
      name: 'Renamed Ltd',
      company: 'ACME',
      timezone: 'Europe/Berlin',
    });
    const after = json<{ account: Record<string, unknown> }>(await a.call('GET', '/account')).account;
    expect(after).toEqual({ ...before, name: 'Renamed Ltd', company: 'ACME', timezone: 'Europe/Berlin' });
    // company can be cleared again.
    await a.call('PUT', '/account', { company: null });
    expect(json<{ account: Record<string, unknown> }>(await a.call('GET', '/account')).account.company).toBeNull();
  });

  test('PUT /account refuses a zone that is not IANA, an empty name and wrong types', async () => {
    const { a } = fresh();
    for (const [body, field] of [
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ company: 42 }, 'company'],
    ] as const) {
      const res = await a.call('PUT', '/account', body);
      expectError(res, 422, 'validation_error');
      expect(json<{ error: { details: { field: string } } }>(res).error.details.field).toBe(field);
    }
    expect(json<{ account: { timezone: string } }>(await a.call('GET', '/account')).account.timezone).toBe('UTC');
  });
});

test.describe('wallets and top-up', () => {
  test('wallets: one per currency, numeric balances, total is the sum', async () => {
    const { a } = fresh();
    const wallets = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets;
    expect(new Set(wallets.map((w) => w.currency)).size).toBe(wallets.length);
    const usd = wallets.find((w) => w.currency === 'USD');
    expect(usd?.available_balance).toBe(500);
    for (const w of wallets)
      expect(w.total_balance).toBeCloseTo(w.available_balance + w.pending_balance + w.reserved_balance, 4);
  });

  test('a top-up raises the balance and shows up in the history as a completed payment', async () => {
    const { a } = fresh();
    const pm = json<{ payment_methods: PaymentMethod[] }>(await a.call('GET', '/account/payment-methods'))
      .payment_methods[0];
    expect(pm).toBeDefined();
    const res = await a.call('POST', '/account/wallets/topup', {
      amount: 25.1,
      currency: 'USD',
      payment_method: pm?.id,
    });
    expect(res.status).toBe(200);
    const result = json<{ transaction: Txn; wallet: Wallet }>(res);
    expect(result.transaction).toMatchObject({
      type: 'payment',
      amount: 25.1,
      status: 'completed',
      resource_id: pm?.id,
    });
    expect(result.wallet.available_balance).toBe(525.1);
    const wallets = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets;
    expect(wallets.find((w) => w.currency === 'USD')?.available_balance).toBe(525.1);
    const history = json<{ transactions: Txn[] }>(
      await a.call('GET', '/account/billing/history?type=payment'),
    ).transactions;
    expect(history[0]?.id).toBe(result.transaction.id);
  });

  test('a top-up in a new currency opens that wallet; repeated top-ups do not drift', async () => {
    const { a } = fresh();
    const pm = json<{ payment_methods: PaymentMethod[] }>(await a.call('GET', '/account/payment-methods'))
      .payment_methods[0];
    for (let i = 0; i < 10; i++)
      expect(
        (await a.call('POST', '/account/wallets/topup', { amount: 0.1, currency: 'GBP', payment_method: pm?.id }))
          .status,
      ).toBe(200);
    const gbp = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets.find(
      (w) => w.currency === 'GBP',
    );
    expect(gbp?.available_balance).toBe(1);
  });

  test('top-up validation: fields required, amount bounds, unknown currency or payment method', async () => {
    const { a } = fresh();
    const pm = json<{ payment_methods: PaymentMethod[] }>(await a.call('GET', '/account/payment-methods'))
      .payment_methods[0]?.id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: '10', currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: 0, currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: -5, currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: 100_000.01, currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: 1.234, currency: 'USD', payment_method: pm }, 'amount'],
      [{ amount: 10, payment_method: pm }, 'currency'],
      [{ amount: 10, currency: 'XYZ', payment_method: pm }, 'currency'],
      [{ amount: 10, currency: 'USD' }, 'payment_method'],
      [{ amount: 10, currency: 'USD', payment_method: 'pm_0000000000000000' }, 'payment_method'],
    ];
    for (const [body, field] of cases) {
      const res = await a.call('POST', '/account/wallets/topup', body);
      expectError(res, 422, 'validation_error');
      expect(json<{ error: { details: { field: string } } }>(res).error.details.field, JSON.stringify(body)).toBe(
        field,
      );
    }
    const usd = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets.find(
      (w) => w.currency === 'USD',
    );
    expect(usd?.available_balance).toBe(500);
  });

  test("another account's payment method cannot pay a top-up", async () => {
    const mine = fresh();
    const theirs = fresh();
    const pm = json<{ payment_methods: PaymentMethod[] }>(await theirs.a.call('GET', '/account/payment-methods'))
      .payment_methods[0]?.id;
    expectError(
      await mine.a.call('POST', '/account/wallets/topup', { amount: 10, currency: 'USD', payment_method: pm }),
      422,
      'validation_error',
    );
  });

  test('the wallet service charges, records a charge, and refuses what the balance cannot pay', async () => {
    const { a, accountId } = fresh();
    const wallet = server.context.services.get('wallet');
    wallet.charge(accountId, {
      amount: 0.0075,
      currency: 'USD',
      description: 'SMS to +15005550006',
      service: 'messaging',
      resourceId: 'msg_test',
    });
    const usd = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets.find(
      (w) => w.currency === 'USD',
    );
    expect(usd?.available_balance).toBe(499.9925);
    const charge = json<{ transactions: Txn[] }>(await a.call('GET', '/account/billing/history?type=charge'))
      .transactions[0];
    expect(charge).toMatchObject({
      type: 'charge',
      amount: 0.0075,
      service: 'messaging',
      resource_id: 'msg_test',
      status: 'completed',
    });
    let error: unknown;
    try {
      wallet.charge(accountId, {
        amount: 1000,
        currency: 'USD',
        description: 'too much',
        service: 'compute',
        resourceId: 'vps_x',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'insufficient_balance',
      status: 422,
      details: { required: 1000, available: 499.9925, currency: 'USD' },
    });
    const after = json<{ wallets: Wallet[] }>(await a.call('GET', '/account/wallets')).wallets.find(
      (w) => w.currency === 'USD',
    );
    expect(after?.available_balance).toBe(499.9925);
  });
});

test.describe('billing history', () => {
  test('paginates with meta, newest first, every page once', async () => {
    const { a } = fresh();
    const pm = json<{ payment_methods: PaymentMethod[] }>(await a.call('GET', '/account/payment-methods'))
      .payment_methods[0]?.id;
    for (let i = 1; i <= 4; i++)
      await a.call('POST', '/account/wallets/topup', { amount: i, currency: 'USD', payment_method: pm });
    const first = json<{ transactions: Txn[]; meta: Meta }>(await a.call('GET', '/account/billing/history'));
    expect(first.meta).toEqual({ total: first.transactions.length, page: 1, per_page: 25, pages: 1 });
    expect(first.meta.total).toBe(8); // 4 seeded + 4 top-ups
    const stamps = first.transactions.map((t) => Date.parse(t.created_at));
    expect([...stamps].sort((x, y) => y - x)).toEqual(stamps);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = json<{ transactions: Txn[]; meta: Meta }>(
        await a.call('GET', `/account/billing/history?per_page=3&page=${page}`),
      );
      expect(res.meta).toEqual({ total: 8, page, per_page: 3, pages: 3 });
      seen.push(...res.transactions.map((t) => t.id));
    }
    expect(seen).toEqual(first.transactions.map((t) => t.id));
    const past = json<{ transactions: Txn[]; meta: Meta }>(
      await a.call('GET', '/account/billing/history?per_page=3&page=9'),
    );
    expect(past.transactions).toEqual([]);
  });

  test('filters by type and date range; refuses bad filters', async () => {
    const { a } = fresh();
    for (const type of ['charge', 'payment', 'refund']) {
      const res = json<{ transactions: Txn[] }>(await a.call('GET', `/account/billing/history?type=${type}`));
      expect(res.transactions.length).toBeGreaterThan(0);
      expect(res.transactions.every((t) => t.type === type)).toBe(true);
    }
    const all = json<{ transactions: Txn[] }>(await a.call('GET', '/account/billing/history')).transactions;
    const pivot = all[1];
    if (!pivot) throw new Error('seeded history expected');
    const from = json<{ transactions: Txn[] }>(
      await a.call('GET', `/account/billing/history?from_date=${encodeURIComponent(pivot.created_at)}`),
    ).transactions;
    expect(from.map((t) => t.id)).toEqual(all.slice(0, 2).map((t) => t.id));
    const to = json<{ transactions: Txn[] }>(
      await a.call('GET', `/account/billing/history?to_date=${pivot.created_at.slice(0, 10)}`),
    ).transactions;
    expect(to.every((t) => t.created_at.slice(0, 10) <= pivot.created_at.slice(0, 10))).toBe(true);
    expect(to.length).toBe(all.length - 1);
    for (const query of [
      'type=gift',
      'per_page=101',
      'per_page=0',
      'page=0',
      'from_date=yesterday',
      'from_date=2030-01-02&to_date=2030-01-01',
    ]) {
      expectError(await a.call('GET', `/account/billing/history?${query}`), 422, 'validation_error');
    }
  });
});

test.describe('current usage', () => {
  test('reports this month per service from the resource providers', async () => {
    const { a, accountId } = fresh();
    compute.items.push({
      accountId,
      hourly: 0.01,
      id: `vps_${accountId}`,
      type: 'vps',
      name: 'web-1',
      status: 'running',
      service: 'compute',
      region: 'nyc1',
      monthly_cost: 7.2,
      created_at: new Date().toISOString(),
      project_id: null,
    });
    const usage = json<{
      usage: {
        period: { start: string; end: string };
        total_cost: number;
        currency: string;
        services: Record<string, Record<string, unknown>>;
      };
    }>(await a.call('GET', '/account/usage')).usage;
    const now = new Date();
    expect(usage.period.start).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString());
    expect(Date.parse(usage.period.end)).toBeGreaterThan(Date.now());
    expect(Object.keys(usage.services).sort()).toEqual(['compute', 'messaging', 'storage']);
    const computeUsage = usage.services.compute as { cost: number; resources: Array<Record<string, unknown>> };
    expect(computeUsage.resources).toHaveLength(1);
    expect(Object.keys(computeUsage.resources[0] ?? {}).sort()).toEqual(['cost', 'hours', 'id', 'name', 'type']);
    expect(computeUsage.cost).toBeGreaterThan(0);
    expect(usage.services.messaging).toEqual(
      expect.objectContaining({
        cost: expect.any(Number),
        messages_sent: expect.any(Number),
        cost_per_message: expect.any(Number),
      }),
    );
    const sum = Object.values(usage.services).reduce((s, v) => s + (v.cost as number), 0);
    expect(usage.total_cost).toBeCloseTo(sum, 4);
    const only = json<{ usage: { services: Record<string, unknown>; total_cost: number } }>(
      await a.call('GET', '/account/usage?service=compute&detailed=true'),
    ).usage;
    expect(Object.keys(only.services)).toEqual(['compute']);
    expect(only.total_cost).toBeCloseTo(computeUsage.cost, 2);
    expectError(await a.call('GET', '/account/usage?service=kubernetes'), 422, 'validation_error');
    expectError(await a.call('GET', '/account/usage?detailed=maybe'), 422, 'validation_error');
  });
});

test.describe('payment methods', () => {
  test('add card and bank account; first is default, set_default moves it; delete removes', async () => {
    const { a } = fresh();
    const seeded = json<{ payment_methods: PaymentMethod[] }>(
      await a.call('GET', '/account/payment-methods'),
    ).payment_methods;
    expect(seeded).toHaveLength(1);
    expect(seeded[0]?.is_default).toBe(true);
    expect(seeded[0]?.id).toMatch(/^pm_/);
    const bank = await a.call('POST', '/account/payment-methods', { type: 'bank_account', token: 'tok_bank_de' });
    expect(bank.status).toBe(201);
    const bankPm = json<{ payment_method: PaymentMethod }>(bank).payment_method;
    expect(bankPm).toMatchObject({
      type: 'bank_account',
      brand: null,
      exp_month: null,
      exp_year: null,
      is_default: false,
    });
    expect(bankPm.last4).toMatch(/^\d{4}$/);
    const card = json<{ payment_method: PaymentMethod }>(
      await a.call('POST', '/account/payment-methods', { type: 'card', token: 'tok_mastercard', set_default: true }),
    ).payment_method;
    expect(card).toMatchObject({ type: 'card', brand: 'mastercard', last4: '4444', is_default: true });
    expect(Number.isInteger(card.exp_month) && Number.isInteger(card.exp_year)).toBe(true);
    const listed = json<{ payment_methods: PaymentMethod[] }>(
      await a.call('GET', '/account/payment-methods'),
    ).payment_methods;
    expect(listed.filter((pm) => pm.is_default).map((pm) => pm.id)).toEqual([card.id]);
    // Same token, same digits.
    const again = json<{ payment_method: PaymentMethod }>(
      await a.call('POST', '/account/payment-methods', { type: 'bank_account', token: 'tok_bank_de' }),
    ).payment_method;
    expect(again.last4).toBe(bankPm.last4);

    const del = await a.call('DELETE', `/account/payment-methods/${card.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const remaining = json<{ payment_methods: PaymentMethod[] }>(
      await a.call('GET', '/account/payment-methods'),
    ).payment_methods;
    expect(remaining.map((pm) => pm.id)).not.toContain(card.id);
    expect(remaining.filter((pm) => pm.is_default)).toHaveLength(1);
    const gone = await a.call('DELETE', `/account/payment-methods/${card.id}`);
    expectError(gone, 404, 'not_found');
    expect(json<{ error: { resource: string } }>(gone).error.resource).toBe('payment_method');
  });

  test('validation and cross-account isolation', async () => {
    const { a } = fresh();
    for (const body of [
      { token: 'tok_visa' },
      { type: 'paypal', token: 'tok_visa' },
      { type: 'card' },
      { type: 'card', token: '' },
      { type: 'card', token: 'tok visa' },
      { type: 'card', token: 'tok_visa', set_default: 'yes' },
    ]) {
      expectError(await a.call('POST', '/account/payment-methods', body), 422, 'validation_error');
    }
    const other = fresh();
    const theirs = json<{ payment_methods: PaymentMethod[] }>(await other.a.call('GET', '/account/payment-methods'))
      .payment_methods[0]?.id;
    expectError(await a.call('DELETE', `/account/payment-methods/${theirs}`), 404, 'not_found');
    expect(
      json<{ payment_methods: PaymentMethod[] }>(await other.a.call('GET', '/account/payment-methods')).payment_methods,
    ).toHaveLength(1);
  });
});
