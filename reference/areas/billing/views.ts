/** JSON shapes of billing resources (specification, "Resources and their fields"). */
import { isoTimestamp } from '../../core/clock.ts';
import { fromUnits } from './money.ts';
import type { AlertRecord, InvoiceRecord, PaymentMethodRecord, TransactionRecord, WalletRecord } from './store.ts';

export function walletView(wallet: WalletRecord): Record<string, unknown> {
  return {
    currency: wallet.currency,
    available_balance: fromUnits(wallet.available),
    pending_balance: fromUnits(wallet.pending),
    reserved_balance: fromUnits(wallet.reserved),
    total_balance: fromUnits(wallet.available + wallet.pending + wallet.reserved),
  };
}

export function transactionView(txn: TransactionRecord): Record<string, unknown> {
  return {
    id: txn.id,
    type: txn.type,
    amount: fromUnits(txn.amount),
    currency: txn.currency,
    description: txn.description,
    status: txn.status,
    created_at: isoTimestamp(txn.createdMs),
    service: txn.service,
    resource_id: txn.resourceId,
  };
}

export function paymentMethodView(pm: PaymentMethodRecord): Record<string, unknown> {
  return {
    id: pm.id,
    type: pm.type,
    brand: pm.brand,
    last4: pm.last4,
    exp_month: pm.expMonth,
    exp_year: pm.expYear,
    is_default: pm.isDefault,
    created_at: isoTimestamp(pm.createdMs),
  };
}

export function invoiceView(invoice: InvoiceRecord, withLineItems = false): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    amount: fromUnits(invoice.amount),
    currency: invoice.currency,
    period_start: isoTimestamp(invoice.periodStartMs),
    period_end: isoTimestamp(invoice.periodEndMs),
    due_date: isoTimestamp(invoice.dueMs),
    paid_at: invoice.paidMs === null ? null : isoTimestamp(invoice.paidMs),
    created_at: isoTimestamp(invoice.createdMs),
  };
  if (withLineItems) {
    view.line_items = invoice.lineItems.map((item) => ({
      description: item.description,
      service: item.service,
      quantity: item.quantity,
      unit_price: fromUnits(item.unitPrice),
      amount: fromUnits(item.amount),
    }));
  }
  return view;
}

export function alertView(alert: AlertRecord): Record<string, unknown> {
  return {
    id: alert.id,
    type: alert.type,
    threshold: alert.threshold,
    condition: alert.condition,
    notification_methods: [...alert.notificationMethods],
    status: alert.status,
    created_at: isoTimestamp(alert.createdMs),
  };
}
