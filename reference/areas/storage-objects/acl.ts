/**
 * Access control lists of buckets and objects, as S3 models them (an owner and grants of five
 * permissions to accounts or groups). The REST API sees two summaries of them: a bucket's
 * `public` and an upload's canned `x-cloud-acl`; the S3 endpoint reads and sets the whole list.
 * Both views work on the one list kept in the store, so they agree.
 */
import type { Acl } from './catalog.ts';

export const PERMISSIONS = ['FULL_CONTROL', 'READ', 'WRITE', 'READ_ACP', 'WRITE_ACP'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const GROUPS = ['AllUsers', 'AuthenticatedUsers', 'LogDelivery'] as const;
export type Group = (typeof GROUPS)[number];

export type Grantee = { kind: 'account'; id: string } | { kind: 'group'; group: Group };

export interface Grant {
  grantee: Grantee;
  permission: Permission;
}

export interface AccessControl {
  /** The account that owns the bucket or object (an object's: the account that wrote it). */
  owner: string;
  grants: Grant[];
}

/** S3's canned ACLs; the REST API's `x-cloud-acl` takes the first four (catalog.ts, ACLS). */
export const CANNED_ACLS = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'aws-exec-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
  'log-delivery-write',
] as const;
export type CannedAcl = (typeof CANNED_ACLS)[number];

export function isCannedAcl(value: string): value is CannedAcl {
  return (CANNED_ACLS as readonly string[]).includes(value);
}

const account = (id: string): Grantee => ({ kind: 'account', id });
const group = (name: Group): Grantee => ({ kind: 'group', group: name });

/**
 * The grants of a canned ACL. `bucketOwner` is the owner of the bucket an object is in (the
 * bucket-owner-* ACLs grant to it); for a bucket it is the bucket's owner itself.
 */
export function cannedAcl(canned: CannedAcl, owner: string, bucketOwner: string = owner): AccessControl {
  const grants: Grant[] = [];
  const add = (grantee: Grantee, ...permissions: Permission[]) =>
    permissions.forEach((permission) => grants.push({ grantee, permission }));
  switch (canned) {
    case 'public-read':
      add(group('AllUsers'), 'READ');
      break;
    case 'public-read-write':
      add(group('AllUsers'), 'READ', 'WRITE');
      break;
    case 'authenticated-read':
      add(group('AuthenticatedUsers'), 'READ');
      break;
    case 'log-delivery-write':
      add(group('LogDelivery'), 'WRITE', 'READ_ACP');
      break;
    case 'bucket-owner-read':
      if (bucketOwner !== owner) add(account(bucketOwner), 'READ');
      break;
    case 'bucket-owner-full-control':
      if (bucketOwner !== owner) add(account(bucketOwner), 'FULL_CONTROL');
      break;
    case 'private':
    case 'aws-exec-read':
      break;
  }
  // The owner's grant last, as Ceph lists canned ACLs (the S3 compatibility suites compare in order).
  grants.push({ grantee: account(owner), permission: 'FULL_CONTROL' });
  return { owner, grants };
}

function grantsTo(acl: AccessControl, grantee: Group, permission: Permission): boolean {
  return acl.grants.some(
    (g) =>
      g.grantee.kind === 'group' &&
      g.grantee.group === grantee &&
      (g.permission === permission || g.permission === 'FULL_CONTROL'),
  );
}

/** A bucket's `public` (REST): everyone may read it. */
export function isPublic(acl: AccessControl): boolean {
  return grantsTo(acl, 'AllUsers', 'READ');
}

/** The REST API's canned value that describes an ACL's grants to groups (`x-cloud-acl`). */
export function cannedName(acl: AccessControl): Acl {
  if (grantsTo(acl, 'AllUsers', 'READ'))
    return grantsTo(acl, 'AllUsers', 'WRITE') ? 'public-read-write' : 'public-read';
  return grantsTo(acl, 'AuthenticatedUsers', 'READ') ? 'authenticated-read' : 'private';
}

/**
 * Whether `principal` (an account id; null for an anonymous request) holds `permission`. The
 * owner always does (S3 lets the owner read and change the ACL whatever it says, and this server
 * does not let an owner lock itself out of its data either).
 */
export function allows(acl: AccessControl, principal: string | null, permission: Permission): boolean {
  if (principal !== null && principal === acl.owner) return true;
  return acl.grants.some((g) => {
    if (g.permission !== permission && g.permission !== 'FULL_CONTROL') return false;
    if (g.grantee.kind === 'account') return g.grantee.id === principal;
    if (g.grantee.group === 'AllUsers') return true;
    return g.grantee.group === 'AuthenticatedUsers' && principal !== null;
  });
}
