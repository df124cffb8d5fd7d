/**
 * Deliberate non-conformances of block storage (`cloudcheck serve --fault NAME`). Each one bends
 * exactly one requirement of spec/requirements.yaml (a MUST, or the SHOULD of a convention); the code it bends checks
 * `ctx.faults.has(...)` in place.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const VOLUME_FAULTS = [
  {
    name: 'volume-min-size-unchecked',
    requirement: 'VOL-CRT-002',
    description: 'POST /storage/volumes accepts a size of 0 GB.',
  },
  {
    name: 'volume-shrink-accepted',
    requirement: 'VOL-RSZ-001',
    description: 'Resize accepts a size equal to or smaller than the current one and applies it.',
  },
  {
    name: 'volume-restore-smaller-accepted',
    requirement: 'VOL-RST-002',
    description: 'Restore accepts a size smaller than the snapshot.',
  },
  {
    name: 'volume-list-size-string',
    requirement: 'VOL-FLD-001',
    description: 'GET /storage/volumes lists each volume with `size` as a string ("10").',
  },
  {
    name: 'volume-tags-dropped',
    requirement: 'VOL-CRT-004',
    description: 'POST /storage/volumes creates the volume without the requested tags.',
  },
  {
    name: 'volume-resize-ignored',
    requirement: 'VOL-RSZ-002',
    description: 'A resize to a larger size answers 200 but keeps the old size.',
  },
  {
    name: 'volume-attach-unreported',
    requirement: 'VOL-ATT-001',
    description: 'An attach works but its response reports attached_to null.',
  },
  {
    name: 'volume-detach-stale',
    requirement: 'VOL-DET-001',
    description: 'After a detach, GET /storage/volumes/{volume_id} still reports the old attached_to.',
  },
  {
    name: 'volume-delete-ignored',
    requirement: 'VOL-DEL-001',
    description: 'DELETE /storage/volumes/{volume_id} answers 204 and keeps the volume.',
  },
  {
    name: 'volume-list-attached-filter-ignored',
    requirement: 'VOL-LIST-002',
    description: 'GET /storage/volumes ignores the `attached` filter.',
  },
  {
    name: 'volume-list-attached-to-omitted',
    requirement: 'VOL-FLD-002',
    description: 'GET /storage/volumes leaves `attached_to` out of a volume that is not attached.',
  },
  {
    name: 'volume-status-capitalised',
    requirement: 'VOL-STATE-001',
    description: 'GET /storage/volumes and GET /storage/volumes/{volume_id} spell the ready state `Available`.',
  },
  {
    name: 'volume-snapshot-newest-unlisted',
    requirement: 'VOL-SNAP-002',
    description: 'GET /storage/snapshots leaves out the newest volume snapshot.',
  },
  {
    name: 'volume-restore-unstored',
    requirement: 'VOL-RST-001',
    description: 'A restore answers a new volume that is never stored: GET of its id answers 404.',
  },
  // Sequence-only fault: it shows only after an attach and a detach (cloudcheck explore finds it).
  {
    name: 'volume-attached-filter-sticky',
    requirement: 'VOL-LIST-002',
    description:
      'A volume once attached stays in GET /storage/volumes?attached=true (and out of attached=false) after its detach.',
  },
  {
    name: 'ids-unprefixed-volumes',
    requirement: 'VOL-ID-001',
    description: 'Volumes and volume snapshots get ids without their type prefix.',
  },
  {
    name: 'volume-in-use-422',
    requirement: 'ERR-MAP-014',
    description: "A conflict with a volume's attachment is answered 422 `volume_in_use` instead of 409.",
  },
  {
    name: 'volume-attach-cross-region',
    requirement: 'VOL-ATT-002',
    description: 'A volume attaches to a VPS of another region.',
  },
  {
    name: 'volume-restore-default-larger',
    requirement: 'VOL-SNAP-003',
    description: 'A restore without `size` makes a volume 1 GB larger than the snapshot.',
  },
  {
    name: 'volume-attach-foreign-vps',
    requirement: 'ISO-VOL-001',
    description: "A volume attaches to another account's VPS named by its id.",
  },
  // Sequence-only faults of snapshots, resizes and restores (cloudcheck explore's snapshots family finds them).
  {
    name: 'volume-restore-size-against-volume',
    requirement: 'VOL-RST-002',
    description:
      "A restore's size is held to the current size of the snapshot's volume, not to the snapshot's: after the volume grew, a restore of the snapshot's own size is refused.",
  },
  {
    name: 'volume-resize-lost-after-snapshot',
    requirement: 'VOL-RSZ-002',
    description: 'A resize of a volume that has a snapshot answers the new size and keeps the old one.',
  },
  {
    name: 'volume-snapshot-filter-newest-volume',
    requirement: 'VOL-SNAP-002',
    description:
      'GET /storage/snapshots?volume_id= lists the snapshots of the volume snapshotted last, whichever volume is asked for.',
  },
  {
    name: 'volume-restore-reuses-volume',
    requirement: 'VOL-RST-001',
    description: 'A second restore of one snapshot answers the volume its first restore made (no new volume).',
  },
  {
    name: 'volume-restore-default-current-size',
    requirement: 'VOL-SNAP-003',
    description:
      "A restore without a size makes a volume of the snapshot's volume's current size, not of the snapshot's size.",
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof VOLUME_FAULTS)[number]['name'], true> {}
}

export type VolumeFault = (typeof VOLUME_FAULTS)[number]['name'];
