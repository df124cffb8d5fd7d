/**
 * Usage as the other areas report it. Billing owns no resources: every cost comes from the
 * `ResourceProvider`s the areas register (compute, storage, messaging), so the numbers here are
 * the same ones those areas would show. Several providers may serve one service (buckets and
 * volumes are both storage); their figures are added up.
 */
import type { ReferenceContext } from '../../core/context.ts';
import type { ProjectResource, ServiceUsage } from '../../core/services.ts';
import { roundMoney } from './money.ts';

export const SERVICES = ['compute', 'storage', 'messaging'] as const;
export type Service = (typeof SERVICES)[number];

export interface MergedUsage {
  cost: number;
  resources: Array<Record<string, unknown>>;
  messagesSent: number;
  /** Price per message as the messaging provider states it (0 when unknown). */
  costPerMessage: number;
}

export function collectUsage(
  ctx: ReferenceContext,
  accountId: string,
  fromMs: number,
  toMs: number,
): Record<Service, MergedUsage> {
  const empty = (): MergedUsage => ({ cost: 0, resources: [], messagesSent: 0, costPerMessage: 0 });
  const merged: Record<Service, MergedUsage> = { compute: empty(), storage: empty(), messaging: empty() };
  for (const provider of ctx.services.resourceProviders) {
    const usage: ServiceUsage = provider.usage(accountId, fromMs, toMs);
    const target = merged[usage.service];
    if (!target) continue;
    target.cost += Number.isFinite(usage.cost) ? usage.cost : 0;
    target.resources.push(...usage.resources);
    const sent = Number(usage.extra?.messages_sent ?? 0);
    const price = Number(usage.extra?.cost_per_message ?? 0);
    if (Number.isFinite(sent)) target.messagesSent += sent;
    if (Number.isFinite(price) && price > 0) target.costPerMessage = price;
  }
  for (const service of SERVICES) merged[service].cost = roundMoney(merged[service].cost);
  return merged;
}

export function allResources(ctx: ReferenceContext, accountId: string): ProjectResource[] {
  return ctx.services.resourceProviders.flatMap((provider) => provider.resources(accountId));
}

/** The fields the specification shows for a usage entry of each service. */
const ENTRY_FIELDS: Record<'compute' | 'storage', readonly string[]> = {
  compute: ['type', 'id', 'name', 'cost', 'hours'],
  storage: ['type', 'bucket', 'cost', 'storage_gb', 'bandwidth_gb'],
};

/** Without `detailed`, entries carry the specification's fields; with it, all the provider reports. */
export function usageEntry(
  service: 'compute' | 'storage',
  entry: Record<string, unknown>,
  detailed: boolean,
): Record<string, unknown> {
  if (detailed) return { ...entry };
  return Object.fromEntries(
    ENTRY_FIELDS[service].filter((field) => field in entry).map((field) => [field, entry[field]]),
  );
}

/** Splits 100 over the costs with largest-remainder rounding, so the shares add up to exactly 100.00. */
export function percentages(costs: readonly number[]): number[] {
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  if (total <= 0) return costs.map(() => 0);
  const raw = costs.map((cost) => (cost / total) * 10_000);
  const floors = raw.map(Math.floor);
  let left = 10_000 - floors.reduce((sum, v) => sum + v, 0);
  const order = raw.map((value, index) => ({ index, rest: value - Math.floor(value) })).sort((a, b) => b.rest - a.rest);
  for (const { index } of order) {
    if (left <= 0) break;
    floors[index] = (floors[index] ?? 0) + 1;
    left -= 1;
  }
  return floors.map((hundredths) => hundredths / 100);
}
