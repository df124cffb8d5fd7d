/**
 * Behaviour of the reference server's compute area: catalogue, VPS lifecycle, list filters and
 * pagination, actions and invalid states, metrics windows, SSH keys, VPS snapshots, events,
 * isolation between accounts, and what compute offers other areas (lookup, resource provider).
 * Every response is also checked against the OpenAPI document (compute-support.ts).
 */
import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
import { VPS_BODY, freshAccountClient, json, newEd25519Key, opClient, runningVps, waitFor } from './compute-support.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: { vpsBootMs: 150, webhookRetryMs: 50 } });
});
test.afterAll(async () => {
  await server.close();
});

test.describe('catalogue', () => {
  test('regions list slugs with features from the known set, one of them unavailable', async () => {
    const api = opClient(server);
    const res = await api.op('GET /regions');
    expect(res.status).toBe(200);
    const regions = json(res).regions as Array<Record<string, unknown>>;
    expect(regions.map((r) => r.slug)).toEqual(
      expect.arrayContaining(['nyc1', 'sfo3', 'ams3', 'fra1', 'lon1', 'sgp1', 'blr1', 'syd1']),
    );
    expect(regions.some((r) => r.available === false)).toBe(true);
    for (const region of regions) {
      for (const feature of region.features as string[])
        expect(['vps', 'databases', 'storage', 'kubernetes']).toContain(feature);
    }
  });

  test('sizes carry integer resources and prices', async () => {
    const res = await opClient(server).op('GET /sizes');
    expect(res.status).toBe(200);
    const sizes = json(res).sizes as Array<Record<string, unknown>>;
    expect(sizes.length).toBeGreaterThan(3);
    for (const size of sizes) {
      for (const field of ['vcpus', 'memory', 'disk', 'transfer']) expect(Number.isInteger(size[field])).toBe(true);
      expect(typeof size.price_hourly).toBe('number');
      expect(size.price_hourly as number).toBeLessThan(size.price_monthly as number);
    }
  });

  test('images filter by type and distribution; an unknown type is a validation error', async () => {
    const api = opClient(server);
    const all = json(await api.op('GET /images')).images as Array<Record<string, unknown>>;
    expect(all.some((i) => i.type === 'windows')).toBe(true);
    const windows = json(await api.op('GET /images', { query: { type: 'windows' } })).images as Array<
      Record<string, unknown>
    >;
    expect(windows.length).toBeGreaterThan(0);
    expect(windows.every((i) => i.type === 'windows')).toBe(true);
    const ubuntu = json(await api.op('GET /images', { query: { distribution: 'ubuntu' } })).images as Array<
      Record<string, unknown>
    >;
    expect(ubuntu.length).toBeGreaterThan(0);
    expect(ubuntu.every((i) => i.distribution === 'ubuntu')).toBe(true);
    const bad = await api.op('GET /images', { query: { type: 'bsd' } });
    expect(bad.status).toBe(422);
    expect(json(bad).error).toMatchObject({ code: 'validation_error', details: [{ field: 'type' }] });
  });
});

test.describe('VPS lifecycle', () => {
  test('POST /vps answers 201 creating with null IPs, then the instance runs with addresses', async () => {
    const api = opClient(server);
    const res = await api.op('POST /vps', {
      body: { ...VPS_BODY, tags: ['web', 'blue'], monitoring: true, user_data: '#cloud-config\n' },
    });
    expect(res.status).toBe(201);
    const vps = json(res).vps;
    expect(vps).toMatchObject({
      ...VPS_BODY,
      status: 'creating',
      ip_address: null,
      private_ip: null,
      tags: ['web', 'blue'],
      vcpus: 1,
      memory: 1024,
      disk: 25,
    });
    expect(vps.id).toMatch(/^vps_/);
    const running = await waitFor(
      () => api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } }),
      (r) => json(r).vps.status === 'running',
    );
    expect(json(running).vps.ip_address).toMatch(/^(203\.0\.113|198\.51\.100|192\.0\.2)\.\d+$/);
    expect(json(running).vps.private_ip).toMatch(/^10\.\d+\.\d+\.\d+$/);
  });

  for (const field of ['name', 'region', 'image', 'size'] as const) {
    test(`POST /vps without ${field} is refused and creates nothing`, async () => {
      const api = freshAccountClient(server);
      const body: Record<string, unknown> = { ...VPS_BODY };
      delete body[field];
      const res = await api.op('POST /vps', { body });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
      expect(json(await api.op('GET /vps')).meta.total).toBe(0);
    });
  }

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown region', { region: 'mars1' }, 'region'],
    ['an unavailable region', { region: 'nyc2' }, 'region'],
    ['an unknown image', { image: 'plan9' }, 'image'],
    ['an unknown size', { size: 's-0vcpu' }, 'size'],
    ['an unavailable size', { size: 'm-32vcpu-256gb' }, 'size'],
    ['a size with less disk than the image needs', { image: 'windows-2022', size: 's-1vcpu-1gb' }, 'size'],
    ['a name that is not a host name', { name: 'my web server' }, 'name'],
    ['a name of 254 characters', { name: 'a'.repeat(254) }, 'name'],
    ['a boolean given as a string', { backups: 'yes' }, 'backups'],
    ['tags that are not strings', { tags: [1, 2] }, 'tags'],
    ['ssh_keys naming no key of the account', { ssh_keys: ['ssh_doesnotexist'] }, 'ssh_keys'],
    ['user_data over 64 KiB', { user_data: 'x'.repeat(64 * 1024 + 1) }, 'user_data'],
  ];
  for (const [label, change, field] of refused) {
    test(`POST /vps with ${label} is a validation error on ${field}`, async () => {
      const res = await opClient(server).op('POST /vps', { body: { ...VPS_BODY, ...change } });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    });
  }

  test('a host name of 253 characters and the largest user_data are accepted', async () => {
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(name).toHaveLength(253);
    const res = await opClient(server).op('POST /vps', {
      body: { ...VPS_BODY, name, user_data: 'x'.repeat(64 * 1024) },
    });
    expect(res.status).toBe(201);
  });

  test('PUT /vps/{vps_id} changes name and tags, keeps what was not sent, and refuses wrong types', async () => {
    const api = opClient(server);
    const vps = json(await api.op('POST /vps', { body: { ...VPS_BODY, tags: ['a'] } })).vps;
    const renamed = await api.op('PUT /vps/{vps_id}', { params: { vps_id: vps.id }, body: { name: 'web-2' } });
    expect(renamed.status).toBe(200);
    expect(json(renamed).vps).toMatchObject({ id: vps.id, name: 'web-2', tags: ['a'] });
    await api.op('PUT /vps/{vps_id}', { params: { vps_id: vps.id }, body: { tags: ['b', 'c'] } });
    const read = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect(read).toMatchObject({ name: 'web-2', tags: ['b', 'c'], region: 'nyc1' });
    for (const body of [{ name: 42 }, { tags: 'web' }, { tags: [true] }]) {
      const bad = await api.op('PUT /vps/{vps_id}', { params: { vps_id: vps.id }, body });
      expect(bad.status).toBe(422);
    }
    expect(json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps.name).toBe('web-2');
  });

  test('DELETE /vps/{vps_id} answers 204 with no body; the instance is gone from GET and the list', async () => {
    const api = freshAccountClient(server);
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const deleted = await api.op('DELETE /vps/{vps_id}', { params: { vps_id: vps.id } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } });
    expect(gone.status).toBe(404);
    expect(json(gone).error).toMatchObject({ code: 'not_found', resource: 'vps' });
    expect(json(await api.op('GET /vps')).vps_instances).toEqual([]);
    expect((await api.op('DELETE /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(404);
  });

  test("another account's instance answers 404 to every operation and is not listed", async () => {
    const owner = opClient(server, 'primary');
    const other = opClient(server, 'alt');
    const vps = await runningVps(owner);
    const params = { vps_id: vps.id as string };
    const attempts = [
      await other.op('GET /vps/{vps_id}', { params }),
      await other.op('PUT /vps/{vps_id}', { params, body: { name: 'stolen' } }),
      await other.op('POST /vps/{vps_id}/actions', { params, body: { type: 'stop' } }),
      await other.op('GET /vps/{vps_id}/metrics', { params }),
      await other.op('DELETE /vps/{vps_id}', { params }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(json(res).error).toMatchObject({ code: 'not_found', resource: 'vps' });
    }
    const listed = json(await other.op('GET /vps', { query: { per_page: '100' } })).vps_instances as Array<{
      id: string;
    }>;
    expect(listed.map((v) => v.id)).not.toContain(vps.id);
    expect(json(await owner.op('GET /vps/{vps_id}', { params })).vps).toMatchObject({
      name: 'web-1',
      status: 'running',
    });
  });
});

test.describe('GET /vps filters and pagination', () => {
  test('region and status filters return only matching instances', async () => {
    const api = freshAccountClient(server);
    const a = await runningVps(api, { region: 'ams3' });
    await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: a.id }, body: { type: 'stop' } });
    const b = await runningVps(api, { region: 'fra1' });
    const ids = (r: Awaited<ReturnType<typeof api.op>>) =>
      (json(r).vps_instances as Array<{ id: string }>).map((v) => v.id);
    expect(ids(await api.op('GET /vps', { query: { region: 'ams3' } }))).toEqual([a.id]);
    expect(ids(await api.op('GET /vps', { query: { status: 'running' } }))).toEqual([b.id]);
    expect(ids(await api.op('GET /vps', { query: { status: 'stopped' } }))).toEqual([a.id]);
    expect(ids(await api.op('GET /vps', { query: { status: 'creating' } }))).toEqual([]);
    expect(ids(await api.op('GET /vps', { query: { region: 'fra1', status: 'stopped' } }))).toEqual([]);
  });

  test('pages follow per_page with exact meta, newest first; bad page parameters are validation errors', async () => {
    const api = freshAccountClient(server);
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push(json(await api.op('POST /vps', { body: { ...VPS_BODY, name: `n${i}` } })).vps.id);
    const first = json(await api.op('GET /vps', { query: { per_page: '2' } }));
    expect(first.meta).toEqual({ total: 5, page: 1, per_page: 2, pages: 3 });
    expect(first.vps_instances.map((v: { id: string }) => v.id)).toEqual([created[4], created[3]]);
    const last = json(await api.op('GET /vps', { query: { per_page: '2', page: '3' } }));
    expect(last.meta).toEqual({ total: 5, page: 3, per_page: 2, pages: 3 });
    expect(last.vps_instances.map((v: { id: string }) => v.id)).toEqual([created[0]]);
    expect(json(await api.op('GET /vps', { query: { page: '4', per_page: '2' } })).vps_instances).toEqual([]);
    expect(json(await api.op('GET /vps')).meta).toEqual({ total: 5, page: 1, per_page: 25, pages: 1 });
    const badQueries: Array<Record<string, string>> = [
      { per_page: '0' },
      { per_page: '101' },
      { per_page: 'ten' },
      { page: '0' },
      { status: 'sleeping' },
    ];
    for (const query of badQueries) {
      const res = await api.op('GET /vps', { query });
      expect(res.status, JSON.stringify(query)).toBe(422);
      expect(json(res).error.code).toBe('validation_error');
      expect(Array.isArray(json(res).error.details)).toBe(true);
    }
  });

  test('an empty list has zero pages', async () => {
    const res = await freshAccountClient(server).op('GET /vps');
    expect(json(res)).toEqual({ vps_instances: [], meta: { total: 0, page: 1, per_page: 25, pages: 0 } });
  });
});

test.describe('actions', () => {
  test('stop, start and restart follow the state table; the wrong state is 422 invalid_state', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const act = (body: Record<string, unknown>) =>
      api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body });
    const status = async () => json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps.status;

    const refusedStart = await act({ type: 'start' });
    expect(refusedStart.status).toBe(422);
    expect(json(refusedStart).error).toMatchObject({ code: 'invalid_state', details: [{ field: 'type' }] });

    const stop = await act({ type: 'stop' });
    expect(stop.status).toBe(200);
    expect(json(stop).action).toMatchObject({ type: 'stop', status: 'completed', vps_id: vps.id });
    expect(json(stop).action.id).toMatch(/^act_/);
    expect(await status()).toBe('stopped');
    expect(json(await act({ type: 'stop' })).error.code).toBe('invalid_state');
    expect(json(await act({ type: 'restart' })).error.code).toBe('invalid_state');
    expect(await status()).toBe('stopped');

    expect((await act({ type: 'start' })).status).toBe(200);
    expect(await status()).toBe('running');
    expect((await act({ type: 'restart' })).status).toBe(200);
    expect(await status()).toBe('running');
  });

  test('resize takes the new size and its resources; it needs a known, available size', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const act = (body: Record<string, unknown>) =>
      api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body });
    for (const body of [
      { type: 'resize' },
      { type: 'resize', size: 'huge' },
      { type: 'resize', size: 'm-32vcpu-256gb' },
      { type: 'resize', size: 7 },
    ]) {
      const res = await act(body);
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field: 'size' }] });
    }
    expect((await act({ type: 'resize', size: 's-2vcpu-4gb' })).status).toBe(200);
    const read = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect(read).toMatchObject({ size: 's-2vcpu-4gb', vcpus: 2, memory: 4096, disk: 80, status: 'running' });
  });

  test('snapshot needs a name and lands in GET /snapshots; DELETE /snapshots/{id} removes it', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const missing = await api.op('POST /vps/{vps_id}/actions', {
      params: { vps_id: vps.id },
      body: { type: 'snapshot' },
    });
    expect(json(missing).error).toMatchObject({ code: 'validation_error', details: [{ field: 'name' }] });
    expect(
      (
        await api.op('POST /vps/{vps_id}/actions', {
          params: { vps_id: vps.id },
          body: { type: 'snapshot', name: 'before-upgrade' },
        })
      ).status,
    ).toBe(200);
    const snapshots = json(await api.op('GET /snapshots')).snapshots as Array<Record<string, unknown>>;
    const snapshot = snapshots.find((s) => s.vps_id === vps.id);
    expect(snapshot).toMatchObject({ name: 'before-upgrade', region: 'nyc1', size: 25, status: 'available' });
    expect(String(snapshot?.id)).toMatch(/^snap_/);

    const other = opClient(server, 'alt');
    expect(json(await other.op('GET /snapshots')).snapshots.map((s: { id: string }) => s.id)).not.toContain(
      snapshot?.id,
    );
    expect(
      (await other.op('DELETE /snapshots/{snapshot_id}', { params: { snapshot_id: String(snapshot?.id) } })).status,
    ).toBe(404);

    const deleted = await api.op('DELETE /snapshots/{snapshot_id}', { params: { snapshot_id: String(snapshot?.id) } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(json(await api.op('GET /snapshots')).snapshots.map((s: { id: string }) => s.id)).not.toContain(snapshot?.id);
    const again = await api.op('DELETE /snapshots/{snapshot_id}', { params: { snapshot_id: String(snapshot?.id) } });
    expect(json(again).error).toMatchObject({ code: 'not_found', resource: 'snapshot' });
  });

  test('rebuild replaces the image and leaves the instance running; the image must fit the disk', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const act = (body: Record<string, unknown>) =>
      api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body });
    expect(json(await act({ type: 'rebuild' })).error.details[0].field).toBe('image');
    expect(json(await act({ type: 'rebuild', image: 'windows-2022' })).error.details[0].field).toBe('image');
    await act({ type: 'stop' });
    expect((await act({ type: 'rebuild', image: 'debian-12' })).status).toBe(200);
    const read = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect(read).toMatchObject({ image: 'debian-12', status: 'running' });
  });

  test('a missing or unknown type is a validation error on type', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    for (const body of [{}, { type: 'reboot' }, { type: 3 }]) {
      const res = await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field: 'type' }] });
    }
  });
});

test.describe('actions while creating', () => {
  let slow: RunningReference;
  test.beforeAll(async () => {
    slow = await startReferenceServer({ delays: { vpsBootMs: 60_000 } });
  });
  test.afterAll(async () => {
    await slow.close();
  });

  test('every action on a creating instance is 422 invalid_state and changes nothing', async () => {
    const api = opClient(slow);
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const bodies = [
      { type: 'start' },
      { type: 'stop' },
      { type: 'restart' },
      { type: 'resize', size: 's-2vcpu-2gb' },
      { type: 'snapshot', name: 's' },
      { type: 'rebuild', image: 'debian-12' },
    ];
    for (const body of bodies) {
      const res = await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body });
      expect(res.status, body.type).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'invalid_state', details: [{ field: 'type' }] });
    }
    const read = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect(read).toMatchObject({ status: 'creating', size: 's-1vcpu-1gb', image: 'ubuntu-22-04', ip_address: null });
    expect(json(await api.op('GET /snapshots')).snapshots).toEqual([]);
  });

  test('an instance deleted while creating never boots', async () => {
    const api = opClient(slow);
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect((await api.op('DELETE /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(204);
    expect((await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(404);
  });
});

test.describe('metrics', () => {
  const MINUTE = 60_000;

  test('the default window is the last hour at 5 minute intervals, five series of numbers', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const before = Date.now();
    const res = await api.op('GET /vps/{vps_id}/metrics', { params: { vps_id: vps.id } });
    expect(res.status).toBe(200);
    const metrics = json(res).metrics as Record<string, Array<{ timestamp: string; value: number }>>;
    expect(Object.keys(metrics).sort()).toEqual(['cpu', 'disk', 'memory', 'network_in', 'network_out']);
    for (const series of Object.values(metrics)) {
      expect(series).toHaveLength(13);
      const times = series.map((p) => Date.parse(p.timestamp));
      for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBe(5 * MINUTE);
      expect(times[0]).toBeGreaterThanOrEqual(before - 60 * MINUTE - 1000);
      expect(times.at(-1)).toBeLessThanOrEqual(Date.now());
    }
    for (const p of metrics.cpu ?? []) expect(p.value >= 0 && p.value <= 100).toBe(true);
  });

  test('start, end and interval choose the points, all inside the window; repeated reads agree', async () => {
    const api = opClient(server);
    const vps = await runningVps(api);
    const params = { vps_id: vps.id as string };
    const query = { start: '2026-01-01T00:00:00Z', end: '2026-01-01T00:10:00Z', interval: '1m' };
    const first = json(await api.op('GET /vps/{vps_id}/metrics', { params, query })).metrics;
    expect(first.cpu).toHaveLength(11);
    expect(first.cpu[0].timestamp).toBe('2026-01-01T00:00:00.000Z');
    expect(first.cpu.at(-1).timestamp).toBe('2026-01-01T00:10:00.000Z');
    expect(json(await api.op('GET /vps/{vps_id}/metrics', { params, query })).metrics).toEqual(first);

    const hourly = json(
      await api.op('GET /vps/{vps_id}/metrics', {
        params,
        query: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z', interval: '1h' },
      }),
    ).metrics;
    expect(hourly.network_in).toHaveLength(25);
    const daily = json(
      await api.op('GET /vps/{vps_id}/metrics', {
        params,
        query: { start: '2026-01-01', end: '2026-01-31', interval: '1d' },
      }),
    ).metrics;
    expect(daily.memory).toHaveLength(31);
    for (const p of daily.memory) {
      const t = Date.parse(p.timestamp);
      expect(t >= Date.parse('2026-01-01') && t <= Date.parse('2026-01-31')).toBe(true);
    }
  });

  const invalid: Array<[string, Record<string, string>, string]> = [
    ['an unknown interval', { interval: '2m' }, 'interval'],
    ['end before start', { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' }, 'end'],
    ['a start that is not ISO 8601', { start: 'yesterday' }, 'start'],
    ['an end that is not a date', { end: '2026-13-45T00:00:00Z' }, 'end'],
    [
      'more than 1440 points',
      { start: '2026-01-01T00:00:00Z', end: '2026-01-03T00:00:00Z', interval: '1m' },
      'interval',
    ],
  ];
  for (const [label, query, field] of invalid) {
    test(`metrics with ${label} is a validation error on ${field}`, async () => {
      const api = opClient(server);
      const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
      const res = await api.op('GET /vps/{vps_id}/metrics', { params: { vps_id: vps.id }, query });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    });
  }
});

test.describe('SSH keys', () => {
  test('a real key is added with its SHA256 fingerprint, listed, and usable in POST /vps', async () => {
    const api = opClient(server);
    const publicKey = newEd25519Key('me@laptop');
    const res = await api.op('POST /ssh-keys', { body: { name: 'laptop', public_key: publicKey } });
    expect(res.status).toBe(201);
    const key = json(res).ssh_key;
    const blob = Buffer.from(publicKey.split(' ')[1] ?? '', 'base64');
    expect(key).toMatchObject({
      name: 'laptop',
      public_key: publicKey,
      fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
    });
    expect(key.id).toMatch(/^ssh_/);
    expect((json(await api.op('GET /ssh-keys')).ssh_keys as Array<{ id: string }>).map((k) => k.id)).toContain(key.id);

    const vps = await api.op('POST /vps', { body: { ...VPS_BODY, ssh_keys: [key.id] } });
    expect(vps.status).toBe(201);
    expect(json(vps).vps.ssh_keys).toEqual([key.id]);

    const other = opClient(server, 'alt');
    const foreign = await other.op('POST /vps', { body: { ...VPS_BODY, ssh_keys: [key.id] } });
    expect(json(foreign).error).toMatchObject({ code: 'validation_error', details: [{ field: 'ssh_keys' }] });
    expect((json(await other.op('GET /ssh-keys')).ssh_keys as Array<{ id: string }>).map((k) => k.id)).not.toContain(
      key.id,
    );
  });

  test('the same key twice is a validation error', async () => {
    const api = opClient(server);
    const publicKey = newEd25519Key();
    expect((await api.op('POST /ssh-keys', { body: { name: 'a', public_key: publicKey } })).status).toBe(201);
    const again = await api.op('POST /ssh-keys', {
      body: { name: 'b', public_key: publicKey.replace(/ \S+$/, ' other-comment') },
    });
    expect(again.status).toBe(422);
    expect(json(again).error).toMatchObject({ code: 'validation_error', details: [{ field: 'public_key' }] });
  });

  const ed25519Blob = () => newEd25519Key().split(' ')[1] ?? '';
  const bad: Array<[string, () => Record<string, unknown>, string]> = [
    ['no name', () => ({ public_key: newEd25519Key() }), 'name'],
    ['no public_key', () => ({ name: 'k' }), 'public_key'],
    ['text that is not a key', () => ({ name: 'k', public_key: 'hello world' }), 'public_key'],
    ['an unsupported type', () => ({ name: 'k', public_key: `ssh-dss ${ed25519Blob()}` }), 'public_key'],
    [
      'a type that does not match the blob',
      () => ({ name: 'k', public_key: `ssh-rsa ${ed25519Blob()}` }),
      'public_key',
    ],
    ['a blob that is not base64', () => ({ name: 'k', public_key: 'ssh-ed25519 AAAA!!!!' }), 'public_key'],
    ['a truncated blob', () => ({ name: 'k', public_key: `ssh-ed25519 ${ed25519Blob().slice(0, 40)}` }), 'public_key'],
    ['a key that is a number', () => ({ name: 'k', public_key: 12345 }), 'public_key'],
  ];
  for (const [label, body, field] of bad) {
    test(`POST /ssh-keys with ${label} is a validation error on ${field}`, async () => {
      const res = await opClient(server).op('POST /ssh-keys', { body: body() });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    });
  }
});

test.describe('events', () => {
  let receiver: Server;
  let url = '';
  const received: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- webhook bodies are explored field by field

  test.beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(JSON.parse(body));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `http://127.0.0.1:${address.port}/hook`;
  });
  test.afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  test('each change emits its compute event with data.vps {id, name, status}', async () => {
    const account = server.context.accounts.createAccount({ email: 'events@example.com', name: 'Events' });
    const key = server.context.accounts.createKey(account.id, { name: 'k', permissions: ['read', 'write'] }).key;
    const events = [
      'vps.created',
      'vps.started',
      'vps.stopped',
      'vps.deleted',
      'vps.resized',
      'snapshot.created',
      'snapshot.deleted',
    ];
    server.context.events.subscribe(account.id, { url, events });
    const raw = client(server.baseUrl, key);
    const vps = json(await raw.call('POST', '/vps', { ...VPS_BODY, name: 'evented' })).vps;
    await waitFor(
      () => raw.call('GET', `/vps/${vps.id}`),
      (r) => json(r).vps.status === 'running',
    );
    for (const body of [
      { type: 'stop' },
      { type: 'start' },
      { type: 'resize', size: 's-2vcpu-2gb' },
      { type: 'snapshot', name: 'snap' },
    ]) {
      expect((await raw.call('POST', `/vps/${vps.id}/actions`, body)).status).toBe(200);
    }
    const snapshotId = json(await raw.call('GET', '/snapshots')).snapshots[0].id;
    expect((await raw.call('DELETE', `/snapshots/${snapshotId}`)).status).toBe(204);
    expect((await raw.call('DELETE', `/vps/${vps.id}`)).status).toBe(204);

    await waitFor(
      async () => received.length,
      (n) => n >= events.length,
    );
    expect(received.map((e) => e.event)).toEqual([
      'vps.created',
      'vps.stopped',
      'vps.started',
      'vps.resized',
      'snapshot.created',
      'snapshot.deleted',
      'vps.deleted',
    ]);
    for (const event of received) {
      expect(typeof event.timestamp).toBe('string');
      expect(event.data.vps).toMatchObject({ id: vps.id, name: 'evented' });
      expect(typeof event.data.vps.status).toBe('string');
    }
    expect(received[0]?.data.vps.status).toBe('creating');
    expect(received[1]?.data.vps.status).toBe('stopped');
    expect(received[2]?.data.vps.status).toBe('running');
    expect(received[4]?.data.snapshot.id).toBe(snapshotId);
  });
});

test.describe('services offered to other areas', () => {
  test('the compute lookup finds only the account’s own instances and knows the regions', async () => {
    const api = opClient(server);
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const owner = server.context.accounts.keyBySecret(api.key)?.accountId ?? '';
    const alt = server.context.accounts.keyBySecret(server.altApiKey)?.accountId ?? '';
    const lookup = server.context.services.get('compute');
    expect(lookup.findVps(owner, vps.id)).toMatchObject({ id: vps.id, region: 'nyc1' });
    expect(lookup.findVps(alt, vps.id)).toBeUndefined();
    expect(lookup.findRegion('nyc1')).toMatchObject({ available: true });
    expect(lookup.findRegion('nyc2')).toMatchObject({ available: false });
    expect(lookup.findRegion('constructor')).toBeUndefined();
  });

  test('the resource provider lists instances with their project, prices them, and removes them', async () => {
    const api = freshAccountClient(server);
    const accountId = server.context.accounts.keyBySecret(api.key)?.accountId ?? '';
    const vps = json(
      await api.op('POST /vps', { body: { ...VPS_BODY, size: 's-2vcpu-4gb', project_id: 'proj_123' } }),
    ).vps;
    expect(vps.project_id).toBe('proj_123');
    const provider = server.context.services.resourceProviders.find((p) => p.service === 'compute');
    expect(provider).toBeDefined();
    expect(provider?.resources(accountId)).toEqual([
      expect.objectContaining({
        id: vps.id,
        type: 'vps',
        service: 'compute',
        region: 'nyc1',
        monthly_cost: 24,
        project_id: 'proj_123',
      }),
    ]);
    const now = Date.now();
    const usage = provider?.usage(accountId, now - 3_600_000, now + 3_600_000);
    expect(usage?.resources[0]).toMatchObject({ type: 'vps', id: vps.id, name: 'web-1' });
    expect(typeof usage?.resources[0]?.hours).toBe('number');
    provider?.remove(accountId, vps.id);
    expect((await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(404);
    expect(provider?.resources(accountId)).toEqual([]);
    // Still billed for the time it existed.
    expect(provider?.usage(accountId, now - 3_600_000, Date.now() + 1000).resources.map((r) => r.id)).toEqual([vps.id]);
  });
});
