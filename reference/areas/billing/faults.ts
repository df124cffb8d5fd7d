/**
 * Deliberate non-conformances of the billing area (`--fault NAME`). Each breaks exactly one
 * requirement of spec/requirements.yaml (a MUST, or the SHOULD of a convention) and is implemented at the line it bends.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const BILLING_FAULTS = {
  accountUpdateIgnored: 'account-update-ignored',
  walletBalanceStrings: 'wallet-balance-strings',
  topupPaymentMethodUnchecked: 'topup-payment-method-unchecked',
  billingMetaMissing: 'billing-meta-missing',
  historyTypeFilterIgnored: 'history-type-filter-ignored',
  usageServiceUnchecked: 'usage-service-unchecked',
  paymentMethodDeleteIgnored: 'payment-method-delete-ignored',
  invoicePdfNotPdf: 'invoice-pdf-not-pdf',
  costBreakdownResourcesMissing: 'cost-breakdown-resources-missing',
  trendsMetricOptional: 'trends-metric-optional',
  accountStatusOther: 'account-status-other',
  historyRangeIgnored: 'history-date-range-ignored',
  usageTotalText: 'usage-total-cost-text',
  idsUnprefixed: 'ids-unprefixed-billing',
  alertListEmpty: 'alert-list-empty',
  alertSmsRefused: 'alert-sms-refused',
  paymentMethodLast4Number: 'payment-method-last4-number',
  transactionResourceIdMissing: 'transaction-resource-id-missing',
  transactionStatusCapitalised: 'transaction-status-capitalised',
  usageStorageResourcesMissing: 'usage-storage-resources-missing',
  paymentMethodSetDefaultIgnored: 'payment-method-set-default-ignored',
  accountEmailMissing: 'account-email-missing',
} as const;

export const billingFaults = [
  {
    name: BILLING_FAULTS.accountUpdateIgnored,
    requirement: 'ACCT-UPD-001',
    description: 'PUT /account answers with the new values but does not keep them.',
  },
  {
    name: BILLING_FAULTS.walletBalanceStrings,
    requirement: 'WAL-LIST-001',
    description: 'Wallet balances are strings ("500.00") instead of numbers.',
  },
  {
    name: BILLING_FAULTS.topupPaymentMethodUnchecked,
    requirement: 'WAL-TOP-001',
    description: 'A top-up without payment_method is accepted.',
  },
  {
    name: BILLING_FAULTS.billingMetaMissing,
    requirement: 'BILL-HIST-001',
    description: 'GET /account/billing/history has no meta object.',
  },
  {
    name: BILLING_FAULTS.historyTypeFilterIgnored,
    requirement: 'BILL-HIST-003',
    description: 'The type filter of the billing history is ignored.',
  },
  {
    name: BILLING_FAULTS.usageServiceUnchecked,
    requirement: 'BILL-USE-003',
    description: 'GET /account/usage accepts any service value.',
  },
  {
    name: BILLING_FAULTS.paymentMethodDeleteIgnored,
    requirement: 'BILL-PM-004',
    description: 'Deleting a payment method answers 204 but keeps it listed.',
  },
  {
    name: BILLING_FAULTS.invoicePdfNotPdf,
    requirement: 'INV-PDF-001',
    description: 'The invoice PDF is plain text labelled application/pdf.',
  },
  {
    name: BILLING_FAULTS.costBreakdownResourcesMissing,
    requirement: 'BILL-ANA-001',
    description: 'Cost breakdown entries lack their resources array.',
  },
  {
    name: BILLING_FAULTS.trendsMetricOptional,
    requirement: 'BILL-TRD-001',
    description: 'GET /account/analytics/trends works without metric (defaults to cost).',
  },
  {
    name: BILLING_FAULTS.usageTotalText,
    requirement: 'BILL-USE-001',
    description: 'GET /account/usage gives total_cost as a string.',
  },
  {
    name: BILLING_FAULTS.alertListEmpty,
    requirement: 'BILL-ALR-003',
    description: 'GET /account/alerts lists no alert.',
  },
  {
    name: BILLING_FAULTS.alertSmsRefused,
    requirement: 'BILL-ALR-002',
    description: 'POST /account/alerts refuses `sms` in notification_methods.',
  },
  {
    name: BILLING_FAULTS.paymentMethodLast4Number,
    requirement: 'BILL-PM-001',
    description: 'GET /account/payment-methods lists last4 as a number.',
  },
  {
    name: BILLING_FAULTS.historyRangeIgnored,
    requirement: 'BILL-HIST-004',
    description: 'GET /account/billing/history ignores from_date and to_date.',
  },
  {
    name: BILLING_FAULTS.transactionResourceIdMissing,
    requirement: 'BILL-HIST-002',
    description: 'Transactions of the billing history carry no resource_id.',
  },
  {
    name: BILLING_FAULTS.transactionStatusCapitalised,
    requirement: 'BILL-HIST-005',
    description: 'Completed transactions report status `Completed` instead of `completed`.',
  },
  {
    name: BILLING_FAULTS.usageStorageResourcesMissing,
    requirement: 'BILL-USE-002',
    description: 'GET /account/usage gives services.storage without its resources array.',
  },
  {
    name: BILLING_FAULTS.paymentMethodSetDefaultIgnored,
    requirement: 'BILL-PM-003',
    description: 'set_default: true is ignored: a method added while another is on file is not the default.',
  },
  {
    name: BILLING_FAULTS.accountEmailMissing,
    requirement: 'ACCT-GET-001',
    description: 'GET /account answers the account without its email.',
  },
  {
    name: BILLING_FAULTS.accountStatusOther,
    requirement: 'ACCT-GET-002',
    description: 'GET /account reports the account of a working key as `enabled` instead of `active`.',
  },
  {
    name: BILLING_FAULTS.idsUnprefixed,
    requirement: 'WAL-ID-001',
    description: 'Transactions, payment methods, invoices and billing alerts get ids without their type prefix.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof billingFaults)[number]['name'], true> {}
}
