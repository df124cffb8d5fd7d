import type { AreaModule } from '../area.ts';

// Placeholder until the storage-volumes area lands.
export const storageVolumesArea: AreaModule = {
  name: 'storage-volumes',
  faults: [],
  plugin: async () => {},
};
