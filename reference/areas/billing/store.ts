/**
 * Per-account billing state: wallets, the transaction ledger, payment methods, invoices and
 * alerts. A new account is seeded like a real one a few months old (a card on file, a short
 * history, three invoices), so a first GET shows realistic data and the suite can test filters.
 * Everything is derived from the clock at first use, so the seed stays "recent" whenever the
 * server starts.
 */
import type { ReferenceContext } from '../../core/context.ts';
import { newId } from '../../core/ids.ts';
import { toUnits } from './money.ts';

export interface WalletRecord {
  currency: string;
  /** All amounts in money units (money.ts). */
  available: number;
  pending: number;
  reserved: number;
}

export type TransactionType = 'charge' | 'payment' | 'refund';

export interface TransactionRecord {
  id: string;
  type: TransactionType;
  /** Positive; `type` says which way the money went. */
  amount: number;
  currency: string;
  description: string;
  status: string;
  createdMs: number;
  service: string;
  resourceId: string;
}

export interface PaymentMethodRecord {
  id: string;
  type: 'card' | 'bank_account';
  brand: string | null;
  last4: string;
  expMonth: number | null;
  expYear: number | null;
  isDefault: boolean;
  createdMs: number;
}

export interface LineItem {
  description: string;
  service: string;
  quantity: number;
  unit_price: number;
  amount: number;
}

export interface InvoiceRecord {
  id: string;
  number: string;
  status: 'paid' | 'pending' | 'overdue';
  amount: number;
  currency: string;
  periodStartMs: number;
  periodEndMs: number;
  dueMs: number;
  paidMs: number | null;
  createdMs: number;
  lineItems: Array<Omit<LineItem, 'unit_price' | 'amount'> & { unitPrice: number; amount: number }>;
}

export interface AlertRecord {
  id: string;
  type: string;
  threshold: number;
  condition: string;
  notificationMethods: string[];
  status: string;
  createdMs: number;
}

export interface BillingState {
  wallets: Map<string, WalletRecord>;
  /** Oldest first; listings reverse it. */
  transactions: TransactionRecord[];
  paymentMethods: PaymentMethodRecord[];
  invoices: InvoiceRecord[];
  alerts: AlertRecord[];
}

const DAY = 86_400_000;

export function billingState(ctx: ReferenceContext, accountId: string): BillingState {
  return ctx.accountState(accountId, 'billing', () => seedState(ctx.clock.now()));
}

function monthStart(ms: number, offset: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
}

function seedState(now: number): BillingState {
  const state: BillingState = { wallets: new Map(), transactions: [], paymentMethods: [], invoices: [], alerts: [] };
  // USD is the account currency; EUR exists but is empty, as after opening a second wallet.
  // The history below adds up to the seeded USD balance (600 - 72.50 - 37.50 + 10 = 500).
  state.wallets.set('USD', { currency: 'USD', available: toUnits(500), pending: 0, reserved: 0 });
  state.wallets.set('EUR', { currency: 'EUR', available: 0, pending: 0, reserved: 0 });
  state.paymentMethods.push({
    id: newId('pm'),
    type: 'card',
    brand: 'visa',
    last4: '4242',
    expMonth: 12,
    expYear: new Date(now).getUTCFullYear() + 3,
    isDefault: true,
    createdMs: now - 60 * DAY,
  });
  const card = state.paymentMethods[0]?.id ?? '';
  // `service` and `resource_id` are always strings (the specification types them so): a payment
  // names the billing service and the payment method it came from.
  const seedTxn = (
    daysAgo: number,
    type: TransactionType,
    amount: number,
    description: string,
    service: string,
    resourceId: string,
  ): void => {
    state.transactions.push({
      id: newId('txn'),
      type,
      amount: toUnits(amount),
      currency: 'USD',
      description,
      status: 'completed',
      createdMs: now - daysAgo * DAY,
      service,
      resourceId,
    });
  };
  seedTxn(45, 'payment', 600, 'Wallet top-up (visa •••• 4242)', 'billing', card);
  seedTxn(31, 'charge', 72.5, 'Compute usage: web-1 (s-2vcpu-4gb)', 'compute', 'vps_seed0000000001');
  seedTxn(20, 'charge', 37.5, 'Object storage: archive bucket', 'storage', 'cc-seed-archive');
  seedTxn(12, 'refund', 10, 'Refund: failed SMS deliveries', 'messaging', 'cmp_seed0000000001');

  // Three monthly invoices: the oldest paid, the next overdue, last month's still pending.
  const invoice = (
    monthsAgo: number,
    status: InvoiceRecord['status'],
    items: Array<[string, string, number, number]>,
  ): void => {
    const periodStartMs = monthStart(now, -monthsAgo);
    const periodEndMs = monthStart(now, -monthsAgo + 1) - 1000;
    const createdMs = periodEndMs + 1000;
    const lineItems = items.map(([description, service, quantity, unitPrice]) => ({
      // Invoices are billed in whole cents (100 money units).
      description,
      service,
      quantity,
      unitPrice: toUnits(unitPrice),
      amount: Math.round((quantity * toUnits(unitPrice)) / 100) * 100,
    }));
    const start = new Date(periodStartMs);
    const sequence = start.getUTCFullYear() * 100 + start.getUTCMonth() + 1;
    state.invoices.push({
      id: newId('inv'),
      number: `INV-${sequence}-${String(1000 + state.invoices.length).slice(1)}`,
      status,
      amount: lineItems.reduce((sum, item) => sum + item.amount, 0),
      currency: 'USD',
      periodStartMs,
      periodEndMs,
      // Overdue: its due date has passed; pending: due in the future, whatever today's date is.
      dueMs: status === 'overdue' ? now - 5 * DAY : status === 'pending' ? now + 10 * DAY : createdMs + 15 * DAY,
      paidMs: status === 'paid' ? createdMs + 3 * DAY : null,
      createdMs,
      lineItems,
    });
  };
  invoice(3, 'paid', [
    ['VPS s-2vcpu-4gb (720 h)', 'compute', 720, 0.03571],
    ['Object storage (250 GB-month)', 'storage', 250, 0.02],
  ]);
  invoice(2, 'overdue', [
    ['VPS s-1vcpu-1gb (744 h)', 'compute', 744, 0.00893],
    ['SMS (1200 messages)', 'messaging', 1200, 0.0075],
  ]);
  invoice(1, 'pending', [
    ['VPS s-2vcpu-4gb (744 h)', 'compute', 744, 0.03571],
    ['Block storage (100 GB-month)', 'storage', 100, 0.1],
  ]);
  return state;
}
