/**
 * Requests at the edges of what S3 clients send, answered as S3 answers them: no signature (or
 * an empty Authorization header), a signature dated by the HTTP Date header, a body of unknown
 * length, url-encoded listings of keys XML cannot carry, and a key that is not UTF-8. The
 * requests SDKs will not make are signed and sent by hand (`signedHeaders`, `rawRequest`).
 */
import { GetObjectCommand, HeadBucketCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { objectUrlPath, s3Bucket, s3ErrorCode, s3Setup, trackObject, unsigned } from './_s3.ts';
import { rawRequest, signedHeaders } from './_signing.ts';

defineCheck(
  {
    id: 's3.auth.anonymous-refused',
    requirement: 'S3-AUTH-004',
    level: 'SHOULD',
    class: 's3',
    title:
      'CreateBucket and a PutObject into a private bucket without Authorization, or with an empty one, answer 403 AccessDenied and change nothing',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'anonw');
    for (const [what, headers] of [
      ['no Authorization', {}],
      ['an empty Authorization', { authorization: '' }],
    ] as const) {
      const name = ctx.name('anonb');
      const create = await unsigned(endpoint, api, 'PUT', `/${name}`, { headers });
      if (create.status < 300) ledger.track('bucket', name);
      expect(create.status, `CreateBucket with ${what}`).toBe(403);
      expect(create.text, `CreateBucket with ${what}: the S3 error code`).toContain('<Code>AccessDenied</Code>');
      const key = `${what.replace(/\W+/g, '-')}.txt`;
      const put = await unsigned(endpoint, api, 'PUT', objectUrlPath(bucket, key), { headers, body: 'intruder' });
      if (put.status < 300) trackObject(ledger, bucket, key);
      expect(put.status, `PutObject into a private bucket with ${what}`).toBe(403);
      expect(put.text, `PutObject with ${what}: the S3 error code`).toContain('<Code>AccessDenied</Code>');
      expect(
        await s3ErrorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))),
        `nothing stored by the PutObject with ${what}`,
      ).toEqual({ code: 'NoSuchKey', status: 404 });
      expect(
        (await s3ErrorCode(s3.send(new HeadBucketCommand({ Bucket: name })))).status,
        `no bucket made by the CreateBucket with ${what}`,
      ).toBe(404);
    }
  },
);

defineCheck(
  {
    id: 's3.auth.date-header',
    requirement: 'S3-AUTH-005',
    level: 'SHOULD',
    class: 's3',
    title: 'A request signed with SigV4 and dated by the HTTP Date header (no x-amz-date) is accepted',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, pair, region, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'date');
    const url = new URL(`${endpoint}${objectUrlPath(bucket, 'dated.txt')}`);
    const headers = signedHeaders(
      pair,
      region,
      { method: 'PUT', url, headers: { 'content-type': 'text/plain' } },
      'date',
    );
    expect(headers['x-amz-date'], 'the request carries no x-amz-date').toBeUndefined();
    const put = await request(url, { method: 'PUT', headers: { ...api.checkHeaders, ...headers }, body: 'by Date' });
    const text = await put.body.text();
    if (put.statusCode < 300) trackObject(ledger, bucket, 'dated.txt');
    expect(put.statusCode, `PutObject dated by Date: ${text.slice(0, 300)}`).toBe(200);
    const back = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'dated.txt' }));
    expect(await back.Body?.transformToString(), 'the object stored').toBe('by Date');
  },
);

defineCheck(
  {
    id: 's3.object.missing-length',
    requirement: 'S3-HDR-003',
    level: 'SHOULD',
    class: 's3',
    title: 'A PutObject with neither Content-Length nor Transfer-Encoding answers 411 MissingContentLength',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, pair, region, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'len');
    const path = objectUrlPath(bucket, 'unsized.txt');
    const url = new URL(`${endpoint}${path}`);
    // HTTP clients always frame a PUT; this one is written on the socket as is.
    const answer = await rawRequest(url, `PUT ${path} HTTP/1.1`, {
      ...api.checkHeaders,
      ...signedHeaders(pair, region, { method: 'PUT', url }),
    });
    const result = await s3ErrorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'unsized.txt' })));
    if (result.code === 'no error') trackObject(ledger, bucket, 'unsized.txt');
    expect(answer.status, `PutObject without Content-Length: ${answer.text.slice(0, 300)}`).toBe(411);
    expect(answer.text, 'the S3 error code').toContain('<Code>MissingContentLength</Code>');
    expect(result, 'nothing stored').toEqual({ code: 'NoSuchKey', status: 404 });
  },
);

/** `encoding-type=url` values (S3 may write a space as `+`, as forms do); what does not decode says so. */
function urlDecoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return `${value} (not percent-encoded)`;
  }
}

defineCheck(
  {
    id: 's3.list.encoding-url',
    requirement: 'S3-LIST-004',
    level: 'SHOULD',
    class: 's3',
    title:
      'ListObjectsV2 with encoding-type=url percent-encodes keys, prefix and common prefixes, so keys with control characters come back whole',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'enc');
    const keys = ['odd/100%.txt', 'odd/bell\u0007.txt', 'odd/line\nbreak.txt', 'odd/dir/x.txt', 'plain.txt'];
    for (const key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x' }));
      trackObject(ledger, bucket, key);
    }
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'odd/', Delimiter: '/', EncodingType: 'url' }),
    );
    expect(listed.EncodingType, 'EncodingType in the answer').toBe('url');
    expect(urlDecoded(listed.Prefix), 'the prefix, decoded').toBe('odd/');
    expect(
      (listed.Contents ?? []).map((c) => urlDecoded(c.Key)).sort(),
      'the keys, decoded, are the stored keys',
    ).toEqual(['odd/100%.txt', 'odd/bell\u0007.txt', 'odd/line\nbreak.txt']);
    expect(
      (listed.CommonPrefixes ?? []).map((p) => urlDecoded(p.Prefix)),
      'the common prefixes, decoded',
    ).toEqual(['odd/dir/']);
    const byNewline = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: 'odd/line\n', EncodingType: 'url' }),
    );
    expect(urlDecoded(byNewline.Prefix), 'a prefix holding a newline, decoded').toBe('odd/line\n');
    expect(
      (byNewline.Contents ?? []).map((c) => urlDecoded(c.Key)),
      'the key under a prefix holding a newline',
    ).toEqual(['odd/line\nbreak.txt']);
  },
);

defineCheck(
  {
    id: 's3.key.not-utf8',
    requirement: 'S3-KEY-002',
    level: 'SHOULD',
    class: 's3',
    title: 'A GetObject or PutObject whose key is percent-encoded bytes that are not UTF-8 answers 400',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, pair, region, endpoint } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'utf8');
    // 0xAE 0x8A: Latin-1 bytes, not a UTF-8 sequence. Were it read byte by byte, the key "®\u008a-".
    const path = `/${encodeURIComponent(bucket)}/%AE%8A-`;
    const url = new URL(`${endpoint}${path}`);
    for (const method of ['GET', 'PUT'] as const) {
      const res = await request(url, {
        method,
        headers: { ...api.checkHeaders, ...signedHeaders(pair, region, { method, url }) },
        ...(method === 'PUT' ? { body: 'latin-1' } : {}),
      });
      const text = await res.body.text();
      if (method === 'PUT' && res.statusCode < 300) trackObject(ledger, bucket, '\u00ae\u008a-');
      expect(res.statusCode, `${method} of a key that is not UTF-8: ${text.slice(0, 300)}`).toBe(400);
    }
  },
);
