/** API keys: list (prefix only), create (the one response with the full secret), revoke. */
import type { AreaModule } from '../area.ts';
import { apiKeyFaults } from './faults.ts';
import { registerApiKeyRoutes } from './routes.ts';

export const apiKeysArea: AreaModule = {
  name: 'api-keys',
  faults: apiKeyFaults,
  plugin: async (app, { ctx }) => {
    registerApiKeyRoutes(app, ctx);
  },
};
