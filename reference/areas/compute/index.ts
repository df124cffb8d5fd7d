/**
 * The compute area: VPS instances and their actions and metrics, the region/size/image
 * catalogue, SSH keys and VPS snapshots (specification, Endpoints / Compute).
 */
import type { ReferenceContext } from '../../core/context.ts';
import type { AreaModule } from '../area.ts';
import { COMPUTE_FAULTS } from './faults.ts';
import { computeLookup, computeResourceProvider } from './provider.ts';
import { registerComputeRoutes } from './routes.ts';
import { ComputeService } from './service.ts';
import { COMPUTE_VARIANTS } from './variants.ts';

/** One service per server context: `setup` creates it, the plugin reuses it. */
const services = new WeakMap<ReferenceContext, ComputeService>();

function serviceFor(ctx: ReferenceContext): ComputeService {
  let service = services.get(ctx);
  if (!service) {
    service = new ComputeService(ctx);
    services.set(ctx, service);
  }
  return service;
}

export const computeArea: AreaModule = {
  name: 'compute',
  faults: [...COMPUTE_FAULTS],
  variants: COMPUTE_VARIANTS,
  setup(ctx) {
    const service = serviceFor(ctx);
    ctx.services.provide('compute', computeLookup(service));
    ctx.services.addResourceProvider(computeResourceProvider(ctx, service));
  },
  plugin: async (app, { ctx }) => {
    registerComputeRoutes(app, ctx, serviceFor(ctx));
  },
};
