/**
 * The S3-compatible endpoint with the AWS SDK for JavaScript v3, once with its default settings
 * (since 2025: a CRC32 checksum on every upload, streamed bodies sent `aws-chunked` with the
 * checksum as a trailer, `x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`) and once with
 * `WHEN_REQUIRED` (the older behaviour). Many S3-compatible servers broke on the first; both
 * must work. Bytes are compared exactly: small, empty and a 12 MiB multipart upload.
 */
import {
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { deterministicBytes, sha256 } from '../flows/_storage.ts';
import { CHECKSUM_MODES, bytesOf, s3Bucket, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

for (const mode of CHECKSUM_MODES) {
  const label = mode === 'default' ? 'default checksums' : 'checksums WHEN_REQUIRED';

  defineCheck(
    {
      id: `s3.sdk.${mode}.round-trip`,
      requirement: 'S3-OBJ-001',
      level: 'MUST',
      class: 's3',
      title: `AWS SDK (${label}): PutObject then GetObject returns the same bytes and content type; HeadObject the length`,
    },
    async ({ api, ledger, ctx }) => {
      const { s3 } = await s3Setup(api, ledger, ctx, mode);
      const bucket = await s3Bucket(s3, ledger, ctx, 'rt');
      const cases: Array<[string, Buffer, 'buffer' | 'stream']> = [
        ['small.txt', Buffer.from(`hello from cloudcheck ${ctx.runPrefix}`), 'buffer'],
        ['empty.bin', Buffer.alloc(0), 'buffer'],
        ['nested/päth with space+plus.bin', deterministicBytes(256 * 1024 + 7, ctx.seed), 'buffer'],
        // A stream body: what the default checksums send aws-chunked with a trailing CRC32.
        ['streamed.bin', deterministicBytes(1024 * 1024 + 3, ctx.seed + 1), 'stream'],
      ];
      for (const [key, bytes, kind] of cases) {
        const body = kind === 'stream' ? Readable.from([bytes.subarray(0, 65536), bytes.subarray(65536)]) : bytes;
        await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentLength: bytes.length,
            ContentType: 'application/x-cloudcheck',
          }),
        );
        trackObject(ledger, bucket, key);
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const back = await bytesOf(got.Body);
        expect(back.length, `${key}: length read back`).toBe(bytes.length);
        expect(sha256(back), `${key}: bytes read back are the bytes written`).toBe(sha256(bytes));
        expect(got.ContentType, `${key}: content type`).toBe('application/x-cloudcheck');
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        expect(head.ContentLength, `${key}: HeadObject ContentLength`).toBe(bytes.length);
      }
    },
  );

  defineCheck(
    {
      id: `s3.sdk.${mode}.multipart`,
      requirement: 'S3-MPU-001',
      level: 'MUST',
      class: 's3',
      title: `AWS SDK (${label}): a 12 MiB multipart upload (lib-storage) reads back byte-identical`,
      tags: ['slow'],
    },
    async ({ api, ledger, ctx }) => {
      const { s3 } = await s3Setup(api, ledger, ctx, mode);
      const bucket = await s3Bucket(s3, ledger, ctx, 'mp');
      const bytes = deterministicBytes(12 * 1024 * 1024, ctx.seed + 2);
      const key = 'multipart/12mib.bin';
      trackObject(ledger, bucket, key);
      const done = await new Upload({
        client: s3,
        params: { Bucket: bucket, Key: key, Body: bytes },
        partSize: 5 * 1024 * 1024,
        queueSize: 2,
        leavePartsOnError: false,
      }).done();
      expect(done.ETag, 'a multipart ETag').toBeTruthy();
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const back = await bytesOf(got.Body);
      expect(back.length, 'length read back').toBe(bytes.length);
      expect(sha256(back), 'bytes read back are the parts joined in order').toBe(sha256(bytes));
    },
  );

  defineCheck(
    {
      id: `s3.sdk.${mode}.list-delete`,
      requirement: 'S3-OBJ-002',
      level: 'MUST',
      class: 's3',
      title: `AWS SDK (${label}): ListObjectsV2 with a prefix lists the stored keys; DeleteObject removes one`,
    },
    async ({ api, ledger, ctx }) => {
      const { s3 } = await s3Setup(api, ledger, ctx, mode);
      const bucket = await s3Bucket(s3, ledger, ctx, 'ls');
      const keys = ['docs/a.txt', 'docs/b.txt', 'other/c.txt'];
      for (const key of keys) {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
        trackObject(ledger, bucket, key);
      }
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'docs/' }));
      expect(
        (listed.Contents ?? []).map((c) => c.Key),
        'keys under docs/',
      ).toEqual(['docs/a.txt', 'docs/b.txt']);
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'docs/a.txt' }));
      ledger.deleted('object', `${bucket}/docs/a.txt`);
      const after = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
      expect(
        (after.Contents ?? []).map((c) => c.Key),
        'keys after deleting docs/a.txt',
      ).toEqual(['docs/b.txt', 'other/c.txt']);
      expect(
        (await s3ErrorCode(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'docs/a.txt' })))).status,
        'HeadObject of the deleted key',
      ).toBe(404);
    },
  );
}

defineCheck(
  {
    id: 's3.sdk.bucket-lifecycle',
    requirement: 'S3-BKT-001',
    level: 'MUST',
    class: 's3',
    title: 'AWS SDK: CreateBucket, ListBuckets and DeleteBucket of an empty bucket',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'life');
    const listed = await s3.send(new ListBucketsCommand({}));
    expect(
      (listed.Buckets ?? []).map((b) => b.Name),
      'ListBuckets names the new bucket',
    ).toContain(bucket);
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    ledger.deleted('bucket', bucket);
    const again = await s3.send(new ListBucketsCommand({}));
    expect(
      (again.Buckets ?? []).map((b) => b.Name),
      'ListBuckets after DeleteBucket',
    ).not.toContain(bucket);
  },
);

defineCheck(
  {
    id: 's3.sdk.region-slug',
    requirement: 'S3-REG-001',
    level: 'MUST',
    class: 's3',
    title: 'A region slug of GET /regions works as the SDK region',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, region } = await s3Setup(api, ledger, ctx);
    expect(await s3.config.region(), 'the SDK signs for the region slug').toBe(region);
    await s3.send(new ListBucketsCommand({}));
  },
);
