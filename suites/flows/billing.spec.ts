/**
 * Flow: the account and its money. An account update is seen by a later GET (and the original
 * values are put back in the same step, whatever happens: the account is not the run's own);
 * wallets have numeric balances; with --allow-charges a payment method is added (as the default
 * where that harms nobody, and then listed as the default), a top-up
 * raises the balance and appears in the history, and the method is deleted again; the history
 * pages and filters; invoices come with a real PDF; usage and cost analytics are consistent;
 * an alert that is created is listed.
 */
import {
  defineFlow,
  expect,
  expectBody,
  expectFields,
  expectFieldValues,
  expectNotListed,
  expectPdf,
  expectRefused,
  expectResource,
  expectStatus,
  expectWrappedIn,
  judged,
  listOf,
  ORIGINAL,
  originalOnce,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse } from '../../src/harness/check.ts';

interface Account {
  id: string;
  email: string;
  name: string;
  company: string | null;
  timezone: string;
  currency: string;
  status: string;
  created_at: string;
}

interface Wallet {
  currency: string;
  available_balance: number;
  pending_balance: number;
  reserved_balance: number;
  total_balance: number;
}

interface PaymentMethod {
  id: string;
  type: string;
  brand: string | null;
  last4: string;
  exp_month: number | null;
  exp_year: number | null;
  is_default: boolean;
  created_at: string;
}

interface Transaction {
  id: string;
  type: string;
  amount: number;
  currency: string;
  status: string;
  created_at: string;
}

interface State {
  currency: string;
  paymentMethodId: string;
  /** Whether payment-method-add sent set_default: true (only where that harms nobody). */
  setDefault: boolean;
}

const FLOW = 'flow.billing';
const TOLERANCE = 0.011;

async function getAccount(api: ApiClient): Promise<Account> {
  const res = await api.get('/account');
  expectStatus(res, 200);
  return res.json<{ account: Account }>().account;
}

/** The wallets, with the answer that listed them (what a failure judged). */
async function walletList(api: ApiClient): Promise<{ res: ApiResponse; list: Wallet[] }> {
  const res = await api.get('/account/wallets');
  expectStatus(res, 200);
  const body = res.json<{ wallets: Wallet[] }>();
  expectFields(body, { wallets: 'array' }, 'the wallet list', res);
  return { res, list: body.wallets };
}

async function wallets(api: ApiClient): Promise<Wallet[]> {
  return (await walletList(api)).list;
}

/** The payment methods, with the answer that listed them. */
async function paymentMethodList(api: ApiClient): Promise<{ res: ApiResponse; list: PaymentMethod[] }> {
  const res = await api.get('/account/payment-methods');
  expectStatus(res, 200);
  return { res, list: res.json<{ payment_methods: PaymentMethod[] }>().payment_methods };
}

async function paymentMethods(api: ApiClient): Promise<PaymentMethod[]> {
  return (await paymentMethodList(api)).list;
}

async function history(
  api: ApiClient,
  query: Record<string, string | number>,
): Promise<{ transactions: Transaction[]; meta: { total: number; page: number; per_page: number; pages: number } }> {
  const res = await api.get('/account/billing/history', { query });
  expectStatus(res, 200);
  return res.json();
}

const balanceOf = (list: Wallet[], currency: string): number =>
  list.find((w) => w.currency === currency)?.available_balance ?? 0;

defineFlow<State>({ id: FLOW, class: 'billing', title: 'billing and account' }, (step) => {
  step(
    {
      id: `${FLOW}.account-update`,
      requirement: 'ACCT-UPD-001',
      level: 'MUST',
      operation: 'PUT /account',
      title: 'an account update is answered and seen by a later GET, other fields unchanged (then restored)',
    },
    async ({ api, ctx, state }) => {
      // The values from before the run, not from before this step: a generated PUT /account check
      // in another worker may have changed the account and not yet put it back.
      const original = await originalOnce(ctx.runTmp, ORIGINAL.account, () => getAccount(api));
      state.currency = original.currency;
      const change = {
        name: `${ctx.runPrefix}account`,
        company: `${ctx.runPrefix}company`,
        timezone: original.timezone === 'Pacific/Auckland' ? 'America/Denver' : 'Pacific/Auckland',
      };
      try {
        const res = await api.put('/account', change);
        expectStatus(res, 200);
        const answered = (resourceOf<Account>(res.body, 'account') ?? {}) as Account;
        expect(
          { name: answered.name, company: answered.company, timezone: answered.timezone },
          'the PUT response',
        ).toEqual(change);
        const after = await getAccount(api);
        expect({ name: after.name, company: after.company, timezone: after.timezone }, 'a later GET /account').toEqual(
          change,
        );
        expect(
          { id: after.id, email: after.email, currency: after.currency, created_at: after.created_at },
          'fields not sent stay unchanged',
        ).toEqual({
          id: original.id,
          email: original.email,
          currency: original.currency,
          created_at: original.created_at,
        });
      } finally {
        // Hands off: the account belongs to the user, so its values go back whatever happened.
        const restore = await api.put('/account', {
          name: original.name,
          company: original.company,
          timezone: original.timezone,
        });
        expectStatus(restore, 200, 'restoring the original account values');
        const restored = await getAccount(api);
        expect(
          { name: restored.name, company: restored.company, timezone: restored.timezone },
          'the account after restoring it',
        ).toEqual({
          name: original.name,
          company: original.company,
          timezone: original.timezone,
        });
      }
    },
  );

  step(
    {
      id: `${FLOW}.wallets`,
      requirement: 'WAL-LIST-001',
      level: 'MUST',
      operation: 'GET /account/wallets',
      title: 'wallets: at most one per currency, with numeric balances',
    },
    async ({ api }) => {
      const { res, list } = await walletList(api);
      const currencies = list.map((w) => w.currency);
      expect(new Set(currencies).size, `one wallet per currency: ${currencies.join(', ')}`).toBe(currencies.length);
      for (const w of list) {
        const balances = {
          available_balance: 'number',
          pending_balance: 'number',
          reserved_balance: 'number',
          total_balance: 'number',
        } as const;
        expectFields(w, balances, `the ${w.currency} wallet`, res);
      }
    },
  );

  step(
    {
      id: `${FLOW}.payment-method-add`,
      requirement: 'BILL-PM-001',
      level: 'MUST',
      operation: 'POST /account/payment-methods',
      title: 'an added payment method is listed with its fields',
    },
    async ({ api, ledger, ctx, state }) => {
      ctx.requireCharges();
      const before = await paymentMethods(api);
      // Making it the default changes the user's other methods, which cannot be set back: only
      // where that harms nobody (the embedded server, or an account without methods).
      const setDefault = ctx.embedded || before.length === 0;
      const res = await api.post('/account/payment-methods', {
        type: 'card',
        token: 'tok_visa',
        ...(setDefault ? { set_default: true } : {}),
      });
      expectStatus(res, [200, 201]);
      const created = (resourceOf<PaymentMethod>(res.body, 'payment_method') ?? {}) as PaymentMethod;
      state.paymentMethodId = ledger.track('payment-method', created.id);
      const { res: listRes, list } = await paymentMethodList(api);
      const listed = list.find((pm) => pm.id === created.id);
      expect(listed, `payment method ${created.id} in GET /account/payment-methods`).toBeTruthy();
      expectFieldValues(listed, { type: 'card' }, `payment method ${created.id}`, listRes);
      // A card has integer exp_month and exp_year.
      const fields = { last4: 'string', exp_month: 'integer', exp_year: 'integer', is_default: 'boolean' } as const;
      expectFields(listed, fields, `payment method ${created.id}`, listRes);
      state.setDefault = setDefault;
    },
  );

  step(
    {
      id: `${FLOW}.payment-method-default`,
      requirement: 'BILL-PM-003',
      level: 'MUST',
      operation: 'POST /account/payment-methods',
      title: 'a payment method added with set_default: true is listed with is_default true',
    },
    async ({ api, ctx, state }) => {
      ctx.requireCharges();
      ctx.testInfo.skip(
        !state.setDefault,
        'the method was added without set_default (making it the default would change the other methods of the account)',
      );
      const listed = (await paymentMethods(api)).find((pm) => pm.id === state.paymentMethodId);
      expect(listed, `payment method ${state.paymentMethodId} in GET /account/payment-methods`).toBeTruthy();
      expect(listed!.is_default, 'is_default of the method added with set_default: true').toBe(true);
    },
  );

  step(
    {
      id: `${FLOW}.topup-needs-method`,
      requirement: 'WAL-TOP-001',
      level: 'MUST',
      operation: 'POST /account/wallets/topup',
      title: 'a top-up without payment_method is refused and moves nothing',
    },
    async ({ api, ctx, state }) => {
      ctx.requireCharges();
      const before = balanceOf(await wallets(api), state.currency);
      const res = await api.post('/account/wallets/topup', { amount: 1, currency: state.currency });
      expectRefused(res, 'a top-up without payment_method');
      expect(balanceOf(await wallets(api), state.currency), 'available_balance after the refused top-up').toBeCloseTo(
        before,
        2,
      );
    },
  );

  step(
    {
      id: `${FLOW}.topup`,
      requirement: 'WAL-TOP-002',
      level: 'SHOULD',
      operation: 'POST /account/wallets/topup',
      title: 'a top-up raises available_balance by the amount and records a completed payment transaction',
    },
    async ({ api, ctx, state }) => {
      ctx.requireCharges();
      const before = balanceOf(await wallets(api), state.currency);
      const res = await api.post('/account/wallets/topup', {
        amount: 1.25,
        currency: state.currency,
        payment_method: state.paymentMethodId,
      });
      expectStatus(res, 200);
      const transaction = expectWrappedIn<Transaction>(res, 'transaction', 'the top-up result');
      expect(balanceOf(await wallets(api), state.currency), 'available_balance after a top-up of 1.25').toBeCloseTo(
        before + 1.25,
        2,
      );
      const payments = await history(api, { type: 'payment', per_page: 100 });
      const txn = payments.transactions.find((t) => t.id === transaction.id);
      expect(txn, `transaction ${transaction.id} in the billing history`).toBeTruthy();
      expect(txn).toMatchObject({ type: 'payment', status: 'completed', currency: state.currency });
      expect(txn!.amount).toBeCloseTo(1.25, 2);
    },
  );

  step(
    {
      id: `${FLOW}.history-paging`,
      requirement: 'BILL-HIST-001',
      level: 'MUST',
      operation: 'GET /account/billing/history',
      title: 'the billing history pages with a consistent meta',
    },
    async ({ api }) => {
      const res = await api.get('/account/billing/history', { query: { per_page: 2, page: 1 } });
      expectStatus(res, 200);
      const first = res.json<Awaited<ReturnType<typeof history>>>();
      expectFields(first, { transactions: 'array', meta: 'object' }, 'the billing history', res);
      const meta = { total: 'integer', page: 'integer', per_page: 'integer', pages: 'integer' } as const;
      expectFields(first.meta, meta, 'meta of the billing history', res);
      expect(first.meta.per_page).toBe(2);
      expect(first.meta.page).toBe(1);
      expect(first.transactions.length).toBeLessThanOrEqual(2);
      expect(first.meta.pages, 'meta.pages = ceil(total / per_page)').toBe(Math.ceil(first.meta.total / 2));
      if (first.meta.total > 2) {
        const second = await history(api, { per_page: 2, page: 2 });
        expect(second.meta.page).toBe(2);
        const firstIds = new Set(first.transactions.map((t) => t.id));
        for (const t of second.transactions)
          expect(firstIds.has(t.id), `transaction ${t.id} on pages 1 and 2`).toBe(false);
      }
    },
  );

  step(
    {
      id: `${FLOW}.history-type`,
      requirement: 'BILL-HIST-003',
      level: 'MUST',
      operation: 'GET /account/billing/history',
      title: 'the history filtered by type holds only that type',
    },
    async ({ api, ctx }) => {
      const all = await history(api, { per_page: 100 });
      // Filtering an empty history proves nothing: each filter must leave out something present.
      ctx.testInfo.skip(all.transactions.length === 0, 'the billing history is empty');
      for (const type of ['charge', 'payment', 'refund']) {
        const filtered = await history(api, { type, per_page: 100 });
        for (const t of filtered.transactions) expect(t.type, `type=${type} listed ${t.id}`).toBe(type);
      }
    },
  );

  step(
    {
      id: `${FLOW}.history-range`,
      requirement: 'BILL-HIST-004',
      level: 'MUST',
      operation: 'GET /account/billing/history',
      title: 'the history filtered by from_date and to_date holds only transactions of that range',
    },
    async ({ api, ctx }) => {
      const all = await history(api, { per_page: 100 });
      ctx.testInfo.skip(all.transactions.length === 0, 'the billing history is empty');
      // A month long past, and the days around now: each listed transaction lies inside its range.
      const day = (offsetDays: number): string =>
        new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
      for (const [from, to] of [
        ['2000-01-01', '2000-01-31'],
        [day(-1), day(1)],
      ] as const) {
        const listed = await history(api, { from_date: from, to_date: to, per_page: 100 });
        const outside = listed.transactions.filter(
          (t) =>
            Date.parse(t.created_at) < Date.parse(`${from}T00:00:00Z`) ||
            Date.parse(t.created_at) > Date.parse(`${to}T23:59:59.999Z`),
        );
        expect(
          outside.map((t) => `${t.id} ${t.created_at}`),
          `from_date=${from}&to_date=${to} listed transactions outside the range`,
        ).toEqual([]);
      }
    },
  );

  step(
    {
      id: `${FLOW}.payment-method-delete`,
      requirement: 'BILL-PM-004',
      level: 'MUST',
      operation: 'DELETE /account/payment-methods/{payment_method_id}',
      title: 'a deleted payment method is no longer listed',
    },
    async ({ api, ledger, ctx, state }) => {
      ctx.requireCharges();
      const res = await api.delete(`/account/payment-methods/${encodeURIComponent(state.paymentMethodId)}`);
      expectStatus(res, [200, 204]);
      ledger.deleted('payment-method', state.paymentMethodId);
      const after = await paymentMethodList(api);
      const listed = after.list.some((pm) => pm.id === state.paymentMethodId);
      expectNotListed(after.res, listed, state.paymentMethodId, 'GET /account/payment-methods after DELETE');
    },
  );

  step(
    {
      id: `${FLOW}.invoice-pdf`,
      requirement: 'INV-PDF-001',
      level: 'MUST',
      operation: 'GET /account/invoices/{invoice_id}/pdf',
      title: 'an invoice is readable and its PDF is a real PDF (%PDF- … %%EOF)',
    },
    async ({ api, ctx }) => {
      const list = await api.get('/account/invoices');
      expectStatus(list, 200);
      const invoices = list.json<{ invoices: Array<{ id: string; number: string }> }>().invoices;
      ctx.testInfo.skip(invoices.length === 0, 'the account has no invoice to download');
      const invoice = invoices[0]!;
      const details = await api.get(`/account/invoices/${encodeURIComponent(invoice.id)}`);
      expectStatus(details, 200);
      const pdf = await api.get(`/account/invoices/${encodeURIComponent(invoice.id)}/pdf`, {
        headers: { accept: 'application/pdf' },
      });
      expectStatus(pdf, 200);
      expectPdf(pdf);
      const end = pdf.bytes.subarray(-32).toString('latin1').trimEnd();
      expectBody(end.endsWith('%%EOF'), () => ({
        subject: 'pdf end',
        expected: '"%%EOF"',
        actual: JSON.stringify(end.slice(-5)),
        judged: judged(pdf),
        says: `the PDF body ends with ${JSON.stringify(end.slice(-5))}, not %%EOF`,
      }));
    },
  );

  step(
    {
      id: `${FLOW}.usage`,
      requirement: 'BILL-USE-001',
      level: 'MUST',
      operation: 'GET /account/usage',
      title: 'current usage has period, total_cost, currency and the three services',
    },
    async ({ api }) => {
      const res = await api.get('/account/usage');
      expectStatus(res, 200);
      const usage = res.json<{
        usage: {
          period: { start: string; end: string };
          total_cost: number;
          currency: string;
          services: Record<string, { cost: number }>;
        };
      }>().usage;
      expect(
        Number.isNaN(Date.parse(usage.period.start)) || Number.isNaN(Date.parse(usage.period.end)),
        'period start and end are dates',
      ).toBe(false);
      expect(Date.parse(usage.period.start), 'period.start ≤ period.end').toBeLessThanOrEqual(
        Date.parse(usage.period.end),
      );
      expectFields(usage, { total_cost: 'number', currency: 'string', services: 'object' }, 'the current usage', res);
      for (const service of ['compute', 'storage', 'messaging'])
        expectFields(usage.services[service], { cost: 'number' }, `usage of ${service}`, res);
    },
  );

  step(
    {
      id: `${FLOW}.costs-shape`,
      requirement: 'BILL-ANA-001',
      level: 'MUST',
      operation: 'GET /account/analytics/costs',
      title: 'the cost breakdown entries carry service, cost, percentage and resources',
    },
    async ({ api }) => {
      const res = await api.get('/account/analytics/costs', { query: { group_by: 'service' } });
      expectStatus(res, 200);
      const body = res.json<{ cost_breakdown: Array<Record<string, unknown>>; total_cost: number; currency: string }>();
      const top = { cost_breakdown: 'array', total_cost: 'number', currency: 'string' } as const;
      expectFields(body, top, 'the cost analytics', res);
      const entryFields = { service: 'string', cost: 'number', percentage: 'number', resources: 'array' } as const;
      for (const entry of body.cost_breakdown)
        expectFields(entry, entryFields, `the ${String(entry.service)} entry of cost_breakdown`, res);
    },
  );

  step(
    {
      id: `${FLOW}.costs-consistent`,
      requirement: 'BILL-ANA-003',
      level: 'SHOULD',
      operation: 'GET /account/analytics/costs',
      title: 'cost breakdown percentages add up to 100 and costs to total_cost',
    },
    async ({ api }) => {
      const res = await api.get('/account/analytics/costs', { query: { group_by: 'service' } });
      expectStatus(res, 200);
      const body = res.json<{ cost_breakdown: Array<{ cost: number; percentage: number }>; total_cost: number }>();
      const costs = body.cost_breakdown.reduce((sum, e) => sum + e.cost, 0);
      expect(
        Math.abs(costs - body.total_cost),
        `sum of costs ${costs} vs total_cost ${body.total_cost}`,
      ).toBeLessThanOrEqual(TOLERANCE * Math.max(1, body.cost_breakdown.length));
      if (body.total_cost !== 0) {
        const percent = body.cost_breakdown.reduce((sum, e) => sum + e.percentage, 0);
        expect(Math.abs(percent - 100), `percentages add up to ${percent}`).toBeLessThanOrEqual(0.1);
      }
    },
  );

  step(
    {
      id: `${FLOW}.alert`,
      requirement: 'BILL-ALR-003',
      level: 'MUST',
      operation: 'GET /account/alerts',
      title: 'a created billing alert is listed',
    },
    async ({ api, ledger }) => {
      const res = await api.post('/account/alerts', {
        type: 'balance',
        threshold: 0.01,
        condition: 'less_than',
        notification_methods: ['email'],
      });
      expectStatus(res, [200, 201]);
      const created = expectResource<{ id: string }>(res, 'alert');
      ledger.track('alert', created.id);
      const list = await api.get('/account/alerts');
      expectStatus(list, 200);
      // The list's body is not shown: `alerts` (the convention), a bare array or under `data`.
      expect(
        (listOf<{ id: string }>(list.body, 'alerts') ?? []).map((a) => a.id),
        'GET /account/alerts',
      ).toContain(created.id);
    },
  );

  step(
    {
      id: `${FLOW}.alert-methods`,
      requirement: 'BILL-ALR-002',
      level: 'MUST',
      operation: 'POST /account/alerts',
      title: 'POST /account/alerts accepts email and sms as notification methods',
    },
    async ({ api, ledger }) => {
      const res = await api.post('/account/alerts', {
        type: 'balance',
        threshold: 0.01,
        condition: 'less_than',
        notification_methods: ['email', 'sms'],
      });
      const created = expectResource<{ id: string }>(res, 'alert');
      ledger.track('alert', created.id);
    },
  );
});
