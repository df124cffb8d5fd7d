import type { AreaModule } from '../area.ts';

// Placeholder until the storage-objects area lands.
export const storageObjectsArea: AreaModule = {
  name: 'storage-objects',
  faults: [],
  plugin: async () => {},
};
