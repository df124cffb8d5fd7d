/**
 * Object storage as billing and projects see it: buckets are storage resources, their cost
 * comes from the same counters as GET /storage/usage, and removing one empties and deletes it.
 */
import type { ProjectResource, ResourceProvider, ServiceUsage } from '../../core/services.ts';
import { GB, PRICE_PER_GB_MONTH } from './catalog.ts';
import type { ObjectStore } from './store.ts';
import { round6 } from './usage.ts';

export function storageObjectsProvider(store: ObjectStore): ResourceProvider {
  return {
    service: 'storage',
    resources(accountId: string): ProjectResource[] {
      return store.listBuckets(accountId).map((bucket) => ({
        // Buckets have no id of their own: the globally unique name identifies them.
        id: bucket.name,
        type: 'bucket',
        name: bucket.name,
        status: 'active',
        service: 'storage',
        region: bucket.region,
        monthly_cost: round6((bucket.size / GB) * PRICE_PER_GB_MONTH),
        created_at: bucket.created_at,
        project_id: bucket.project_id,
      }));
    },
    usage(accountId: string, fromMs: number, toMs: number): ServiceUsage {
      const ledger = store.usage(accountId);
      const resources = store.listBuckets(accountId).map((bucket) => {
        const { summary } = ledger.report(fromMs, toMs, bucket.name);
        // storage_gb is what the bucket holds now; bandwidth_gb what was downloaded in the period.
        return {
          type: 'bucket',
          bucket: bucket.name,
          cost: summary.total_cost,
          storage_gb: round6(bucket.size / GB),
          bandwidth_gb: round6(summary.total_bandwidth / GB),
        };
      });
      return { service: 'storage', cost: round6(resources.reduce((sum, r) => sum + r.cost, 0)), resources };
    },
    remove(accountId: string, resourceId: string): void {
      if (store.findBucket(accountId, resourceId)) store.deleteBucket(accountId, resourceId, { force: true });
    },
  };
}
