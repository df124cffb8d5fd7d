/** Account, wallets, top-up, billing history and current usage. */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../core/accounts.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { authOf } from '../../core/http.ts';
import { paginate, readPageQuery } from '../../core/pagination.ts';
import { Fields } from '../../core/validation.ts';
import { BILLING_FAULTS } from './faults.ts';
import { CURRENCIES, fromUnits, isWholeCents, toUnits } from './money.ts';
import { currentMonth, readRange } from './periods.ts';
import { billingState } from './store.ts';
import { SERVICES, type Service, collectUsage, usageEntry } from './usage.ts';
import { transactionView, walletView } from './views.ts';
import { recordTransaction, walletFor } from './wallet.ts';

/** The largest single top-up; larger amounts are refused rather than silently accepted. */
const MAX_TOPUP = 100_000;

function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function accountView(account: Account): Record<string, unknown> {
  const { id, email, name, company, status, created_at, verified, currency, timezone } = account;
  return { id, email, name, company, status, created_at, verified, currency, timezone };
}

export function registerAccountRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  app.get('/account', async (request) => {
    const account = accountView(authOf(request).account);
    // Fault: the account answered without its email.
    if (ctx.faults.has(BILLING_FAULTS.accountEmailMissing)) delete account.email;
    // Fault: another status word for an active account.
    return { account: ctx.faults.has(BILLING_FAULTS.accountStatusOther) ? { ...account, status: 'enabled' } : account };
  });

  app.put('/account', async (request) => {
    const { account } = authOf(request);
    const fields = new Fields('billing', request.body);
    const name = fields.string('name', { min: 1, max: 200 });
    // company may be cleared with null (the account field is nullable), so read it by hand.
    let company: string | null | undefined;
    if (fields.raw('company') === null) company = null;
    else company = fields.string('company', { max: 200 });
    const timezone = fields.string('timezone', { min: 1, max: 64 });
    if (timezone !== undefined && !isIanaZone(timezone))
      fields.fail('timezone', 'timezone must be an IANA zone name such as Europe/Berlin.', { value: timezone });
    const updated: Account = {
      ...account,
      ...(name !== undefined && { name }),
      ...(company !== undefined && { company }),
      ...(timezone !== undefined && { timezone }),
    };
    // Fault: answer with the new values but keep the old ones.
    if (!ctx.faults.has(BILLING_FAULTS.accountUpdateIgnored)) Object.assign(account, updated);
    return { account: accountView(updated) };
  });

  app.get('/account/wallets', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    const wallets = [...state.wallets.values()].map(walletView);
    if (ctx.faults.has(BILLING_FAULTS.walletBalanceStrings)) {
      for (const wallet of wallets) {
        for (const key of ['available_balance', 'pending_balance', 'reserved_balance', 'total_balance'])
          wallet[key] = Number(wallet[key]).toFixed(2);
      }
    }
    return { wallets };
  });

  app.post('/account/wallets/topup', async (request) => {
    const { account } = authOf(request);
    const state = billingState(ctx, account.id);
    const fields = new Fields('billing', request.body);
    const amount = fields.number('amount', { required: true, exclusiveMin: 0, max: MAX_TOPUP });
    if (!isWholeCents(amount)) fields.fail('amount', 'amount must have at most two decimals.', { value: amount });
    const currency = fields.string('currency', { required: true, oneOf: CURRENCIES });
    // Fault: the payment method becomes optional (a top-up paid by nothing).
    const unchecked = ctx.faults.has(BILLING_FAULTS.topupPaymentMethodUnchecked);
    const methodId = fields.string('payment_method', { required: !unchecked, max: 100 });
    const method = state.paymentMethods.find((pm) => pm.id === methodId);
    if (!method && !(unchecked && methodId === undefined)) {
      fields.fail('payment_method', 'payment_method must be the id of one of your payment methods.', {
        value: methodId,
      });
    }
    const wallet = walletFor(state, currency);
    const units = toUnits(amount);
    wallet.available += units;
    const label = method ? `${method.brand ?? method.type} •••• ${method.last4}` : 'no payment method';
    const transaction = recordTransaction(ctx, state, {
      type: 'payment',
      amount: units,
      currency,
      description: `Wallet top-up (${label})`,
      service: 'billing',
      resourceId: method?.id ?? 'none',
    });
    return { transaction: transactionView(transaction), wallet: walletView(wallet) };
  });

  app.get('/account/billing/history', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    const query = new Fields('billing', request.query);
    const type = query.string('type', { oneOf: ['charge', 'payment', 'refund'] });
    const everything = { fromMs: -Infinity, toMs: Infinity };
    const asked = readRange('billing', request.query, everything);
    const range = ctx.faults.has(BILLING_FAULTS.historyRangeIgnored) ? everything : asked;
    const { page, perPage } = readPageQuery(
      'billing',
      request.query as Record<string, unknown>,
      ctx.variants,
      ctx.faults,
    );
    const typeFilter = ctx.faults.has(BILLING_FAULTS.historyTypeFilterIgnored) ? undefined : type;
    const matching = state.transactions
      .filter(
        (txn) =>
          (typeFilter === undefined || txn.type === typeFilter) &&
          txn.createdMs >= range.fromMs &&
          txn.createdMs <= range.toMs,
      )
      // Newest first; the ledger is appended in time order, so reversing keeps ties stable.
      .reverse();
    const { items, meta } = paginate(matching, page, perPage, ctx.variants, ctx.faults);
    const transactions = items.map(transactionView);
    for (const txn of transactions) {
      // Faults: a transaction without its resource_id; the completed state capitalised.
      if (ctx.faults.has(BILLING_FAULTS.transactionResourceIdMissing)) delete txn.resource_id;
      if (ctx.faults.has(BILLING_FAULTS.transactionStatusCapitalised) && txn.status === 'completed')
        txn.status = 'Completed';
    }
    return ctx.faults.has(BILLING_FAULTS.billingMetaMissing) ? { transactions } : { transactions, meta };
  });

  app.get('/account/usage', async (request) => {
    const { account } = authOf(request);
    const query = new Fields('billing', request.query);
    const service = ctx.faults.has(BILLING_FAULTS.usageServiceUnchecked)
      ? (query.string('service') as Service | undefined)
      : (query.string('service', { oneOf: SERVICES }) as Service | undefined);
    const detailed = query.queryBoolean('detailed') ?? false;
    const period = currentMonth(ctx.clock.now());
    const usage = collectUsage(ctx, account.id, period.fromMs, Math.min(period.toMs, ctx.clock.now()));
    const shown = SERVICES.filter((s) => service === undefined || s === service || !SERVICES.includes(service));
    const services: Record<string, unknown> = {};
    for (const s of shown) {
      const merged = usage[s];
      services[s] =
        s === 'messaging'
          ? { cost: merged.cost, messages_sent: merged.messagesSent, cost_per_message: merged.costPerMessage }
          : // Fault: storage without its resources array.
            s === 'storage' && ctx.faults.has(BILLING_FAULTS.usageStorageResourcesMissing)
            ? { cost: merged.cost }
            : { cost: merged.cost, resources: merged.resources.map((entry) => usageEntry(s, entry, detailed)) };
    }
    const total = shown.reduce((sum, s) => sum + toUnits(usage[s].cost), 0);
    return {
      usage: {
        period: { start: new Date(period.fromMs).toISOString(), end: new Date(period.toMs).toISOString() },
        total_cost: ctx.faults.has(BILLING_FAULTS.usageTotalText) ? String(fromUnits(total)) : fromUnits(total),
        currency: account.currency,
        services,
      },
    };
  });
}
