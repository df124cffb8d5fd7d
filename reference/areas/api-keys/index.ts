/** API keys: list (prefix only), create (the one response with the full secret), revoke. */
import type { AreaModule } from '../area.ts';
import { apiKeyFaults } from './faults.ts';
import { registerApiKeyRoutes } from './routes.ts';
import { API_KEY_VARIANTS } from './variants.ts';

export const apiKeysArea: AreaModule = {
  name: 'api-keys',
  faults: apiKeyFaults,
  variants: API_KEY_VARIANTS,
  plugin: async (app, { ctx }) => {
    registerApiKeyRoutes(app, ctx);
  },
};
