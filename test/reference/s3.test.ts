/**
 * The S3-compatible endpoint with the AWS SDK v3, with its default settings (CRC32 checksums on
 * by default since 2025: aws-chunked bodies with trailing checksums) and again with
 * `WHEN_REQUIRED`: round trips, listing, ranges, errors, and the REST view of the same store.
 */
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { expect, test } from '../base.ts';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
import { type ChecksumSetting, accessKey, errorCode, s3Client, uniqueBucket } from './s3-support.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer();
});
test.afterAll(async () => {
  await server.close();
});

const md5 = (data: Uint8Array): string => createHash('md5').update(data).digest('hex');

for (const setting of ['default', 'when-required'] as ChecksumSetting[]) {
  test.describe(`SDK with ${setting} checksums`, () => {
    test('bucket lifecycle, put/get/head/delete round trip', async () => {
      const s3 = s3Client(server, await accessKey(server), setting);
      const bucket = uniqueBucket('rt');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toContain(bucket);
      await s3.send(new HeadBucketCommand({ Bucket: bucket }));
      expect((await s3.send(new GetBucketLocationCommand({ Bucket: bucket }))).LocationConstraint).toBe('nyc1');

      for (const [key, body] of [
        ['small.txt', Buffer.from('hello, s3')],
        ['empty', Buffer.alloc(0)],
        ['dir/with space/ünï+cøde?.bin', randomBytes(70_000)],
      ] as const) {
        const put = await s3.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/x-test' }),
        );
        expect(put.ETag).toBe(`"${md5(body)}"`);
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
        expect(got.ContentType).toBe('application/x-test');
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        expect(head.ContentLength).toBe(body.length);
      }
      // A stream body of unknown length goes through aws-chunked with the default checksums.
      const streamed = randomBytes(300_000);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'streamed',
          Body: Readable.from([streamed.subarray(0, 100_000), streamed.subarray(100_000)]),
          ContentLength: streamed.length,
        }),
      );
      const back = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'streamed' }));
      expect(Buffer.from(await back.Body!.transformToByteArray()).equals(streamed)).toBe(true);

      expect(await errorCode(s3.send(new DeleteBucketCommand({ Bucket: bucket })))).toBe('BucketNotEmpty');
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'small.txt' }));
      expect(await errorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'small.txt' })))).toBe('NoSuchKey');
      const del = await s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: [{ Key: 'empty' }, { Key: 'dir/with space/ünï+cøde?.bin' }, { Key: 'streamed' }] },
        }),
      );
      expect(del.Deleted?.length).toBe(3);
      await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
      expect(await errorCode(s3.send(new HeadBucketCommand({ Bucket: bucket })))).toBe('NotFound');
      expect(await errorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'x' })))).toBe('NoSuchBucket');
    });

    test('listing: prefix, delimiter, v1 and v2 continuation through every key once', async () => {
      const s3 = s3Client(server, await accessKey(server), setting);
      const bucket = uniqueBucket('ls');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      const keys = [
        ...Array.from({ length: 23 }, (_, i) => `logs/2025/${String(i).padStart(2, '0')}.txt`),
        'logs/a/x',
        'logs/b/y',
        'top.txt',
        'a+b c',
      ];
      for (const key of keys) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      const seen: string[] = [];
      for await (const page of paginateListObjectsV2({ client: s3, pageSize: 5 }, { Bucket: bucket }))
        seen.push(...(page.Contents ?? []).map((c) => c.Key!));
      expect(seen).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      const delimited = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'logs/', Delimiter: '/' }));
      expect(delimited.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['logs/2025/', 'logs/a/', 'logs/b/']);
      expect(delimited.Contents ?? []).toEqual([]);
      const after = await s3.send(new ListObjectsV2Command({ Bucket: bucket, StartAfter: 'logs/b/y' }));
      expect(after.Contents?.map((c) => c.Key)).toEqual(['top.txt']);
      const v1: string[] = [];
      let marker: string | undefined;
      for (;;) {
        const page = await s3.send(new ListObjectsCommand({ Bucket: bucket, MaxKeys: 7, Marker: marker }));
        v1.push(...(page.Contents ?? []).map((c) => c.Key!));
        if (!page.IsTruncated) break;
        marker = page.NextMarker ?? page.Contents!.at(-1)!.Key;
      }
      expect(v1).toEqual(seen);
    });

    test('range reads answer 206 with Content-Range', async () => {
      const s3 = s3Client(server, await accessKey(server), setting);
      const bucket = uniqueBucket('rg');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      const body = randomBytes(1000);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'r', Body: body }));
      for (const [range, start, end] of [
        ['bytes=0-9', 0, 9],
        ['bytes=990-', 990, 999],
        ['bytes=-5', 995, 999],
        ['bytes=500-5000', 500, 999],
      ] as const) {
        const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'r', Range: range }));
        expect(got.ContentRange).toBe(`bytes ${start}-${end}/1000`);
        expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body.subarray(start, end + 1))).toBe(true);
      }
      expect(await errorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'r', Range: 'bytes=1000-' })))).toBe(
        'InvalidRange',
      );
    });

    test('multipart upload through lib-storage (12 MiB) and CopyObject', async () => {
      const s3 = s3Client(server, await accessKey(server), setting);
      const bucket = uniqueBucket('mp');
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      const body = randomBytes(12 * 1024 * 1024 + 123);
      const upload = new Upload({
        client: s3,
        params: { Bucket: bucket, Key: 'big.bin', Body: body },
        partSize: 5 * 1024 * 1024,
        queueSize: 2,
      });
      const done = await upload.done();
      expect(done.ETag).toMatch(/-3"$/);
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
      expect(md5(await got.Body!.transformToByteArray())).toBe(md5(body));
      await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy.bin', CopySource: `${bucket}/big.bin` }));
      expect((await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'copy.bin' }))).ContentLength).toBe(
        body.length,
      );
    });
  });
}

test('wrong secret, unknown key, bucket_access and read-only keys are refused', async () => {
  const good = await accessKey(server);
  const owner = s3Client(server, good);
  const bucket = uniqueBucket('auth');
  const other = uniqueBucket('auth2');
  await owner.send(new CreateBucketCommand({ Bucket: bucket }));
  await owner.send(new CreateBucketCommand({ Bucket: other }));
  // The last character changed (to one it is not: a secret ending in "x" stayed the same, about once in 60 runs).
  const wrongSecret = `${good.secretAccessKey.slice(0, -1)}${good.secretAccessKey.endsWith('x') ? 'y' : 'x'}`;
  const wrong = s3Client(server, { accessKeyId: good.accessKeyId, secretAccessKey: wrongSecret });
  expect(await errorCode(wrong.send(new ListObjectsV2Command({ Bucket: bucket })))).toBe('SignatureDoesNotMatch');
  expect(await errorCode(wrong.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x' })))).toBe(
    'SignatureDoesNotMatch',
  );
  const unknown = s3Client(server, { accessKeyId: 'CCAKNOSUCHKEY0000000', secretAccessKey: good.secretAccessKey });
  expect(await errorCode(unknown.send(new ListBucketsCommand({})))).toBe('InvalidAccessKeyId');
  const limited = s3Client(server, await accessKey(server, { bucket_access: [bucket] }));
  await limited.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'x' }));
  expect(await errorCode(limited.send(new PutObjectCommand({ Bucket: other, Key: 'k', Body: 'x' })))).toBe(
    'AccessDenied',
  );
  expect((await limited.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual([bucket]);
  const reader = s3Client(server, await accessKey(server, { permissions: ['read'] }));
  expect(
    Buffer.from(
      await (await reader.send(new GetObjectCommand({ Bucket: bucket, Key: 'k' }))).Body!.transformToByteArray(),
    ).toString(),
  ).toBe('x');
  expect(await errorCode(reader.send(new PutObjectCommand({ Bucket: bucket, Key: 'k2', Body: 'x' })))).toBe(
    'AccessDenied',
  );
  // Another account's key is refused the bucket (names are global: S3 says 403, not 404).
  const stranger = s3Client(server, await accessKey(server, { alt: true }));
  expect(await errorCode(stranger.send(new GetObjectCommand({ Bucket: bucket, Key: 'k' })))).toBe('AccessDenied');
  await stranger.send(new CreateBucketCommand({ Bucket: `${bucket}-stranger` }));
  expect(
    await errorCode(
      stranger.send(new CopyObjectCommand({ Bucket: `${bucket}-stranger`, Key: 'k2', CopySource: `${bucket}/k` })),
    ),
  ).toBe('AccessDenied');
  // Unsigned requests are refused.
  const anonymous = await fetch(`${server.s3Url}/${bucket}/k`);
  expect(anonymous.status).toBe(403);
  expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
});

test('REST and S3 are one store', async () => {
  const rest = client(server.baseUrl, server.apiKey);
  const s3 = s3Client(server, await accessKey(server));
  const bucket = uniqueBucket('one');
  expect((await rest.call('POST', '/storage/buckets', { name: bucket, region: 'ams3' })).status).toBe(201);
  expect((await s3.send(new GetBucketLocationCommand({ Bucket: bucket }))).LocationConstraint).toBe('ams3');
  const put = await fetch(`${server.baseUrl}/storage/buckets/${bucket}/objects/from-rest.txt`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'text/plain' },
    body: 'via rest',
  });
  expect(put.status).toBe(200);
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'from-rest.txt' }));
  expect(await got.Body!.transformToString()).toBe('via rest');
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'from-s3.txt', Body: 'via s3' }));
  const back = await fetch(`${server.baseUrl}/storage/buckets/${bucket}/objects/from-s3.txt`, {
    headers: { authorization: `Bearer ${server.apiKey}` },
  });
  expect(await back.text()).toBe('via s3');
});
