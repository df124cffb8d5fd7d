/** Cost analytics, usage trends and billing alerts. */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import type { ProjectResource } from '../../core/services.ts';
import { Fields } from '../../core/validation.ts';
import { BILLING_FAULTS } from './faults.ts';
import { fromUnits, toUnits } from './money.ts';
import { type Interval, type Range, buckets, monthStart, readRange } from './periods.ts';
import { billingState } from './store.ts';
import { type MergedUsage, SERVICES, type Service, allResources, collectUsage, percentages } from './usage.ts';
import { alertView } from './views.ts';

const GROUP_BY = ['service', 'project', 'region', 'day', 'week', 'month'] as const;
const METRICS = ['cost', 'resources', 'storage', 'bandwidth'] as const;
const INTERVALS = ['day', 'week', 'month'] as const;
/** Enough for a year of days; longer ranges need a coarser interval. */
const MAX_BUCKETS = 400;
const DAY = 86_400_000;

interface Row {
  /** The group value for groupings other than `service` (project id, region, first day). */
  group?: string;
  service: Service;
  units: number;
  resources: Map<string, { count: number; units: number }>;
}

/** The entry of a usage record that names the resource (compute: id; storage: id or bucket). */
function entryKey(entry: Record<string, unknown>): string | undefined {
  const key = entry.id ?? entry.bucket;
  return typeof key === 'string' ? key : undefined;
}

function entryUnits(entry: Record<string, unknown>): number {
  return typeof entry.cost === 'number' && Number.isFinite(entry.cost) ? toUnits(entry.cost) : 0;
}

function addResource(row: Row, type: string, count: number, units: number): void {
  const current = row.resources.get(type) ?? { count: 0, units: 0 };
  current.count += count;
  current.units += units;
  row.resources.set(type, current);
}

/** Rows of one usage snapshot, grouped by `groupOf` (resource → group value; undefined → one row per service). */
function rowsOf(
  usage: Record<Service, MergedUsage>,
  groupOf: ((service: Service, entry?: Record<string, unknown>) => string) | undefined,
  keepEmpty: boolean,
): Row[] {
  const rows = new Map<string, Row>();
  const rowFor = (service: Service, group: string | undefined): Row => {
    const id = `${group ?? ''}|${service}`;
    let row = rows.get(id);
    if (!row) {
      row = { ...(group !== undefined && { group }), service, units: 0, resources: new Map() };
      rows.set(id, row);
    }
    return row;
  };
  for (const service of SERVICES) {
    const merged = usage[service];
    const serviceUnits = toUnits(merged.cost);
    let attributed = 0;
    if (service === 'messaging') {
      const row = rowFor(service, groupOf?.(service));
      row.units += serviceUnits;
      if (merged.messagesSent > 0) addResource(row, 'sms', merged.messagesSent, serviceUnits);
      continue;
    }
    for (const entry of merged.resources) {
      const units = entryUnits(entry);
      const row = rowFor(service, groupOf?.(service, entry));
      row.units += units;
      attributed += units;
      addResource(row, typeof entry.type === 'string' ? entry.type : service, 1, units);
    }
    // Cost a provider reports without naming a resource still belongs to the service.
    if (serviceUnits !== attributed || (keepEmpty && groupOf === undefined))
      rowFor(service, groupOf?.(service)).units += serviceUnits - attributed;
  }
  return [...rows.values()].filter((row) => keepEmpty || row.units !== 0);
}

export function registerAnalyticsRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  app.get('/account/analytics/costs', async (request) => {
    const { account } = authOf(request);
    // Typed explicitly so `query.fail` (returns never) narrows like a throw.
    const query: Fields = new Fields('billing', request.query);
    const groupBy = (query.string('group_by', { oneOf: GROUP_BY }) ?? 'service') as (typeof GROUP_BY)[number];
    const now = ctx.clock.now();
    const range = readRange('billing', request.query, { fromMs: monthStart(now), toMs: now });
    const usageOf = (r: Range) => collectUsage(ctx, account.id, r.fromMs, Math.min(r.toMs, now));

    let rows: Row[];
    if (groupBy === 'service') {
      rows = rowsOf(usageOf(range), undefined, true);
    } else if (groupBy === 'project' || groupBy === 'region') {
      const byKey = new Map<string, ProjectResource>();
      for (const resource of allResources(ctx, account.id)) {
        byKey.set(resource.id, resource);
        byKey.set(resource.name, resource);
      }
      const groupOf = (_service: Service, entry?: Record<string, unknown>): string => {
        const key = entry ? entryKey(entry) : undefined;
        const resource = key === undefined ? undefined : byKey.get(key);
        return groupBy === 'project' ? (resource?.project_id ?? 'unassigned') : (resource?.region ?? 'global');
      };
      rows = rowsOf(usageOf(range), groupOf, false);
    } else {
      const periods = buckets(range, groupBy, MAX_BUCKETS);
      if (!periods) query.fail('from_date', `The range holds more than ${MAX_BUCKETS} ${groupBy}s.`);
      rows = periods.filter((p) => p.fromMs <= now).flatMap((p) => rowsOf(usageOf(p), () => p.label, false));
    }

    const shares = percentages(rows.map((row) => row.units));
    const withoutResources = ctx.faults.has(BILLING_FAULTS.costBreakdownResourcesMissing);
    const costBreakdown = rows.map((row, index) => ({
      ...(row.group !== undefined && { group: row.group }),
      service: row.service,
      cost: fromUnits(row.units),
      percentage: shares[index] ?? 0,
      // Fault: entries without their resources array.
      ...(!withoutResources && {
        resources: [...row.resources.entries()].map(([type, r]) => ({
          type,
          count: r.count,
          cost: fromUnits(r.units),
        })),
      }),
    }));
    return {
      cost_breakdown: costBreakdown,
      total_cost: fromUnits(rows.reduce((sum, row) => sum + row.units, 0)),
      currency: account.currency,
    };
  });

  app.get('/account/analytics/trends', async (request) => {
    const { account } = authOf(request);
    // Typed explicitly so `query.fail` (returns never) narrows like a throw.
    const query: Fields = new Fields('billing', request.query);
    // Fault: metric silently defaults to cost.
    const metricRequired = !ctx.faults.has(BILLING_FAULTS.trendsMetricOptional);
    const metric = query.string('metric', { required: metricRequired, oneOf: METRICS }) ?? 'cost';
    const interval = (query.string('interval', { oneOf: INTERVALS }) ?? 'day') as Interval;
    const now = ctx.clock.now();
    const lookback = interval === 'day' ? 30 * DAY : interval === 'week' ? 12 * 7 * DAY : 0;
    const range = readRange('billing', request.query, {
      fromMs: lookback ? now - lookback : monthStart(now, -11),
      toMs: now,
    });
    const periods = buckets(range, interval, MAX_BUCKETS);
    if (!periods) query.fail('from_date', `The range holds more than ${MAX_BUCKETS} ${interval}s.`);
    const resources = metric === 'resources' ? allResources(ctx, account.id) : [];
    const trends = periods.map((period) => {
      if (period.fromMs > now) return { date: period.label, value: 0 };
      if (metric === 'resources')
        return { date: period.label, value: resources.filter((r) => Date.parse(r.created_at) <= period.toMs).length };
      const usage = collectUsage(ctx, account.id, period.fromMs, Math.min(period.toMs, now));
      if (metric === 'cost')
        return { date: period.label, value: fromUnits(SERVICES.reduce((sum, s) => sum + toUnits(usage[s].cost), 0)) };
      const field = metric === 'storage' ? 'storage_gb' : 'bandwidth_gb';
      const total = usage.storage.resources.reduce(
        (sum, entry) => sum + (typeof entry[field] === 'number' && Number.isFinite(entry[field]) ? entry[field] : 0),
        0,
      );
      return { date: period.label, value: Math.round(total * 1000) / 1000 };
    });
    return { trends, metric, interval };
  });

  app.get('/account/alerts', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    return { alerts: ctx.faults.has(BILLING_FAULTS.alertListEmpty) ? [] : [...state.alerts].reverse().map(alertView) };
  });

  app.post('/account/alerts', async (request, reply) => {
    const state = billingState(ctx, authOf(request).account.id);
    const fields = new Fields('billing', request.body);
    const type = fields.string('type', { required: true, oneOf: ['budget', 'usage', 'balance'] });
    const threshold = fields.number('threshold', { required: true, min: 0 });
    const condition = fields.string('condition', { required: true, oneOf: ['greater_than', 'less_than'] });
    const methods = fields.stringArray('notification_methods', {
      required: true,
      minItems: 1,
      maxItems: 10,
      oneOf: ctx.faults.has(BILLING_FAULTS.alertSmsRefused) ? ['email'] : ['email', 'sms'],
    });
    const alert = {
      id: newId('alert'),
      type,
      threshold,
      condition,
      notificationMethods: [...new Set(methods)],
      status: 'active',
      createdMs: ctx.clock.now(),
    };
    state.alerts.push(alert);
    return reply.status(201).send({ alert: alertView(alert) });
  });
}
