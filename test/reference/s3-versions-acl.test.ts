/**
 * The S3 endpoint's versioning and ACLs on the store the REST API shares, and the request edge
 * cases S3 answers in its own way (a Date-dated signature, no Content-Length, no or an empty
 * Authorization, a key that is not UTF-8, a part listed twice, re-creating one's own bucket).
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  ListObjectsCommand,
  PutBucketAclCommand,
  PutBucketVersioningCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { rawRequest, signedHeaders } from '../../suites/s3/_signing.ts';
import { client } from './helpers.ts';
import { accessKey, errorCode, s3Client, uniqueBucket } from './s3-support.ts';
import { createBucket } from './storage-objects-support.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer();
});
test.afterAll(async () => {
  await server.close();
});

async function newBucket(s3: S3Client, label: string, versioning?: 'Enabled' | 'Suspended'): Promise<string> {
  const bucket = uniqueBucket(label);
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  if (versioning)
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: versioning } }));
  return bucket;
}

const text = async (s3: S3Client, bucket: string, key: string, versionId?: string): Promise<string> =>
  (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }))).Body!.transformToString();

test.describe('versioning', () => {
  test('versions of one key are listed newest first, paged by key and version id markers', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'vp', 'Enabled');
    const ids: string[] = [];
    for (const body of ['a1', 'a2', 'a3'])
      ids.push((await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: body }))).VersionId!);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: 'b1' }));
    const all = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect(all.Versions?.map((v) => [v.Key, v.VersionId, v.IsLatest])).toEqual([
      ['a', ids[2], true],
      ['a', ids[1], false],
      ['a', ids[0], false],
      ['b', expect.any(String), true],
    ]);
    const first = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 2 }));
    expect(first.IsTruncated).toBe(true);
    expect([first.NextKeyMarker, first.NextVersionIdMarker]).toEqual(['a', ids[1]]);
    const rest = await s3.send(
      new ListObjectVersionsCommand({
        Bucket: bucket,
        KeyMarker: first.NextKeyMarker,
        VersionIdMarker: first.NextVersionIdMarker,
      }),
    );
    expect(rest.Versions?.map((v) => v.Key)).toEqual(['a', 'b']);
    expect(rest.Versions?.[0]?.VersionId).toBe(ids[0]);
  });

  test('a delete marker: 404 with its headers, 405 by id; deleting the marker brings the object back', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'dm', 'Enabled');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'v1' }));
    const marker = await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(marker.DeleteMarker).toBe(true);
    const url = `${server.s3Url}/${bucket}/k`;
    const key = await accessKey(server);
    const head = await fetch(url, { headers: signedHeaders(key, 'nyc1', { method: 'GET', url: new URL(url) }) });
    expect(head.status).toBe(404);
    expect(head.headers.get('x-amz-delete-marker')).toBe('true');
    expect(head.headers.get('x-amz-version-id')).toBe(marker.VersionId);
    const byId = new URL(`${url}?versionId=${encodeURIComponent(marker.VersionId!)}`);
    expect((await fetch(byId, { headers: signedHeaders(key, 'nyc1', { method: 'GET', url: byId }) })).status).toBe(405);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k', VersionId: marker.VersionId }));
    expect(await text(s3, bucket, 'k')).toBe('v1');
  });

  test('suspended: writes and deletes replace the null version, earlier versions stay', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'su', 'Enabled');
    const kept = (await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'kept' }))).VersionId;
    await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Suspended' } }));
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'n1' }));
    expect(put.VersionId).toBeUndefined();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'n2' }));
    expect(await text(s3, bucket, 'k', 'null')).toBe('n2');
    const marker = await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(marker.VersionId).toBe('null');
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect(listed.Versions?.map((v) => v.VersionId)).toEqual([kept]);
    expect(listed.DeleteMarkers?.map((m) => m.VersionId)).toEqual(['null']);
  });

  test('a REST bucket with versioning true: REST uploads are versions, REST DELETE leaves a marker, REST bucket deletion purges', async () => {
    const rest = client(server.baseUrl, server.apiKey);
    const bucket = uniqueBucket('rv');
    await createBucket(server, bucket, server.apiKey, { versioning: true });
    const s3 = s3Client(server, await accessKey(server));
    for (const body of ['r1', 'r2'])
      expect(
        (
          await rest.call('PUT', `/storage/buckets/${bucket}/objects/k`, body, {
            headers: { 'content-type': 'text/plain' },
          })
        ).status,
      ).toBe(200);
    expect((await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))).Versions?.length).toBe(2);
    expect((await rest.call('DELETE', `/storage/buckets/${bucket}/objects/k`)).status).toBe(204);
    expect((await rest.call('GET', `/storage/buckets/${bucket}/objects/k`)).status).toBe(404);
    expect((await rest.call('DELETE', `/storage/buckets/${bucket}/objects/k`)).status).toBe(404);
    expect(await errorCode(s3.send(new DeleteBucketCommand({ Bucket: bucket })))).toBe('BucketNotEmpty');
    expect((await rest.call('DELETE', `/storage/buckets/${bucket}`)).status).toBe(204);
  });

  test('DeleteObjects with version ids removes those versions and reports markers', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'dv', 'Enabled');
    const v1 = (await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: '1' }))).VersionId!;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: '2' }));
    const out = await s3.send(
      new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: [{ Key: 'k', VersionId: v1 }, { Key: 'j' }] } }),
    );
    expect(out.Deleted?.find((d) => d.Key === 'k')?.VersionId).toBe(v1);
    expect(out.Deleted?.find((d) => d.Key === 'j')?.DeleteMarker).toBe(true);
    expect(await text(s3, bucket, 'k')).toBe('2');
  });
});

test.describe('access control lists', () => {
  test('REST public and x-cloud-acl and S3 ACLs are one; a grant lets another account read', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const alt = s3Client(server, await accessKey(server, { alt: true }));
    const bucket = await newBucket(s3, 'acl');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'shared' }));
    expect(await errorCode(alt.send(new GetObjectCommand({ Bucket: bucket, Key: 'k' })))).toBe('AccessDenied');
    const altId = (await client(server.baseUrl, server.altApiKey).call('GET', '/account')).body as {
      account: { id: string };
    };
    const current = await s3.send(new GetObjectAclCommand({ Bucket: bucket, Key: 'k' }));
    await s3.send(
      new PutObjectAclCommand({
        Bucket: bucket,
        Key: 'k',
        AccessControlPolicy: {
          Owner: current.Owner,
          Grants: [
            ...(current.Grants ?? []),
            { Grantee: { Type: 'CanonicalUser', ID: altId.account.id }, Permission: 'READ' },
          ],
        },
      }),
    );
    expect(await text(alt, bucket, 'k')).toBe('shared');
    await s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read' }));
    const rest = client(server.baseUrl, server.apiKey);
    const view = (await rest.call('GET', `/storage/buckets/${bucket}`)).body as { bucket: { public: boolean } };
    expect(view.bucket.public).toBe(true);
    const head = await rest.call('HEAD', `/storage/buckets/${bucket}/objects/k`);
    expect(head.headers.get('x-cloud-acl')).toBe('private');
  });

  test('public-read-write lets an unsigned request write; its objects list their writer as owner', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const alt = s3Client(server, await accessKey(server, { alt: true }));
    const bucket = await newBucket(s3, 'prw');
    expect((await fetch(`${server.s3Url}/${bucket}/anon`, { method: 'PUT', body: 'x' })).status).toBe(403);
    await s3.send(new PutBucketAclCommand({ Bucket: bucket, ACL: 'public-read-write' }));
    expect((await fetch(`${server.s3Url}/${bucket}/anon`, { method: 'PUT', body: 'x' })).status).toBe(200);
    await alt.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'by-alt' }));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    const bucketOwner = (await s3.send(new GetBucketAclCommand({ Bucket: bucket }))).Owner?.ID;
    expect(uploads.Uploads?.[0]?.Initiator?.ID).toBeTruthy();
    expect(uploads.Uploads?.[0]?.Initiator?.ID).not.toBe(bucketOwner);
    await alt.send(new PutObjectCommand({ Bucket: bucket, Key: 'alt.txt', Body: 'y' }));
    const listed = await s3.send(new ListObjectsCommand({ Bucket: bucket }));
    expect(new Set(listed.Contents?.map((c) => c.Owner?.ID)).size).toBe(2);
  });

  test('x-amz-expected-bucket-owner naming another account is refused', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'ebo');
    expect(
      await errorCode(s3.send(new ListObjectsCommand({ Bucket: bucket, ExpectedBucketOwner: 'acct_nobody' }))),
    ).toBe('AccessDenied');
  });
});

test.describe('request edges', () => {
  test('a signature dated by Date, no Content-Length, no or an empty Authorization', async () => {
    const key = await accessKey(server);
    const s3 = s3Client(server, key);
    const bucket = await newBucket(s3, 'edge');
    const url = new URL(`${server.s3Url}/${bucket}/dated`);
    const dated = await fetch(url, {
      method: 'PUT',
      body: 'by date',
      headers: signedHeaders(key, 'nyc1', { method: 'PUT', url }, 'date'),
    });
    expect(dated.status).toBe(200);
    const unsized = new URL(`${server.s3Url}/${bucket}/unsized`);
    const answer = await rawRequest(
      unsized,
      `PUT /${bucket}/unsized HTTP/1.1`,
      signedHeaders(key, 'nyc1', { method: 'PUT', url: unsized }),
    );
    expect(answer.status).toBe(411);
    expect(answer.text).toContain('MissingContentLength');
    for (const headers of [{}, { authorization: '' }] as Array<Record<string, string>>) {
      const create = await fetch(`${server.s3Url}/${uniqueBucket('anon')}`, { method: 'PUT', headers });
      expect(create.status).toBe(403);
      expect(await create.text()).toContain('AccessDenied');
    }
  });

  test('a key that is not UTF-8, or holds C1 controls, is 400 InvalidURI', async () => {
    const key = await accessKey(server);
    const bucket = await newBucket(s3Client(server, key), 'uri');
    for (const path of ['%AE%8A-', '%C2%AE%C2%8A-']) {
      const url = new URL(`${server.s3Url}/${bucket}/${path}`);
      const res = await fetch(url, { headers: signedHeaders(key, 'nyc1', { method: 'GET', url }) });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('InvalidURI');
    }
  });

  test('a part number listed twice in a row is the part as last uploaded', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'dup');
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm' }));
    const b = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'm', UploadId, PartNumber: 1, Body: 'BBBB' }));
    const a = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: 'm', UploadId, PartNumber: 1, Body: 'AAAA' }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'm',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: b.ETag },
            { PartNumber: 1, ETag: a.ETag },
          ],
        },
      }),
    );
    expect(await text(s3, bucket, 'm')).toBe('AAAA');
  });

  test("re-creating one's own bucket answers 200 and keeps it; names with a hyphen next to a dot are refused", async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'own');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'stays' }));
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(await text(s3, bucket, 'k')).toBe('stays');
    for (const name of ['foo.-bar', 'foo-.bar'])
      expect(await errorCode(s3.send(new CreateBucketCommand({ Bucket: name })))).toBe('InvalidBucketName');
  });

  test('variants: owners without display names, UUID version ids, V1 listing prefix encoded', async () => {
    const other = await startReferenceServer({
      variants: ['s3-owner-display-name-absent', 's3-version-ids-uuid', 's3-list-v1-prefix-encoded'],
    });
    try {
      const s3 = s3Client(other, await accessKey(other));
      const bucket = await newBucket(s3, 'var', 'Enabled');
      const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a b', Body: 'x' }));
      expect(put.VersionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const acl = await s3.send(new GetBucketAclCommand({ Bucket: bucket }));
      expect(acl.Owner?.ID).toBeTruthy();
      expect(acl.Owner?.DisplayName).toBeUndefined();
      const listed = await s3.send(new ListObjectsCommand({ Bucket: bucket, Prefix: 'a b', EncodingType: 'url' }));
      expect(listed.Prefix).toBe('a%20b');
    } finally {
      await other.close();
    }
  });

  test('without variants the V1 listing prefix comes back as sent', async () => {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = await newBucket(s3, 'v1p');
    const listed = await s3.send(new ListObjectsCommand({ Bucket: bucket, Prefix: 'a b', EncodingType: 'url' }));
    expect(listed.Prefix).toBe('a b');
  });

  test('variant s3-recreate-own-bucket-409: BucketAlreadyOwnedByYou', async () => {
    const other = await startReferenceServer({ variants: ['s3-recreate-own-bucket-409'] });
    try {
      const s3 = s3Client(other, await accessKey(other));
      const bucket = await newBucket(s3, 'own409');
      expect(await errorCode(s3.send(new CreateBucketCommand({ Bucket: bucket })))).toBe('BucketAlreadyOwnedByYou');
    } finally {
      await other.close();
    }
  });
});
