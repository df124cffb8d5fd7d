/**
 * Each block storage fault is observable: with it switched on, the server breaks the requirement
 * the fault names (volumes.test.ts shows the same requests conforming without it).
 */
import { expect, test } from '../base.ts';
import { VOLUME_FAULTS, type VolumeFault } from '../../reference/areas/storage-volumes/faults.ts';
import { type RunningReference, listFaults, startReferenceServer } from '../../reference/server.ts';
import { type OpClient, freshAccountClient, json, runningVps } from './compute-support.ts';

const VOLUME = { name: 'data-1', size: 10, region: 'nyc1' } as const;

test('every volume fault is registered with the server', () => {
  const known = new Map(listFaults().map((f) => [f.name, f]));
  for (const fault of VOLUME_FAULTS) expect(known.get(fault.name)?.requirement).toBe(fault.requirement);
});

/** A 10 GB volume snapshotted, then resized to 20 GB (answered 200). */
async function snapshotThenGrow(
  api: OpClient,
): Promise<{ vol: ReturnType<typeof json>; snap: ReturnType<typeof json> }> {
  const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
  const snap = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
  const resized = await api.op('POST /storage/volumes/{volume_id}/resize', {
    params: { volume_id: vol.id },
    body: { size: 20 },
  });
  expect(resized.status).toBe(200);
  return { vol, snap };
}

const observations: Record<VolumeFault, (api: OpClient, server: RunningReference) => Promise<void>> = {
  'ids-unprefixed-volumes': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    expect(vol.id).not.toMatch(/^vol_/);
    const snap = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
    expect(snap.id).not.toMatch(/^vsnap_/);
  },
  'volume-in-use-422': async (api) => {
    const vps = await runningVps(api);
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const params = { volume_id: vol.id };
    await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: vps.id } });
    const again = await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: vps.id } });
    expect([again.status, json(again).error.code, json(again).error.resource]).toEqual([
      422,
      'volume_in_use',
      'volume',
    ]);
  },
  'volume-attach-cross-region': async (api) => {
    const vps = await runningVps(api);
    const vol = json(await api.op('POST /storage/volumes', { body: { ...VOLUME, region: 'ams3' } })).volume;
    const res = await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vps.id },
    });
    expect([vps.region, res.status, json(res).volume.attached_to]).toEqual(['nyc1', 200, vps.id]);
  },
  'volume-restore-default-larger': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const snapshot = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
    const res = await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snapshot.id, name: 'r' } });
    expect([snapshot.size, json(res).volume.size]).toEqual([10, 11]);
  },
  'volume-attach-foreign-vps': async (api, server) => {
    const vps = await runningVps(freshAccountClient(server, { validate: false }));
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const res = await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vps.id },
    });
    expect([res.status, json(res).volume.attached_to]).toEqual([200, vps.id]);
  },
  'volume-restore-size-against-volume': async (api) => {
    const { snap } = await snapshotThenGrow(api);
    const res = await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snap.id, name: 'r', size: 10 } });
    expect(res.status).toBe(422);
  },
  'volume-resize-lost-after-snapshot': async (api) => {
    const { vol } = await snapshotThenGrow(api);
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.size).toBe(
      10,
    );
  },
  'volume-snapshot-filter-newest-volume': async (api) => {
    const a = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const b = json(await api.op('POST /storage/volumes', { body: { ...VOLUME, name: 'data-2' } })).volume;
    await api.op('POST /storage/snapshots', { body: { volume_id: a.id, name: 'a' } });
    const ofB = json(await api.op('POST /storage/snapshots', { body: { volume_id: b.id, name: 'b' } })).snapshot;
    const listed = json(await api.op('GET /storage/snapshots', { query: { volume_id: a.id } })).snapshots as Array<{
      id: string;
    }>;
    expect(listed.map((s) => s.id)).toEqual([ofB.id]);
  },
  'volume-restore-reuses-volume': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const snap = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
    const restore = async (name: string) =>
      json(await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snap.id, name } })).volume;
    const first = await restore('r1');
    const second = await restore('r2');
    expect([second.id, second.name]).toEqual([first.id, 'r1']);
  },
  'volume-restore-default-current-size': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const snap = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
    await api.op('POST /storage/volumes/{volume_id}/resize', { params: { volume_id: vol.id }, body: { size: 20 } });
    const restored = json(await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snap.id, name: 'r' } }));
    expect([snap.size, restored.volume.size]).toEqual([10, 20]);
  },
  'volume-status-capitalised': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    expect(vol.status).toBe('available');
    expect(
      json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.status,
    ).toBe('Available');
    expect(json(await api.op('GET /storage/volumes')).volumes[0].status).toBe('Available');
  },
  'volume-snapshot-newest-unlisted': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const first = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's1' } })).snapshot;
    const second = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's2' } })).snapshot;
    const listed = (json(await api.op('GET /storage/snapshots')).snapshots as Array<{ id: string }>).map((s) => s.id);
    expect(listed).toEqual([first.id]);
    expect(listed).not.toContain(second.id);
  },
  'volume-restore-unstored': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const snap = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's1' } })).snapshot;
    const res = await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snap.id, name: 'restored' } });
    expect(res.status).toBe(201);
    expect(
      (await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: json(res).volume.id } })).status,
    ).toBe(404);
  },
  'volume-tags-dropped': async (api) => {
    expect(json(await api.op('POST /storage/volumes', { body: { ...VOLUME, tags: ['a'] } })).volume.tags).toEqual([]);
  },
  'volume-resize-ignored': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    expect(
      (await api.op('POST /storage/volumes/{volume_id}/resize', { params: { volume_id: vol.id }, body: { size: 20 } }))
        .status,
    ).toBe(200);
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.size).toBe(
      10,
    );
  },
  'volume-attach-unreported': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const vps = await runningVps(api);
    const res = await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vps.id },
    });
    expect(json(res).volume.attached_to).toBeNull();
    expect(
      json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.attached_to,
    ).toBe(vps.id);
  },
  'volume-detach-stale': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const vps = await runningVps(api);
    await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vps.id },
    });
    expect(
      json(await api.op('POST /storage/volumes/{volume_id}/detach', { params: { volume_id: vol.id } })).volume
        .attached_to,
    ).toBeNull();
    expect(
      json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.attached_to,
    ).toBe(vps.id);
  },
  'volume-delete-ignored': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    expect((await api.op('DELETE /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).status).toBe(204);
    expect((await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).status).toBe(200);
  },
  'volume-list-attached-filter-ignored': async (api) => {
    await api.op('POST /storage/volumes', { body: VOLUME });
    expect(json(await api.op('GET /storage/volumes', { query: { attached: 'true' } })).volumes).toHaveLength(1);
  },
  // Sequence-only: the filter goes wrong only after an attach and a detach.
  'volume-attached-filter-sticky': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const vps = await runningVps(api);
    const params = { volume_id: vol.id };
    await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: vps.id } });
    expect(
      json(await api.op('GET /storage/volumes', { query: { attached: 'true' } })).volumes.map(
        (v: { id: string }) => v.id,
      ),
    ).toEqual([vol.id]);
    expect(json(await api.op('POST /storage/volumes/{volume_id}/detach', { params })).volume.attached_to).toBeNull();
    const listed = json(await api.op('GET /storage/volumes', { query: { attached: 'true' } })).volumes;
    expect(listed.map((v: { id: string; attached_to: string | null }) => [v.id, v.attached_to])).toEqual([
      [vol.id, null],
    ]);
    expect(json(await api.op('GET /storage/volumes', { query: { attached: 'false' } })).volumes).toEqual([]);
  },
  'volume-list-size-string': async (api) => {
    await api.op('POST /storage/volumes', { body: VOLUME });
    expect(json(await api.op('GET /storage/volumes')).volumes[0].size).toBe('10');
  },
  'volume-list-attached-to-omitted': async (api) => {
    await api.op('POST /storage/volumes', { body: VOLUME });
    expect(Object.keys(json(await api.op('GET /storage/volumes')).volumes[0])).not.toContain('attached_to');
  },
  'volume-min-size-unchecked': async (api) => {
    const res = await api.op('POST /storage/volumes', { body: { ...VOLUME, size: 0 } });
    expect(res.status).toBe(201);
    expect(json(res).volume.size).toBe(0);
  },
  'volume-shrink-accepted': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const res = await api.op('POST /storage/volumes/{volume_id}/resize', {
      params: { volume_id: vol.id },
      body: { size: 5 },
    });
    expect(res.status).toBe(200);
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.size).toBe(
      5,
    );
  },
  'volume-restore-smaller-accepted': async (api) => {
    const vol = json(await api.op('POST /storage/volumes', { body: VOLUME })).volume;
    const snapshot = json(await api.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 's' } })).snapshot;
    const res = await api.op('POST /storage/volumes/restore', {
      body: { snapshot_id: snapshot.id, name: 'r', size: 2 },
    });
    expect(res.status).toBe(201);
    expect(json(res).volume.size).toBe(2);
  },
};

for (const fault of VOLUME_FAULTS) {
  test(`fault ${fault.name} is observable (${fault.requirement})`, async () => {
    const server = await startReferenceServer({ faults: [fault.name], delays: { vpsBootMs: 50 } });
    try {
      await observations[fault.name](freshAccountClient(server, { validate: false }), server);
    } finally {
      await server.close();
    }
  });
}
