/**
 * What compute offers other areas: the `compute` lookup (volumes attach to instances and accept
 * the same region slugs) and a resource provider (projects list instances, billing prices them).
 */
import type { ReferenceContext } from '../../core/context.ts';
import type { ComputeLookup, ResourceProvider } from '../../core/services.ts';
import { findRegion } from './catalog.ts';
import type { ComputeService } from './service.ts';
import { computeState } from './store.ts';

const HOUR_MS = 3_600_000;

export function computeLookup(service: ComputeService): ComputeLookup {
  return {
    findVps(accountId, vpsId) {
      const record = service.find(accountId, vpsId);
      return record ? { id: record.id, name: record.name, region: record.region, status: record.status } : undefined;
    },
    findRegion(slug) {
      const region = findRegion(slug);
      return region ? { slug: region.slug, available: region.available, features: [...region.features] } : undefined;
    },
    onVpsDeleted(listener) {
      service.onVpsDeleted(listener);
    },
  };
}

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Hours of [fromMs, toMs] during which something that lived over [bornMs, diedMs] existed. */
function overlapHours(bornMs: number, diedMs: number, fromMs: number, toMs: number): number {
  return Math.max(0, Math.min(diedMs, toMs) - Math.max(bornMs, fromMs)) / HOUR_MS;
}

export function computeResourceProvider(ctx: ReferenceContext, service: ComputeService): ResourceProvider {
  return {
    service: 'compute',
    resources(accountId) {
      return [...computeState(ctx, accountId).vps.values()].map((vps) => ({
        id: vps.id,
        type: 'vps',
        name: vps.name,
        status: vps.status,
        service: 'compute' as const,
        region: vps.region,
        monthly_cost: service.priceOf(vps.size).monthly,
        created_at: vps.created_at,
        project_id: vps.project_id,
      }));
    },
    // Instances are billed by the hour at their size's hourly price, deleted ones for the time
    // they lived. A resize reprices the whole period (the reference keeps no size history).
    usage(accountId, fromMs, toMs) {
      const state = computeState(ctx, accountId);
      const now = ctx.clock.now();
      const lives = [
        ...[...state.vps.values()].map((v) => ({
          id: v.id,
          name: v.name,
          size: v.size,
          createdMs: v.createdMs,
          deletedMs: now,
        })),
        ...state.retired,
      ];
      const resources = lives
        .map((life) => ({ life, hours: overlapHours(life.createdMs, life.deletedMs, fromMs, toMs) }))
        .filter(({ hours }) => hours > 0)
        .map(({ life, hours }) => ({
          type: 'vps',
          id: life.id,
          name: life.name,
          cost: round(hours * service.priceOf(life.size).hourly),
          hours: round(hours, 6),
        }));
      return { service: 'compute', cost: round(resources.reduce((sum, r) => sum + r.cost, 0)), resources };
    },
    remove(accountId, resourceId) {
      service.delete(accountId, resourceId);
    },
  };
}
