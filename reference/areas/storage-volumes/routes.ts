/**
 * The block storage rows of the specification's Storage table: volumes, attach/detach, resize,
 * volume snapshots and restore. Statuses and wrappers follow docs/conventions.md (201 creates,
 * 200 actions, 204 deletes; `{"volume"}`, `{"volumes"}`, `{"snapshot"}`, `{"snapshots"}`).
 * Ids named in a body (vps_id, volume_id, snapshot_id) that the account does not own are field
 * problems (422 `validation_error`), like an unknown region or size; only path ids answer 404.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError, fieldError, notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { Fields } from '../../core/validation.ts';
import type { VolumeService } from './service.ts';
import {
  FILESYSTEMS,
  MAX_VOLUME_GB,
  type VolumeRecord,
  type VolumeSnapshotRecord,
  snapshotView,
  volumeState,
  volumeView,
} from './store.ts';

type VolumeParams = { Params: { volume_id: string } };

const TAG = /^.{1,255}$/su;

function fail(field: string, message: string): never {
  throw fieldError('storage', field, message);
}

/** Query parameters with empty values dropped: `?region=` means no filter. */
function queryFields(query: unknown): Fields {
  const cleaned: Record<string, unknown> = {};
  if (query && typeof query === 'object')
    for (const [key, value] of Object.entries(query)) if (value !== '') cleaned[key] = value;
  return new Fields('storage', cleaned);
}

export function registerVolumeRoutes(app: FastifyInstance, ctx: ReferenceContext, service: VolumeService): void {
  const ownVolume = (accountId: string, volumeId: string): VolumeRecord => {
    const volume = service.find(accountId, volumeId);
    if (!volume) throw notFound('volume');
    return volume;
  };

  const ownSnapshot = (accountId: string, field: string, snapshotId: string): VolumeSnapshotRecord => {
    const snapshot = volumeState(ctx, accountId).snapshots.get(snapshotId);
    if (!snapshot && ctx.variants.has('foreign-resources-403') && othersHave(accountId, snapshotId))
      throw new ApiError('forbidden', `Volume snapshot ${snapshotId} belongs to another account.`);
    if (!snapshot) fail(field, `${field} ${JSON.stringify(snapshotId)} is not a volume snapshot of this account.`);
    return snapshot;
  };

  /** Whether another account holds a volume snapshot of that id (variant `foreign-resources-403`). */
  const othersHave = (accountId: string, snapshotId: string): boolean =>
    ctx.accounts
      .allAccounts()
      .some((other) => other.id !== accountId && volumeState(ctx, other.id).snapshots.has(snapshotId));

  /**
   * The VPS a body names, in the caller's account; under the fault `volume-attach-foreign-vps` in
   * any account, and under the variant `foreign-resources-403` another account's is a 403.
   */
  const vpsNamed = (accountId: string, vpsId: string) => {
    const compute = ctx.services.get('compute');
    const own = compute.findVps(accountId, vpsId);
    if (own) return own;
    const foreign = ctx.accounts
      .allAccounts()
      .map((other) => (other.id === accountId ? undefined : compute.findVps(other.id, vpsId)))
      .find((vps) => vps !== undefined);
    if (foreign && ctx.faults.has('volume-attach-foreign-vps')) return foreign;
    if (foreign && ctx.variants.has('foreign-resources-403'))
      throw new ApiError('forbidden', `VPS ${vpsId} belongs to another account.`);
    return undefined;
  };

  /** A size in GB: at least `min` (1 unless a fault or a snapshot raises it), at most 16384. */
  const readSize = (f: Fields, required: boolean): number | undefined => {
    // Fault `volume-min-size-unchecked`: 0 GB passes.
    const min = ctx.faults.has('volume-min-size-unchecked') ? 0 : 1;
    return required
      ? f.integer('size', { required: true, min, max: MAX_VOLUME_GB })
      : f.integer('size', { min, max: MAX_VOLUME_GB });
  };

  /** A volume as the list shows it; the two field faults bend the list only. */
  const listedVolume = (volume: VolumeRecord): Record<string, unknown> => {
    const view = volumeView(volume);
    if (ctx.faults.has('volume-list-size-string')) view.size = String(view.size);
    if (ctx.faults.has('volume-list-attached-to-omitted') && view.attached_to === null) delete view.attached_to;
    return spelled(view);
  };

  /** Fault `volume-status-capitalised`: reads spell the state their own way (the record keeps the spec's). */
  const spelled = (view: Record<string, unknown>): Record<string, unknown> =>
    ctx.faults.has('volume-status-capitalised')
      ? { ...view, status: String(view.status).replace(/^./, (c) => c.toUpperCase()) }
      : view;

  /** Under `volume-attached-filter-sticky`: the volumes ever attached, which the `attached` filter takes for attached. */
  const everAttached = new Set<string>();

  app.get('/storage/volumes', async (request) => {
    const { account } = authOf(request);
    const f = queryFields(request.query);
    const region = f.string('region');
    const status = f.string('status');
    const attached = f.queryBoolean('attached');
    const volumes = [...volumeState(ctx, account.id).volumes.values()]
      .reverse()
      .filter((v) => (region === undefined || v.region === region) && (status === undefined || v.status === status))
      .filter(
        (v) =>
          attached === undefined ||
          ctx.faults.has('volume-list-attached-filter-ignored') ||
          (v.attached_to !== null || everAttached.has(v.id)) === attached,
      );
    return { volumes: volumes.map((v) => listedVolume(v)) };
  });

  app.post('/storage/volumes', async (request, reply) => {
    const { account } = authOf(request);
    const f = new Fields('storage', request.body);
    const name = f.string('name', { required: true, max: 255 });
    const size = readSize(f, true) as number;
    const regionSlug = f.string('region', { required: true });
    const filesystem = f.string('filesystem', { oneOf: FILESYSTEMS }) as (typeof FILESYSTEMS)[number] | undefined;
    const snapshotId = f.string('snapshot_id');
    const tags = f.stringArray('tags', { maxItems: 100, itemPattern: TAG }) ?? [];
    const projectId = f.string('project_id', { min: 1, max: 100 }) ?? null;

    const region = ctx.services.get('compute').findRegion(regionSlug);
    if (!region) fail('region', `region ${JSON.stringify(regionSlug)} is not a region of GET /regions.`);
    if (!region.available || !region.features.includes('storage'))
      fail('region', `Region ${regionSlug} does not accept new volumes.`);
    let fromSnapshot: VolumeSnapshotRecord | undefined;
    if (snapshotId !== undefined) {
      fromSnapshot = ownSnapshot(account.id, 'snapshot_id', snapshotId);
      if (size < fromSnapshot.size) fail('size', `size must be at least the snapshot's ${fromSnapshot.size} GB.`);
      if (fromSnapshot.region !== region.slug)
        fail('region', `The snapshot is in ${fromSnapshot.region}; the volume must be created there.`);
      if (filesystem !== undefined && filesystem !== fromSnapshot.filesystem)
        fail('filesystem', `The snapshot holds an ${fromSnapshot.filesystem} filesystem.`);
    }
    const volume = service.create(account.id, {
      name,
      size,
      region: region.slug,
      filesystem: filesystem ?? fromSnapshot?.filesystem ?? 'ext4',
      tags: ctx.faults.has('volume-tags-dropped') ? [] : tags,
      projectId,
    });
    return reply.code(201).send({ volume: volumeView(volume) });
  });

  /** Under `volume-restore-reuses-volume`: the volume each snapshot's first restore made. */
  const restoredFrom = new Map<string, string>();

  // Registered before `/storage/volumes/:volume_id/...` routes; Fastify prefers the static segment.
  app.post('/storage/volumes/restore', async (request, reply) => {
    const { account } = authOf(request);
    const f = new Fields('storage', request.body);
    const snapshotId = f.string('snapshot_id', { required: true });
    const name = f.string('name', { required: true, max: 255 });
    const requested = readSize(f, false);
    const tags = f.stringArray('tags', { maxItems: 100, itemPattern: TAG }) ?? [];
    const projectId = f.string('project_id', { min: 1, max: 100 }) ?? null;
    const snapshot = ownSnapshot(account.id, 'snapshot_id', snapshotId);
    // Faults `volume-restore-size-against-volume`, `volume-restore-default-current-size`: the volume's size now, not the snapshot's.
    const source = service.find(account.id, snapshot.volume_id);
    const floor = ctx.faults.has('volume-restore-size-against-volume') && source ? source.size : snapshot.size;
    // Fault `volume-restore-smaller-accepted`: a size below the snapshot's passes.
    if (requested !== undefined && requested < floor && !ctx.faults.has('volume-restore-smaller-accepted')) {
      fail('size', `size must be at least the snapshot's ${floor} GB.`);
    }
    // Fault `volume-restore-reuses-volume`: the volume of the snapshot's first restore, while it exists.
    const reused = ctx.faults.has('volume-restore-reuses-volume') ? restoredFrom.get(snapshot.id) : undefined;
    const earlier = reused === undefined ? undefined : service.find(account.id, reused);
    if (earlier) return reply.code(201).send({ volume: volumeView(earlier) });
    // Fault `volume-restore-default-larger`: a restore without size is a gigabyte larger.
    const defaultSize =
      (ctx.faults.has('volume-restore-default-current-size') && source ? source.size : snapshot.size) +
      (ctx.faults.has('volume-restore-default-larger') ? 1 : 0);
    const volume = service.create(account.id, {
      name,
      size: requested ?? defaultSize,
      region: snapshot.region,
      filesystem: snapshot.filesystem,
      tags: ctx.faults.has('volume-tags-dropped') ? [] : tags,
      projectId,
    });
    if (ctx.faults.has('volume-restore-reuses-volume')) restoredFrom.set(snapshot.id, volume.id);
    const view = volumeView(volume);
    // Fault `volume-restore-unstored`: the answer names a volume that is not kept.
    if (ctx.faults.has('volume-restore-unstored')) service.delete(account.id, volume);
    return reply.code(201).send({ volume: view });
  });

  /** Under `volume-detach-stale`: the VPS each volume was last detached from. */
  const detachedFrom = new Map<string, string>();

  app.get<VolumeParams>('/storage/volumes/:volume_id', async (request) => {
    const { account } = authOf(request);
    const view = volumeView(ownVolume(account.id, request.params.volume_id));
    const stale = detachedFrom.get(String(view.id));
    if (stale !== undefined && view.attached_to === null) view.attached_to = stale;
    return { volume: spelled(view) };
  });

  app.post<VolumeParams>('/storage/volumes/:volume_id/resize', async (request) => {
    const { account } = authOf(request);
    const volume = ownVolume(account.id, request.params.volume_id);
    const f = new Fields('storage', request.body);
    const size = readSize(f, true) as number;
    // Fault `volume-shrink-accepted`: an equal or smaller size is applied.
    if (size <= volume.size && !ctx.faults.has('volume-shrink-accepted'))
      fail('size', `size must be larger than the current ${volume.size} GB.`);
    if (ctx.faults.has('volume-resize-ignored')) return { volume: { ...volumeView(volume), size } };
    // Fault `volume-resize-lost-after-snapshot`: a volume with a snapshot keeps its size.
    const snapshotted = [...volumeState(ctx, account.id).snapshots.values()].some((s) => s.volume_id === volume.id);
    if (ctx.faults.has('volume-resize-lost-after-snapshot') && snapshotted)
      return { volume: { ...volumeView(volume), size } };
    return { volume: volumeView(service.resize(volume, size)) };
  });

  app.post<VolumeParams>('/storage/volumes/:volume_id/attach', async (request) => {
    const { account } = authOf(request);
    const volume = ownVolume(account.id, request.params.volume_id);
    const f = new Fields('storage', request.body);
    const vpsId = f.string('vps_id', { required: true });
    const vps = vpsNamed(account.id, vpsId);
    if (!vps) fail('vps_id', `vps_id ${JSON.stringify(vpsId)} is not a VPS of this account.`);
    if (vps.region !== volume.region && !ctx.faults.has('volume-attach-cross-region'))
      fail(
        'vps_id',
        `The VPS is in ${vps.region} and the volume in ${volume.region}; both must be in the same region.`,
      );
    // An attached volume (to this VPS or another) is a 409 `volume_in_use` from the service.
    const attached = volumeView(service.attach(volume, vps.id));
    if (ctx.faults.has('volume-attached-filter-sticky')) everAttached.add(volume.id);
    return { volume: ctx.faults.has('volume-attach-unreported') ? { ...attached, attached_to: null } : attached };
  });

  // No body is taken (specification: "none"); one that is sent is ignored.
  app.post<VolumeParams>('/storage/volumes/:volume_id/detach', async (request) => {
    const { account } = authOf(request);
    const volume = ownVolume(account.id, request.params.volume_id);
    const from = volume.attached_to;
    if (ctx.faults.has('volume-detach-stale') && from !== null) detachedFrom.set(volume.id, from);
    return { volume: volumeView(service.detach(volume)) };
  });

  app.delete<VolumeParams>('/storage/volumes/:volume_id', async (request, reply) => {
    const { account } = authOf(request);
    const volume = ownVolume(account.id, request.params.volume_id);
    if (!ctx.faults.has('volume-delete-ignored')) service.delete(account.id, volume);
    return reply.code(204).send();
  });

  app.get('/storage/snapshots', async (request) => {
    const { account } = authOf(request);
    const f = queryFields(request.query);
    const volumeId = f.string('volume_id');
    const region = f.string('region');
    const all = [...volumeState(ctx, account.id).snapshots.values()].reverse();
    // Fault `volume-snapshot-filter-newest-volume`: the volume filter takes the volume snapshotted last.
    const filteredBy =
      volumeId !== undefined && ctx.faults.has('volume-snapshot-filter-newest-volume')
        ? (all[0]?.volume_id ?? volumeId)
        : volumeId;
    const snapshots = all.filter(
      (s) => (filteredBy === undefined || s.volume_id === filteredBy) && (region === undefined || s.region === region),
    );
    // Fault `volume-snapshot-newest-unlisted`: the newest snapshot (first, newest first) is left out.
    return {
      snapshots: (ctx.faults.has('volume-snapshot-newest-unlisted') ? snapshots.slice(1) : snapshots).map(
        shownSnapshot,
      ),
    };
  });

  app.post('/storage/snapshots', async (request, reply) => {
    const { account } = authOf(request);
    const f = new Fields('storage', request.body);
    const volumeId = f.string('volume_id', { required: true });
    const name = f.string('name', { required: true, max: 255 });
    const description = f.string('description', { max: 1024 }) ?? null;
    const volume = service.find(account.id, volumeId);
    if (!volume) fail('volume_id', `volume_id ${JSON.stringify(volumeId)} is not a volume of this account.`);
    return reply.code(201).send({ snapshot: shownSnapshot(service.snapshot(account.id, volume, name, description)) });
  });

  /** Variant `volume-snapshot-size-omitted`: the record has no `size` (its fields are not shown). */
  function shownSnapshot(record: VolumeSnapshotRecord): Record<string, unknown> {
    const view = snapshotView(record);
    if (ctx.variants.has('volume-snapshot-size-omitted')) delete view.size;
    return view;
  }
}
