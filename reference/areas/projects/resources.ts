/**
 * A project's resources, gathered from the resource providers of the other areas (compute,
 * storage, messaging) by their `project_id`. Projects never hold copies, so a VPS deleted
 * through /vps disappears from its project at once.
 */
import { createHmac } from 'node:crypto';
import type { ReferenceContext } from '../../core/context.ts';
import type { ProjectResource, ResourceProvider } from '../../core/services.ts';

/** Resources without a region (messaging) are reported as `global`: the field is a string. */
export const NO_REGION = 'global';

/** Removal order: servers before the volumes and buckets they may still use. */
const REMOVAL_ORDER: Record<ResourceProvider['service'], number> = { compute: 0, storage: 1, messaging: 2 };

export interface OwnedResource {
  provider: ResourceProvider;
  resource: ProjectResource;
}

export function projectResources(ctx: ReferenceContext, accountId: string, projectId: string): OwnedResource[] {
  return [...ctx.services.resourceProviders]
    .sort((a, b) => REMOVAL_ORDER[a.service] - REMOVAL_ORDER[b.service])
    .flatMap((provider) =>
      provider
        .resources(accountId)
        .filter((r) => r.project_id === projectId)
        .map((resource) => ({ provider, resource })),
    );
}

/**
 * Project resources get their own `res_` id (conventions.md, Ids), derived from the underlying
 * id with the server's secret: stable across calls, and not guessable from the VPS or bucket id.
 * `resource_id` keeps the underlying id so the client can act on it in its own area.
 */
export function projectResourceView(ctx: ReferenceContext, resource: ProjectResource): Record<string, unknown> {
  const id = `res_${createHmac('sha256', ctx.options.signingSecret).update(`${resource.service}:${resource.id}`).digest('hex').slice(0, 16)}`;
  return {
    id,
    type: resource.type,
    name: resource.name,
    status: resource.status,
    service: resource.service,
    region: resource.region ?? NO_REGION,
    monthly_cost: resource.monthly_cost,
    created_at: resource.created_at,
    resource_id: resource.id,
  };
}
