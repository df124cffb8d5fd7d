/**
 * ACLs on the S3 endpoint: the `?acl` sub-resources of buckets and objects (Get/PutBucketAcl,
 * Get/PutObjectAcl), and the ACL a write asks for (`x-amz-acl` canned, `x-amz-grant-*` headers,
 * or an AccessControlPolicy body). The lists live in the store (storage-objects/acl.ts), where
 * the REST API reads the same ones as a bucket's `public` and an object's `x-cloud-acl`.
 */
import {
  type AccessControl,
  type Grant,
  type Grantee,
  GROUPS,
  type Group,
  type Permission,
  PERMISSIONS,
  cannedAcl,
  isCannedAcl,
} from '../areas/storage-objects/acl.ts';
import { S3Error } from './errors.ts';
import { parseXml, xmlDocument } from './xml.ts';
import { type Call, header } from './shared.ts';
import type { S3Env, S3Helpers } from './env.ts';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const GROUP_URI: Record<Group, string> = {
  AllUsers: 'http://acs.amazonaws.com/groups/global/AllUsers',
  AuthenticatedUsers: 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers',
  LogDelivery: 'http://acs.amazonaws.com/groups/s3/LogDelivery',
};
const GRANT_HEADERS: Record<string, Permission> = {
  'x-amz-grant-read': 'READ',
  'x-amz-grant-write': 'WRITE',
  'x-amz-grant-read-acp': 'READ_ACP',
  'x-amz-grant-write-acp': 'WRITE_ACP',
  'x-amz-grant-full-control': 'FULL_CONTROL',
};

export function aclOperations(env: S3Env, helpers: S3Helpers) {
  const { ctx, store } = env;
  const { smallBody, objectFor } = helpers;
  /** ACLs this endpoint made (the `s3-acl-rest-apart` fault shows only these). */
  const madeHere = new WeakSet<AccessControl>();
  const made = (acl: AccessControl): AccessControl => (madeHere.add(acl), acl);

  /** An account id or e-mail address of a grant, resolved to an account of the server. */
  function accountGrantee(kind: 'id' | 'email', value: string): Grantee {
    const accounts = ctx.accounts.allAccounts();
    const found =
      kind === 'id' ? accounts.find((a) => a.id === value) : accounts.find((a) => a.email === value.toLowerCase());
    if (!found && kind === 'email')
      throw new S3Error(
        'UnresolvableGrantByEmailAddress',
        'The e-mail address you provided does not match any account on record.',
        {
          ArgumentName: 'emailAddress',
          ArgumentValue: value,
        },
      );
    if (!found)
      throw new S3Error('InvalidArgument', 'Invalid id', { ArgumentName: 'CanonicalUser/ID', ArgumentValue: value });
    return { kind: 'account', id: found.id };
  }

  function groupGrantee(uri: string): Grantee {
    const group = GROUPS.find((g) => GROUP_URI[g] === uri.trim());
    if (!group) throw new S3Error('InvalidArgument', `Unknown group ${uri}.`);
    return { kind: 'group', group };
  }

  /** `id="…", emailAddress="…", uri="…"` of an x-amz-grant-* header. */
  function headerGrantees(text: string): Grantee[] {
    return text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .map((item) => {
        const m = /^(id|emailAddress|uri)\s*=\s*"?([^"]*)"?$/i.exec(item);
        if (!m) throw new S3Error('InvalidArgument', `The grant ${item} is malformed.`);
        const kind = m[1]!.toLowerCase();
        if (kind === 'uri') return groupGrantee(m[2]!);
        return accountGrantee(kind === 'id' ? 'id' : 'email', m[2]!);
      });
  }

  /**
   * The ACL a request's headers ask for, owned by `owner` (`bucketOwner` for the bucket-owner-*
   * canned ACLs of an object); undefined when they ask for none.
   */
  function requestedAcl(call: Call, owner: string, bucketOwner: string = owner): AccessControl | undefined {
    const canned = header(call.request, 'x-amz-acl');
    const grants = Object.entries(GRANT_HEADERS).flatMap(([name, permission]) => {
      const value = header(call.request, name);
      return value === undefined ? [] : headerGrantees(value).map((grantee): Grant => ({ grantee, permission }));
    });
    if (canned !== undefined && grants.length > 0)
      throw new S3Error('InvalidRequest', 'Specifying both Canned ACLs and Header Grants is not allowed');
    if (canned !== undefined) {
      if (!isCannedAcl(canned.trim())) throw new S3Error('InvalidArgument', `${canned} is not a canned ACL.`);
      return made(cannedAcl(canned.trim() as Parameters<typeof cannedAcl>[0], owner, bucketOwner));
    }
    return grants.length > 0 ? made({ owner, grants }) : undefined;
  }

  /** A PutBucketAcl/PutObjectAcl's ACL: headers or an AccessControlPolicy body, not both. */
  async function aclOfPut(call: Call, owner: string, bucketOwner: string): Promise<AccessControl> {
    const fromHeaders = requestedAcl(call, owner, bucketOwner);
    const text = (await smallBody(call)).toString('utf8').trim();
    if (fromHeaders && text)
      throw new S3Error('UnexpectedContent', 'This request does not support content when ACL headers are given.');
    if (fromHeaders) return fromHeaders;
    if (!text) throw new S3Error('MissingSecurityHeader', 'Your request was missing a required header: x-amz-acl.');
    const policy = parseXml(text).AccessControlPolicy as { AccessControlList?: { Grant?: unknown } } | undefined;
    if (!policy) throw new S3Error('MalformedACLError', 'The XML you provided was not an AccessControlPolicy.');
    const list = policy.AccessControlList?.Grant;
    const items = Array.isArray(list) ? list : list === undefined ? [] : [list];
    const grants = items.map((item): Grant => {
      const grant = item as { Grantee?: Record<string, unknown>; Permission?: unknown };
      const permission = String(grant.Permission ?? '').trim();
      if (!(PERMISSIONS as readonly string[]).includes(permission))
        throw new S3Error('MalformedACLError', `Unknown permission ${permission}.`);
      const g = grant.Grantee ?? {};
      const grantee =
        typeof g.ID === 'string'
          ? accountGrantee('id', g.ID.trim())
          : typeof g.EmailAddress === 'string'
            ? accountGrantee('email', g.EmailAddress.trim())
            : typeof g.URI === 'string'
              ? groupGrantee(g.URI)
              : undefined;
      if (!grantee) throw new S3Error('MalformedACLError', 'A Grantee needs an ID, an EmailAddress or a URI.');
      return { grantee, permission: permission as Permission };
    });
    return made({ owner, grants });
  }

  function policyDocument(stored: AccessControl): string {
    const acl =
      ctx.faults.has('s3-acl-rest-apart') && !madeHere.has(stored) ? cannedAcl('private', stored.owner) : stored;
    return xmlDocument('AccessControlPolicy', {
      Owner: env.ownerElement(acl.owner),
      AccessControlList: {
        // Group grants first, as Ceph lists them (the S3 compatibility suites compare in order).
        Grant: [
          ...acl.grants.filter((g) => g.grantee.kind === 'group'),
          ...acl.grants.filter((g) => g.grantee.kind === 'account'),
        ].map((g) => ({
          Grantee:
            g.grantee.kind === 'account'
              ? { '@_xmlns:xsi': XSI, '@_xsi:type': 'CanonicalUser', ...env.ownerElement(g.grantee.id) }
              : { '@_xmlns:xsi': XSI, '@_xsi:type': 'Group', URI: GROUP_URI[g.grantee.group] },
          Permission: g.permission,
        })),
      },
    });
  }

  async function getBucketAcl(call: Call, bucket: string) {
    const record = store.getBucket(call.accountId, bucket);
    return call.reply.type('application/xml').send(policyDocument(record.acl));
  }

  async function putBucketAcl(call: Call, bucket: string) {
    const record = store.getBucket(call.accountId, bucket);
    store.setBucketAcl(call.accountId, bucket, await aclOfPut(call, record.acl.owner, record.acl.owner));
    return call.reply.send();
  }

  async function getObjectAcl(call: Call, bucket: string, key: string) {
    const object = objectFor(call, bucket, key, 'READ_ACP');
    if (object.version_id !== 'null' || store.getBucket(call.accountId, bucket).versioning !== 'off')
      void call.reply.header('x-amz-version-id', object.version_id);
    return call.reply.type('application/xml').send(policyDocument(object.acl));
  }

  async function putObjectAcl(call: Call, bucket: string, key: string) {
    const object = objectFor(call, bucket, key, 'WRITE_ACP');
    const acl = await aclOfPut(call, object.acl.owner, call.accountId);
    store.setObjectAcl(call.accountId, bucket, key, object.version_id, acl);
    if (store.getBucket(call.accountId, bucket).versioning !== 'off')
      void call.reply.header('x-amz-version-id', object.version_id);
    return call.reply.send();
  }

  return { requestedAcl, getBucketAcl, putBucketAcl, getObjectAcl, putObjectAcl };
}

export type AclOperations = ReturnType<typeof aclOperations>;
