/**
 * Deliberate non-conformances of the object-storage REST side. Each is switched on with
 * `--fault NAME`, bends the code where `ctx.faults.has(NAME)` appears, and breaks one MUST
 * requirement of spec/requirements.yaml. (Unchecked completion ETags and secrets in the access
 * key listing are only SHOULD conventions, MPU-CMP-004 and STO-KEY-004, so they are no faults.)
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const STORAGE_OBJECT_FAULTS: FaultDefinition[] = [
  { name: 'bucket-name-not-unique', requirement: 'BKT-CRT-003', description: 'A bucket name taken by another account can be created again.' },
  { name: 'bucket-delete-non-empty', requirement: 'BKT-DEL-001', description: 'Deleting a bucket that holds objects succeeds (the objects go with it).' },
  { name: 'multipart-parts-out-of-order', requirement: 'MPU-CMP-002', description: 'Completion joins the parts in upload order instead of part-number order.' },
  { name: 'presigned-signature-unchecked', requirement: 'PRE-URL-007', description: 'Presigned URLs are honoured whatever their signature (another key, account or expiry works too).' },
  { name: 'presigned-expiry-unchecked', requirement: 'PRE-URL-006', description: 'Presigned URLs keep working after expires_at.' },
  { name: 'object-listing-marker-ignored', requirement: 'OBJ-LIST-005', description: 'The listing ignores `marker` and starts from the first key again.' },
  { name: 'object-head-no-length', requirement: 'OBJ-HEAD-001', description: 'HEAD on an object answers without Content-Length.' },
  { name: 'object-listing-prefix-ignored', requirement: 'OBJ-LIST-003', description: 'The listing ignores `prefix` and lists every key.' },
  { name: 'multipart-content-type-lost', requirement: 'MPU-INIT-002', description: 'A completed multipart object gets application/octet-stream instead of the Content-Type sent at initiation.' },
];
