/**
 * The S3 endpoint's deliberate faults (`--fault NAME`), each breaking one requirement of the
 * `s3` class; the checks of suites/s3/ must fail under each (docs/fault-matrix.md).
 */
import type { FaultDefinition } from '../core/faults.ts';

export const S3_FAULTS = [
  {
    name: 's3-checksum-rejected',
    requirement: 'S3-OBJ-001',
    description:
      'Requests carrying x-amz-checksum-* headers, an x-amz-trailer or an aws-chunked trailer body are refused with InvalidArgument (the break many S3-compatible servers had when the AWS SDKs turned on default CRC32 checksums in 2025).',
  },
  {
    name: 's3-signature-unchecked',
    requirement: 'S3-AUTH-002',
    description: 'SigV4 signatures are not verified: any secret works for a known access key id.',
  },
  {
    name: 's3-multipart-etag-wrong',
    requirement: 'S3-MPU-001',
    description:
      "UploadPart answers an ETag that is not the part's MD5, so completing the upload with it fails with InvalidPart.",
  },
  {
    name: 's3-list-continuation-broken',
    requirement: 'S3-LIST-001',
    description:
      'ListObjectsV2 continuation tokens resume one entry early, so the last key of every truncated page comes again on the next.',
  },
  {
    name: 's3-path-style-refused',
    requirement: 'S3-ADDR-001',
    description: 'Requests naming a bucket in the path (path-style) are refused with InvalidRequest.',
  },
  {
    name: 's3-presigned-refused',
    requirement: 'S3-AUTH-001',
    description: 'Requests signed in the query string (SDK presigned URLs) are refused with AccessDenied.',
  },
  {
    name: 's3-region-slug-refused',
    requirement: 'S3-REG-001',
    description:
      'Only us-east-1 is accepted as the signing region; a region slug is refused with AuthorizationHeaderMalformed.',
  },
  {
    name: 's3-list-prefix-ignored',
    requirement: 'S3-OBJ-002',
    description: 'ListObjects(V2) ignores `prefix` and lists every key.',
  },
  { name: 's3-list-buckets-empty', requirement: 'S3-BKT-001', description: 'ListBuckets answers no buckets.' },
  {
    name: 's3-rest-objects-invisible',
    requirement: 'S3-STORE-001',
    description: 'GetObject and HeadObject answer NoSuchKey for objects uploaded through the REST API.',
  },
  {
    name: 's3-list-encoding-type-refused',
    requirement: 'S3-TOOL-001',
    description:
      'ListObjects(V2) with `encoding-type=url` (which aws cli, rclone and s3cmd send) is refused with InvalidArgument.',
  },
  {
    name: 's3-conditional-write-ignored',
    requirement: 'S3-COND-001',
    description:
      'PutObject and CompleteMultipartUpload ignore If-None-Match and If-Match: `If-None-Match: *` overwrites an existing object instead of answering 412.',
  },
  {
    name: 's3-conditional-read-ignored',
    requirement: 'S3-COND-002',
    description:
      'GetObject and HeadObject ignore If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since: never 304 nor 412.',
  },
  {
    name: 's3-standard-headers-dropped',
    requirement: 'S3-HDR-001',
    description:
      'Cache-Control, Content-Disposition, Content-Encoding, Content-Language and Expires given at upload are not stored, so downloads do not carry them.',
  },
  {
    name: 's3-upload-part-copy-missing',
    requirement: 'S3-COPY-001',
    description: 'UploadPartCopy answers NotImplemented, so managed copies of large objects between S3 locations fail.',
  },
  {
    name: 's3-complete-checksum-on-body',
    requirement: 'S3-MPU-003',
    description:
      "CompleteMultipartUpload's x-amz-checksum-* header is checked against the XML body instead of the object, so a correct object checksum answers BadDigest.",
  },
  {
    name: 's3-complete-not-idempotent',
    requirement: 'S3-MPU-003',
    description:
      'A retried CompleteMultipartUpload of an upload already completed answers NoSuchUpload instead of the object.',
  },
  {
    name: 's3-empty-content-type-500',
    requirement: 'S3-HDR-002',
    description: 'A PutObject with an empty Content-Type header answers 500 InternalError.',
  },
  {
    name: 's3-part-number-ignored',
    requirement: 'S3-PART-001',
    description: 'GetObject and HeadObject ignore `partNumber`: the whole object comes back, with no parts count.',
  },
  {
    name: 's3-empty-continuation-token-refused',
    requirement: 'S3-LIST-003',
    description: 'ListObjectsV2 with an empty continuation-token answers InvalidArgument instead of the first page.',
  },
  {
    name: 's3-options-not-implemented',
    requirement: 'S3-CORS-001',
    description: 'OPTIONS (a CORS preflight) on an object URL answers 501 NotImplemented.',
  },
  {
    name: 's3-recreate-own-bucket-taken',
    requirement: 'S3-BKT-002',
    description:
      'CreateBucket of a bucket the caller owns answers BucketAlreadyExists, as if another account owned it.',
  },
  {
    name: 's3-clock-skew-ignored',
    requirement: 'S3-AUTH-003',
    description:
      "A request signed an hour away from the server's clock is accepted (a captured request can be replayed).",
  },
  {
    name: 's3-list-versions-missing',
    requirement: 'S3-VER-001',
    description:
      'ListObjectVersions and GetBucketVersioning answer NotImplemented, even for a bucket that was never versioned.',
  },
  {
    name: 's3-versioning-ignored',
    requirement: 'S3-VER-002',
    description:
      "PutBucketVersioning answers 200 and changes nothing, and GetBucketVersioning never names a Status: the S3 endpoint does not see the bucket's `versioning`.",
  },
  {
    name: 's3-versioning-overwrite-lost',
    requirement: 'S3-VER-003',
    description:
      'In a versioning bucket, a write replaces the newest version instead of adding one: the earlier object is gone.',
  },
  {
    name: 's3-delete-versions-lost',
    requirement: 'S3-VER-003',
    description:
      'In a versioning bucket, DeleteObject without a version id removes every version of the key instead of leaving a delete marker.',
  },
  {
    name: 's3-suspended-versions-kept',
    requirement: 'S3-VER-004',
    description:
      'While versioning is suspended, writes still add versions with new ids instead of replacing the `null` version.',
  },
  {
    name: 's3-conditional-write-any-version',
    requirement: 'S3-COND-003',
    description:
      'In a versioning bucket, If-None-Match and If-Match of a write are judged against the newest object version even when a delete marker hides it.',
  },
  {
    name: 's3-acl-missing',
    requirement: 'S3-ACL-001',
    description: 'The `?acl` sub-resources of buckets and objects answer NotImplemented.',
  },
  {
    name: 's3-acl-rest-apart',
    requirement: 'S3-ACL-002',
    description:
      "GetBucketAcl and GetObjectAcl answer the owner's grant alone, whatever the bucket's `public` or the upload's `x-cloud-acl` say.",
  },
  {
    name: 's3-public-read-refused',
    requirement: 'S3-ACL-003',
    description: 'An unsigned GetObject of a public-read object is refused with AccessDenied.',
  },
  {
    name: 's3-anonymous-write-accepted',
    requirement: 'S3-AUTH-004',
    description:
      'An unsigned PutObject (no Authorization header, or an empty one) into a private bucket is stored, as if the bucket owner had sent it.',
  },
  {
    name: 's3-date-header-refused',
    requirement: 'S3-AUTH-005',
    description: 'A header-signed request dated by the HTTP Date header (no x-amz-date) is refused with AccessDenied.',
  },
  {
    name: 's3-missing-length-stored',
    requirement: 'S3-HDR-003',
    description:
      'A PutObject with neither Content-Length nor Transfer-Encoding is stored as an empty object instead of answering 411 MissingContentLength.',
  },
  {
    name: 's3-list-encoding-ignored',
    requirement: 'S3-LIST-004',
    description: 'ListObjectsV2 with `encoding-type=url` echoes EncodingType but returns the keys unencoded.',
  },
  {
    name: 's3-invalid-key-404',
    requirement: 'S3-KEY-002',
    description:
      'A key whose percent-encoding is not UTF-8 is looked up as it decodes (NoSuchKey, 404) instead of being refused with 400.',
  },
  {
    name: 's3-foreign-bucket-readable',
    requirement: 'ISO-S3-001',
    description: "Another account's bucket is served to any access key as if it were its owner's.",
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../core/faults.ts' {
  interface FaultNames extends Record<(typeof S3_FAULTS)[number]['name'], true> {}
}
