/**
 * Who may do what on the S3 endpoint: the permission an operation needs (S3's ACL permissions:
 * a bucket's READ lists it, its WRITE writes and deletes objects in it, READ_ACP and WRITE_ACP
 * read and change an ACL, an object's READ reads it), and the check against a bucket's or an
 * object's ACL. An anonymous request (no signature) gets what the AllUsers group is granted.
 */
import { type AccessControl, type Permission, allows } from '../areas/storage-objects/acl.ts';
import { S3Error } from './errors.ts';
import type { Query, Target } from './shared.ts';

export type Needed =
  /** ListBuckets, CreateBucket: a signed request, on the signer's own account. */
  | { on: 'account' }
  /** Bucket configuration (versioning, location, deletion...): the bucket's owner only. */
  | { on: 'owner' }
  | { on: 'bucket'; permission: Permission }
  /** Checked by the operation, against the object (version) it addresses. */
  | { on: 'object'; permission: Permission };

/** Sub-resources of a bucket that list it (ACL READ grants them). */
const LISTING = ['versions', 'uploads'];

export function neededAccess(method: string, target: Target, query: Query): Needed {
  if (target.bucket === undefined) return { on: 'account' };
  const acl = query.has('acl');
  if (target.key === undefined) {
    if (acl) return { on: 'bucket', permission: method === 'PUT' ? 'WRITE_ACP' : 'READ_ACP' };
    if (method === 'PUT' && isCreation(query)) return { on: 'account' };
    if (method === 'POST' && query.has('delete')) return { on: 'bucket', permission: 'WRITE' };
    const listing = method === 'HEAD' || (method === 'GET' && [...query.keys()].every((k) => !isSubresource(k)));
    if (listing || (method === 'GET' && LISTING.some((k) => query.has(k)))) return { on: 'bucket', permission: 'READ' };
    return { on: 'owner' };
  }
  if (acl) return { on: 'object', permission: method === 'PUT' ? 'WRITE_ACP' : 'READ_ACP' };
  if ((method === 'GET' || method === 'HEAD') && !query.has('uploadId')) return { on: 'object', permission: 'READ' };
  return { on: 'bucket', permission: 'WRITE' };
}

/** CreateBucket is a PUT on a bucket without a sub-resource. */
export function isCreation(query: Query): boolean {
  return [...query.keys()].every((k) => !isSubresource(k));
}

/** Query keys of a bucket that pick an operation (listing parameters and hoisted `x-amz-*` values do not). */
export function isSubresource(key: string): boolean {
  return (
    !/^x-amz-/i.test(key) &&
    ![
      'list-type',
      'prefix',
      'delimiter',
      'max-keys',
      'continuation-token',
      'start-after',
      'encoding-type',
      'fetch-owner',
      'marker',
      'x-id',
    ].includes(key)
  );
}

/**
 * Whether the principal may use a bucket (or an object of it) with `permission`. The bucket's
 * owner may do everything in its bucket, objects others wrote into it included (S3's
 * "bucket owner enforced" object ownership, its default since 2023).
 */
export function permitted(
  acl: AccessControl,
  principal: string | null,
  permission: Permission,
  bucketOwner: string,
): boolean {
  return principal === bucketOwner || allows(acl, principal, permission);
}

export function accessDenied(): S3Error {
  return new S3Error('AccessDenied', 'Access Denied');
}
