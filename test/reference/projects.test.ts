import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { SHORT_DELAYS, api, expectError, fakeProvider, json, newAccount } from './billing-fixtures.ts';

type Project = {
  id: string;
  name: string;
  description: string;
  status: string;
  region: string;
  created_at: string;
  resource_count: number;
  monthly_cost: number;
  currency: string;
};

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

function fresh() {
  const { key, accountId } = newAccount(server);
  return { a: api(server, key), accountId };
}

test('create, get, list, update and delete a project', async () => {
  const { a } = fresh();
  const created = await a.call('POST', '/projects', {
    name: 'staging',
    description: 'Staging environment',
    region: 'nyc1',
    budget_limit: 100,
  });
  expect(created.status).toBe(201);
  const project = json<{ project: Project }>(created).project;
  expect(project).toMatchObject({
    name: 'staging',
    description: 'Staging environment',
    region: 'nyc1',
    status: 'active',
    resource_count: 0,
    monthly_cost: 0,
    currency: 'USD',
  });
  expect(project.id).toMatch(/^proj_/);
  expect(project).not.toHaveProperty('budget_limit');
  const got = await a.call('GET', `/projects/${project.id}`);
  expect(json<{ project: Project }>(got).project).toEqual(project);
  const second = json<{ project: Project }>(await a.call('POST', '/projects', { name: 'bare' })).project;
  expect(second).toMatchObject({ description: '', region: 'global' });
  expect(json<{ projects: Project[] }>(await a.call('GET', '/projects')).projects.map((p) => p.id)).toEqual([
    second.id,
    project.id,
  ]);

  const updated = await a.call('PUT', `/projects/${project.id}`, {
    name: 'production',
    description: 'Live',
    budget_limit: 250,
  });
  expect(updated.status).toBe(200);
  expect(json<{ project: Project }>(updated).project).toMatchObject({
    id: project.id,
    name: 'production',
    description: 'Live',
    region: 'nyc1',
  });
  expect(json<{ project: Project }>(updated).project).not.toHaveProperty('budget_limit');
  expect(json<{ project: Project }>(await a.call('GET', `/projects/${project.id}`)).project).toMatchObject({
    name: 'production',
    description: 'Live',
  });

  const deleted = await a.call('DELETE', `/projects/${project.id}`);
  expect(deleted.status).toBe(204);
  expect(deleted.text).toBe('');
  const gone = await a.call('GET', `/projects/${project.id}`);
  expectError(gone, 404, 'not_found');
  expect(json<{ error: { resource: string } }>(gone).error.resource).toBe('project');
  expect(json<{ projects: Project[] }>(await a.call('GET', '/projects')).projects.map((p) => p.id)).toEqual([
    second.id,
  ]);
});

test('validation of create and update', async () => {
  const { a } = fresh();
  for (const [body, field] of [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ name: 'p', budget_limit: 'lots' }, 'budget_limit'],
    [{ name: 'p', budget_limit: -1 }, 'budget_limit'],
    [{ name: 'p', region: 'New York!' }, 'region'],
    [{ name: 'p', description: ['a'] }, 'description'],
  ] as const) {
    const res = await a.call('POST', '/projects', body);
    expectError(res, 422, 'validation_error');
    expect(json<{ error: { details: { field: string } } }>(res).error.details.field).toBe(field);
  }
  const project = json<{ project: Project }>(await a.call('POST', '/projects', { name: 'p' })).project;
  expectError(await a.call('PUT', `/projects/${project.id}`, { name: '' }), 422, 'validation_error');
  expectError(await a.call('PUT', `/projects/${project.id}`, { budget_limit: 'x' }), 422, 'validation_error');
  expect(json<{ project: Project }>(await a.call('GET', `/projects/${project.id}`)).project.name).toBe('p');
});

test('resources, count, monthly cost, filters and usage come from the providers', async () => {
  const { a, accountId } = fresh();
  const project = json<{ project: Project }>(await a.call('POST', '/projects', { name: 'web' })).project;
  const created_at = new Date(Date.now() - 7_200_000).toISOString();
  compute.items.push({
    accountId,
    hourly: 0.01,
    id: `vps_1_${accountId}`,
    type: 'vps',
    name: 'web-1',
    status: 'running',
    service: 'compute',
    region: 'nyc1',
    monthly_cost: 7.2,
    created_at,
    project_id: project.id,
  });
  compute.items.push({
    accountId,
    hourly: 0.02,
    id: `vps_2_${accountId}`,
    type: 'vps',
    name: 'web-2',
    status: 'stopped',
    service: 'compute',
    region: 'nyc1',
    monthly_cost: 14.4,
    created_at,
    project_id: project.id,
  });
  storage.items.push({
    accountId,
    hourly: 0.001,
    id: `bkt-${accountId}`,
    type: 'bucket',
    name: `bkt-${accountId}`,
    status: 'active',
    service: 'storage',
    region: null,
    monthly_cost: 0.72,
    created_at,
    project_id: project.id,
  });
  compute.items.push({
    accountId,
    hourly: 0.05,
    id: `vps_x_${accountId}`,
    type: 'vps',
    name: 'other',
    status: 'running',
    service: 'compute',
    region: 'nyc1',
    monthly_cost: 36,
    created_at,
    project_id: null,
  });

  const got = json<{ project: Project }>(await a.call('GET', `/projects/${project.id}`)).project;
  expect(got.resource_count).toBe(3);
  expect(got.monthly_cost).toBeCloseTo(22.32, 4);
  const resources = json<{ resources: Array<Record<string, unknown>> }>(
    await a.call('GET', `/projects/${project.id}/resources`),
  ).resources;
  expect(resources).toHaveLength(3);
  for (const r of resources) {
    expect(r.id).toMatch(/^res_[0-9a-f]{16}$/);
    for (const field of ['type', 'name', 'status', 'service', 'region', 'created_at'])
      expect(typeof r[field]).toBe('string');
    expect(typeof r.monthly_cost).toBe('number');
  }
  expect(resources.find((r) => r.service === 'storage')?.region).toBe('global');
  // Stable ids across calls.
  const again = json<{ resources: Array<{ id: string }> }>(
    await a.call('GET', `/projects/${project.id}/resources`),
  ).resources;
  expect(again.map((r) => r.id)).toEqual(resources.map((r) => r.id));
  const computeOnly = json<{ resources: Array<{ service: string }> }>(
    await a.call('GET', `/projects/${project.id}/resources?service=compute`),
  ).resources;
  expect(computeOnly.map((r) => r.service)).toEqual(['compute', 'compute']);
  const stopped = json<{ resources: Array<{ name: string }> }>(
    await a.call('GET', `/projects/${project.id}/resources?status=stopped`),
  ).resources;
  expect(stopped.map((r) => r.name)).toEqual(['web-2']);
  expect(
    json<{ resources: unknown[] }>(await a.call('GET', `/projects/${project.id}/resources?service=dns`)).resources,
  ).toEqual([]);

  const usageRes = await a.call('GET', `/projects/${project.id}/usage`);
  expect(usageRes.status).toBe(200);
  const usage = json<{
    usage: {
      project_id: string;
      period: { start: string; end: string };
      total_cost: number;
      currency: string;
      services: Record<string, { cost: number }>;
    };
  }>(usageRes).usage;
  expect(usage.project_id).toBe(project.id);
  expect(usage.total_cost).toBeGreaterThan(0);
  expect(usage.total_cost).toBeCloseTo(
    usage.services.compute!.cost + usage.services.storage!.cost + usage.services.messaging!.cost,
    4,
  );
  const day = json<{ usage: { period: { start: string; end: string } } }>(
    await a.call('GET', `/projects/${project.id}/usage?from_date=2025-03-01&to_date=2025-03-01`),
  ).usage;
  expect(day.period).toEqual({ start: '2025-03-01T00:00:00.000Z', end: '2025-03-01T23:59:59.999Z' });
  expectError(
    await a.call('GET', `/projects/${project.id}/usage?from_date=2025-03-02&to_date=2025-03-01`),
    422,
    'validation_error',
  );
});

test('deleting a project removes its resources through their providers, and only those', async () => {
  const { a, accountId } = fresh();
  const project = json<{ project: Project }>(await a.call('POST', '/projects', { name: 'doomed' })).project;
  const created_at = new Date().toISOString();
  compute.items.push({
    accountId,
    hourly: 0.01,
    id: `vps_d_${accountId}`,
    type: 'vps',
    name: 'd',
    status: 'running',
    service: 'compute',
    region: 'nyc1',
    monthly_cost: 7.2,
    created_at,
    project_id: project.id,
  });
  storage.items.push({
    accountId,
    hourly: 0.01,
    id: `bkt-d-${accountId}`,
    type: 'bucket',
    name: 'b',
    status: 'active',
    service: 'storage',
    region: 'nyc1',
    monthly_cost: 1,
    created_at,
    project_id: project.id,
  });
  compute.items.push({
    accountId,
    hourly: 0.01,
    id: `vps_keep_${accountId}`,
    type: 'vps',
    name: 'keep',
    status: 'running',
    service: 'compute',
    region: 'nyc1',
    monthly_cost: 7.2,
    created_at,
    project_id: null,
  });
  expect((await a.call('DELETE', `/projects/${project.id}`)).status).toBe(204);
  expect(compute.removed).toContain(`vps_d_${accountId}`);
  expect(storage.removed).toContain(`bkt-d-${accountId}`);
  expect(compute.removed).not.toContain(`vps_keep_${accountId}`);
  expect(compute.resources(accountId).map((r) => r.id)).toEqual([`vps_keep_${accountId}`]);
});

test('cascading delete removes a real VPS created with project_id', async () => {
  const { a } = fresh();
  const [regions, images, sizes] = await Promise.all(['/regions', '/images', '/sizes'].map((p) => a.call('GET', p)));
  const region = json<{ regions?: Array<{ slug: string; available: boolean }> }>(regions!).regions?.find(
    (r) => r.available,
  )?.slug;
  const image = json<{ images?: Array<{ id: string; min_disk_size: number }> }>(images!).images?.[0];
  const size = json<{ sizes?: Array<{ slug: string; disk: number; available: boolean }> }>(sizes!).sizes?.find(
    (s) => s.available && s.disk >= (image?.min_disk_size ?? 0),
  );
  test.skip(!region || !image || !size, 'the compute area is not available');
  const project = json<{ project: Project }>(await a.call('POST', '/projects', { name: 'with-vps' })).project;
  const vps = await a.call('POST', '/vps', {
    name: 'cascade-1',
    region,
    image: image?.id,
    size: size?.slug,
    project_id: project.id,
  });
  test.skip(vps.status !== 201, `POST /vps answered ${vps.status}`);
  const vpsId = json<{ vps: { id: string } }>(vps).vps.id;
  const resources = json<{ resources: Array<{ resource_id: string; service: string }> }>(
    await a.call('GET', `/projects/${project.id}/resources`),
  ).resources;
  expect(resources.map((r) => r.resource_id)).toEqual([vpsId]);
  expect(json<{ project: Project }>(await a.call('GET', `/projects/${project.id}`)).project.resource_count).toBe(1);
  expect((await a.call('DELETE', `/projects/${project.id}`)).status).toBe(204);
  expectError(await a.call('GET', `/vps/${vpsId}`), 404, 'not_found');
});

test("another account's project is not found for any operation", async () => {
  const mine = fresh();
  const theirs = fresh();
  const project = json<{ project: Project }>(await theirs.a.call('POST', '/projects', { name: 'private' })).project;
  for (const [method, path, body] of [
    ['GET', `/projects/${project.id}`],
    ['PUT', `/projects/${project.id}`, { name: 'hijack' }],
    ['DELETE', `/projects/${project.id}`],
    ['GET', `/projects/${project.id}/resources`],
    ['GET', `/projects/${project.id}/usage`],
    ['GET', '/projects/proj_0000000000000000'],
  ] as const) {
    const res = await mine.a.call(method, path, body);
    expectError(res, 404, 'not_found');
    expect(json<{ error: { resource: string } }>(res).error.resource).toBe('project');
  }
  expect(json<{ projects: Project[] }>(await mine.a.call('GET', '/projects')).projects).toEqual([]);
  expect(json<{ project: Project }>(await theirs.a.call('GET', `/projects/${project.id}`)).project.name).toBe(
    'private',
  );
});
