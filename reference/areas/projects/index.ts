import type { AreaModule } from '../area.ts';

// Placeholder until the projects area lands.
export const projectsArea: AreaModule = {
  name: 'projects',
  faults: [],
  plugin: async () => {},
};
