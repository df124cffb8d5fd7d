/**
 * Billing: account, wallets and top-up, billing history, current usage, payment methods,
 * invoices (with PDF), cost analytics, usage trends and billing alerts. It offers the wallet to
 * the other areas and reads their costs through the resource providers they register.
 */
import type { AreaModule } from '../area.ts';
import { billingFaults } from './faults.ts';
import { registerAccountRoutes } from './routes-account.ts';
import { registerAnalyticsRoutes } from './routes-analytics.ts';
import { registerPaymentRoutes } from './routes-payments.ts';
import { createWalletService } from './wallet.ts';

export const billingArea: AreaModule = {
  name: 'billing',
  faults: billingFaults,
  setup(ctx) {
    ctx.services.provide('wallet', createWalletService(ctx));
  },
  plugin: async (app, { ctx }) => {
    registerAccountRoutes(app, ctx);
    registerPaymentRoutes(app, ctx);
    registerAnalyticsRoutes(app, ctx);
  },
};
