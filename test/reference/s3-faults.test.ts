/**
 * Each S3 fault is observable with a standard SDK: with the fault on, the behaviour its
 * requirement demands is broken (the same steps pass on a server without faults, s3.test.ts).
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetBucketAclCommand,
  GetBucketVersioningCommand,
  PutBucketVersioningCommand,
  type S3Client,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectVersionsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Upload } from '@aws-sdk/lib-storage';
import { expect, test } from '../base.ts';
import { createHash, randomBytes } from 'node:crypto';
import { S3_FAULTS } from '../../reference/s3/faults.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { accessKey, errorCode, s3Client, uniqueBucket } from './s3-support.ts';
import { createBucket } from './storage-objects-support.ts';
import { rawRequest, signedHeaders } from '../../suites/s3/_signing.ts';

const observations: Record<string, (server: RunningReference) => Promise<void>> = {
  async 's3-checksum-rejected'(server) {
    const key = await accessKey(server);
    const bucket = uniqueBucket('ck');
    await s3Client(server, key, 'when-required').send(new CreateBucketCommand({ Bucket: bucket }));
    // The old behaviour still works; the 2025 default checksums are refused.
    await s3Client(server, key, 'when-required').send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: 'x' }));
    expect(
      await errorCode(s3Client(server, key).send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: 'x' }))),
    ).toBe('InvalidArgument');
  },
  async 's3-signature-unchecked'(server) {
    const key = await accessKey(server);
    const wrong = s3Client(server, {
      accessKeyId: key.accessKeyId,
      secretAccessKey: 'not-the-secret-at-all-0000000000000000000',
    });
    expect((await wrong.send(new ListBucketsCommand({}))).$metadata.httpStatusCode).toBe(200);
  },
  async 's3-multipart-etag-wrong'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('et');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const upload = new Upload({
      client: s3,
      params: { Bucket: bucket, Key: 'big', Body: randomBytes(11 * 1024 * 1024) },
      partSize: 5 * 1024 * 1024,
    });
    expect(await errorCode(upload.done())).toBe('InvalidPart');
  },
  async 's3-list-continuation-broken'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('ct');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (let i = 0; i < 10; i++) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `k${i}`, Body: 'x' }));
    const seen: string[] = [];
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 4 }, { Bucket: bucket }))
      seen.push(...(page.Contents ?? []).map((c) => c.Key!));
    expect(seen.length).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(10);
  },
  async 's3-path-style-refused'(server) {
    expect(
      await errorCode(
        s3Client(server, await accessKey(server)).send(new CreateBucketCommand({ Bucket: uniqueBucket('ps') })),
      ),
    ).toBe('InvalidRequest');
  },
  async 's3-presigned-refused'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('pre');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: 'x' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'a' }), { expiresIn: 60 });
    expect((await fetch(url)).status).toBe(403);
  },
  async 's3-region-slug-refused'(server) {
    expect(await errorCode(s3Client(server, await accessKey(server)).send(new ListBucketsCommand({})))).toBe(
      'AuthorizationHeaderMalformed',
    );
  },
  async 's3-list-prefix-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('pfx');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const key of ['docs/a', 'other/b'])
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' }));
    expect((listed.Contents ?? []).map((c) => c.Key)).toContain('other/b');
  },
  async 's3-list-buckets-empty'(server) {
    const s3 = s3Client(server, await accessKey(server));
    await s3.send(new CreateBucketCommand({ Bucket: uniqueBucket('lb') }));
    expect((await s3.send(new ListBucketsCommand({}))).Buckets ?? []).toEqual([]);
  },
  async 's3-rest-objects-invisible'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('rest');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const put = await fetch(`${server.baseUrl}/storage/buckets/${bucket}/objects/a`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${server.apiKey}` },
      body: 'x',
    });
    expect(put.status).toBe(200);
    expect(await errorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a' })))).toBe('NoSuchKey');
  },
  async 's3-list-encoding-type-refused'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('enc');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(200);
    expect(await errorCode(s3.send(new ListObjectsV2Command({ Bucket: bucket, EncodingType: 'url' })))).toBe(
      'InvalidArgument',
    );
  },
  async 's3-conditional-write-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('cw');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'lock', Body: 'first', IfNoneMatch: '*' }));
    // The create-only write overwrites instead of answering 412.
    expect(
      await errorCode(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'lock', Body: 'second', IfNoneMatch: '*' }))),
    ).toBe('no error');
    expect(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'lock' }))).Body!.transformToString()).toBe(
      'second',
    );
  },
  async 's3-conditional-read-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('cr');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'c', Body: 'x' }));
    expect(
      (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'c', IfNoneMatch: put.ETag }))).$metadata
        .httpStatusCode,
    ).toBe(200);
    expect(
      (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'c', IfMatch: '"0"' }))).$metadata.httpStatusCode,
    ).toBe(200);
  },
  async 's3-standard-headers-dropped'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('hdr');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: 'h',
        Body: 'x',
        CacheControl: 'max-age=60',
        ContentDisposition: 'attachment',
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'h' }));
    expect(head.CacheControl).toBeUndefined();
    expect(head.ContentDisposition).toBeUndefined();
  },
  async 's3-upload-part-copy-missing'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('upc');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'src', Body: 'source bytes' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'dst' }));
    const copy = s3.send(
      new UploadPartCopyCommand({
        Bucket: bucket,
        Key: 'dst',
        UploadId,
        PartNumber: 1,
        CopySource: `${bucket}/src`,
        CopySourceRange: 'bytes=0-5',
      }),
    );
    expect(await errorCode(copy)).toBe('NotImplemented');
  },
  async 's3-complete-checksum-on-body'(server) {
    const s3 = s3Client(server, await accessKey(server), 'when-required');
    const bucket = uniqueBucket('cks');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm', ChecksumAlgorithm: 'SHA256' }),
    );
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'm',
        UploadId,
        PartNumber: 1,
        Body: 'abc',
        ChecksumAlgorithm: 'SHA256',
      }),
    );
    // The composite SHA-256 of the one part, right for the object, is compared with the XML body.
    const composite = `${createHash('sha256').update(createHash('sha256').update('abc').digest()).digest('base64')}-1`;
    const done = s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'm',
        UploadId,
        ChecksumSHA256: composite,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag, ChecksumSHA256: part.ChecksumSHA256 }] },
      }),
    );
    expect(await errorCode(done)).toBe('BadDigest');
  },
  async 's3-complete-not-idempotent'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('idem');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'm', UploadId, PartNumber: 1, Body: 'abc' }),
    );
    const complete = () =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'm',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
    await complete();
    expect(await errorCode(complete())).toBe('NoSuchUpload');
  },
  async 's3-empty-content-type-500'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('ect');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'e' }), { expiresIn: 60 });
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': '' }, body: 'x' })).status).toBe(500);
  },
  async 's3-part-number-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server), 'when-required');
    const bucket = uniqueBucket('pn');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm' }));
    const p1 = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'm', UploadId, PartNumber: 1, Body: randomBytes(5 * 1024 * 1024) }),
    );
    const p2 = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'm', UploadId, PartNumber: 2, Body: 'tail' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'm',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'm', PartNumber: 2 }));
    expect(head.ContentLength).toBe(5 * 1024 * 1024 + 4);
    expect(head.PartsCount).toBeUndefined();
  },
  async 's3-empty-continuation-token-refused'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('ect');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(await errorCode(s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: '' })))).toBe(
      'InvalidArgument',
    );
  },
  async 's3-options-not-implemented'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('cors');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'u' }), { expiresIn: 60 });
    expect(
      (
        await fetch(url, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
        })
      ).status,
    ).toBe(501);
  },
  async 's3-recreate-own-bucket-taken'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('own');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(await errorCode(s3.send(new CreateBucketCommand({ Bucket: bucket })))).toBe('BucketAlreadyExists');
  },
  async 's3-clock-skew-ignored'(server) {
    const skewed = s3Client(server, await accessKey(server), 'default', { systemClockOffset: -3_600_000 });
    expect((await skewed.send(new ListBucketsCommand({}))).$metadata.httpStatusCode).toBe(200);
  },
  async 's3-foreign-bucket-readable'(server) {
    const owner = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('mine');
    await owner.send(new CreateBucketCommand({ Bucket: bucket }));
    const other = s3Client(server, await accessKey(server, { alt: true }));
    expect((await other.send(new ListObjectsV2Command({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(200);
  },
  async 's3-list-versions-missing'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('ver');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(await errorCode(s3.send(new ListObjectVersionsCommand({ Bucket: bucket })))).toBe('NotImplemented');
  },
  async 's3-versioning-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('vi');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await versioned(s3, bucket);
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status).toBeUndefined();
  },
  async 's3-versioning-overwrite-lost'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('vo');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await versioned(s3, bucket);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'one' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'two' }));
    expect((await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))).Versions?.length).toBe(1);
  },
  async 's3-delete-versions-lost'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('vd');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await versioned(s3, bucket);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'one' }));
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect([...(listed.Versions ?? []), ...(listed.DeleteMarkers ?? [])]).toEqual([]);
  },
  async 's3-suspended-versions-kept'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('vs');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await versioned(s3, bucket, 'Suspended');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'one' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'two' }));
    const ids = (await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))).Versions?.map((v) => v.VersionId);
    expect(ids?.length).toBe(2);
    expect(ids).not.toContain('null');
  },
  async 's3-conditional-write-any-version'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('vc');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await versioned(s3, bucket);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'one' }));
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'k' }));
    expect(
      await errorCode(s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', IfNoneMatch: '*' }))),
    ).toBe('PreconditionFailed');
  },
  async 's3-acl-missing'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('am');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect(await errorCode(s3.send(new GetBucketAclCommand({ Bucket: bucket })))).toBe('NotImplemented');
  },
  async 's3-acl-rest-apart'(server) {
    const bucket = uniqueBucket('ar');
    await createBucket(server, bucket, server.apiKey, { public: true });
    const acl = await s3Client(server, await accessKey(server)).send(new GetBucketAclCommand({ Bucket: bucket }));
    expect(acl.Grants?.some((g) => g.Grantee?.URI?.endsWith('/AllUsers'))).toBe(false);
  },
  async 's3-public-read-refused'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('pr');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x', ACL: 'public-read' }));
    expect((await fetch(`${server.s3Url}/${bucket}/k`)).status).toBe(403);
  },
  async 's3-anonymous-write-accepted'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('aw');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    expect((await fetch(`${server.s3Url}/${bucket}/k`, { method: 'PUT', body: 'x' })).status).toBe(200);
  },
  async 's3-date-header-refused'(server) {
    const key = await accessKey(server);
    const url = new URL(`${server.s3Url}/`);
    const res = await fetch(url, { headers: signedHeaders(key, 'nyc1', { method: 'GET', url }, 'date') });
    expect(res.status).toBe(403);
  },
  async 's3-missing-length-stored'(server) {
    const key = await accessKey(server);
    const s3 = s3Client(server, key);
    const bucket = uniqueBucket('ml');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const url = new URL(`${server.s3Url}/${bucket}/k`);
    const answer = await rawRequest(
      url,
      `PUT /${bucket}/k HTTP/1.1`,
      signedHeaders(key, 'nyc1', { method: 'PUT', url }),
    );
    expect(answer.status).toBe(200);
  },
  async 's3-list-encoding-ignored'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('le');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a b%', Body: 'x' }));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, EncodingType: 'url' }));
    expect(listed.EncodingType).toBe('url');
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['a b%']);
  },
  async 's3-invalid-key-404'(server) {
    const key = await accessKey(server);
    const s3 = s3Client(server, key);
    const bucket = uniqueBucket('ik');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const url = new URL(`${server.s3Url}/${bucket}/%AE%8A-`);
    expect((await fetch(url, { headers: signedHeaders(key, 'nyc1', { method: 'GET', url }) })).status).toBe(404);
  },
};

async function versioned(s3: S3Client, bucket: string, status: 'Enabled' | 'Suspended' = 'Enabled'): Promise<void> {
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: status } }));
}

test('every S3 fault has an observation and names an existing requirement', () => {
  expect(Object.keys(observations).sort()).toEqual(S3_FAULTS.map((f) => f.name).sort());
});

for (const fault of S3_FAULTS) {
  test(`fault ${fault.name} breaks ${fault.requirement}`, async () => {
    const server = await startReferenceServer({ faults: [fault.name] });
    try {
      await observations[fault.name]!(server);
    } finally {
      await server.close();
    }
  });
}
