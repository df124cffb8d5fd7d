/**
 * The wallet service other areas charge through (messaging debits each SMS). A charge is all or
 * nothing: either the balance covers it and a `charge` transaction is recorded, or nothing
 * changes and `insufficient_balance` tells the caller what was required and available.
 */
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { WalletService } from '../../core/services.ts';
import { fromUnits, toUnits } from './money.ts';
import { type BillingState, type TransactionRecord, type WalletRecord, billingState } from './store.ts';

export function walletFor(state: BillingState, currency: string): WalletRecord {
  let wallet = state.wallets.get(currency);
  if (!wallet) {
    wallet = { currency, available: 0, pending: 0, reserved: 0 };
    state.wallets.set(currency, wallet);
  }
  return wallet;
}

export function recordTransaction(
  ctx: ReferenceContext,
  state: BillingState,
  txn: Omit<TransactionRecord, 'id' | 'createdMs' | 'status'>,
): TransactionRecord {
  const record: TransactionRecord = { ...txn, id: newId('txn'), status: 'completed', createdMs: ctx.clock.now() };
  state.transactions.push(record);
  return record;
}

export function createWalletService(ctx: ReferenceContext): WalletService {
  return {
    charge(accountId, charge) {
      const state = billingState(ctx, accountId);
      const units = toUnits(charge.amount);
      const wallet = walletFor(state, charge.currency);
      if (units > wallet.available) {
        throw new ApiError('insufficient_balance', `The ${charge.currency} wallet cannot pay ${charge.amount}.`, {
          required: fromUnits(units),
          available: fromUnits(wallet.available),
          currency: charge.currency,
        });
      }
      wallet.available -= units;
      recordTransaction(ctx, state, {
        type: 'charge',
        amount: units,
        currency: charge.currency,
        description: charge.description,
        service: charge.service,
        resourceId: charge.resourceId,
      });
    },
  };
}
