/**
 * Each S3 fault is observable with a standard SDK: with the fault on, the behaviour its
 * requirement demands is broken (the same steps pass on a server without faults, s3.test.ts).
 */
import { CreateBucketCommand, ListBucketsCommand, PutObjectCommand, paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { S3_FAULTS } from '../../reference/s3/app.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { accessKey, errorCode, s3Client, uniqueBucket } from './s3-support.ts';

const observations: Record<string, (server: RunningReference) => Promise<void>> = {
  async 's3-checksum-rejected'(server) {
    const key = await accessKey(server);
    const bucket = uniqueBucket('ck');
    await s3Client(server, key, 'when-required').send(new CreateBucketCommand({ Bucket: bucket }));
    // The old behaviour still works; the 2025 default checksums are refused.
    await s3Client(server, key, 'when-required').send(new PutObjectCommand({ Bucket: bucket, Key: 'a', Body: 'x' }));
    expect(await errorCode(s3Client(server, key).send(new PutObjectCommand({ Bucket: bucket, Key: 'b', Body: 'x' })))).toBe('InvalidArgument');
  },
  async 's3-signature-unchecked'(server) {
    const key = await accessKey(server);
    const wrong = s3Client(server, { accessKeyId: key.accessKeyId, secretAccessKey: 'not-the-secret-at-all-0000000000000000000' });
    expect((await wrong.send(new ListBucketsCommand({}))).$metadata.httpStatusCode).toBe(200);
  },
  async 's3-multipart-etag-wrong'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('et');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: 'big', Body: randomBytes(11 * 1024 * 1024) }, partSize: 5 * 1024 * 1024 });
    expect(await errorCode(upload.done())).toBe('InvalidPart');
  },
  async 's3-list-continuation-broken'(server) {
    const s3 = s3Client(server, await accessKey(server));
    const bucket = uniqueBucket('ct');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (let i = 0; i < 10; i++) await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `k${i}`, Body: 'x' }));
    const seen: string[] = [];
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 4 }, { Bucket: bucket })) seen.push(...(page.Contents ?? []).map((c) => c.Key!));
    expect(seen.length).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(10);
  },
};

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
