/**
 * Multipart paths of the standard tools beyond the plain upload: server-side copies of large
 * objects (UploadPartCopy, what aws s3 cp/mv/sync use between S3 locations), object checksums
 * given at completion, and a retried completion.
 */
import { crc32 } from 'node:zlib';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { deterministicBytes, sha256 } from '../flows/_storage.ts';
import { bytesOf, s3Bucket, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

const MiB = 1024 * 1024;

defineCheck(
  {
    id: 's3.multipart.upload-part-copy',
    requirement: 'S3-COPY-001',
    level: 'MUST',
    class: 's3',
    title: 'UploadPartCopy with source ranges builds a copy of a large object with the same bytes',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'upc');
    const bytes = deterministicBytes(6 * MiB + 123, ctx.seed + 31);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'source.bin', Body: bytes }));
    trackObject(ledger, bucket, 'source.bin');
    // As the aws CLI copies: parts of at least 5 MiB but the last, each a range of the source.
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'copy.bin' }));
    const ranges: Array<[number, number]> = [
      [0, 5 * MiB - 1],
      [5 * MiB, bytes.length - 1],
    ];
    const parts = [];
    for (const [index, [first, last]] of ranges.entries()) {
      const part = await s3.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: 'copy.bin',
          UploadId,
          PartNumber: index + 1,
          CopySource: `${bucket}/source.bin`,
          CopySourceRange: `bytes=${first}-${last}`,
        }),
      );
      expect(part.CopyPartResult?.ETag, `UploadPartCopy of part ${index + 1}: an ETag`).toBeTruthy();
      parts.push({ PartNumber: index + 1, ETag: part.CopyPartResult!.ETag });
    }
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'copy.bin',
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    trackObject(ledger, bucket, 'copy.bin');
    const copy = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'copy.bin' }));
    expect(sha256(await bytesOf(copy.Body)), 'the copy has the bytes of the source').toBe(sha256(bytes));
  },
);

/** CRC32 as x-amz-checksum-crc32 carries it: base64 of the big-endian value. */
function crc32Header(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data) >>> 0);
  return out.toString('base64');
}

defineCheck(
  {
    id: 's3.multipart.complete-checksum',
    requirement: 'S3-MPU-003',
    level: 'SHOULD',
    class: 's3',
    title:
      "CompleteMultipartUpload's x-amz-checksum-crc32 is checked against the object (BadDigest when wrong); a retried completion answers the same object",
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx, 'when-required');
    const bucket = await s3Bucket(s3, ledger, ctx, 'mck');
    const first = deterministicBytes(5 * MiB, ctx.seed + 41);
    const second = deterministicBytes(1000, ctx.seed + 42);
    const whole = Buffer.concat([first, second]);
    const start = async () => {
      const { UploadId } = await s3.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key: 'm.bin',
          ChecksumAlgorithm: 'CRC32',
          ChecksumType: 'FULL_OBJECT',
        }),
      );
      const parts = [];
      for (const [index, body] of [first, second].entries()) {
        const part = await s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: 'm.bin',
            UploadId,
            PartNumber: index + 1,
            Body: body,
            ChecksumCRC32: crc32Header(body),
          }),
        );
        parts.push({ PartNumber: index + 1, ETag: part.ETag, ChecksumCRC32: part.ChecksumCRC32 ?? crc32Header(body) });
      }
      return { UploadId, parts };
    };
    const complete = (upload: Awaited<ReturnType<typeof start>>, checksum: string) =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'm.bin',
          UploadId: upload.UploadId,
          ChecksumCRC32: checksum,
          ChecksumType: 'FULL_OBJECT',
          MultipartUpload: { Parts: upload.parts },
        }),
      );

    const wrong = await start();
    expect(
      await s3ErrorCode(complete(wrong, crc32Header(Buffer.from('not the object')))),
      'a completion with a wrong object CRC32',
    ).toEqual({ code: 'BadDigest', status: 400 });

    const right = await start();
    const done = await complete(right, crc32Header(whole));
    trackObject(ledger, bucket, 'm.bin');
    expect(done.ETag, 'a completion with the object CRC32 succeeds').toBeTruthy();
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'm.bin', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32, 'HeadObject with checksum mode: the object CRC32').toBe(crc32Header(whole));
    expect(head.ContentLength, 'the object is the parts joined').toBe(whole.length);

    // An SDK retries a completion whose answer was lost: S3 answers the same object again.
    const again = await complete(right, crc32Header(whole));
    expect(again.ETag, 'a retried completion: the same ETag').toBe(done.ETag);
  },
);
