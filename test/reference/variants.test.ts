/**
 * The reference server's legal variants (reference/core/variants.ts): each one changes what it
 * says it changes, and nothing changes without it. That the suite passes them is the variant
 * matrix's business (test/trust/variant-matrix.test.ts).
 */
import { expect, test } from '../base.ts';
import { ActiveVariants } from '../../reference/core/variants.ts';
import { type RunningReference, listVariants, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';

async function withServer(variants: string[], body: (server: RunningReference) => Promise<void>): Promise<void> {
  const server = await startReferenceServer({ variants, delays: { vpsBootMs: 50, smsDeliveryMs: 50 } });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

const VPS = { name: 'v1', region: 'nyc1', image: 'ubuntu-22-04', size: 's-1vcpu-1gb' };

test('unknown names and bad durations are refused; timing variants take a duration', () => {
  expect(() => new ActiveVariants(['no-such-variant'], listVariants())).toThrow(/unknown variant/);
  expect(() => new ActiveVariants(['create-200=5'], listVariants())).toThrow(/takes no value/);
  expect(() => new ActiveVariants(['latency=abc'], listVariants())).toThrow(/duration/);
  const active = new ActiveVariants(['latency', 'vps-boot-slow=1234'], listVariants());
  expect(active.ms('latency', 0)).toBe(80);
  expect(active.ms('vps-boot-slow', 0)).toBe(1234);
  expect(active.ms('actions-async', 7)).toBe(7);
});

test('without variants: 201 create, 204 delete, 401, conventional codes, wrapped bodies, prefixed ids', async () => {
  await withServer([], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const created = await api.call('POST', '/projects', { name: 'p' });
    expect(created.status).toBe(201);
    const project = (created.body as { project: { id: string; created_at: string } }).project;
    expect(project.id).toMatch(/^proj_[0-9a-f]{16}$/);
    expect(project.created_at).toMatch(/\.\d{3}Z$/);
    expect((await api.call('DELETE', `/projects/${project.id}`)).status).toBe(204);
    const unauth = await client(server.baseUrl, 'nope').call('GET', '/account');
    expect([unauth.status, (unauth.body as { error: { code: string } }).error.code]).toEqual([401, 'unauthorized']);
    expect((await api.call('GET', '/vps?per_page=101')).status).toBe(422);
    expect((await api.call('GET', '/projects')).headers.get('x-ratelimit-limit')).toBeNull();
  });
});

test('status variants: create-200, delete-200-body, action-201', async () => {
  await withServer(['create-200', 'delete-200-body', 'action-201'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const created = await api.call('POST', '/projects', { name: 'p' });
    expect(created.status).toBe(200);
    const id = (created.body as { project: { id: string } }).project.id;
    const deleted = await api.call('DELETE', `/projects/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true, id });
    const vps = (await api.call('POST', '/vps', VPS)).body as { vps: { id: string } };
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await api.call('POST', `/vps/${vps.vps.id}/actions`, { type: 'stop' })).status).toBe(201);
  });
});

test('error variants: unauth-403, error-codes-other (listed codes kept), validation-400', async () => {
  await withServer(['unauth-403', 'error-codes-other', 'validation-400'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const unauth = await client(server.baseUrl, 'nope').call('GET', '/account');
    expect([unauth.status, (unauth.body as { error: { code: string } }).error.code]).toEqual([
      403,
      'authentication_required',
    ]);
    const missing = await api.call('GET', '/projects/proj_0000000000000000');
    expect((missing.body as { error: { code: string } }).error.code).toBe('resource_not_found');
    const invalid = await api.call('POST', '/projects', {});
    expect([invalid.status, (invalid.body as { error: { code: string } }).error.code]).toEqual([
      400,
      'validation_error',
    ]);
    const phone = await api.call(
      'POST',
      '/sms/send',
      { to: '12', message: 'x' },
      { headers: { 'x-test-mode': 'true' } },
    );
    expect((phone.body as { error: { code: string } }).error.code).toBe('invalid_phone_number');
  });
});

test('format variants: ids-other-format, extra-fields, timestamps-offset, json-charset', async () => {
  await withServer(['ids-other-format', 'extra-fields', 'timestamps-offset', 'json-charset'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const created = await api.call('POST', '/projects', { name: 'p' });
    expect(created.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    const body = created.body as {
      project: { id: string; created_at: string; x_vendor_note?: string };
      x_vendor_note?: string;
    };
    expect(body.project.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.project.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(body.x_vendor_note).toBeDefined();
    expect(body.project.x_vendor_note).toBeDefined();
    const error = (await api.call('GET', '/projects/none')).body as { error: Record<string, unknown> };
    expect(error.error.x_vendor_note).toBeDefined();
  });
  // The id style is process-wide while such a server runs, and back to prefixes after it closed.
  await withServer([], async (server) => {
    const created = await client(server.baseUrl, server.apiKey).call('POST', '/projects', { name: 'p' });
    expect((created.body as { project: { id: string } }).project.id).toMatch(/^proj_/);
  });
});

test('body variants change only bodies the specification does not show', async () => {
  await withServer(['flat-bodies'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const project = await api.call('POST', '/projects', { name: 'p' });
    expect((project.body as { id?: string }).id).toMatch(/^proj_/);
    // POST /vps shows `object vps`: kept.
    expect((await api.call('POST', '/vps', VPS)).body).toHaveProperty('vps');
    expect(Array.isArray((await api.call('GET', '/ssh-keys')).body)).toBe(true);
  });
  await withServer(['wrapped-bodies'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    expect((await api.call('POST', '/projects', { name: 'p' })).body).toHaveProperty('data.project.id');
    expect((await api.call('GET', '/projects')).body).toHaveProperty('projects');
  });
});

test('list variants: list-oldest-first across pages, per-page-clamp, ratelimit-headers-everywhere', async () => {
  await withServer(['list-oldest-first', 'per-page-clamp', 'ratelimit-headers-everywhere'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(((await api.call('POST', '/vps', { ...VPS, name: `v${i}` })).body as { vps: { id: string } }).vps.id);
    const first = (await api.call('GET', '/vps?per_page=2&page=1')).body as { vps_instances: Array<{ id: string }> };
    const second = (await api.call('GET', '/vps?per_page=2&page=2')).body as { vps_instances: Array<{ id: string }> };
    expect([...first.vps_instances, ...second.vps_instances].map((v) => v.id)).toEqual(ids);
    const clamped = await api.call('GET', '/vps?per_page=101');
    expect([clamped.status, (clamped.body as { meta: { per_page: number } }).meta.per_page]).toEqual([200, 100]);
    expect((await api.call('GET', '/projects')).headers.get('x-ratelimit-limit')).not.toBeNull();
  });
});

test('timing variants: actions-async passes through a transitional state, latency delays answers', async () => {
  await withServer(['actions-async=150', 'latency=60'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const vps = ((await api.call('POST', '/vps', VPS)).body as { vps: { id: string } }).vps.id;
    await new Promise((resolve) => setTimeout(resolve, 120));
    const started = Date.now();
    const action = (await api.call('POST', `/vps/${vps}/actions`, { type: 'stop' })).body as {
      action: { status: string };
    };
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(action.action.status).toBe('in-progress');
    expect(((await api.call('GET', `/vps/${vps}`)).body as { vps: { status: string } }).vps.status).toBe('stopping');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(((await api.call('GET', `/vps/${vps}`)).body as { vps: { status: string } }).vps.status).toBe('stopped');
  });
  await withServer(['vps-boot-slow=400'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const vps = ((await api.call('POST', '/vps', VPS)).body as { vps: { id: string } }).vps.id;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(((await api.call('GET', `/vps/${vps}`)).body as { vps: { status: string } }).vps.status).toBe('creating');
  });
});

test('rate-limit variants: hourly headers, anchored windows, refusals after the handler, SMS per send, headers elsewhere as deltas', async () => {
  await withServer(
    [
      'ratelimit-headers-hourly',
      'ratelimit-anchored-windows',
      'sms-volume-per-send',
      'ratelimit-headers-elsewhere-delta',
    ],
    async (server) => {
      const api = client(server.baseUrl, server.apiKey);
      const regions = await api.call('GET', '/regions');
      expect(regions.headers.get('x-ratelimit-limit')).toBe('1000');
      const date = Math.floor(Date.parse(regions.headers.get('date')!) / 1000);
      const reset = Number(regions.headers.get('x-ratelimit-reset'));
      expect(reset).not.toBe((Math.floor(date / 3600) + 1) * 3600);
      expect(reset - date).toBeGreaterThan(3500);
      const bulk = await api.call(
        'POST',
        '/sms/bulk',
        { recipients: ['+15005550006', '+15005550001'], message: 'x' },
        { headers: { 'x-test-mode': 'true' } },
      );
      expect(bulk.headers.get('x-sms-remaining')).toBe('9999');
      const projects = await api.call('GET', '/projects');
      expect(Number(projects.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(3600);
    },
  );
  await withServer(['ratelimit-after-handler'], async (server) => {
    const api = client(server.baseUrl, server.apiKey);
    const created = (await api.call('POST', '/account/api-keys', { name: 'k', permissions: ['read', 'write'] }))
      .body as { api_key: { key: string } };
    const burst = client(server.baseUrl, created.api_key.key);
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
    for (let i = 0; i < 100; i++) await burst.call('GET', '/sms/campaigns');
    const refused = await burst.call('POST', '/messaging/templates', { name: 'late', content: 'x' });
    expect(refused.status).toBe(429);
    const list = (await api.call('GET', '/messaging/templates')).body as { templates: Array<{ name: string }> };
    expect(list.templates.map((t) => t.name)).toContain('late');
  });
});
