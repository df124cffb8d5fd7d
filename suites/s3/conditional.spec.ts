/**
 * What S3 clients rely on beyond plain reads and writes: conditional writes (lock files,
 * create-only uploads), conditional reads (caches, sync tools) and the representation headers
 * stored with an object (aws s3 cp --cache-control, --content-disposition, ...).
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { bytesOf, s3Bucket, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

defineCheck(
  {
    id: 's3.conditional.write',
    requirement: 'S3-COND-001',
    level: 'SHOULD',
    class: 's3',
    title:
      'PutObject and CompleteMultipartUpload with If-None-Match: * answer 412 when the key exists; If-Match with another ETag 412',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'cw');
    const first = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'lock', Body: 'first', IfNoneMatch: '*' }));
    trackObject(ledger, bucket, 'lock');
    expect(first.ETag, 'a create-only PutObject of a free key stores it').toBeTruthy();
    const again = await s3ErrorCode(
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'lock', Body: 'second', IfNoneMatch: '*' })),
    );
    expect(again, 'PutObject If-None-Match: * over an existing key').toEqual({
      code: 'PreconditionFailed',
      status: 412,
    });
    const stale = await s3ErrorCode(
      s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'lock',
          Body: 'third',
          IfMatch: '"00000000000000000000000000000000"',
        }),
      ),
    );
    expect(stale, 'PutObject If-Match with another ETag').toEqual({ code: 'PreconditionFailed', status: 412 });
    const kept = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'lock' }));
    expect((await bytesOf(kept.Body)).toString(), 'the refused writes left the first object').toBe('first');
    const swapped = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'lock', Body: 'fourth', IfMatch: first.ETag }),
    );
    expect(swapped.ETag, 'PutObject If-Match with the current ETag replaces it').toBeTruthy();

    // The same rule at the end of a multipart upload (the SDKs' managed uploads of large files).
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'lock' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'lock', UploadId, PartNumber: 1, Body: 'mpu' }),
    );
    const complete = (ifNoneMatch?: string) =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'lock',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
          ...(ifNoneMatch ? { IfNoneMatch: ifNoneMatch } : {}),
        }),
      );
    expect(await s3ErrorCode(complete('*')), 'CompleteMultipartUpload If-None-Match: * over an existing key').toEqual({
      code: 'PreconditionFailed',
      status: 412,
    });
    const after = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'lock' }));
    expect((await bytesOf(after.Body)).toString(), 'the refused completion left the object').toBe('fourth');
  },
);

defineCheck(
  {
    id: 's3.conditional.read',
    requirement: 'S3-COND-002',
    level: 'SHOULD',
    class: 's3',
    title:
      'GetObject and HeadObject answer 304 to If-None-Match / If-Modified-Since and 412 to If-Match / If-Unmodified-Since as S3 does',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'cr');
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'c.txt', Body: 'cached' }));
    trackObject(ledger, bucket, 'c.txt');
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'c.txt' }));
    const etag = put.ETag ?? head.ETag;
    const modified = head.LastModified!;
    const past = new Date(modified.getTime() - 24 * 3600 * 1000);
    const future = new Date(modified.getTime() + 24 * 3600 * 1000);
    const other = '"00000000000000000000000000000000"';
    const get = (input: Partial<ConstructorParameters<typeof GetObjectCommand>[0]>) =>
      s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'c.txt', ...input }));
    const status = async (promise: Promise<{ $metadata: { httpStatusCode?: number } }>) => {
      const outcome = await s3ErrorCode(promise.then((r) => r.$metadata.httpStatusCode));
      return outcome.status ?? 200;
    };
    expect(await status(get({ IfNoneMatch: etag })), 'GetObject If-None-Match with the current ETag').toBe(304);
    expect(await status(get({ IfNoneMatch: other })), 'GetObject If-None-Match with another ETag').toBe(200);
    expect(
      await status(get({ IfModifiedSince: future })),
      'GetObject If-Modified-Since after the last modification',
    ).toBe(304);
    expect(
      await status(get({ IfModifiedSince: past })),
      'GetObject If-Modified-Since before the last modification',
    ).toBe(200);
    expect(await s3ErrorCode(get({ IfMatch: other })), 'GetObject If-Match with another ETag').toEqual({
      code: 'PreconditionFailed',
      status: 412,
    });
    expect(await status(get({ IfMatch: etag })), 'GetObject If-Match with the current ETag').toBe(200);
    expect(
      await s3ErrorCode(get({ IfUnmodifiedSince: past })),
      'GetObject If-Unmodified-Since before the last modification',
    ).toEqual({ code: 'PreconditionFailed', status: 412 });
    expect(
      await status(get({ IfMatch: etag, IfUnmodifiedSince: past })),
      'a matching If-Match wins over a failing If-Unmodified-Since',
    ).toBe(200);
    expect(
      await status(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'c.txt', IfNoneMatch: etag }))),
      'HeadObject If-None-Match with the current ETag',
    ).toBe(304);
    expect(
      await status(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'c.txt', IfMatch: other }))),
      'HeadObject If-Match with another ETag',
    ).toBe(412);
  },
);

defineCheck(
  {
    id: 's3.object.standard-headers',
    requirement: 'S3-HDR-001',
    level: 'SHOULD',
    class: 's3',
    title:
      'Cache-Control, Content-Disposition, Content-Encoding, Content-Language and Expires round-trip; response-* overrides apply',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'hdr');
    const expires = new Date('2030-01-01T00:00:00Z');
    const stored = {
      CacheControl: 'max-age=3600, public',
      ContentDisposition: 'attachment; filename="report.txt"',
      ContentEncoding: 'identity',
      ContentLanguage: 'de-DE',
    };
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'h.txt', Body: 'headers', Expires: expires, ...stored }));
    trackObject(ledger, bucket, 'h.txt');
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'm.txt', ...stored }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'm.txt', UploadId, PartNumber: 1, Body: 'multipart' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'm.txt',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    trackObject(ledger, bucket, 'm.txt');
    for (const [what, got] of [
      ['GetObject', await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'h.txt' }))],
      ['HeadObject', await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'h.txt' }))],
      ['HeadObject of a multipart upload', await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'm.txt' }))],
    ] as const) {
      expect(got.CacheControl, `${what}: Cache-Control`).toBe(stored.CacheControl);
      expect(got.ContentDisposition, `${what}: Content-Disposition`).toBe(stored.ContentDisposition);
      expect(got.ContentEncoding, `${what}: Content-Encoding`).toBe(stored.ContentEncoding);
      expect(got.ContentLanguage, `${what}: Content-Language`).toBe(stored.ContentLanguage);
      if (what !== 'HeadObject of a multipart upload')
        expect(got.Expires?.getTime(), `${what}: Expires`).toBe(expires.getTime());
    }
    const overridden = await s3.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: 'h.txt',
        ResponseCacheControl: 'no-store',
        ResponseContentLanguage: 'fr',
        ResponseContentDisposition: 'inline',
      }),
    );
    expect(overridden.CacheControl, 'response-cache-control').toBe('no-store');
    expect(overridden.ContentLanguage, 'response-content-language').toBe('fr');
    expect(overridden.ContentDisposition, 'response-content-disposition').toBe('inline');
  },
);
