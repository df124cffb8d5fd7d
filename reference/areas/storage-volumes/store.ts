/**
 * Block storage state of one account: volumes and their snapshots, plus volumes already deleted
 * (billing prices the time they existed). Records hold the public fields under their API names.
 */
import type { ReferenceContext } from '../../core/context.ts';

/** Largest volume (docs/conventions.md, Storage: 1..16384 GB). */
export const MAX_VOLUME_GB = 16_384;
export const FILESYSTEMS = ['ext4', 'xfs'] as const;
/** Price per GB-month of a volume (the usual block-storage list price). */
export const PRICE_PER_GB_MONTH = 0.1;

export interface VolumeRecord {
  id: string;
  name: string;
  size: number;
  region: string;
  /** The only state the specification gives; attach and detach do not change it. */
  status: 'available';
  attached_to: string | null;
  filesystem: (typeof FILESYSTEMS)[number];
  created_at: string;
  tags: string[];
  /** Extension: the project the volume belongs to. */
  project_id: string | null;
  createdMs: number;
}

export interface VolumeSnapshotRecord {
  id: string;
  name: string;
  description: string | null;
  volume_id: string;
  /** GB: the volume's size when the snapshot was taken; restores are at least this big. */
  size: number;
  region: string;
  status: 'available';
  created_at: string;
  /** A restore keeps the filesystem of the snapshotted volume. */
  filesystem: (typeof FILESYSTEMS)[number];
}

export interface RetiredVolume {
  id: string;
  name: string;
  size: number;
  createdMs: number;
  deletedMs: number;
}

export interface VolumeState {
  /** Insertion order is creation order; lists reverse it (newest first). */
  volumes: Map<string, VolumeRecord>;
  snapshots: Map<string, VolumeSnapshotRecord>;
  retired: RetiredVolume[];
}

export function volumeState(ctx: ReferenceContext, accountId: string): VolumeState {
  return ctx.accountState<VolumeState>(accountId, 'storage-volumes', () => ({
    volumes: new Map(),
    snapshots: new Map(),
    retired: [],
  }));
}

export function volumeView(record: VolumeRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    size: record.size,
    region: record.region,
    status: record.status,
    attached_to: record.attached_to,
    filesystem: record.filesystem,
    created_at: record.created_at,
    tags: [...record.tags],
    project_id: record.project_id,
  };
}

export function snapshotView(record: VolumeSnapshotRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    volume_id: record.volume_id,
    size: record.size,
    region: record.region,
    status: record.status,
    created_at: record.created_at,
  };
}
