import type { AreaModule } from '../area.ts';

// Placeholder until the compute area lands.
export const computeArea: AreaModule = {
  name: 'compute',
  faults: [],
  plugin: async () => {},
};
