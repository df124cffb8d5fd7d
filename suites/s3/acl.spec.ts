/**
 * Access control lists through the S3 endpoint, which the specification makes the API's own
 * (an upload's access-control header, a bucket's `public`): canned private and public-read set
 * and read back through the `?acl` sub-resources, the REST API's `public` and `x-cloud-acl` as
 * the same ACLs, and what public-read means to an unsigned request.
 */
import {
  GetBucketAclCommand,
  GetObjectAclCommand,
  type Grant,
  PutBucketAclCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';
import { objectPath } from '../flows/_storage.ts';
import { createRestBucket, objectUrlPath, restBucket, s3Bucket, s3Setup, trackObject, unsigned } from './_s3.ts';

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';

/** Whether an ACL grants the AllUsers group READ (FULL_CONTROL includes it). */
function everyoneReads(grants: Grant[] | undefined): boolean {
  return (grants ?? []).some(
    (g) => g.Grantee?.URI === ALL_USERS && (g.Permission === 'READ' || g.Permission === 'FULL_CONTROL'),
  );
}

/** The owner's FULL_CONTROL grant, by the owner's canonical id (display names are optional in S3). */
function expectOwnerFullControl(acl: { Owner?: { ID?: string }; Grants?: Grant[] }, what: string): void {
  expect(acl.Owner?.ID, `${what}: Owner ID`).toBeTruthy();
  expect(
    (acl.Grants ?? []).some((g) => g.Grantee?.ID === acl.Owner?.ID && g.Permission === 'FULL_CONTROL'),
    `${what}: the owner's FULL_CONTROL grant`,
  ).toBe(true);
}

async function objectAcl(s3: S3Client, bucket: string, key: string) {
  return s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: key }));
}

async function bucketAcl(s3: S3Client, bucket: string) {
  return s3.send(new GetBucketAclCommand({ Bucket: bucket }));
}

defineCheck(
  {
    id: 's3.acl.canned',
    requirement: 'S3-ACL-001',
    level: 'MUST',
    class: 's3',
    operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
    title:
      'Canned ACLs private and public-read set by x-amz-acl, PutObjectAcl and PutBucketAcl read back through GetObjectAcl and GetBucketAcl',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'acl');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'shared.txt', Body: 'for all', ACL: 'public-read' }));
    trackObject(ledger, bucket, 'shared.txt');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'mine.txt', Body: 'for me' }));
    trackObject(ledger, bucket, 'mine.txt');
    const shared = await objectAcl(s3, bucket, 'shared.txt');
    expectOwnerFullControl(shared, 'PutObject with x-amz-acl public-read');
    expect(everyoneReads(shared.Grants), 'PutObject with x-amz-acl public-read: AllUsers READ').toBe(true);
    const mine = await objectAcl(s3, bucket, 'mine.txt');
    expectOwnerFullControl(mine, 'PutObject without an ACL');
    expect(everyoneReads(mine.Grants), 'PutObject without an ACL is private').toBe(false);

    await s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'shared.txt', ACL: 'private' }));
    expect(everyoneReads((await objectAcl(s3, bucket, 'shared.txt')).Grants), 'after PutObjectAcl private').toBe(false);
    await s3.send(new PutObjectAclCommand({ Bucket: bucket, Key: 'mine.txt', ACL: 'public-read' }));
    const opened = await objectAcl(s3, bucket, 'mine.txt');
    expectOwnerFullControl(opened, 'after PutObjectAcl public-read');
    expect(everyoneReads(opened.Grants), 'after PutObjectAcl public-read').toBe(true);

    const fresh = await bucketAcl(s3, bucket);
    expectOwnerFullControl(fresh, 'GetBucketAcl of a new bucket');
    expect(everyoneReads(fresh.Grants), 'a new bucket is private').toBe(false);
    await s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read' }));
    const open = await bucketAcl(s3, bucket);
    expectOwnerFullControl(open, 'after PutBucketAcl public-read');
    expect(everyoneReads(open.Grants), 'after PutBucketAcl public-read').toBe(true);
    await s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'private' }));
    expect(everyoneReads((await bucketAcl(s3, bucket)).Grants), 'after PutBucketAcl private').toBe(false);
  },
);

defineCheck(
  {
    id: 's3.acl.rest-fields',
    requirement: 'S3-ACL-002',
    level: 'SHOULD',
    class: 's3',
    operation: 'POST /storage/buckets',
    title:
      "A bucket's public and an upload's x-cloud-acl are the ACLs S3 shows; PutBucketAcl sets what the REST API shows as public",
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const open = await createRestBucket(api, ledger, ctx, 'pub', { public: true });
    const closed = await createRestBucket(api, ledger, ctx, 'priv', { public: false });
    expect(everyoneReads((await bucketAcl(s3, open)).Grants), 'GetBucketAcl of a bucket created public').toBe(true);
    expect(everyoneReads((await bucketAcl(s3, closed)).Grants), 'GetBucketAcl of a bucket created private').toBe(false);
    const put = await api.request({
      method: 'PUT',
      path: objectPath(closed, 'rest-public.txt'),
      body: Buffer.from('uploaded public'),
      headers: { 'content-type': 'text/plain', 'x-cloud-acl': 'public-read' },
    });
    expectStatus(put, [200, 201], 'REST upload with x-cloud-acl: public-read');
    trackObject(ledger, closed, 'rest-public.txt');
    expect(
      everyoneReads((await objectAcl(s3, closed, 'rest-public.txt')).Grants),
      'GetObjectAcl of a REST upload with x-cloud-acl: public-read',
    ).toBe(true);
    await s3.send(new PutBucketAclCommand({ Bucket: closed, ACL: 'public-read' }));
    expect((await restBucket(api, closed)).public, 'public after PutBucketAcl public-read').toBe(true);
    await s3.send(new PutBucketAclCommand({ Bucket: closed, ACL: 'private' }));
    expect((await restBucket(api, closed)).public, 'public after PutBucketAcl private').toBe(false);
  },
);

defineCheck(
  {
    id: 's3.acl.anonymous-read',
    requirement: 'S3-ACL-003',
    level: 'SHOULD',
    class: 's3',
    title: 'An unsigned GetObject of a public-read object answers it; of a private object 403 AccessDenied',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'anon');
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'open.txt', Body: 'anyone may read', ACL: 'public-read' }),
    );
    trackObject(ledger, bucket, 'open.txt');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'closed.txt', Body: 'owner only' }));
    trackObject(ledger, bucket, 'closed.txt');
    const open = await unsigned(endpoint, api, 'GET', objectUrlPath(bucket, 'open.txt'));
    expect(open.status, `unsigned GET of a public-read object: ${open.text.slice(0, 200)}`).toBe(200);
    expect(open.text, 'its bytes').toBe('anyone may read');
    const closed = await unsigned(endpoint, api, 'GET', objectUrlPath(bucket, 'closed.txt'));
    expect(closed.status, 'unsigned GET of a private object').toBe(403);
    expect(closed.text, 'the S3 error code').toContain('<Code>AccessDenied</Code>');
    expect(closed.text, 'the private bytes must not leak').not.toContain('owner only');
  },
);
