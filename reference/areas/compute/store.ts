/**
 * Compute state of one account: instances, SSH keys and VPS snapshots, plus what billing needs
 * after an instance is gone. Records hold the public fields under their API names so a response
 * is a plain projection; bookkeeping fields live beside them.
 */
import type { ReferenceContext } from '../../core/context.ts';

/** The states this implementation uses (the specification names these three; the set is open). */
export const VPS_STATUSES = ['creating', 'running', 'stopped'] as const;
/** Passed through only under the variant `actions-async` (compute/variants.ts). */
export const TRANSITIONAL_STATUSES = ['starting', 'stopping', 'restarting'] as const;
export type VpsStatus = (typeof VPS_STATUSES)[number] | (typeof TRANSITIONAL_STATUSES)[number];

export interface VpsRecord {
  id: string;
  name: string;
  status: VpsStatus;
  region: string;
  image: string;
  size: string;
  vcpus: number;
  memory: number;
  disk: number;
  ip_address: string | null;
  private_ip: string | null;
  created_at: string;
  tags: string[];
  /** Extension: the project the instance belongs to (projects list it as a resource). */
  project_id: string | null;
  ssh_keys: string[];
  private_networking: boolean;
  backups: boolean;
  monitoring: boolean;
  createdMs: number;
  /** Fault `vps-second-update-lost` only: whether a PUT was already kept. */
  updated?: boolean;
  /** Fault `vps-list-stale-after-update` only: name and tags as created. */
  created?: { name: string; tags: string[] };
}

export interface SshKeyRecord {
  id: string;
  name: string;
  public_key: string;
  fingerprint: string;
  created_at: string;
}

export interface VpsSnapshotRecord {
  id: string;
  name: string;
  vps_id: string;
  region: string;
  /** GB: the instance's disk when the snapshot was taken. */
  size: number;
  status: 'available';
  created_at: string;
  /** Kept so snapshot events can name the instance after it is deleted. */
  vpsName: string;
}

/** An instance that no longer exists, kept for the usage (cost) of the period it ran in. */
export interface RetiredVps {
  id: string;
  name: string;
  size: string;
  createdMs: number;
  deletedMs: number;
}

export interface ComputeState {
  /** Insertion order is creation order; lists reverse it (newest first). */
  vps: Map<string, VpsRecord>;
  /** Fault `vps-delete-ghost` only: deleted instances that GET still answers. */
  ghosts: Map<string, VpsRecord>;
  sshKeys: Map<string, SshKeyRecord>;
  snapshots: Map<string, VpsSnapshotRecord>;
  retired: RetiredVps[];
  /** Pending `creating` → `running` transitions, cancelled when the instance is deleted first. */
  boots: Map<string, { cancel(): void }>;
  /** Fault `vps-list-total-stale-after-delete` only: deletions since the last creation. */
  deletedSinceCreate: number;
}

export function computeState(ctx: ReferenceContext, accountId: string): ComputeState {
  return ctx.accountState<ComputeState>(accountId, 'compute', () => ({
    vps: new Map(),
    ghosts: new Map(),
    sshKeys: new Map(),
    snapshots: new Map(),
    retired: [],
    boots: new Map(),
    deletedSinceCreate: 0,
  }));
}

/** The VPS as the API shows it: the specification's fields plus the extensions we document. */
export function vpsView(record: VpsRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    status: record.status,
    region: record.region,
    image: record.image,
    size: record.size,
    vcpus: record.vcpus,
    memory: record.memory,
    disk: record.disk,
    ip_address: record.ip_address,
    private_ip: record.private_ip,
    created_at: record.created_at,
    tags: [...record.tags],
    project_id: record.project_id,
    ssh_keys: [...record.ssh_keys],
    private_networking: record.private_networking,
    backups: record.backups,
    monitoring: record.monitoring,
  };
}

export function snapshotView(record: VpsSnapshotRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    vps_id: record.vps_id,
    region: record.region,
    size: record.size,
    status: record.status,
    created_at: record.created_at,
  };
}

export function sshKeyView(record: SshKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    name: record.name,
    public_key: record.public_key,
    fingerprint: record.fingerprint,
    created_at: record.created_at,
  };
}
