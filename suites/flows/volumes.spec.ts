/**
 * Flow: a block-storage volume's life. Size 0 is refused; a resize must grow it (equal or smaller
 * refused, nothing changed); it attaches to a VPS of its region and detaches; a snapshot of it
 * cannot be restored smaller than itself; a restore makes a new volume; delete removes it. And the
 * conventions: attaching it twice is 409 `volume_in_use`, a volume of another region does not
 * attach (422), a restore without size takes the snapshot's, which is the volume's.
 */
import {
  EnvironmentError,
  Provision,
  defineFlow,
  expect,
  expectErrorEnvelope,
  expectFields,
  expectRefused,
  expectResource,
  expectStatus,
  expectSuccess,
  listOf,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient, Ledger } from '../../src/harness/check.ts';
import { computeCatalogue, isRunningWithIps, waitForVps } from './_compute.ts';

interface Volume {
  id: string;
  name: string;
  size: number;
  region: string;
  status: string;
  attached_to: string | null;
  filesystem: string;
  tags: string[];
}

interface State {
  region: string;
  volumeId: string;
  size: number;
  vpsId: string;
  snapshotId: string;
  snapshotSize: number;
  /** The snapshot's `size` as the target reported it (its record is not shown), and the volume's size then. */
  snapshotReported: unknown;
  sizeAtSnapshot: number;
  restoredId: string;
}

const FLOW = 'flow.volumes';
const volumePath = (id: string): string => `/storage/volumes/${encodeURIComponent(id)}`;

/** A volume from a body that is `{"volume": {...}}` (the convention) or the bare record. */
function volumeOf(body: unknown): Volume {
  return (resourceOf<Volume>(body, 'volume') ?? body) as Volume;
}

async function getVolume(api: ApiClient, id: string): Promise<Volume> {
  const res = await api.get(volumePath(id));
  expectStatus(res, 200);
  return volumeOf(res.body);
}

async function listVolumeIds(api: ApiClient): Promise<string[]> {
  const res = await api.get('/storage/volumes');
  expectStatus(res, 200);
  return res.json<{ volumes: Volume[] }>().volumes.map((v) => v.id);
}

/** The flow's volume as GET /storage/volumes lists it (however the list is wrapped). */
async function listedVolume(api: ApiClient, id: string): Promise<Volume> {
  const res = await api.get('/storage/volumes');
  expectSuccess(res);
  const volume = (listOf<Volume>(res.body, 'volumes') ?? []).find((v) => v.id === id);
  expect(volume, `GET /storage/volumes lists the volume ${id}`).toBeTruthy();
  return volume!;
}

/** A region of GET /regions other than `region` that offers storage, if any. */
async function otherStorageRegion(api: ApiClient, region: string): Promise<string | undefined> {
  const res = await api.get('/regions');
  expectStatus(res, 200);
  const regions = res.json<{ regions: Array<{ slug: string; available?: boolean; features?: string[] }> }>().regions;
  return regions.find(
    (r) => r.slug !== region && r.available !== false && (!r.features || r.features.includes('storage')),
  )?.slug;
}

/** Records a volume the target created (also one it should have refused) so teardown removes it. */
function trackCreated(ledger: Ledger, status: number, body: unknown): string | undefined {
  if (status < 200 || status >= 300) return undefined;
  const id = volumeOf(body)?.id;
  return typeof id === 'string' ? ledger.track('volume', id) : undefined;
}

/**
 * The VPS the volume attaches to, asked for as early as the run allows (provision.ts): its boot
 * overlaps the rest of the run. In the region the flow's volume is made in (the catalogue's
 * first, as the first step picks it).
 */
const vpsToAttach = new Provision(
  `${FLOW}.vps`,
  async ({ api, ledger, name }) => {
    const catalogue = await computeCatalogue(api);
    const created = await api.post('/vps', {
      name: name('vol-vps'),
      region: catalogue.region,
      image: catalogue.image,
      size: catalogue.size.slug,
    });
    const id = resourceOf<{ id?: unknown }>(created.body, 'vps')?.id;
    if (typeof id === 'string') ledger.track('vps', id);
    return { region: catalogue.region, created };
  },
  { late: true },
);

defineFlow<State>({ id: FLOW, class: 'storage-volumes', title: 'volumes' }, (step) => {
  step(
    {
      id: `${FLOW}.size-zero`,
      requirement: 'VOL-CRT-002',
      level: 'MUST',
      operation: 'POST /storage/volumes',
      title: 'POST /storage/volumes with size 0 is refused and creates no volume',
    },
    async ({ api, ledger, ctx, state }) => {
      state.region = (await computeCatalogue(api)).region;
      const name = ctx.name('vol-zero');
      const res = await api.post('/storage/volumes', { name, size: 0, region: state.region });
      trackCreated(ledger, res.status, res.body);
      expectRefused(res, 'size 0');
      const listed = await api.get('/storage/volumes');
      expectStatus(listed, 200);
      expect(
        listed.json<{ volumes: Volume[] }>().volumes.map((v) => v.name),
        'no volume of size 0 was created',
      ).not.toContain(name);
    },
  );

  step(
    {
      id: `${FLOW}.create`,
      requirement: 'VOL-CRT-004',
      level: 'MUST',
      operation: 'POST /storage/volumes',
      title: 'a created volume reports the requested name, size, region and tags',
    },
    async ({ api, ledger, ctx, state }) => {
      const request = {
        name: ctx.name('vol'),
        size: 10,
        region: state.region,
        filesystem: 'ext4',
        tags: ['cloudcheck', 'flow'],
      };
      const res = await api.post('/storage/volumes', request);
      expectStatus(res, [200, 201]);
      state.volumeId = trackCreated(ledger, res.status, res.body)!;
      expect(state.volumeId, 'the created volume has an id').toBeTruthy();
      expect(volumeOf(res.body)).toMatchObject({
        name: request.name,
        size: 10,
        region: state.region,
        tags: request.tags,
      });
      expect(await getVolume(api, state.volumeId)).toMatchObject({
        name: request.name,
        size: 10,
        region: state.region,
        tags: request.tags,
      });
      state.size = 10;
    },
  );

  step(
    {
      id: `${FLOW}.fields`,
      requirement: 'VOL-FLD-001',
      level: 'MUST',
      operation: 'GET /storage/volumes',
      title:
        'the listed volume carries id, name, region, status, size, filesystem, created_at and tags with their types',
    },
    async ({ api, state }) => {
      const volume = await listedVolume(api, state.volumeId);
      expectFields(
        volume,
        {
          id: 'string',
          name: 'string',
          region: 'string',
          status: 'string',
          size: 'integer',
          created_at: 'timestamp',
          tags: 'string[]',
        },
        'GET /storage/volumes',
      );
      expect(['ext4', 'xfs'], 'filesystem').toContain(volume.filesystem);
    },
  );

  step(
    {
      id: `${FLOW}.ready-state`,
      requirement: 'VOL-STATE-001',
      level: 'MUST',
      operation: 'GET /storage/volumes/{volume_id}',
      title:
        'the new volume becomes `available`, spelled so, in GET /storage/volumes/{volume_id} and GET /storage/volumes',
    },
    async ({ api, ctx, state }) => {
      // States before the ready one are not shown; a spelling of `available` other than the
      // specification's ends the wait at once rather than at the timeout.
      const status = await ctx.poll(`volume ${state.volumeId} to be available`, async () => {
        const current = (await getVolume(api, state.volumeId)).status;
        return String(current).toLowerCase() === 'available' ? current : undefined;
      });
      expect(status, `GET /storage/volumes/${state.volumeId}: status`).toBe('available');
      expect((await listedVolume(api, state.volumeId)).status, 'GET /storage/volumes: status of the volume').toBe(
        'available',
      );
    },
  );

  step(
    {
      id: `${FLOW}.attached-to-present`,
      requirement: 'VOL-FLD-002',
      level: 'MUST',
      operation: 'GET /storage/volumes/{volume_id}',
      title: 'a volume that is not attached carries attached_to null, in the list and alone',
    },
    async ({ api, state }) => {
      for (const [what, volume] of [
        ['GET /storage/volumes', await listedVolume(api, state.volumeId)],
        ['GET /storage/volumes/{volume_id}', await getVolume(api, state.volumeId)],
      ] as const) {
        expect(Object.keys(volume), `${what}: the record carries attached_to`).toContain('attached_to');
        expect(volume.attached_to, `${what}: attached_to of a volume not attached`).toBeNull();
      }
    },
  );

  step(
    {
      id: `${FLOW}.resize-not-larger`,
      requirement: 'VOL-RSZ-001',
      level: 'MUST',
      operation: 'POST /storage/volumes/{volume_id}/resize',
      title: 'a resize to an equal or smaller size is refused and changes nothing',
    },
    async ({ api, state }) => {
      for (const size of [state.size, state.size - 5]) {
        const res = await api.post(`${volumePath(state.volumeId)}/resize`, { size });
        expectRefused(res, `a resize from ${state.size} to ${size} GB`);
        expect((await getVolume(api, state.volumeId)).size, `size after the refused resize to ${size}`).toBe(
          state.size,
        );
      }
    },
  );

  step(
    {
      id: `${FLOW}.resize`,
      requirement: 'VOL-RSZ-002',
      level: 'MUST',
      operation: 'POST /storage/volumes/{volume_id}/resize',
      title: 'after a resize to a larger size the volume reports the new size',
    },
    async ({ api, state }) => {
      const res = await api.post(`${volumePath(state.volumeId)}/resize`, { size: 20 });
      expectStatus(res, 200);
      expect((await getVolume(api, state.volumeId)).size, 'size after the resize').toBe(20);
      state.size = 20;
    },
  );

  step(
    {
      id: `${FLOW}.attach`,
      requirement: 'VOL-ATT-001',
      level: 'MUST',
      operation: 'POST /storage/volumes/{volume_id}/attach',
      title: 'attaching to a VPS of the same region sets attached_to to that VPS',
      provisions: [vpsToAttach],
    },
    async ({ api, ledger, ctx, state }) => {
      const { region, created: res } = await vpsToAttach.take({ api, ledger, ctx });
      if (region !== state.region)
        throw new EnvironmentError(
          `the catalogue's first region changed during the run (${state.region}, then ${region}): no VPS in the volume's region to attach to`,
        );
      expectStatus(res, [200, 201], 'create the VPS to attach to');
      state.vpsId = ledger.track('vps', res.json<{ vps: { id: string } }>().vps.id);
      await waitForVps(api, ctx, state.vpsId, 'the VPS to be running', isRunningWithIps);
      const attach = await api.post(`${volumePath(state.volumeId)}/attach`, { vps_id: state.vpsId });
      expectStatus(attach, 200);
      expect(volumeOf(attach.body).attached_to, 'attached_to in the attach response').toBe(state.vpsId);
      expect((await getVolume(api, state.volumeId)).attached_to, 'attached_to in a later GET').toBe(state.vpsId);
    },
  );

  step(
    {
      id: `${FLOW}.in-use`,
      requirement: 'ERR-MAP-014',
      level: 'SHOULD',
      operation: 'POST /storage/volumes/{volume_id}/attach',
      title: 'attaching the attached volume again answers 409 volume_in_use with resource volume',
    },
    async ({ api, state }) => {
      const res = await api.post(`${volumePath(state.volumeId)}/attach`, { vps_id: state.vpsId });
      expectStatus(res, 409, 'attaching an attached volume');
      const error = expectErrorEnvelope(res, 'volume_in_use');
      expect(error.resource, 'error.resource names the kind of resource').toBe('volume');
    },
  );

  step(
    {
      id: `${FLOW}.other-region`,
      requirement: 'VOL-ATT-002',
      level: 'SHOULD',
      operation: 'POST /storage/volumes/{volume_id}/attach',
      title: 'a volume of another region does not attach to the VPS: 422 validation_error, attached_to stays null',
    },
    async ({ api, ledger, ctx, state }) => {
      const other = await otherStorageRegion(api, state.region);
      if (other === undefined) ctx.testInfo.skip(true, `GET /regions offers no region but ${state.region} for volumes`);
      const created = await api.post('/storage/volumes', { name: ctx.name('vol-far'), size: 1, region: other });
      expectStatus(created, [200, 201], `create a volume in ${other}`);
      const far = trackCreated(ledger, created.status, created.body)!;
      const res = await api.post(`${volumePath(far)}/attach`, { vps_id: state.vpsId });
      // Attached after all: detached again, so the flow's VPS leaves as it came.
      if (res.status < 300) await api.request({ method: 'POST', path: `${volumePath(far)}/detach` });
      expectStatus(res, 422, `attaching a volume of ${other} to a VPS of ${state.region}`);
      expectErrorEnvelope(res, 'validation_error');
      expect((await getVolume(api, far)).attached_to, 'attached_to of the refused volume').toBeNull();
    },
  );

  step(
    {
      id: `${FLOW}.list-filters`,
      requirement: 'VOL-LIST-002',
      level: 'MUST',
      operation: 'GET /storage/volumes',
      title: 'GET /storage/volumes filtered by region, status and attached lists only matching volumes',
    },
    async ({ api, state }) => {
      const volume = await getVolume(api, state.volumeId);
      const listed = async (query: Record<string, string>): Promise<Volume[]> => {
        const res = await api.get('/storage/volumes', { query });
        expectSuccess(res);
        return listOf<Volume>(res.body, 'volumes') ?? [];
      };
      // The flow's volume is attached now: matching filters list it, and only matching volumes.
      const filters: Array<[query: Record<string, string>, matches: (v: Volume) => boolean]> = [
        [{ region: volume.region }, (v) => v.region === volume.region],
        [{ status: volume.status }, (v) => v.status === volume.status],
        [{ attached: 'true' }, (v) => v.attached_to !== null],
      ];
      for (const [query, matches] of filters) {
        const items = await listed(query);
        expect(
          items.map((v) => v.id),
          `GET /storage/volumes ${JSON.stringify(query)} lists the flow's volume`,
        ).toContain(state.volumeId);
        expect(
          items.filter((v) => !matches(v)).map((v) => v.id),
          `GET /storage/volumes ${JSON.stringify(query)} lists only matching volumes`,
        ).toEqual([]);
      }
      const unattached = await listed({ attached: 'false' });
      expect(
        unattached.map((v) => v.id),
        'GET /storage/volumes {"attached":"false"} leaves the attached volume out',
      ).not.toContain(state.volumeId);
    },
  );

  step(
    {
      id: `${FLOW}.detach`,
      requirement: 'VOL-DET-001',
      level: 'MUST',
      operation: 'POST /storage/volumes/{volume_id}/detach',
      title: 'after a detach attached_to is null',
    },
    async ({ api, state }) => {
      const res = await api.request({ method: 'POST', path: `${volumePath(state.volumeId)}/detach` });
      expectStatus(res, 200);
      expect((await getVolume(api, state.volumeId)).attached_to, 'attached_to after detach').toBeNull();
    },
  );

  step(
    {
      id: `${FLOW}.snapshot`,
      requirement: 'VOL-SNAP-002',
      level: 'MUST',
      operation: 'GET /storage/snapshots',
      title: 'a volume snapshot is created and listed for its volume',
    },
    async ({ api, ledger, ctx, state }) => {
      const res = await api.post('/storage/snapshots', {
        volume_id: state.volumeId,
        name: ctx.name('vsnap'),
        description: 'cloudcheck flow',
      });
      expectStatus(res, [200, 201]);
      const snapshot = expectResource<{ id: string; size?: number }>(res, 'snapshot');
      state.snapshotId = ledger.track('volume-snapshot', snapshot.id);
      state.snapshotSize = typeof snapshot.size === 'number' ? snapshot.size : state.size;
      state.snapshotReported = snapshot.size;
      state.sizeAtSnapshot = (await getVolume(api, state.volumeId)).size;
      const list = await api.get('/storage/snapshots', { query: { volume_id: state.volumeId } });
      expectStatus(list, 200);
      const snapshots = listOf<{ id: string; volume_id?: string }>(list.body, 'snapshots') ?? [];
      expect(
        snapshots.map((s) => s.id),
        'GET /storage/snapshots?volume_id=',
      ).toContain(state.snapshotId);
      for (const s of snapshots)
        if (s.volume_id !== undefined)
          expect(s.volume_id, `snapshot ${s.id} listed for volume_id`).toBe(state.volumeId);
    },
  );

  step(
    {
      id: `${FLOW}.restore-smaller`,
      requirement: 'VOL-RST-002',
      level: 'MUST',
      operation: 'POST /storage/volumes/restore',
      title: 'a restore smaller than the snapshot is refused',
    },
    async ({ api, ledger, ctx, state }) => {
      const res = await api.post('/storage/volumes/restore', {
        snapshot_id: state.snapshotId,
        name: ctx.name('vol-small'),
        size: state.snapshotSize - 1,
      });
      trackCreated(ledger, res.status, res.body);
      expectRefused(res, `a restore of ${state.snapshotSize - 1} GB from a ${state.snapshotSize} GB snapshot`);
    },
  );

  step(
    {
      id: `${FLOW}.restore`,
      requirement: 'VOL-RST-001',
      level: 'MUST',
      operation: 'POST /storage/volumes/restore',
      title: 'a restore creates a new volume from the snapshot',
    },
    async ({ api, ledger, ctx, state }) => {
      const name = ctx.name('vol-restored');
      const res = await api.post('/storage/volumes/restore', {
        snapshot_id: state.snapshotId,
        name,
        size: state.snapshotSize,
      });
      expectStatus(res, [200, 201]);
      state.restoredId = trackCreated(ledger, res.status, res.body)!;
      expect(state.restoredId, 'the restored volume has an id').toBeTruthy();
      expect(state.restoredId, 'a restore makes a new volume').not.toBe(state.volumeId);
      const restored = await getVolume(api, state.restoredId);
      expect(restored.name).toBe(name);
      expect(restored.size, 'restored size').toBeGreaterThanOrEqual(state.snapshotSize);
    },
  );

  step(
    {
      id: `${FLOW}.restore-default-size`,
      requirement: 'VOL-SNAP-003',
      level: 'SHOULD',
      operation: 'POST /storage/volumes/restore',
      title: "the snapshot's size is its volume's size, and a restore without size makes a volume of exactly that size",
    },
    async ({ api, ledger, ctx, state }) => {
      expect(state.snapshotReported, "the volume snapshot's `size`").toBe(state.sizeAtSnapshot);
      const res = await api.post('/storage/volumes/restore', {
        snapshot_id: state.snapshotId,
        name: ctx.name('vol-dflt'),
      });
      expectStatus(res, [200, 201], 'a restore without size');
      const id = trackCreated(ledger, res.status, res.body)!;
      expect((await getVolume(api, id)).size, 'the size of a volume restored without size').toBe(state.sizeAtSnapshot);
    },
  );

  step(
    {
      id: `${FLOW}.delete`,
      requirement: 'VOL-DEL-001',
      level: 'MUST',
      operation: 'DELETE /storage/volumes/{volume_id}',
      title: 'a deleted volume is no longer found or listed',
    },
    async ({ api, ledger, state }) => {
      const res = await api.delete(volumePath(state.volumeId));
      expectStatus(res, [200, 202, 204]);
      ledger.deleted('volume', state.volumeId);
      const get = await api.get(volumePath(state.volumeId));
      expectRefused(get, 'GET of a deleted volume');
      expect(await listVolumeIds(api), 'GET /storage/volumes after delete').not.toContain(state.volumeId);
      expect(await listVolumeIds(api), 'the restored volume is a volume of its own').toContain(state.restoredId);
    },
  );
});
