/**
 * The messaging area (SMS): sends, campaigns, status and history, sender ids, templates, contact
 * lists, opt-outs, webhooks and delivery analytics. Routes live in three files by concern; the
 * message life cycle in delivery.ts; state in store.ts.
 */
import type { AreaModule } from '../area.ts';
import { messagingUsageProvider, registerAnalyticsRoutes } from './analytics.ts';
import { MESSAGING_FAULTS } from './faults.ts';
import { registerConfigRoutes } from './routes-config.ts';
import { registerSmsRoutes } from './routes-sms.ts';

export const messagingArea: AreaModule = {
  name: 'messaging',
  faults: [...MESSAGING_FAULTS],
  setup(ctx) {
    ctx.services.addResourceProvider(messagingUsageProvider(ctx));
  },
  plugin: async (app, { ctx }) => {
    registerSmsRoutes(app, ctx);
    registerConfigRoutes(app, ctx);
    registerAnalyticsRoutes(app, ctx);
  },
};
