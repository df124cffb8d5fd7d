import type { FastifyPluginAsync } from 'fastify';
import type { ReferenceContext } from '../core/context.ts';
import type { FaultDefinition } from '../core/faults.ts';
import type { VariantDefinition } from '../core/variants.ts';

/**
 * One area of the API as a Fastify plugin. The plugin is registered under the `/v1` prefix and
 * receives the shared context; it registers its services in `setup` (before any plugin runs,
 * so areas may look each other's services up lazily in handlers).
 */
export interface AreaModule {
  name: string;
  faults: readonly FaultDefinition[];
  /** Legal variants this area implements (core/variants.ts). */
  variants?: readonly VariantDefinition[];
  setup?(ctx: ReferenceContext): void;
  plugin: FastifyPluginAsync<{ ctx: ReferenceContext }>;
}

/**
 * The plugin under a name of its own (Fastify's display-name symbol). Without one, Fastify looks
 * each plugin it registers up among every loaded CommonJS module (require.cache) for a name: in a
 * process that has loaded Playwright, thousands of entries for each plugin of each server started.
 */
export function namedPlugin<T extends object>(name: string, plugin: T): T {
  return Object.assign(plugin, { [Symbol.for('fastify.display-name')]: name });
}
