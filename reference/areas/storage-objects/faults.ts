/**
 * Deliberate non-conformances of the object-storage REST side. Each is switched on with
 * `--fault NAME`, bends the code where `ctx.faults.has(NAME)` appears, and breaks one requirement
 * of spec/requirements.yaml: a MUST, or the SHOULD of a convention.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const STORAGE_OBJECT_FAULTS = [
  {
    name: 'bucket-name-not-unique',
    requirement: 'BKT-CRT-003',
    description: 'A bucket name taken by another account can be created again.',
  },
  {
    name: 'bucket-delete-non-empty',
    requirement: 'BKT-DEL-001',
    description: 'Deleting a bucket that holds objects succeeds (the objects go with it).',
  },
  {
    name: 'multipart-parts-out-of-order',
    requirement: 'MPU-CMP-002',
    description: 'Completion joins the parts in upload order instead of part-number order.',
  },
  {
    name: 'presigned-signature-unchecked',
    requirement: 'PRE-URL-007',
    description: 'Presigned URLs are honoured whatever their signature (another key, account or expiry works too).',
  },
  {
    name: 'presigned-expiry-unchecked',
    requirement: 'PRE-URL-006',
    description: 'Presigned URLs keep working after expires_at.',
  },
  {
    name: 'object-listing-marker-ignored',
    requirement: 'OBJ-LIST-005',
    description: 'The listing ignores `marker` and starts from the first key again.',
  },
  {
    name: 'object-head-no-length',
    requirement: 'OBJ-HEAD-001',
    description: 'HEAD on an object answers without Content-Length.',
  },
  {
    name: 'object-listing-prefix-ignored',
    requirement: 'OBJ-LIST-003',
    description: 'The listing ignores `prefix` and lists every key.',
  },
  // Sequence-only faults: each shows only after a particular order of operations (cloudcheck explore finds them).
  {
    name: 'object-listing-prefix-first-page-only',
    requirement: 'OBJ-LIST-003',
    description:
      'The listing applies `prefix` to its first page only: a page asked with a marker lists keys of any prefix.',
  },
  {
    name: 'object-listing-truncated-off-by-one',
    requirement: 'OBJ-LIST-004',
    description: 'A listing page says is_truncated false when exactly one more object remains.',
  },
  {
    name: 'object-listing-max-keys-ignored-with-prefix',
    requirement: 'OBJ-LIST-004',
    description: 'A listing asked with both `prefix` and `max_keys` ignores `max_keys` (either alone is honoured).',
  },
  {
    name: 'object-listing-marker-skips-extension',
    requirement: 'OBJ-LIST-005',
    description:
      'A listing page asked with a marker leaves out the first key that extends the marker (`a1` after `a`): a page-by-page walk loses it.',
  },
  {
    name: 'object-get-stale-after-reupload',
    requirement: 'OBJ-PUT-001',
    description: 'An object deleted and then uploaded again is downloaded with the bytes it had before the delete.',
  },
  {
    name: 'object-listing-stale-after-overwrite',
    requirement: 'OBJ-PUT-001',
    description:
      'A REST upload over an existing key leaves its listing entry as it was (the old size, etag, last_modified and content_type); GET and HEAD show the new object.',
  },
  {
    name: 'object-head-stale-after-overwrite',
    requirement: 'OBJ-HEAD-001',
    description:
      'HEAD of a key uploaded over again answers the Content-Length and Content-Type of the upload before (a metadata cache an overwrite does not clear).',
  },
  {
    name: 'object-get-type-stale-after-overwrite',
    requirement: 'OBJ-GET-001',
    description:
      'A download of a key uploaded over again answers the new bytes with the Content-Type of the upload before.',
  },
  {
    name: 'multipart-content-type-lost',
    requirement: 'MPU-INIT-002',
    description:
      'A completed multipart object gets application/octet-stream instead of the Content-Type sent at initiation.',
  },
  {
    name: 'bucket-versioning-dropped',
    requirement: 'BKT-CRT-004',
    description: 'A bucket is created with versioning false whatever the request asked.',
  },
  { name: 'bucket-size-string', requirement: 'BKT-FLD-001', description: 'Bucket records carry `size` as a string.' },
  {
    name: 'object-overwrite-ignored',
    requirement: 'OBJ-PUT-003',
    description: 'An upload to an existing key answers success but keeps the old object.',
  },
  {
    name: 'bucket-policy-statement-dropped',
    requirement: 'BKT-POL-002',
    description: 'GET of a bucket policy answers an empty `Statement` whatever was set.',
  },
  {
    name: 'usage-summary-cost-missing',
    requirement: 'STO-USE-002',
    description: 'GET /storage/usage answers a summary without `total_cost`.',
  },
  {
    name: 'usage-bucket-filter-refused',
    requirement: 'STO-USE-003',
    description: 'GET /storage/usage refuses the `bucket` filter.',
  },
  {
    name: 'bucket-exists-wrong-code',
    requirement: 'ERR-CODE-008',
    description: 'A taken bucket name is refused with code `conflict` instead of `bucket_already_exists`.',
  },
  {
    name: 'object-listing-storage-class-missing',
    requirement: 'OBJ-LIST-002',
    description: 'Listing entries carry no `storage_class`.',
  },
  {
    name: 'object-listing-never-truncated',
    requirement: 'OBJ-LIST-004',
    description: 'A listing cut by `max_keys` answers `is_truncated` false.',
  },
  {
    name: 'object-listing-delimiter-refused',
    requirement: 'OBJ-LIST-006',
    description: 'A listing with `delimiter` is refused as a validation error.',
  },
  {
    name: 'object-listing-content-type-default',
    requirement: 'OBJ-PUT-001',
    description:
      'The listing reports every object as application/octet-stream, whatever Content-Type it was uploaded with.',
  },
  {
    name: 'object-acl-refused',
    requirement: 'OBJ-PUT-002',
    description: 'An upload carrying `x-cloud-acl` is refused.',
  },
  {
    name: 'object-get-content-type-default',
    requirement: 'OBJ-GET-001',
    description: "A download answers Content-Type application/octet-stream instead of the object's.",
  },
  {
    name: 'object-delete-ghost',
    requirement: 'OBJ-DEL-001',
    description: 'A deleted object leaves the listing but stays downloadable.',
  },
  {
    name: 'multipart-initiate-wrapped',
    requirement: 'MPU-INIT-001',
    description: 'Initiation answers the handle wrapped as {"upload": {...}} instead of the flat object.',
  },
  {
    name: 'multipart-part-etag-missing',
    requirement: 'MPU-PART-001',
    description: 'A part upload answers without an ETag (neither header nor body).',
  },
  {
    name: 'multipart-complete-xml-refused',
    requirement: 'MPU-CMP-001',
    description: 'Completion refuses the CompleteMultipartUpload XML body.',
  },
  {
    name: 'presigned-method-missing',
    requirement: 'PRE-URL-002',
    description: 'The presigned-URL response has no `method`.',
  },
  {
    name: 'presigned-default-expiry-short',
    requirement: 'PRE-URL-003',
    description: 'Without `expires_in`, presigned URLs live 900 seconds instead of 3600.',
  },
  {
    name: 'presigned-signature-param-renamed',
    requirement: 'PRE-URL-004',
    description: 'Presigned URLs carry their signature as `sig` instead of `signature`.',
  },
  {
    name: 'presigned-url-refused',
    requirement: 'PRE-URL-005',
    description: 'Requests through a valid presigned URL are refused like unauthenticated ones.',
  },
  {
    name: 'object-key-decoded-twice',
    requirement: 'OBJ-KEY-001',
    description: 'An object key is percent-decoded twice: `a%2520b` is stored as `a b`.',
  },
  {
    name: 'object-presigned-suffix-refused',
    requirement: 'OBJ-KEY-002',
    description: 'A PUT of an object whose key ends in `/presigned-url` is refused as an unknown operation.',
  },
  {
    name: 'multipart-unknown-upload-422',
    requirement: 'MPU-CMP-003',
    description:
      'A part upload or completion naming an unknown uploadId is answered 422 `validation_error` instead of 404.',
  },
  {
    name: 'multipart-part-number-unbounded',
    requirement: 'MPU-PART-002',
    description: 'Part numbers above 10000 are accepted.',
  },
  {
    name: 'presign-url-localhost',
    requirement: 'PRE-URL-008',
    description: 'Presigned URLs name `localhost` instead of the host the client reached.',
  },
  {
    name: 'bucket-taken-422',
    requirement: 'ERR-MAP-012',
    description: "The account's own taken bucket name is answered 422 `bucket_already_exists` instead of 409.",
  },
  {
    name: 'bucket-foreign-name-403',
    requirement: 'ISO-BKT-001',
    description: 'A bucket name held by another account is refused with 403 instead of 409 `bucket_already_exists`.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof STORAGE_OBJECT_FAULTS)[number]['name'], true> {}
}
