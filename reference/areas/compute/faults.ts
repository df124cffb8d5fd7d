/**
 * Deliberate non-conformances of the compute area (`cloudcheck serve --fault NAME`). Each one
 * bends exactly one requirement of spec/requirements.yaml (a MUST, or the SHOULD of a convention); the code it bends checks
 * `ctx.faults.has(...)` in place, so reading the area shows what the fault changes.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const COMPUTE_FAULTS = [
  {
    name: 'vps-created-with-ips',
    requirement: 'VPS-CRT-004',
    description: 'POST /vps answers with ip_address and private_ip already set.',
  },
  {
    name: 'vps-update-ignored',
    requirement: 'VPS-UPD-001',
    description: 'PUT /vps/{vps_id} answers the VPS unchanged and stores nothing.',
  },
  {
    name: 'vps-list-filter-ignored',
    requirement: 'VPS-LIST-002',
    description: 'GET /vps ignores the `region` and `status` filters.',
  },
  {
    name: 'vps-delete-ghost',
    requirement: 'VPS-DEL-001',
    description: 'A deleted VPS is no longer listed but GET /vps/{vps_id} still answers it.',
  },
  {
    name: 'vps-list-meta-missing',
    requirement: 'VPS-LIST-001',
    description: 'GET /vps answers `vps_instances` without `meta`.',
  },
  {
    name: 'vps-action-type-unchecked',
    requirement: 'VPS-ACT-001',
    description: 'POST /vps/{vps_id}/actions accepts an unknown `type` as a no-op.',
  },
  {
    name: 'vps-metrics-outside-window',
    requirement: 'VPS-MET-003',
    description: 'GET /vps/{vps_id}/metrics starts every series one interval before `start`.',
  },
  {
    name: 'image-filter-ignored',
    requirement: 'IMG-LIST-002',
    description: 'GET /images ignores `type` and `distribution`: nothing is filtered and an unknown type is accepted.',
  },
  {
    name: 'snapshot-delete-ignored',
    requirement: 'SNAP-DEL-001',
    description: 'DELETE /snapshots/{snapshot_id} answers 204 but the snapshot stays listed.',
  },
  {
    name: 'vps-get-vcpus-string',
    requirement: 'VPS-FLD-001',
    description: 'GET /vps/{vps_id} gives `vcpus`, `memory` and `disk` as strings.',
  },
  {
    name: 'vps-get-ips-omitted',
    requirement: 'VPS-FLD-002',
    description: 'GET /vps/{vps_id} leaves `ip_address` and `private_ip` out of the record.',
  },
  {
    name: 'vps-unknown-region-accepted',
    requirement: 'VPS-CRT-007',
    description: 'POST /vps places a VPS with an unknown region slug in the first region instead of refusing it.',
  },
  {
    name: 'vps-get-name-wrong',
    requirement: 'VPS-GET-001',
    description: 'GET /vps/{vps_id} answers the VPS under another name than the one it was created with.',
  },
  {
    name: 'vps-metrics-interval-ignored',
    requirement: 'VPS-MET-002',
    description: 'GET /vps/{vps_id}/metrics serves 5-minute points whatever interval is asked.',
  },
  {
    name: 'vps-tags-dropped',
    requirement: 'VPS-CRT-005',
    description: 'POST /vps creates the VPS without the requested tags.',
  },
  {
    name: 'vps-image-by-name-only',
    requirement: 'VPS-CRT-006',
    description: 'POST /vps refuses the image ids GET /images lists and takes image names instead.',
  },
  {
    name: 'vps-list-status-capitalised',
    requirement: 'VPS-STATE-001',
    description: 'GET /vps lists statuses capitalised (`Running`, `Stopped`).',
  },
  {
    name: 'vps-ssh-key-ids-refused',
    requirement: 'SSH-KEY-003',
    description: 'POST /vps refuses SSH key ids in `ssh_keys` (only fingerprints are taken).',
  },
  // Sequence-only faults: each shows only after a particular order of operations (cloudcheck explore finds them).
  {
    name: 'vps-list-total-stale-after-delete',
    requirement: 'PAGE-NUM-002',
    description: 'GET /vps keeps counting deleted instances in `meta.total` (and `pages`) until the next POST /vps.',
  },
  {
    name: 'vps-list-filter-first-page-only',
    requirement: 'VPS-LIST-002',
    description:
      'GET /vps applies `region` and `status` to the first page only: later pages go on through all instances not on the first.',
  },
  {
    name: 'vps-second-update-lost',
    requirement: 'VPS-UPD-001',
    description:
      'Only the first PUT /vps/{vps_id} of an instance is kept; later ones answer the new values and store nothing.',
  },
  {
    name: 'snapshot-delete-removes-newest',
    requirement: 'SNAP-DEL-001',
    description:
      'DELETE /snapshots/{snapshot_id} removes the newest snapshot of the same VPS instead of the one named (right while a VPS has one).',
  },
  {
    name: 'snapshot-list-newest-per-vps',
    requirement: 'SNAP-LIST-001',
    description: 'GET /snapshots lists the newest snapshot of each VPS only.',
  },
  {
    name: 'vps-second-snapshot-ignored',
    requirement: 'VPS-ACT-007',
    description: 'A snapshot action on a VPS that has a snapshot answers completed but takes none.',
  },
  {
    name: 'vps-list-stale-after-update',
    requirement: 'VPS-UPD-001',
    description:
      'GET /vps lists each instance with the name and tags it was created with (GET /vps/{vps_id} shows the update).',
  },
  {
    name: 'vps-list-pages-unfiltered',
    requirement: 'PAGE-META-002',
    description:
      'GET /vps with `region` or `status` answers `meta.pages` counted over every instance of the account (`total` is right).',
  },
  {
    name: 'ids-unprefixed-compute',
    requirement: 'VPS-ID-001',
    description: 'Instances, actions, SSH keys and VPS snapshots get ids without their type prefix.',
  },
  {
    name: 'vps-stop-on-stopped-accepted',
    requirement: 'VPS-ACT-008',
    description:
      'A stop action on a stopped VPS answers a completed action and changes nothing, instead of `invalid_state`.',
  },
  {
    name: 'vps-invalid-state-details-object',
    requirement: 'ERR-MAP-011',
    description: '`invalid_state` carries `details` as one {field, message} object instead of an array of them.',
  },
  {
    name: 'sizes-transfer-gb',
    requirement: 'VPS-UNIT-001',
    description: 'GET /sizes gives `transfer` in GB instead of TB.',
  },
  {
    name: 'vps-get-unwrapped',
    requirement: 'VPS-WRAP-001',
    description: 'GET /vps/{vps_id} answers the VPS flat instead of under `vps`.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof COMPUTE_FAULTS)[number]['name'], true> {}
}

export type ComputeFault = (typeof COMPUTE_FAULTS)[number]['name'];
