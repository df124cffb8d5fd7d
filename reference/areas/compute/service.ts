/**
 * What happens to instances, independent of HTTP: creation and the delayed boot, updates,
 * actions, deletion, snapshots, and the events each change emits. Routes validate requests and
 * call in here; the resource provider and other areas (volumes) use the same methods, so a VPS
 * deleted through a project behaves exactly like one deleted through DELETE /vps/{vps_id}.
 */
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { type Image, type Size, findSize } from './catalog.ts';
import { allocateAddresses } from './network.ts';
import { type VpsRecord, type VpsSnapshotRecord, type VpsStatus, computeState } from './store.ts';

export interface CreateVpsInput {
  name: string;
  region: string;
  image: Image;
  size: Size;
  sshKeys: string[];
  privateNetworking: boolean;
  backups: boolean;
  monitoring: boolean;
  tags: string[];
  projectId: string | null;
}

export type KnownAction =
  | { type: 'start' | 'stop' | 'restart' }
  | { type: 'resize'; size: Size }
  | { type: 'snapshot'; name: string }
  | { type: 'rebuild'; image: Image };

/** Fault `vps-action-type-unchecked` lets an unknown type through, answered as a no-op. */
export type ActionRequest = KnownAction | { type: string; unknown: true };

export interface ActionResult {
  id: string;
  type: string;
  /** `in-progress` only under the variant `actions-async`. */
  status: 'completed' | 'in-progress';
  vps_id: string;
  started_at: string;
  completed_at: string | null;
}

type DeletionListener = (accountId: string, vpsId: string) => void;

export class ComputeService {
  private readonly deletionListeners: DeletionListener[] = [];

  constructor(private readonly ctx: ReferenceContext) {}

  onVpsDeleted(listener: DeletionListener): void {
    this.deletionListeners.push(listener);
  }

  find(accountId: string, vpsId: string): VpsRecord | undefined {
    return computeState(this.ctx, accountId).vps.get(vpsId);
  }

  create(accountId: string, input: CreateVpsInput): VpsRecord {
    const state = computeState(this.ctx, accountId);
    const now = this.ctx.clock.now();
    const record: VpsRecord = {
      id: newId('vps'),
      name: input.name,
      status: 'creating',
      region: input.region,
      image: input.image.id,
      size: input.size.slug,
      vcpus: input.size.vcpus,
      memory: input.size.memory,
      disk: input.size.disk,
      // The specification: null while the instance is being created.
      ip_address: null,
      private_ip: null,
      created_at: isoTimestamp(now),
      tags: [...input.tags],
      project_id: input.projectId,
      ssh_keys: [...input.sshKeys],
      private_networking: input.privateNetworking,
      backups: input.backups,
      monitoring: input.monitoring,
      createdMs: now,
      ...(this.ctx.faults.has('vps-list-stale-after-update') && {
        created: { name: input.name, tags: [...input.tags] },
      }),
    };
    if (this.ctx.faults.has('vps-created-with-ips')) this.assignAddresses(record);
    state.vps.set(record.id, record);
    state.deletedSinceCreate = 0;
    state.boots.set(
      record.id,
      this.ctx.clock.schedule(this.ctx.options.delays.vpsBootMs, () => this.finishBoot(accountId, record.id)),
    );
    // Emitted on acceptance: the instance exists from now on (status `creating`). There is no
    // separate event for the end of the boot; GET shows it.
    this.emit(accountId, 'vps.created', record);
    return record;
  }

  private finishBoot(accountId: string, vpsId: string): void {
    const state = computeState(this.ctx, accountId);
    state.boots.delete(vpsId);
    const record = state.vps.get(vpsId);
    if (!record || record.status !== 'creating') return;
    if (record.ip_address === null) this.assignAddresses(record);
    record.status = 'running';
  }

  private assignAddresses(record: VpsRecord): void {
    const { publicIp, privateIp } = allocateAddresses(this.ctx);
    record.ip_address = publicIp;
    record.private_ip = privateIp;
  }

  update(record: VpsRecord, changes: { name?: string; tags?: string[] }): VpsRecord {
    if (this.ctx.faults.has('vps-update-ignored')) return record;
    // Fault `vps-second-update-lost`: after the first kept PUT, the answer shows the change but nothing is stored.
    if (this.ctx.faults.has('vps-second-update-lost')) {
      if (record.updated)
        return { ...record, name: changes.name ?? record.name, tags: [...(changes.tags ?? record.tags)] };
      record.updated = true;
    }
    if (changes.name !== undefined) record.name = changes.name;
    if (changes.tags !== undefined) record.tags = [...changes.tags];
    return record;
  }

  /** Permanent. Volumes attached to it are detached (listeners), its snapshots are kept. */
  delete(accountId: string, vpsId: string): boolean {
    const state = computeState(this.ctx, accountId);
    const record = state.vps.get(vpsId);
    if (!record) return false;
    state.boots.get(vpsId)?.cancel();
    state.boots.delete(vpsId);
    state.vps.delete(vpsId);
    state.deletedSinceCreate++;
    if (this.ctx.faults.has('vps-delete-ghost')) state.ghosts.set(vpsId, record);
    state.retired.push({
      id: record.id,
      name: record.name,
      size: record.size,
      createdMs: record.createdMs,
      deletedMs: this.ctx.clock.now(),
    });
    for (const listener of this.deletionListeners) listener(accountId, vpsId);
    this.emit(accountId, 'vps.deleted', { ...record, status: 'deleted' });
    return true;
  }

  /**
   * Runs one action to completion (docs/conventions.md: DigitalOcean-like, done before the
   * response). Throws 422 `invalid_state` when the instance's state does not allow it.
   */
  perform(accountId: string, record: VpsRecord, action: ActionRequest): ActionResult {
    const startedAt = isoTimestamp(this.ctx.clock.now());
    const finished = 'unknown' in action ? true : this.apply(accountId, record, action);
    const completedAt = finished ? isoTimestamp(this.ctx.clock.now()) : null;
    return {
      id: newId('act'),
      type: action.type,
      status: finished ? 'completed' : 'in-progress',
      vps_id: record.id,
      started_at: startedAt,
      completed_at: completedAt,
    };
  }

  /**
   * Moves the instance to `final`, at once, or under the variant `actions-async` through
   * `transitional` for the variant's time. Returns whether the action has finished.
   */
  private transition(
    accountId: string,
    record: VpsRecord,
    transitional: VpsStatus,
    final: VpsStatus,
    event: string | null,
  ): boolean {
    const finish = (): void => {
      record.status = final;
      if (event) this.emit(accountId, event, record);
    };
    if (!this.ctx.variants.has('actions-async')) {
      finish();
      return true;
    }
    record.status = transitional;
    this.ctx.clock.schedule(this.ctx.variants.ms('actions-async', 3000), () => {
      if (record.status === transitional && computeState(this.ctx, accountId).vps.get(record.id) === record) finish();
    });
    return false;
  }

  private apply(accountId: string, record: VpsRecord, action: KnownAction): boolean {
    if (this.isIdempotentNoOp(record, action.type)) return true;
    this.requireState(record, action.type);
    switch (action.type) {
      case 'start':
        return this.transition(accountId, record, 'starting', 'running', 'vps.started');
      case 'stop':
        return this.transition(accountId, record, 'stopping', 'stopped', 'vps.stopped');
      case 'restart':
        // Running before and after; no event names a restart.
        return this.transition(accountId, record, 'restarting', 'running', null);
      case 'resize':
        record.size = action.size.slug;
        record.vcpus = action.size.vcpus;
        record.memory = action.size.memory;
        record.disk = action.size.disk;
        this.emit(accountId, 'vps.resized', record);
        break;
      case 'snapshot': {
        // Fault `vps-second-snapshot-ignored`: an instance that has a snapshot takes no other.
        const has = [...computeState(this.ctx, accountId).snapshots.values()].some((s) => s.vps_id === record.id);
        if (!(has && this.ctx.faults.has('vps-second-snapshot-ignored')))
          this.takeSnapshot(accountId, record, action.name);
        break;
      }
      case 'rebuild': {
        const wasStopped = record.status === 'stopped';
        record.image = action.image.id;
        record.status = 'running';
        // A rebuild boots the instance again: from stopped, that is a start.
        if (wasStopped) this.emit(accountId, 'vps.started', record);
        break;
      }
    }
    return true;
  }

  private requireState(record: VpsRecord, type: string): void {
    const allowed: Record<string, readonly VpsStatus[]> = {
      start: ['stopped'],
      stop: ['running'],
      restart: ['running'],
      resize: ['running', 'stopped'],
      snapshot: ['running', 'stopped'],
      rebuild: ['running', 'stopped'],
    };
    const states = allowed[type] ?? [];
    if (!states.includes(record.status)) {
      const message = `A ${record.status} VPS cannot ${type}; allowed when ${states.join(' or ')}.`;
      // Fault `vps-invalid-state-details-object`: the details in the messaging shape.
      const details = this.ctx.faults.has('vps-invalid-state-details-object')
        ? { field: 'type', message }
        : [{ field: 'type', message }];
      throw new ApiError('invalid_state', message, details);
    }
  }

  /**
   * An action that would leave the instance as it is (start on running, stop on stopped): a
   * completed no-op under the variant `vps-actions-idempotent` (and, for stop, the fault
   * `vps-stop-on-stopped-accepted`), else refused by requireState.
   */
  private isIdempotentNoOp(record: VpsRecord, type: string): boolean {
    const same = (type === 'start' && record.status === 'running') || (type === 'stop' && record.status === 'stopped');
    if (!same) return false;
    return (
      this.ctx.variants.has('vps-actions-idempotent') ||
      (type === 'stop' && this.ctx.faults.has('vps-stop-on-stopped-accepted'))
    );
  }

  private takeSnapshot(accountId: string, record: VpsRecord, name: string): VpsSnapshotRecord {
    const snapshot: VpsSnapshotRecord = {
      id: newId('snap'),
      name,
      vps_id: record.id,
      region: record.region,
      size: record.disk,
      status: 'available',
      created_at: isoTimestamp(this.ctx.clock.now()),
      vpsName: record.name,
    };
    computeState(this.ctx, accountId).snapshots.set(snapshot.id, snapshot);
    this.emitSnapshot(accountId, 'snapshot.created', snapshot);
    return snapshot;
  }

  deleteSnapshot(accountId: string, snapshotId: string): boolean {
    const state = computeState(this.ctx, accountId);
    const snapshot = state.snapshots.get(snapshotId);
    if (!snapshot) return false;
    // Fault `snapshot-delete-removes-newest`: the newest snapshot of the same instance goes instead.
    const removed = this.ctx.faults.has('snapshot-delete-removes-newest')
      ? [...state.snapshots.values()].reverse().find((s) => s.vps_id === snapshot.vps_id)!
      : snapshot;
    if (!this.ctx.faults.has('snapshot-delete-ignored')) state.snapshots.delete(removed.id);
    this.emitSnapshot(accountId, 'snapshot.deleted', snapshot);
    return true;
  }

  /** Hourly price of the instance's current size (0 if the catalogue lost it). */
  priceOf(sizeSlug: string): { hourly: number; monthly: number } {
    const size = findSize(sizeSlug);
    return { hourly: size?.price_hourly ?? 0, monthly: size?.price_monthly ?? 0 };
  }

  /** Compute events carry `data.vps` with id, name and status (specification, Events). */
  private emit(accountId: string, event: string, record: { id: string; name: string; status: string }): void {
    this.ctx.events.emit(accountId, event, { vps: { id: record.id, name: record.name, status: record.status } });
  }

  /**
   * Snapshot events: the specification shows compute payloads with `data.vps` but not the data
   * of snapshot events, so they carry the source instance as `vps` (its status `deleted` once it
   * is gone) and the snapshot beside it.
   */
  private emitSnapshot(accountId: string, event: string, snapshot: VpsSnapshotRecord): void {
    const vps = this.find(accountId, snapshot.vps_id);
    this.ctx.events.emit(accountId, event, {
      vps: { id: snapshot.vps_id, name: vps?.name ?? snapshot.vpsName, status: vps?.status ?? 'deleted' },
      snapshot: {
        id: snapshot.id,
        name: snapshot.name,
        vps_id: snapshot.vps_id,
        region: snapshot.region,
        size: snapshot.size,
        created_at: snapshot.created_at,
      },
    });
  }
}
