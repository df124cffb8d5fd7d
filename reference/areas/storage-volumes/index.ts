/**
 * Block storage: volumes, attach/detach, resize, volume snapshots and restore (specification,
 * Endpoints / Storage). Instances come from the compute area's `compute` service, never from its
 * code; when an instance is deleted its volumes are detached.
 */
import type { AreaModule } from '../area.ts';
import { VOLUME_FAULTS } from './faults.ts';
import { volumeResourceProvider } from './provider.ts';
import { registerVolumeRoutes } from './routes.ts';
import { VolumeService } from './service.ts';
import { VOLUME_VARIANTS } from './variants.ts';

export const storageVolumesArea: AreaModule = {
  name: 'storage-volumes',
  faults: [...VOLUME_FAULTS],
  variants: VOLUME_VARIANTS,
  setup(ctx) {
    ctx.services.addResourceProvider(volumeResourceProvider(ctx, new VolumeService(ctx)));
  },
  plugin: async (app, { ctx }) => {
    const service = new VolumeService(ctx);
    // Plugins run after every area's setup, so the compute service is registered by now.
    ctx.services.get('compute').onVpsDeleted((accountId, vpsId) => service.detachAllFrom(accountId, vpsId));
    registerVolumeRoutes(app, ctx, service);
  },
};
