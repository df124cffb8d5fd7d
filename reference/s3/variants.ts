/**
 * Legal variants of the S3 endpoint (`cloudcheck serve --variant NAME`): answers where S3
 * implementations, AWS's own regions included, legitimately differ and the specification only
 * says that the endpoint "accepts standard S3 requests". The checks of suites/s3/ pass each.
 */
import type { VariantDefinition } from '../core/variants.ts';

const STANDARD = 'Endpoints / Storage: "accepts standard S3 requests" (S3 behaviour that implementations differ on)';

export const S3_VARIANTS = [
  {
    name: 's3-recreate-own-bucket-409',
    departsFrom: [],
    allowedBy: `${STANDARD}: S3 outside us-east-1`,
    description:
      'CreateBucket of a bucket the caller owns answers 409 BucketAlreadyOwnedByYou (as S3 outside us-east-1) instead of 200 with the bucket unchanged.',
  },
  {
    name: 's3-owner-display-name-absent',
    departsFrom: [],
    allowedBy: `${STANDARD}: AWS stopped returning display names in 2025`,
    description:
      'Owners (listings, ACLs) and account grantees carry an ID and no DisplayName, as AWS answers since its 2025 change.',
  },
  {
    name: 's3-version-ids-uuid',
    departsFrom: [],
    allowedBy: `${STANDARD}: version ids are opaque strings`,
    description: 'Object version ids are UUIDs (as MinIO makes them) instead of 32 random base64url characters.',
  },
  {
    name: 's3-list-v1-prefix-encoded',
    departsFrom: [],
    allowedBy: `${STANDARD}: AWS documents Prefix among the encoded elements of ListObjects (V1)`,
    description:
      'ListObjects (V1) with encoding-type=url percent-encodes the Prefix element too, as the AWS documentation lists it, where botocore and Ceph leave it as sent.',
  },
] as const satisfies readonly VariantDefinition[];
