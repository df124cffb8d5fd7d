import type { AreaModule } from '../area.ts';

// Placeholder until the billing area lands.
export const billingArea: AreaModule = {
  name: 'billing',
  faults: [],
  plugin: async () => {},
};
