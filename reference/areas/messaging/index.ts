import type { AreaModule } from '../area.ts';

// Placeholder until the messaging area lands.
export const messagingArea: AreaModule = {
  name: 'messaging',
  faults: [],
  plugin: async () => {},
};
