import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import {
  type FakeProvider,
  SHORT_DELAYS,
  api,
  expectError,
  fakeProvider,
  json,
  newAccount,
} from './billing-fixtures.ts';

type Entry = {
  group?: string;
  service: string;
  cost: number;
  percentage: number;
  resources: Array<{ type: string; count?: number; cost: number }>;
};
type Breakdown = { cost_breakdown: Entry[]; total_cost: number; currency: string };

let server: RunningReference;
const compute = fakeProvider('compute');
const storage = fakeProvider('storage');
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: SHORT_DELAYS });
  server.context.services.addResourceProvider(compute);
  server.context.services.addResourceProvider(storage);
});
test.afterAll(async () => {
  await server.close();
});

/** An account with three resources whose costs split 1:1:1 (so shares need rounding to add to 100). */
function accountWithCosts(): ReturnType<typeof api> {
  const { key, accountId } = newAccount(server);
  const created_at = new Date(Date.now() - 3_600_000).toISOString();
  const add = (p: FakeProvider, id: string, type: string, region: string, project: string | null) =>
    p.items.push({
      accountId,
      hourly: 0.01,
      id,
      type,
      name: id,
      status: 'running',
      service: p.service,
      region,
      monthly_cost: 7.2,
      created_at,
      project_id: project,
    });
  add(compute, `vps_a_${accountId}`, 'vps', 'nyc1', 'proj_a');
  add(compute, `vps_b_${accountId}`, 'vps', 'fra1', null);
  add(storage, `bkt-${accountId}`, 'bucket', 'nyc1', 'proj_a');
  return api(server, key);
}

test('cost breakdown by service: shape, totals and percentages adding up to 100', async () => {
  const a = accountWithCosts();
  const res = await a.call('GET', '/account/analytics/costs');
  expect(res.status).toBe(200);
  const body = json<Breakdown>(res);
  expect(body.currency).toBe('USD');
  expect(body.cost_breakdown.map((e) => e.service).sort()).toEqual(['compute', 'messaging', 'storage']);
  expect(body.total_cost).toBeGreaterThan(0);
  expect(body.cost_breakdown.reduce((s, e) => s + e.cost, 0)).toBeCloseTo(body.total_cost, 4);
  expect(body.cost_breakdown.reduce((s, e) => s + e.percentage, 0)).toBeCloseTo(100, 1);
  const computeEntry = body.cost_breakdown.find((e) => e.service === 'compute');
  expect(computeEntry?.resources).toEqual([{ type: 'vps', count: 2, cost: computeEntry?.cost }]);
  // Two thirds and one third: 66.67 + 33.33, never 66.67 + 33.33 + rounding drift.
  expect(computeEntry?.percentage).toBeCloseTo(66.67, 2);
});

test('cost breakdown grouped by project, region and period', async () => {
  const a = accountWithCosts();
  const byProject = json<Breakdown>(await a.call('GET', '/account/analytics/costs?group_by=project'));
  expect(new Set(byProject.cost_breakdown.map((e) => e.group))).toEqual(new Set(['proj_a', 'unassigned']));
  expect(byProject.cost_breakdown.reduce((s, e) => s + e.percentage, 0)).toBeCloseTo(100, 1);
  const byRegion = json<Breakdown>(await a.call('GET', '/account/analytics/costs?group_by=region'));
  expect(new Set(byRegion.cost_breakdown.map((e) => e.group))).toEqual(new Set(['nyc1', 'fra1']));
  for (const groupBy of ['day', 'week', 'month']) {
    const res = json<Breakdown>(await a.call('GET', `/account/analytics/costs?group_by=${groupBy}`));
    expect(res.cost_breakdown.length).toBeGreaterThan(0);
    expect(res.cost_breakdown.every((e) => /^\d{4}-\d{2}-\d{2}$/.test(e.group ?? ''))).toBe(true);
    expect(res.cost_breakdown.reduce((s, e) => s + e.percentage, 0)).toBeCloseTo(100, 1);
  }
  expectError(await a.call('GET', '/account/analytics/costs?group_by=team'), 422, 'validation_error');
  expectError(
    await a.call('GET', '/account/analytics/costs?group_by=day&from_date=2000-01-01'),
    422,
    'validation_error',
  );
});

test('an account without costs: zero totals and zero shares', async () => {
  const a = api(server, newAccount(server).key);
  const body = json<Breakdown>(await a.call('GET', '/account/analytics/costs'));
  expect(body.total_cost).toBe(0);
  expect(body.cost_breakdown.every((e) => e.percentage === 0)).toBe(true);
});

test('trends: metric required, intervals bucket the range, values follow the metric', async () => {
  const a = accountWithCosts();
  expectError(await a.call('GET', '/account/analytics/trends'), 422, 'validation_error');
  expectError(await a.call('GET', '/account/analytics/trends?metric=latency'), 422, 'validation_error');
  expectError(await a.call('GET', '/account/analytics/trends?metric=cost&interval=hour'), 422, 'validation_error');
  const days = json<{ trends: Array<{ date: string; value: number }>; metric: string; interval: string }>(
    await a.call('GET', '/account/analytics/trends?metric=cost&interval=day&from_date=2025-01-01&to_date=2025-01-07'),
  );
  expect(days.metric).toBe('cost');
  expect(days.interval).toBe('day');
  expect(days.trends.map((t) => t.date)).toEqual([
    '2025-01-01',
    '2025-01-02',
    '2025-01-03',
    '2025-01-04',
    '2025-01-05',
    '2025-01-06',
    '2025-01-07',
  ]);
  const weeks = json<{ trends: Array<{ date: string }> }>(
    await a.call('GET', '/account/analytics/trends?metric=cost&interval=week&from_date=2025-01-01&to_date=2025-01-31'),
  );
  // ISO weeks start on Monday: 2024-12-30 is the Monday of the week holding 2025-01-01.
  expect(weeks.trends.map((t) => t.date)).toEqual([
    '2024-12-30',
    '2025-01-06',
    '2025-01-13',
    '2025-01-20',
    '2025-01-27',
  ]);
  const months = json<{ trends: Array<{ date: string }> }>(
    await a.call(
      'GET',
      '/account/analytics/trends?metric=resources&interval=month&from_date=2025-01-15&to_date=2025-03-02',
    ),
  );
  expect(months.trends.map((t) => t.date)).toEqual(['2025-01-01', '2025-02-01', '2025-03-01']);
  const today = new Date().toISOString().slice(0, 10);
  const resources = json<{ trends: Array<{ date: string; value: number }> }>(
    await a.call(`GET`, `/account/analytics/trends?metric=resources&from_date=${today}`),
  );
  expect(resources.trends.at(-1)?.value).toBe(3);
  const cost = json<{ trends: Array<{ value: number }> }>(
    await a.call('GET', `/account/analytics/trends?metric=cost&from_date=${today}`),
  );
  expect(cost.trends.at(-1)?.value).toBeGreaterThan(0);
  const storageGb = json<{ trends: Array<{ value: number }> }>(
    await a.call('GET', `/account/analytics/trends?metric=storage&from_date=${today}`),
  );
  expect(storageGb.trends.at(-1)?.value).toBe(10);
  const bandwidth = json<{ trends: Array<{ value: number }> }>(
    await a.call('GET', `/account/analytics/trends?metric=bandwidth&from_date=${today}`),
  );
  expect(bandwidth.trends.at(-1)?.value).toBe(2);
});

test('alerts: create, list newest first, validation', async () => {
  const a = api(server, newAccount(server).key);
  const created = await a.call('POST', '/account/alerts', {
    type: 'budget',
    threshold: 250.5,
    condition: 'greater_than',
    notification_methods: ['email', 'sms'],
  });
  expect(created.status).toBe(201);
  const alert = json<{ alert: Record<string, unknown> }>(created).alert;
  expect(alert).toMatchObject({
    type: 'budget',
    threshold: 250.5,
    condition: 'greater_than',
    notification_methods: ['email', 'sms'],
    status: 'active',
  });
  expect(alert.id).toMatch(/^alert_/);
  const second = json<{ alert: { id: string } }>(
    await a.call('POST', '/account/alerts', {
      type: 'balance',
      threshold: 0,
      condition: 'less_than',
      notification_methods: ['sms'],
    }),
  ).alert;
  const listed = json<{ alerts: Array<{ id: string }> }>(await a.call('GET', '/account/alerts')).alerts;
  expect(listed.map((x) => x.id)).toEqual([second.id, alert.id]);
  const valid = { type: 'usage', threshold: 10, condition: 'greater_than', notification_methods: ['email'] };
  for (const [patch, field] of [
    [{ type: undefined }, 'type'],
    [{ type: 'spend' }, 'type'],
    [{ threshold: undefined }, 'threshold'],
    [{ threshold: '10' }, 'threshold'],
    [{ threshold: -1 }, 'threshold'],
    [{ condition: 'equals' }, 'condition'],
    [{ notification_methods: [] }, 'notification_methods'],
    [{ notification_methods: ['pigeon'] }, 'notification_methods'],
    [{ notification_methods: 'email' }, 'notification_methods'],
  ] as const) {
    const res = await a.call('POST', '/account/alerts', { ...valid, ...patch });
    expectError(res, 422, 'validation_error');
    expect(json<{ error: { details: { field: string } } }>(res).error.details.field).toBe(field);
  }
  // Another account sees none of them.
  const other = api(server, newAccount(server).key);
  expect(json<{ alerts: unknown[] }>(await other.call('GET', '/account/alerts')).alerts).toEqual([]);
});
