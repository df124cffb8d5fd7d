/**
 * Each compute fault is observable: with it switched on, the server breaks the requirement the
 * fault names (and compute.test.ts shows the same request conforming without it). Responses are
 * not checked against the OpenAPI document here: some faults are meant to break it.
 */
import { expect, test } from '../base.ts';
import { COMPUTE_FAULTS, type ComputeFault } from '../../reference/areas/compute/faults.ts';
import { type RunningReference, listFaults, startReferenceServer } from '../../reference/server.ts';
import { type OpClient, VPS_BODY, freshAccountClient, json, newEd25519Key, runningVps } from './compute-support.ts';

async function withFault(
  fault: ComputeFault,
  run: (api: OpClient, server: RunningReference) => Promise<void>,
): Promise<void> {
  const server = await startReferenceServer({ faults: [fault], delays: { vpsBootMs: 50 } });
  try {
    await run(freshAccountClient(server, { validate: false }), server);
  } finally {
    await server.close();
  }
}

test('every compute fault is registered with the server and names a requirement', () => {
  const known = new Map(listFaults().map((f) => [f.name, f]));
  for (const fault of COMPUTE_FAULTS) {
    expect(known.get(fault.name)?.requirement).toBe(fault.requirement);
    expect(fault.requirement).toMatch(/^[A-Z]+-[A-Z]+-\d{3}$/);
  }
});

/** Two snapshot actions on one running VPS: the ids of its snapshots, oldest first. */
async function twoSnapshots(api: OpClient): Promise<string[]> {
  const vps = await runningVps(api);
  const ids: string[] = [];
  for (const name of ['s1', 's2']) {
    await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body: { type: 'snapshot', name } });
    const listed = json(await api.op('GET /snapshots')).snapshots as Array<{ id: string; name: string }>;
    ids.push(listed.find((s) => s.name === name)!.id);
  }
  return ids;
}

const snapshotIds = async (api: OpClient): Promise<string[]> =>
  (json(await api.op('GET /snapshots')).snapshots as Array<{ id: string }>).map((s) => s.id);

const observations: Record<ComputeFault, (api: OpClient) => Promise<void>> = {
  'ids-unprefixed-compute': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(vps.id).not.toMatch(/^vps_/);
    const key = json(await api.op('POST /ssh-keys', { body: { name: 'laptop', public_key: newEd25519Key() } })).ssh_key;
    expect(key.id).not.toMatch(/^ssh_/);
  },
  'vps-stop-on-stopped-accepted': async (api) => {
    const vps = await runningVps(api);
    const params = { vps_id: vps.id };
    await api.op('POST /vps/{vps_id}/actions', { params, body: { type: 'stop' } });
    const again = await api.op('POST /vps/{vps_id}/actions', { params, body: { type: 'stop' } });
    expect([again.status, json(again).action.status]).toEqual([200, 'completed']);
    // Only stop: start on a running VPS is still refused.
    await api.op('POST /vps/{vps_id}/actions', { params, body: { type: 'start' } });
    expect((await api.op('POST /vps/{vps_id}/actions', { params, body: { type: 'start' } })).status).toBe(422);
  },
  'vps-invalid-state-details-object': async (api) => {
    const vps = await runningVps(api);
    const res = await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body: { type: 'start' } });
    expect([res.status, json(res).error.code]).toEqual([422, 'invalid_state']);
    expect(json(res).error.details).toMatchObject({ field: 'type' });
  },
  'sizes-transfer-gb': async (api) => {
    const sizes = json(await api.op('GET /sizes')).sizes as Array<{ transfer: number }>;
    expect(Math.min(...sizes.map((s) => s.transfer))).toBeGreaterThanOrEqual(100);
  },
  'vps-get-unwrapped': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const got = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } }));
    expect([got.id, got.vps]).toEqual([vps.id, undefined]);
  },
  'vps-get-name-wrong': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps.name).not.toBe(vps.name);
  },
  'vps-metrics-interval-ignored': async (api) => {
    const vps = await runningVps(api);
    const res = await api.op('GET /vps/{vps_id}/metrics', {
      params: { vps_id: vps.id },
      query: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T06:00:00Z', interval: '1h' },
    });
    expect(json(res).metrics.cpu.length).toBeGreaterThan(7);
  },
  'vps-tags-dropped': async (api) => {
    expect(json(await api.op('POST /vps', { body: { ...VPS_BODY, tags: ['a'] } })).vps.tags).toEqual([]);
  },
  'vps-image-by-name-only': async (api) => {
    const refused = await api.op('POST /vps', { body: VPS_BODY });
    expect(refused.status).toBe(422);
    expect((await api.op('POST /vps', { body: { ...VPS_BODY, image: 'Ubuntu 22.04 LTS' } })).status).toBe(201);
  },
  'vps-list-status-capitalised': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(vps.status).toBe('creating');
    const listed = (json(await api.op('GET /vps')).vps_instances as Array<{ status: string }>).map((v) => v.status);
    expect(listed).toEqual(['Creating']);
    expect(json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps.status).toBe('creating');
  },
  'vps-ssh-key-ids-refused': async (api) => {
    const key = json(await api.op('POST /ssh-keys', { body: { name: 'laptop', public_key: newEd25519Key() } })).ssh_key;
    expect((await api.op('POST /vps', { body: { ...VPS_BODY, ssh_keys: [key.id] } })).status).toBe(422);
    expect((await api.op('POST /vps', { body: { ...VPS_BODY, ssh_keys: [key.fingerprint] } })).status).toBe(201);
  },
  'vps-unknown-region-accepted': async (api) => {
    const res = await api.op('POST /vps', { body: { ...VPS_BODY, region: 'cc-no-such-region' } });
    expect(res.status).toBe(201);
  },
  'vps-get-vcpus-string': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(typeof vps.vcpus).toBe('number');
    const got = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect([typeof got.vcpus, typeof got.memory, typeof got.disk]).toEqual(['string', 'string', 'string']);
  },
  'vps-get-ips-omitted': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(vps.private_ip).toBeNull();
    const got = json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps;
    expect(Object.keys(got)).not.toContain('private_ip');
    expect(Object.keys(got)).not.toContain('ip_address');
  },
  'vps-created-with-ips': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(vps.status).toBe('creating');
    expect(vps.ip_address).not.toBeNull();
    expect(vps.private_ip).not.toBeNull();
  },
  'vps-update-ignored': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const res = await api.op('PUT /vps/{vps_id}', { params: { vps_id: vps.id }, body: { name: 'renamed' } });
    expect(res.status).toBe(200);
    expect(json(await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).vps.name).toBe('web-1');
  },
  'vps-list-filter-ignored': async (api) => {
    await api.op('POST /vps', { body: { ...VPS_BODY, region: 'ams3' } });
    await api.op('POST /vps', { body: { ...VPS_BODY, region: 'fra1' } });
    const listed = json(await api.op('GET /vps', { query: { region: 'ams3' } })).vps_instances as Array<{
      region: string;
    }>;
    expect(listed.map((v) => v.region)).toContain('fra1');
  },
  'vps-delete-ghost': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect((await api.op('DELETE /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(204);
    expect(json(await api.op('GET /vps')).vps_instances).toEqual([]);
    expect((await api.op('GET /vps/{vps_id}', { params: { vps_id: vps.id } })).status).toBe(200);
  },
  'vps-list-meta-missing': async (api) => {
    await api.op('POST /vps', { body: VPS_BODY });
    const body = json(await api.op('GET /vps'));
    expect(body.vps_instances).toHaveLength(1);
    expect(body.meta).toBeUndefined();
  },
  'vps-action-type-unchecked': async (api) => {
    const vps = await runningVps(api);
    const res = await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body: { type: 'explode' } });
    expect(res.status).toBe(200);
    expect(json(res).action.type).toBe('explode');
  },
  'vps-metrics-outside-window': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const query = { start: '2026-01-01T00:00:00Z', end: '2026-01-01T01:00:00Z', interval: '5m' };
    const cpu = json(await api.op('GET /vps/{vps_id}/metrics', { params: { vps_id: vps.id }, query })).metrics
      .cpu as Array<{ timestamp: string }>;
    expect(Date.parse(cpu[0]?.timestamp ?? '')).toBeLessThan(Date.parse(query.start));
  },
  'image-filter-ignored': async (api) => {
    const images = json(await api.op('GET /images', { query: { type: 'windows' } })).images as Array<{ type: string }>;
    expect(images.some((i) => i.type === 'linux')).toBe(true);
    expect((await api.op('GET /images', { query: { type: 'bsd' } })).status).toBe(200);
  },
  'snapshot-delete-ignored': async (api) => {
    const vps = await runningVps(api);
    await api.op('POST /vps/{vps_id}/actions', { params: { vps_id: vps.id }, body: { type: 'snapshot', name: 's' } });
    const id = json(await api.op('GET /snapshots')).snapshots[0].id as string;
    expect((await api.op('DELETE /snapshots/{snapshot_id}', { params: { snapshot_id: id } })).status).toBe(204);
    expect(json(await api.op('GET /snapshots')).snapshots.map((s: { id: string }) => s.id)).toContain(id);
  },
  // Sequence-only faults: each needs an order of operations (cloudcheck explore finds them).
  'vps-list-total-stale-after-delete': async (api) => {
    const kept = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const gone = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    expect(json(await api.op('GET /vps')).meta.total).toBe(2);
    expect((await api.op('DELETE /vps/{vps_id}', { params: { vps_id: gone.id } })).status).toBe(204);
    const page = json(await api.op('GET /vps', { query: { per_page: '1' } }));
    expect(page.vps_instances.map((v: { id: string }) => v.id)).toEqual([kept.id]);
    expect(page.meta).toMatchObject({ total: 2, pages: 2 });
    expect(json(await api.op('GET /vps', { query: { page: '2', per_page: '1' } })).vps_instances).toEqual([]);
    // The next creation counts again.
    await api.op('POST /vps', { body: VPS_BODY });
    expect(json(await api.op('GET /vps')).meta.total).toBe(2);
  },
  'vps-list-filter-first-page-only': async (api) => {
    for (const region of ['nyc1', 'ams3', 'nyc1']) await api.op('POST /vps', { body: { ...VPS_BODY, region } });
    const first = json(await api.op('GET /vps', { query: { region: 'nyc1', per_page: '1' } }));
    expect(first.vps_instances.map((v: { region: string }) => v.region)).toEqual(['nyc1']);
    expect(first.meta.total).toBe(2);
    const second = json(await api.op('GET /vps', { query: { region: 'nyc1', page: '2', per_page: '1' } }));
    expect(second.vps_instances.map((v: { region: string }) => v.region)).toEqual(['ams3']);
  },
  'vps-second-update-lost': async (api) => {
    const vps = json(await api.op('POST /vps', { body: VPS_BODY })).vps;
    const params = { vps_id: vps.id };
    await api.op('PUT /vps/{vps_id}', { params, body: { name: 'first' } });
    expect(json(await api.op('GET /vps/{vps_id}', { params })).vps.name).toBe('first');
    expect(
      json(await api.op('PUT /vps/{vps_id}', { params, body: { name: 'second', tags: ['t'] } })).vps,
    ).toMatchObject({ name: 'second', tags: ['t'] });
    expect(json(await api.op('GET /vps/{vps_id}', { params })).vps).toMatchObject({ name: 'first', tags: [] });
  },
  'snapshot-delete-removes-newest': async (api) => {
    const [older, newer] = (await twoSnapshots(api)) as [string, string];
    expect((await api.op('DELETE /snapshots/{snapshot_id}', { params: { snapshot_id: older } })).status).toBe(204);
    expect(await snapshotIds(api)).toEqual([older]);
    expect(newer).toBeDefined();
  },
  'snapshot-list-newest-per-vps': async (api) => {
    const [older, newer] = await twoSnapshots(api);
    expect(await snapshotIds(api)).toEqual([newer]);
    expect(older).toBeDefined();
  },
  'vps-second-snapshot-ignored': async (api) => {
    const vps = await runningVps(api);
    for (const name of ['s1', 's2']) {
      const res = await api.op('POST /vps/{vps_id}/actions', {
        params: { vps_id: vps.id },
        body: { type: 'snapshot', name },
      });
      expect(res.status).toBe(200);
    }
    expect((json(await api.op('GET /snapshots')).snapshots as Array<{ name: string }>).map((s) => s.name)).toEqual([
      's1',
    ]);
  },
  'vps-list-stale-after-update': async (api) => {
    const vps = json(await api.op('POST /vps', { body: { ...VPS_BODY, name: 'before' } })).vps;
    const params = { vps_id: vps.id };
    await api.op('PUT /vps/{vps_id}', { params, body: { name: 'after', tags: ['t'] } });
    expect(json(await api.op('GET /vps/{vps_id}', { params })).vps).toMatchObject({ name: 'after', tags: ['t'] });
    expect(json(await api.op('GET /vps')).vps_instances[0]).toMatchObject({ id: vps.id, name: 'before', tags: [] });
  },
  'vps-list-pages-unfiltered': async (api) => {
    for (const region of ['nyc1', 'ams3', 'ams3']) await api.op('POST /vps', { body: { ...VPS_BODY, region } });
    expect(json(await api.op('GET /vps', { query: { per_page: '1' } })).meta).toMatchObject({ total: 3, pages: 3 });
    const filtered = json(await api.op('GET /vps', { query: { region: 'nyc1', per_page: '1' } }));
    expect(filtered.meta).toMatchObject({ total: 1, pages: 3 });
  },
};

for (const fault of COMPUTE_FAULTS) {
  test(`fault ${fault.name} is observable (${fault.requirement})`, async () => {
    await withFault(fault.name, observations[fault.name]);
  });
}
