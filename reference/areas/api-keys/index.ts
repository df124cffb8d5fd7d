import type { AreaModule } from '../area.ts';

// Placeholder until the api-keys area lands.
export const apiKeysArea: AreaModule = {
  name: 'api-keys',
  faults: [],
  plugin: async () => {},
};
