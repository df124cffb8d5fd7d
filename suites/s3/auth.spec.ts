/**
 * Who may use the S3 endpoint: key pairs from POST /storage/access-keys work (also as presigned
 * URLs made by the SDK's presigner, used with plain undici); a wrong secret, an unknown key and
 * an unsigned request are refused; `bucket_access` and `read`-only keys are enforced.
 */
import { GetObjectCommand, ListBucketsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { request } from 'undici';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { createBucket, deterministicBytes, sha256 } from '../flows/_storage.ts';
import { bytesOf, createAccessKey, s3Bucket, s3Client, s3ErrorCode, s3Setup, trackObject } from './_s3.ts';

defineCheck(
  {
    id: 's3.auth.refused',
    requirement: 'S3-AUTH-002',
    level: 'MUST',
    class: 's3',
    title: 'A wrong secret, an unknown access key id and an unsigned request are refused',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, pair, region, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'auth');
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'secret.txt', Body: 'not for you' }));
    trackObject(ledger, bucket, 'secret.txt');
    const flipped = `${pair.secretAccessKey.slice(0, -1)}${pair.secretAccessKey.endsWith('A') ? 'B' : 'A'}`;
    const wrong = s3Client(endpoint, region, { accessKeyId: pair.accessKeyId, secretAccessKey: flipped });
    for (const [what, call] of [
      ['GetObject', () => wrong.send(new GetObjectCommand({ Bucket: bucket, Key: 'secret.txt' }))],
      ['PutObject', () => wrong.send(new PutObjectCommand({ Bucket: bucket, Key: 'intruder.txt', Body: 'x' }))],
      ['ListObjectsV2', () => wrong.send(new ListObjectsV2Command({ Bucket: bucket }))],
    ] as const) {
      const result = await s3ErrorCode(call());
      expect(result.code, `${what} signed with a wrong secret must be refused`).not.toBe('no error');
      expect(result.status, `${what} with a wrong secret: status`).toBe(403);
    }
    const unknown = s3Client(endpoint, region, {
      accessKeyId: `${pair.accessKeyId.slice(0, -4)}ZZZZ`,
      secretAccessKey: pair.secretAccessKey,
    });
    const unknownResult = await s3ErrorCode(unknown.send(new ListBucketsCommand({})));
    expect(unknownResult.status, `an unknown access key id must be refused (got ${unknownResult.code})`).toBe(403);
    // Unsigned, so only the check header says whose request it is.
    const anonymous = await request(`${endpoint}/${encodeURIComponent(bucket)}/secret.txt`, {
      headers: api.checkHeaders,
    });
    const text = await anonymous.body.text();
    expect(anonymous.statusCode, 'an unsigned GET must be refused').toBe(403);
    expect(text, 'the object bytes must not leak').not.toContain('not for you');
  },
);

defineCheck(
  {
    id: 's3.auth.presigned',
    requirement: 'S3-AUTH-001',
    level: 'MUST',
    class: 's3',
    title: 'Presigned PUT and GET URLs from the SDK presigner work with a plain HTTP client',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'pre');
    const bytes = deterministicBytes(50_000, ctx.seed + 3);
    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: 'presigned.bin' }), {
      expiresIn: 300,
    });
    trackObject(ledger, bucket, 'presigned.bin');
    const put = await request(putUrl, { method: 'PUT', body: bytes });
    const putText = await put.body.text();
    expect(put.statusCode, `presigned PUT: ${putText.slice(0, 300)}`).toBe(200);
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'presigned.bin' }), {
      expiresIn: 300,
    });
    const got = await request(getUrl);
    const back = Buffer.from(await got.body.arrayBuffer());
    expect(got.statusCode, 'presigned GET').toBe(200);
    expect(sha256(back), 'presigned GET returns the bytes of the presigned PUT').toBe(sha256(bytes));
    const tampered = getUrl.replace(
      /(X-Amz-Signature=[0-9a-f]*)([0-9a-f])/,
      (_m, head: string, last: string) => `${head}${last === '0' ? '1' : '0'}`,
    );
    const refused = await request(tampered);
    await refused.body.dump();
    expect(refused.statusCode, 'a tampered presigned URL is refused').toBe(403);
  },
);

defineCheck(
  {
    id: 's3.auth.key-scope',
    requirement: 'S3-KEY-001',
    level: 'SHOULD',
    class: 's3',
    title: 'bucket_access limits a key to its buckets; a read-only key cannot write',
  },
  async ({ api, ledger, ctx }) => {
    const endpoint = ctx.requireS3();
    const allowed = await createBucket(api, ledger, ctx, 'scope');
    const other = await createBucket(api, ledger, ctx, 'scope');
    const { s3: full, region } = await s3Setup(api, ledger, ctx);
    await full.send(new PutObjectCommand({ Bucket: other, Key: 'o.txt', Body: 'other' }));
    trackObject(ledger, other, 'o.txt');
    const limited = s3Client(endpoint, region, await createAccessKey(api, ledger, ctx, { bucket_access: [allowed] }));
    await limited.send(new PutObjectCommand({ Bucket: allowed, Key: 'ok.txt', Body: 'fine' }));
    trackObject(ledger, allowed, 'ok.txt');
    const outside = await s3ErrorCode(limited.send(new GetObjectCommand({ Bucket: other, Key: 'o.txt' })));
    expect(outside.code, 'a bucket outside bucket_access').toBe('AccessDenied');
    const outsidePut = await s3ErrorCode(
      limited.send(new PutObjectCommand({ Bucket: other, Key: 'x.txt', Body: 'x' })),
    );
    if (outsidePut.code === 'no error') trackObject(ledger, other, 'x.txt');
    expect(outsidePut.code, 'writing a bucket outside bucket_access').toBe('AccessDenied');
    const reader = s3Client(endpoint, region, await createAccessKey(api, ledger, ctx, { permissions: ['read'] }));
    const read = await reader.send(new GetObjectCommand({ Bucket: allowed, Key: 'ok.txt' }));
    expect((await bytesOf(read.Body)).toString(), 'a read key reads').toBe('fine');
    const write = await s3ErrorCode(reader.send(new PutObjectCommand({ Bucket: allowed, Key: 'nope.txt', Body: 'x' })));
    if (write.code === 'no error') trackObject(ledger, allowed, 'nope.txt');
    expect(write.code, 'a read-only key writing').toBe('AccessDenied');
  },
);

defineCheck(
  {
    id: 's3.auth.clock-skew',
    requirement: 'S3-AUTH-003',
    level: 'SHOULD',
    class: 's3',
    title: 'A request signed an hour away from the server clock is refused with 403 (RequestTimeTooSkewed)',
  },
  async ({ api, ledger, ctx }) => {
    const { pair, region, endpoint } = await s3Setup(api, ledger, ctx);
    // The SDK signs with its clock shifted by the offset; with one attempt it does not correct it.
    for (const offsetMs of [-3_600_000, 3_600_000]) {
      const skewed = s3Client(endpoint, region, pair, 'default', { systemClockOffset: offsetMs });
      const result = await s3ErrorCode(skewed.send(new ListBucketsCommand({})));
      expect(
        result.status,
        `ListBuckets signed ${offsetMs < 0 ? 'an hour early' : 'an hour late'} (got ${result.code})`,
      ).toBe(403);
    }
  },
);
