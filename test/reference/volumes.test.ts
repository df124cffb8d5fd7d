/**
 * Behaviour of the reference server's block storage: volume create/list/get with filters, the
 * size rules (minimum 1, resize strictly larger, restore at least the snapshot), attach and
 * detach with their conflicts, volume snapshots and restore, isolation between accounts, the
 * resource provider, and detaching when an instance is deleted. Every response is also checked
 * against the OpenAPI document (compute-support.ts).
 */
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { type OpClient, VPS_BODY, freshAccountClient, json, opClient } from './compute-support.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: { vpsBootMs: 100 } });
});
test.afterAll(async () => {
  await server.close();
});

const VOLUME = { name: 'data-1', size: 10, region: 'nyc1' } as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are explored field by field; the OpenAPI check guards their shape
async function volume(api: OpClient, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await api.op('POST /storage/volumes', { body: { ...VOLUME, ...body } });
  expect(res.status, res.text).toBe(201);
  return json(res).volume;
}

async function vps(api: OpClient, region = 'nyc1'): Promise<string> {
  const res = await api.op('POST /vps', { body: { ...VPS_BODY, region } });
  expect(res.status, res.text).toBe(201);
  return json(res).vps.id as string;
}

test.describe('volumes', () => {
  test('POST /storage/volumes answers 201 {volume}: available, detached, ext4 by default', async () => {
    const api = opClient(server);
    const res = await api.op('POST /storage/volumes', { body: { ...VOLUME, tags: ['db'] } });
    expect(res.status).toBe(201);
    const created = json(res).volume;
    expect(created).toMatchObject({
      ...VOLUME,
      status: 'available',
      attached_to: null,
      filesystem: 'ext4',
      tags: ['db'],
    });
    expect(created.id).toMatch(/^vol_/);
    expect(
      json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: created.id } })).volume,
    ).toEqual(created);
    expect((await volume(api, { filesystem: 'xfs' })).filesystem).toBe('xfs');
  });

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['size 0', { size: 0 }, 'size'],
    ['a negative size', { size: -5 }, 'size'],
    ['a fractional size', { size: 1.5 }, 'size'],
    ['a size as a string', { size: '10' }, 'size'],
    ['a size over 16384 GB', { size: 16_385 }, 'size'],
    ['an unknown filesystem', { filesystem: 'ntfs' }, 'filesystem'],
    ['an unknown region', { region: 'mars1' }, 'region'],
    ['an unavailable region', { region: 'nyc2' }, 'region'],
    ['tags that are not strings', { tags: [1] }, 'tags'],
    ['a snapshot_id of no snapshot', { snapshot_id: 'vsnap_nothing' }, 'snapshot_id'],
  ];
  for (const [label, change, field] of refused) {
    test(`a volume with ${label} is a validation error on ${field} and creates nothing`, async () => {
      const api = freshAccountClient(server);
      const res = await api.op('POST /storage/volumes', { body: { ...VOLUME, ...change } });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
      expect(json(await api.op('GET /storage/volumes')).volumes).toEqual([]);
    });
  }

  for (const field of ['name', 'size', 'region'] as const) {
    test(`a volume without ${field} is refused`, async () => {
      const body: Record<string, unknown> = { ...VOLUME };
      delete body[field];
      const res = await opClient(server).op('POST /storage/volumes', { body });
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    });
  }

  test('sizes 1 and 16384 are accepted', async () => {
    const api = opClient(server);
    expect((await volume(api, { size: 1 })).size).toBe(1);
    expect((await volume(api, { size: 16_384 })).size).toBe(16_384);
  });

  test('the list filters by region, status and attachment, newest first', async () => {
    const api = freshAccountClient(server);
    const a = await volume(api, { region: 'ams3' });
    const b = await volume(api, { region: 'nyc1' });
    const c = await volume(api, { region: 'nyc1' });
    const vpsId = await vps(api);
    expect(
      (
        await api.op('POST /storage/volumes/{volume_id}/attach', {
          params: { volume_id: b.id },
          body: { vps_id: vpsId },
        })
      ).status,
    ).toBe(200);
    const ids = async (query: Record<string, string> = {}) =>
      (json(await api.op('GET /storage/volumes', { query })).volumes as Array<{ id: string }>).map((v) => v.id);
    expect(await ids()).toEqual([c.id, b.id, a.id]);
    expect(await ids({ region: 'ams3' })).toEqual([a.id]);
    expect(await ids({ status: 'available' })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ status: 'deleting' })).toEqual([]);
    expect(await ids({ attached: 'true' })).toEqual([b.id]);
    expect(await ids({ attached: 'false' })).toEqual([c.id, a.id]);
    expect(await ids({ attached: 'false', region: 'nyc1' })).toEqual([c.id]);
    const bad = await api.op('GET /storage/volumes', { query: { attached: 'maybe' } });
    expect(json(bad).error).toMatchObject({ code: 'validation_error', details: [{ field: 'attached' }] });
  });

  test('resize must grow the volume: equal or smaller is refused and changes nothing', async () => {
    const api = opClient(server);
    const vol = await volume(api);
    const params = { volume_id: vol.id as string };
    for (const size of [10, 9, 0]) {
      const res = await api.op('POST /storage/volumes/{volume_id}/resize', { params, body: { size } });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field: 'size' }] });
    }
    expect(
      json(await api.op('POST /storage/volumes/{volume_id}/resize', { params, body: {} })).error.details[0].field,
    ).toBe('size');
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params })).volume.size).toBe(10);
    const grown = await api.op('POST /storage/volumes/{volume_id}/resize', { params, body: { size: 11 } });
    expect(grown.status).toBe(200);
    expect(json(grown).volume.size).toBe(11);
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params })).volume.size).toBe(11);
  });

  test('attach and detach set and clear attached_to; conflicts are 409 volume_in_use naming the volume', async () => {
    const api = opClient(server);
    const vol = await volume(api);
    const params = { volume_id: vol.id as string };
    const first = await vps(api);
    const second = await vps(api);

    const notAttached = await api.op('POST /storage/volumes/{volume_id}/detach', { params });
    expect(notAttached.status).toBe(409);
    expect(json(notAttached).error).toMatchObject({ code: 'volume_in_use', resource: 'volume' });

    const attached = await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: first } });
    expect(attached.status).toBe(200);
    expect(json(attached).volume.attached_to).toBe(first);
    for (const vpsId of [first, second]) {
      const again = await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: vpsId } });
      expect(again.status).toBe(409);
      expect(json(again).error).toMatchObject({ code: 'volume_in_use', resource: 'volume' });
    }
    const busy = await api.op('DELETE /storage/volumes/{volume_id}', { params });
    expect(busy.status).toBe(409);
    expect(json(busy).error).toMatchObject({ code: 'volume_in_use', resource: 'volume' });
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params })).volume.attached_to).toBe(first);

    const detached = await api.op('POST /storage/volumes/{volume_id}/detach', { params });
    expect(detached.status).toBe(200);
    expect(json(detached).volume.attached_to).toBeNull();
    expect(
      (await api.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: second } })).status,
    ).toBe(200);
  });

  test('attach needs a VPS of the account in the same region', async () => {
    const api = opClient(server);
    const vol = await volume(api);
    const params = { volume_id: vol.id as string };
    const elsewhere = await vps(api, 'fra1');
    const foreign = await vps(opClient(server, 'alt'));
    for (const body of [{}, { vps_id: 42 }, { vps_id: 'vps_nothing' }, { vps_id: foreign }, { vps_id: elsewhere }]) {
      const res = await api.op('POST /storage/volumes/{volume_id}/attach', { params, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field: 'vps_id' }] });
    }
    expect(json(await api.op('GET /storage/volumes/{volume_id}', { params })).volume.attached_to).toBeNull();
  });

  test('deleting an instance detaches its volumes', async () => {
    const api = opClient(server);
    const vol = await volume(api);
    const vpsId = await vps(api);
    await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vpsId },
    });
    expect((await api.op('DELETE /vps/{vps_id}', { params: { vps_id: vpsId } })).status).toBe(204);
    expect(
      json(await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).volume.attached_to,
    ).toBeNull();
    expect((await api.op('DELETE /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).status).toBe(204);
  });

  test('DELETE answers 204 with no body; the volume is no longer found or listed', async () => {
    const api = freshAccountClient(server);
    const vol = await volume(api);
    const res = await api.op('DELETE /storage/volumes/{volume_id}', { params: { volume_id: vol.id } });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const gone = await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } });
    expect(gone.status).toBe(404);
    expect(json(gone).error).toMatchObject({ code: 'not_found', resource: 'volume' });
    expect(json(await api.op('GET /storage/volumes')).volumes).toEqual([]);
  });

  test("another account's volume answers 404 everywhere and is not listed", async () => {
    const owner = opClient(server);
    const other = opClient(server, 'alt');
    const vol = await volume(owner);
    const params = { volume_id: vol.id as string };
    const otherVps = await vps(other);
    const attempts = [
      await other.op('GET /storage/volumes/{volume_id}', { params }),
      await other.op('POST /storage/volumes/{volume_id}/resize', { params, body: { size: 20 } }),
      await other.op('POST /storage/volumes/{volume_id}/attach', { params, body: { vps_id: otherVps } }),
      await other.op('POST /storage/volumes/{volume_id}/detach', { params }),
      await other.op('DELETE /storage/volumes/{volume_id}', { params }),
    ];
    for (const res of attempts) expect(json(res).error).toMatchObject({ code: 'not_found', resource: 'volume' });
    expect(
      (json(await other.op('GET /storage/volumes')).volumes as Array<{ id: string }>).map((v) => v.id),
    ).not.toContain(vol.id);
    const snapshot = await other.op('POST /storage/snapshots', { body: { volume_id: vol.id, name: 'steal' } });
    expect(json(snapshot).error).toMatchObject({ code: 'validation_error', details: [{ field: 'volume_id' }] });
    expect(json(await owner.op('GET /storage/volumes/{volume_id}', { params })).volume.size).toBe(10);
  });
});

test.describe('volume snapshots and restore', () => {
  test('a snapshot records the volume size and region; the list filters by volume and region', async () => {
    const api = freshAccountClient(server);
    const a = await volume(api, { size: 20 });
    const b = await volume(api, { region: 'sgp1' });
    const created = await api.op('POST /storage/snapshots', {
      body: { volume_id: a.id, name: 'nightly', description: 'before upgrade' },
    });
    expect(created.status).toBe(201);
    const snapshot = json(created).snapshot;
    expect(snapshot).toMatchObject({
      name: 'nightly',
      description: 'before upgrade',
      volume_id: a.id,
      size: 20,
      region: 'nyc1',
      status: 'available',
    });
    expect(snapshot.id).toMatch(/^vsnap_/);
    const other = json(await api.op('POST /storage/snapshots', { body: { volume_id: b.id, name: 'other' } })).snapshot;
    expect(other.description).toBeNull();
    const ids = async (query: Record<string, string> = {}) =>
      (json(await api.op('GET /storage/snapshots', { query })).snapshots as Array<{ id: string }>).map((s) => s.id);
    expect(await ids()).toEqual([other.id, snapshot.id]);
    expect(await ids({ volume_id: a.id })).toEqual([snapshot.id]);
    expect(await ids({ region: 'sgp1' })).toEqual([other.id]);
    expect(await ids({ region: 'sgp1', volume_id: a.id })).toEqual([]);
    expect(
      json(await opClient(server, 'alt').op('GET /storage/snapshots')).snapshots.map((s: { id: string }) => s.id),
    ).not.toContain(snapshot.id);
  });

  for (const [label, body, field] of [
    ['no volume_id', { name: 'n' }, 'volume_id'],
    ['no name', { volume_id: 'VOL' }, 'name'],
    ['an unknown volume', { volume_id: 'vol_nothing', name: 'n' }, 'volume_id'],
    ['a description that is not a string', { volume_id: 'VOL', name: 'n', description: 5 }, 'description'],
  ] as Array<[string, Record<string, unknown>, string]>) {
    test(`a snapshot with ${label} is a validation error on ${field}`, async () => {
      const api = opClient(server);
      const vol = await volume(api);
      const res = await api.op('POST /storage/snapshots', {
        body: JSON.parse(JSON.stringify(body).replace('"VOL"', JSON.stringify(vol.id))),
      });
      expect(res.status).toBe(422);
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    });
  }

  test('restore makes a new volume of the snapshot size by default, at least that size, in its region', async () => {
    const api = opClient(server);
    const source = await volume(api, { size: 30, region: 'lon1', filesystem: 'xfs' });
    const snapshot = json(
      await api.op('POST /storage/snapshots', { body: { volume_id: source.id, name: 's' } }),
    ).snapshot;
    // The snapshot keeps the size of the time it was taken.
    await api.op('POST /storage/volumes/{volume_id}/resize', { params: { volume_id: source.id }, body: { size: 40 } });

    const restored = await api.op('POST /storage/volumes/restore', {
      body: { snapshot_id: snapshot.id, name: 'copy' },
    });
    expect(restored.status).toBe(201);
    const copy = json(restored).volume;
    expect(copy).toMatchObject({
      name: 'copy',
      size: 30,
      region: 'lon1',
      filesystem: 'xfs',
      status: 'available',
      attached_to: null,
    });
    expect(copy.id).not.toBe(source.id);

    const smaller = await api.op('POST /storage/volumes/restore', {
      body: { snapshot_id: snapshot.id, name: 'small', size: 29 },
    });
    expect(smaller.status).toBe(422);
    expect(json(smaller).error).toMatchObject({ code: 'validation_error', details: [{ field: 'size' }] });
    expect(
      json(
        await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snapshot.id, name: 'same', size: 30 } }),
      ).volume.size,
    ).toBe(30);
    expect(
      json(
        await api.op('POST /storage/volumes/restore', { body: { snapshot_id: snapshot.id, name: 'big', size: 100 } }),
      ).volume.size,
    ).toBe(100);

    for (const [body, field] of [
      [{ name: 'x' }, 'snapshot_id'],
      [{ snapshot_id: snapshot.id }, 'name'],
      [{ snapshot_id: 'vsnap_nothing', name: 'x' }, 'snapshot_id'],
      [{ snapshot_id: snapshot.id, name: 'x', size: 16_385 }, 'size'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await api.op('POST /storage/volumes/restore', { body });
      expect(json(res).error).toMatchObject({ code: 'validation_error', details: [{ field }] });
    }
    const foreign = await opClient(server, 'alt').op('POST /storage/volumes/restore', {
      body: { snapshot_id: snapshot.id, name: 'x' },
    });
    expect(json(foreign).error).toMatchObject({ code: 'validation_error', details: [{ field: 'snapshot_id' }] });
  });

  test('creating from snapshot_id needs the snapshot size and region', async () => {
    const api = opClient(server);
    const source = await volume(api, { size: 15 });
    const snapshot = json(
      await api.op('POST /storage/snapshots', { body: { volume_id: source.id, name: 's' } }),
    ).snapshot;
    const tooSmall = await api.op('POST /storage/volumes', { body: { ...VOLUME, size: 14, snapshot_id: snapshot.id } });
    expect(json(tooSmall).error).toMatchObject({ code: 'validation_error', details: [{ field: 'size' }] });
    const elsewhere = await api.op('POST /storage/volumes', {
      body: { ...VOLUME, size: 15, region: 'fra1', snapshot_id: snapshot.id },
    });
    expect(json(elsewhere).error).toMatchObject({ code: 'validation_error', details: [{ field: 'region' }] });
    expect((await volume(api, { size: 15, snapshot_id: snapshot.id })).size).toBe(15);
  });
});

test.describe('resource provider', () => {
  test('volumes are storage resources with their project; remove deletes even an attached one', async () => {
    const api = freshAccountClient(server);
    const accountId = server.context.accounts.keyBySecret(api.key)?.accountId ?? '';
    const vol = await volume(api, { size: 50, project_id: 'proj_abc' });
    expect(vol.project_id).toBe('proj_abc');
    const vpsId = await vps(api);
    await api.op('POST /storage/volumes/{volume_id}/attach', {
      params: { volume_id: vol.id },
      body: { vps_id: vpsId },
    });
    const provider = server.context.services.resourceProviders.find(
      (p) => p.service === 'storage' && p.resources(accountId).some((r) => r.id === vol.id),
    );
    expect(provider?.resources(accountId)).toEqual([
      expect.objectContaining({
        id: vol.id,
        type: 'volume',
        service: 'storage',
        region: 'nyc1',
        monthly_cost: 5,
        project_id: 'proj_abc',
      }),
    ]);
    const now = Date.now();
    expect(provider?.usage(accountId, now - 3_600_000, now + 1000).resources[0]).toMatchObject({
      type: 'volume',
      bucket: vol.id,
      id: vol.id,
      storage_gb: 50,
      bandwidth_gb: 0,
    });
    provider?.remove(accountId, vol.id);
    expect((await api.op('GET /storage/volumes/{volume_id}', { params: { volume_id: vol.id } })).status).toBe(404);
  });
});
