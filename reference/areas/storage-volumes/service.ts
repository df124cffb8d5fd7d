/**
 * What happens to volumes and volume snapshots, independent of HTTP. Routes validate requests
 * and call in here; the resource provider (DELETE /projects/{id}) and the compute deletion hook
 * use the same methods. Attachment conflicts are 409 `volume_in_use` with `resource` naming the
 * kind, `volume` (docs/conventions.md, Errors).
 */
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { type FILESYSTEMS, type VolumeRecord, type VolumeSnapshotRecord, volumeState } from './store.ts';

export interface CreateVolumeInput {
  name: string;
  size: number;
  region: string;
  filesystem: (typeof FILESYSTEMS)[number];
  tags: string[];
  projectId: string | null;
}

export class VolumeService {
  constructor(private readonly ctx: ReferenceContext) {}

  find(accountId: string, volumeId: string): VolumeRecord | undefined {
    return volumeState(this.ctx, accountId).volumes.get(volumeId);
  }

  create(accountId: string, input: CreateVolumeInput): VolumeRecord {
    const now = this.ctx.clock.now();
    const record: VolumeRecord = {
      id: newId('vol'),
      name: input.name,
      size: input.size,
      region: input.region,
      status: 'available',
      attached_to: null,
      filesystem: input.filesystem,
      created_at: isoTimestamp(now),
      tags: [...input.tags],
      project_id: input.projectId,
      createdMs: now,
    };
    volumeState(this.ctx, accountId).volumes.set(record.id, record);
    return record;
  }

  resize(volume: VolumeRecord, size: number): VolumeRecord {
    volume.size = size;
    return volume;
  }

  attach(volume: VolumeRecord, vpsId: string): VolumeRecord {
    if (volume.attached_to !== null)
      throw this.inUse(`The volume is already attached to ${volume.attached_to}; detach it first.`);
    volume.attached_to = vpsId;
    return volume;
  }

  detach(volume: VolumeRecord): VolumeRecord {
    if (volume.attached_to === null) throw this.inUse('The volume is not attached.');
    volume.attached_to = null;
    return volume;
  }

  /** Permanent. `force` (project deletion) detaches first instead of refusing. */
  delete(accountId: string, volume: VolumeRecord, force = false): void {
    if (volume.attached_to !== null && !force)
      throw this.inUse(`The volume is attached to ${volume.attached_to}; detach it first.`);
    const state = volumeState(this.ctx, accountId);
    state.volumes.delete(volume.id);
    state.retired.push({
      id: volume.id,
      name: volume.name,
      size: volume.size,
      createdMs: volume.createdMs,
      deletedMs: this.ctx.clock.now(),
    });
  }

  /** A deleted instance takes no volume with it: its volumes become detached. */
  detachAllFrom(accountId: string, vpsId: string): void {
    for (const volume of volumeState(this.ctx, accountId).volumes.values()) {
      if (volume.attached_to === vpsId) volume.attached_to = null;
    }
  }

  snapshot(accountId: string, volume: VolumeRecord, name: string, description: string | null): VolumeSnapshotRecord {
    const snapshot: VolumeSnapshotRecord = {
      id: newId('vsnap'),
      name,
      description,
      volume_id: volume.id,
      size: volume.size,
      region: volume.region,
      status: 'available',
      created_at: isoTimestamp(this.ctx.clock.now()),
      filesystem: volume.filesystem,
    };
    volumeState(this.ctx, accountId).snapshots.set(snapshot.id, snapshot);
    return snapshot;
  }

  /** A conflict with the attachment: 409 `volume_in_use` naming the kind, `volume` (422 under its fault). */
  private inUse(message: string): ApiError {
    const status = this.ctx.faults.has('volume-in-use-422') ? 422 : undefined;
    return new ApiError('volume_in_use', message, undefined, 'volume', status);
  }
}
