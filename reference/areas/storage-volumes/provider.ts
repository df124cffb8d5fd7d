/**
 * Volumes as billable resources: projects list them (service `storage`, beside the buckets the
 * object-storage area provides) and billing prices them per GB-month for the hours they existed.
 */
import type { ReferenceContext } from '../../core/context.ts';
import type { ResourceProvider } from '../../core/services.ts';
import type { VolumeService } from './service.ts';
import { PRICE_PER_GB_MONTH, volumeState } from './store.ts';

const HOUR_MS = 3_600_000;
/** Hours in an average month (365 × 24 / 12). */
const HOURS_PER_MONTH = 730;

function round(value: number, digits = 4): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function volumeResourceProvider(ctx: ReferenceContext, service: VolumeService): ResourceProvider {
  return {
    service: 'storage',
    resources(accountId) {
      return [...volumeState(ctx, accountId).volumes.values()].map((volume) => ({
        id: volume.id,
        type: 'volume',
        name: volume.name,
        status: volume.status,
        service: 'storage' as const,
        region: volume.region,
        monthly_cost: round(volume.size * PRICE_PER_GB_MONTH, 2),
        created_at: volume.created_at,
        project_id: volume.project_id,
      }));
    },
    // Usage entries follow the storage entry of GET /account/usage, which the specification
    // gives as type, bucket, cost, storage_gb, bandwidth_gb (BILL-USE-002). `bucket` is the
    // storage resource's identifier; for a volume that is its id (`type` says it is a volume),
    // with `id` and `name` beside it like the compute entries.
    usage(accountId, fromMs, toMs) {
      const state = volumeState(ctx, accountId);
      const now = ctx.clock.now();
      const lives = [
        ...[...state.volumes.values()].map((v) => ({
          id: v.id,
          name: v.name,
          size: v.size,
          createdMs: v.createdMs,
          deletedMs: now,
        })),
        ...state.retired,
      ];
      const resources = lives
        .map((life) => ({
          life,
          hours: Math.max(0, Math.min(life.deletedMs, toMs) - Math.max(life.createdMs, fromMs)) / HOUR_MS,
        }))
        .filter(({ hours }) => hours > 0)
        .map(({ life, hours }) => {
          const cost = round((life.size * PRICE_PER_GB_MONTH * hours) / HOURS_PER_MONTH);
          return {
            type: 'volume',
            bucket: life.id,
            id: life.id,
            name: life.name,
            cost,
            storage_gb: life.size,
            bandwidth_gb: 0,
            hours: round(hours, 6),
          };
        });
      return { service: 'storage', cost: round(resources.reduce((sum, r) => sum + r.cost, 0)), resources };
    },
    remove(accountId, resourceId) {
      const volume = service.find(accountId, resourceId);
      if (volume) service.delete(accountId, volume, true);
    },
  };
}
