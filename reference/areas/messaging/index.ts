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
import { MESSAGING_VARIANTS } from './variants.ts';

export const messagingArea: AreaModule = {
  name: 'messaging',
  faults: [...MESSAGING_FAULTS],
  variants: MESSAGING_VARIANTS,
  setup(ctx) {
    ctx.services.addResourceProvider(messagingUsageProvider(ctx));
  },
  plugin: async (app, { ctx }) => {
    registerSmsRoutes(app, ctx);
    registerConfigRoutes(app, ctx);
    registerAnalyticsRoutes(app, ctx);
  },
};
