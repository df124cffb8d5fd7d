/**
 * Object behaviours the tools rely on beyond the round trip: ranged reads, the S3 error codes of
 * missing keys and buckets, multipart part-size rule, and one store behind REST and S3.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';
import { createBucket, deterministicBytes, objectPath, sha256 } from '../flows/_storage.ts';
import { bytesOf, s3Bucket, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

defineCheck(
  {
    id: 's3.object.range',
    requirement: 'S3-RANGE-001',
    level: 'SHOULD',
    class: 's3',
    title: 'GetObject with a byte Range answers 206, Content-Range and exactly those bytes; past the end InvalidRange',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'range');
    const bytes = deterministicBytes(10_000, ctx.seed + 4);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'r.bin', Body: bytes }));
    trackObject(ledger, bucket, 'r.bin');
    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=9000-', 9000, 9999],
      ['bytes=-10', 9990, 9999],
    ] as const) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'r.bin', Range: range }));
      expect(got.$metadata.httpStatusCode, `${range}: status`).toBe(206);
      expect(got.ContentRange, `${range}: Content-Range`).toBe(`bytes ${start}-${end}/10000`);
      expect(sha256(await bytesOf(got.Body)), `${range}: the bytes of the range`).toBe(
        sha256(bytes.subarray(start, end + 1)),
      );
    }
    const past = await s3ErrorCode(
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'r.bin', Range: 'bytes=20000-' })),
    );
    expect(past.code, 'a range past the end').toBe('InvalidRange');
  },
);

defineCheck(
  {
    id: 's3.object.errors',
    requirement: 'S3-ERR-001',
    level: 'SHOULD',
    class: 's3',
    title: 'A missing key answers NoSuchKey (404), a missing bucket NoSuchBucket (404)',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'err');
    const key = await s3ErrorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'missing.txt' })));
    expect(key, 'GetObject of a missing key').toEqual({ code: 'NoSuchKey', status: 404 });
    const noBucket = await s3ErrorCode(s3.send(new GetObjectCommand({ Bucket: ctx.name('absent'), Key: 'x' })));
    expect(noBucket, 'GetObject in a missing bucket').toEqual({ code: 'NoSuchBucket', status: 404 });
  },
);

defineCheck(
  {
    id: 's3.multipart.entity-too-small',
    requirement: 'S3-MPU-002',
    level: 'SHOULD',
    class: 's3',
    title: 'Completing a multipart upload whose first part is under 5 MiB fails with EntityTooSmall',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'small');
    const key = 'small-parts.bin';
    const init = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const parts = [];
    for (const n of [1, 2]) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: init.UploadId,
          PartNumber: n,
          Body: deterministicBytes(1024, n),
        }),
      );
      parts.push({ PartNumber: n, ETag: part.ETag });
    }
    const result = await s3ErrorCode(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: init.UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
    if (result.code === 'no error') trackObject(ledger, bucket, key);
    expect(result.code, 'completion with a 1 KiB first part').toBe('EntityTooSmall');
  },
);

defineCheck(
  {
    id: 's3.store.rest-and-s3',
    requirement: 'S3-STORE-001',
    level: 'MUST',
    class: 's3',
    operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
    title: 'An object uploaded through REST is readable through S3, and the other way round',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await createBucket(api, ledger, ctx, 'both');
    const viaRest = deterministicBytes(20_000, ctx.seed + 5);
    const put = await api.request({
      method: 'PUT',
      path: objectPath(bucket, 'via-rest.bin'),
      body: viaRest,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expectStatus(put, [200, 201], 'REST upload');
    trackObject(ledger, bucket, 'via-rest.bin');
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'via-rest.bin' }));
    expect(sha256(await bytesOf(got.Body)), 'S3 GetObject of the REST upload').toBe(sha256(viaRest));
    const viaS3 = deterministicBytes(30_000, ctx.seed + 6);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'via-s3/obj.bin', Body: viaS3 }));
    trackObject(ledger, bucket, 'via-s3/obj.bin');
    const back = await api.get(objectPath(bucket, 'via-s3/obj.bin'));
    expectStatus(back, 200, 'REST download of the S3 upload');
    expect(sha256(back.bytes), 'REST GET of the S3 upload').toBe(sha256(viaS3));
  },
);
