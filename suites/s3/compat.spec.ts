/**
 * What standard S3 tools meet beyond the SDK's default paths (issue list of the S3 compatibility
 * work): an empty Content-Type, part-wise downloads, an empty continuation token, a CORS
 * preflight on an object URL, and re-creating one's own bucket. Each is a SHOULD: the
 * specification names S3 compatibility, S3's behaviour is the convention (docs/conventions.md).
 */
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { request } from 'undici';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { deterministicBytes, sha256 } from '../flows/_storage.ts';
import { bytesOf, s3Bucket, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

const MiB = 1024 * 1024;

defineCheck(
  {
    id: 's3.object.empty-content-type',
    requirement: 'S3-HDR-002',
    level: 'SHOULD',
    class: 's3',
    title: 'A PutObject with an empty Content-Type header stores the object (never a 5xx)',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'ect');
    // A presigned PUT leaves the headers to the HTTP client, as tools that copy headers through do.
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'empty-type.txt' }), {
      expiresIn: 300,
    });
    trackObject(ledger, bucket, 'empty-type.txt');
    const put = await request(url, { method: 'PUT', headers: { 'content-type': '' }, body: 'typed by nobody' });
    const text = await put.body.text();
    expect(put.statusCode, `PUT with Content-Type: (empty): ${text.slice(0, 300)}`).toBeLessThan(300);
    expect(put.statusCode, 'PUT with an empty Content-Type').toBeGreaterThanOrEqual(200);
    const back = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'empty-type.txt' }));
    expect((await bytesOf(back.Body)).toString(), 'the stored bytes').toBe('typed by nobody');
  },
);

defineCheck(
  {
    id: 's3.object.part-number',
    requirement: 'S3-PART-001',
    level: 'SHOULD',
    class: 's3',
    title: 'GetObject and HeadObject with partNumber answer that part of a multipart object, with the parts count',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx, 'when-required');
    const bucket = await s3Bucket(s3, ledger, ctx, 'pn');
    const key = 'two-parts.bin';
    const first = deterministicBytes(5 * MiB, ctx.seed + 41);
    const second = deterministicBytes(1234, ctx.seed + 42);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const p1 = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: first }));
    const p2 = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 2, Body: second }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: p1.ETag },
            { PartNumber: 2, ETag: p2.ETag },
          ],
        },
      }),
    );
    trackObject(ledger, bucket, key);
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, PartNumber: 1 }));
    expect(head.ContentLength, "HeadObject partNumber=1: the first part's length").toBe(first.length);
    expect(head.PartsCount, 'HeadObject partNumber=1: x-amz-mp-parts-count').toBe(2);
    const part = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, PartNumber: 2 }));
    expect(part.$metadata.httpStatusCode, 'GetObject partNumber=2').toBe(206);
    expect(part.ContentRange, 'GetObject partNumber=2: Content-Range').toBe(
      `bytes ${first.length}-${first.length + second.length - 1}/${first.length + second.length}`,
    );
    expect(part.PartsCount, 'GetObject partNumber=2: x-amz-mp-parts-count').toBe(2);
    expect(sha256(await bytesOf(part.Body)), "GetObject partNumber=2: the second part's bytes").toBe(sha256(second));
  },
);

defineCheck(
  {
    id: 's3.list.empty-continuation-token',
    requirement: 'S3-LIST-003',
    level: 'SHOULD',
    class: 's3',
    title: 'ListObjectsV2 with an empty continuation-token answers the first page',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'ect');
    for (const key of ['a.txt', 'b.txt']) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      trackObject(ledger, bucket, key);
    }
    const listed = await s3ErrorCode(s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: '' })));
    expect(listed, 'ListObjectsV2 with continuation-token= (empty)').toEqual({ code: 'no error', status: undefined });
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: '' }));
    expect((page.Contents ?? []).map((c) => c.Key).sort(), 'the first page').toEqual(['a.txt', 'b.txt']);
  },
);

defineCheck(
  {
    id: 's3.cors.preflight',
    requirement: 'S3-CORS-001',
    level: 'SHOULD',
    class: 's3',
    title: 'OPTIONS on a presigned object URL answers 200, 400 or 403 (a CORS preflight), never 501 or another 5xx',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'cors');
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'upload.bin' }), { expiresIn: 300 });
    for (const headers of [{ origin: 'https://app.example', 'access-control-request-method': 'PUT' }, {}]) {
      const res = await request(url, { method: 'OPTIONS', headers });
      const text = await res.body.text();
      const what = headers.origin
        ? 'a complete preflight (Origin, Access-Control-Request-Method)'
        : 'OPTIONS without Origin';
      expect([200, 204, 400, 403], `${what}: ${text.slice(0, 200)}`).toContain(res.statusCode);
    }
  },
);

defineCheck(
  {
    id: 's3.bucket.recreate-own',
    requirement: 'S3-BKT-002',
    level: 'SHOULD',
    class: 's3',
    title:
      'CreateBucket of a bucket one already owns succeeds or answers BucketAlreadyOwnedByYou, never BucketAlreadyExists',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'own');
    const again = await s3ErrorCode(s3.send(new CreateBucketCommand({ Bucket: bucket })));
    // Either answer tells the caller the bucket is theirs; S3 gives the first in us-east-1.
    const mine = again.code === 'no error' || (again.code === 'BucketAlreadyOwnedByYou' && again.status === 409);
    expect(mine, `CreateBucket of one's own bucket answered ${again.code} (${again.status ?? 'no status'})`).toBe(true);
  },
);
