/**
 * Multipart uploads and presigned URLs on the reference server.
 */
import { createHash } from 'node:crypto';
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client, expectDocumented } from './helpers.ts';
import {
  bytesOf,
  completionXml,
  createBucket,
  errorOf,
  objectUrl,
  putObject,
  rawRequest,
  uniqueBucket,
} from './storage-objects-support.ts';

let server: RunningReference;
let bucket: string;
test.beforeAll(async () => {
  server = await startReferenceServer({
    delays: { vpsBootMs: 20, smsDeliveryMs: 20, senderApprovalMs: 20, webhookRetryMs: 20 },
  });
  bucket = uniqueBucket('transfer');
  await createBucket(server, bucket);
});
test.afterAll(async () => {
  await server.close();
});

const MiB = 1024 * 1024;
const OBJECT_OP = '/storage/buckets/{bucket_name}/objects/{object_key}';
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();

async function initiate(key: string, contentType = 'application/x-tar') {
  const response = await rawRequest(`${objectUrl(server, bucket, key)}?uploads`, {
    method: 'POST',
    apiKey: server.apiKey,
    headers: { 'content-type': contentType },
  });
  expect(response.status).toBe(200);
  await expectDocumented(`POST ${OBJECT_OP}`, { status: 200, body: response.json });
  return (response.json as { upload_id: string }).upload_id;
}

async function uploadPart(key: string, uploadId: string, partNumber: number | string, bytes: Uint8Array) {
  const response = await rawRequest(`${objectUrl(server, bucket, key)}?partNumber=${partNumber}&uploadId=${uploadId}`, {
    method: 'PUT',
    apiKey: server.apiKey,
    body: bytes,
  });
  if (response.status === 200) await expectDocumented(`PUT ${OBJECT_OP}`, { status: 200, body: response.json });
  return response;
}

async function complete(key: string, uploadId: string, xml: string) {
  const response = await rawRequest(`${objectUrl(server, bucket, key)}?uploadId=${uploadId}`, {
    method: 'POST',
    apiKey: server.apiKey,
    headers: { 'content-type': 'application/xml' },
    body: xml,
  });
  if (response.status === 200) await expectDocumented(`POST ${OBJECT_OP}`, { status: 200, body: response.json });
  return response;
}

test.describe('multipart upload', () => {
  test('parts uploaded out of order are joined in part-number order; ETag is md5 of md5s', async () => {
    const key = 'backups/db.tar';
    const uploadId = await initiate(key);
    const first = bytesOf(5 * MiB, 11);
    const second = bytesOf(5 * MiB + 3, 12);
    const last = bytesOf(1234, 13);
    // Upload order 3, 1, 2.
    const etags: Record<number, string> = {};
    for (const [number, bytes] of [
      [3, last],
      [1, first],
      [2, second],
    ] as const) {
      const response = await uploadPart(key, uploadId, number, bytes);
      expect(response.status).toBe(200);
      const part = (response.json as { part: { part_number: number; etag: string; size: number } }).part;
      expect(part).toEqual({ part_number: number, etag: `"${md5(bytes).toString('hex')}"`, size: bytes.length });
      expect(response.headers.get('etag')).toBe(part.etag);
      etags[number] = part.etag;
    }
    const done = await complete(
      key,
      uploadId,
      completionXml([1, 2, 3].map((number) => ({ number, etag: etags[number]! }))),
    );
    expect(done.status).toBe(200);
    const whole = Buffer.concat([first, second, last]);
    const expectedEtag = `"${createHash('md5')
      .update(Buffer.concat([md5(first), md5(second), md5(last)]))
      .digest('hex')}-3"`;
    expect((done.json as { object: unknown }).object).toMatchObject({
      key,
      bucket,
      size: whole.length,
      etag: expectedEtag,
      content_type: 'application/x-tar',
    });

    const get = await rawRequest(objectUrl(server, bucket, key), { method: 'GET', apiKey: server.apiKey });
    expect(get.bytes.equals(whole)).toBe(true);
    expect(get.headers.get('content-type')).toBe('application/x-tar');
    expect(get.headers.get('etag')).toBe(expectedEtag);
    // Completed: the upload id is no longer known.
    const again = await complete(key, uploadId, completionXml([{ number: 1, etag: etags[1]! }]));
    expect(again.status).toBe(404);
    expect(errorOf(again.json)).toMatchObject({ code: 'not_found', resource: 'upload' });
  });

  test('ETags may be sent unquoted or XML-escaped, and a single small part is a whole object', async () => {
    const key = 'single.txt';
    const uploadId = await initiate(key, 'text/plain');
    const part = (await uploadPart(key, uploadId, 1, Buffer.from('just one'))).json as { part: { etag: string } };
    const escaped = part.part.etag.replaceAll('"', '&quot;');
    const done = await complete(key, uploadId, completionXml([{ number: 1, etag: escaped }]));
    expect(done.status).toBe(200);
    expect(
      (await rawRequest(objectUrl(server, bucket, key), { method: 'GET', apiKey: server.apiKey })).bytes.toString(),
    ).toBe('just one');
  });

  test('completion refuses a wrong ETag, a missing part, descending order and a small middle part (422)', async () => {
    const key = 'refused.bin';
    const uploadId = await initiate(key);
    const small = bytesOf(1000, 1);
    const big = bytesOf(5 * MiB, 2);
    const e1 = ((await uploadPart(key, uploadId, 1, small)).json as { part: { etag: string } }).part.etag;
    const e2 = ((await uploadPart(key, uploadId, 2, big)).json as { part: { etag: string } }).part.etag;
    const cases: Array<[string, string]> = [
      ['wrong etag', completionXml([{ number: 1, etag: '"00000000000000000000000000000000"' }])],
      [
        'missing part',
        completionXml([
          { number: 1, etag: e1 },
          { number: 7, etag: e2 },
        ]),
      ],
      [
        'descending',
        completionXml([
          { number: 2, etag: e2 },
          { number: 1, etag: e1 },
        ]),
      ],
      [
        'small non-last part',
        completionXml([
          { number: 1, etag: e1 },
          { number: 2, etag: e2 },
        ]),
      ],
      ['no parts', '<CompleteMultipartUpload></CompleteMultipartUpload>'],
      ['not XML', '{"parts": []}'],
      ['other root', '<Complete><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></Complete>'],
      ['bad PartNumber', completionXml([{ number: 0, etag: e1 }])],
      ['DOCTYPE', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><CompleteMultipartUpload/>'],
    ];
    for (const [label, xml] of cases) {
      const response = await complete(key, uploadId, xml);
      expect(response.status, label).toBe(422);
      expect(errorOf(response.json).code, label).toBe('validation_error');
      expect(Array.isArray(errorOf(response.json).details), label).toBe(true);
    }
    // Still usable afterwards: a valid completion of part 2 alone.
    const ok = await complete(key, uploadId, completionXml([{ number: 2, etag: e2 }]));
    expect(ok.status).toBe(200);
    expect((ok.json as { object: { size: number } }).object.size).toBe(big.length);
  });

  test('part numbers run 1..10000; unknown uploads and other keys are 404 (upload)', async () => {
    const key = 'numbers.bin';
    const uploadId = await initiate(key);
    for (const bad of ['0', '10001', 'x', '-1']) {
      const response = await uploadPart(key, uploadId, bad, Buffer.from('x'));
      expect(response.status, bad).toBe(422);
      expect(errorOf(response.json).details).toEqual([expect.objectContaining({ field: 'partNumber' })]);
    }
    expect((await uploadPart(key, uploadId, 10000, Buffer.from('x'))).status).toBe(200);
    const unknown = await uploadPart(key, 'mpu_nope', 1, Buffer.from('x'));
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.json)).toMatchObject({ code: 'not_found', resource: 'upload' });
    const otherKey = await rawRequest(
      `${objectUrl(server, bucket, 'elsewhere.bin')}?partNumber=1&uploadId=${uploadId}`,
      { method: 'PUT', apiKey: server.apiKey, body: 'x' },
    );
    expect(otherKey.status).toBe(404);
    const unknownComplete = await complete(key, 'mpu_nope', completionXml([{ number: 1, etag: 'x' }]));
    expect(unknownComplete.status).toBe(404);
    // Another account cannot touch the upload.
    const foreign = await rawRequest(`${objectUrl(server, bucket, key)}?partNumber=1&uploadId=${uploadId}`, {
      method: 'PUT',
      apiKey: server.altApiKey,
      body: 'x',
    });
    expect(foreign.status).toBe(404);
    // Abort (S3's DELETE ?uploadId) forgets the upload.
    const abort = await rawRequest(`${objectUrl(server, bucket, key)}?uploadId=${uploadId}`, {
      method: 'DELETE',
      apiKey: server.apiKey,
    });
    expect(abort.status).toBe(204);
    expect((await uploadPart(key, uploadId, 1, Buffer.from('x'))).status).toBe(404);
  });
});

test.describe('presigned URLs', () => {
  const presign = async (key: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/${key}/presigned-url`,
      body,
      { headers },
    );
    if (response.status === 200) await expectDocumented(`POST ${OBJECT_OP}/presigned-url`, response);
    return response;
  };
  const urlOf = async (key: string, method: string, expiresIn?: number) => {
    const response = await presign(key, { method, ...(expiresIn ? { expires_in: expiresIn } : {}) });
    expect(response.status).toBe(200);
    return (response.body as { url: string }).url;
  };

  test('GET, PUT and DELETE work without an Authorization header', async () => {
    const key = 'shared/report.pdf';
    const bytes = bytesOf(70_000, 5);
    const putUrl = await urlOf(key, 'PUT');
    const put = await rawRequest(putUrl, {
      method: 'PUT',
      apiKey: null,
      headers: { 'content-type': 'application/pdf' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const get = await rawRequest(await urlOf(key, 'GET'), { method: 'GET', apiKey: null });
    expect(get.status).toBe(200);
    expect(get.bytes.equals(bytes)).toBe(true);
    expect(get.headers.get('content-type')).toBe('application/pdf');
    const del = await rawRequest(await urlOf(key, 'DELETE'), { method: 'DELETE', apiKey: null });
    expect(del.status).toBe(204);
    expect((await rawRequest(objectUrl(server, bucket, key), { method: 'GET', apiKey: server.apiKey })).status).toBe(
      404,
    );
  });

  test('response: url with signature, expires_at one hour ahead by default, or expires_in seconds', async () => {
    const before = Date.now();
    const response = await presign('any/key.txt', { method: 'GET' });
    const body = response.body as { url: string; expires_at: string; method: string };
    expect(body.method).toBe('GET');
    const url = new URL(body.url);
    expect(url.pathname).toBe(`/v1/storage/buckets/${bucket}/objects/any/key.txt`);
    expect(url.searchParams.get('method')).toBe('GET');
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(url.searchParams.get('expires')) * 1000).toBe(Date.parse(body.expires_at));
    expect(Math.abs(Date.parse(body.expires_at) - (before + 3600_000))).toBeLessThan(5000);
    const short = (await presign('any/key.txt', { method: 'PUT', expires_in: 120 })).body as { expires_at: string };
    expect(Math.abs(Date.parse(short.expires_at) - (Date.now() + 120_000))).toBeLessThan(5000);
  });

  test('the URL uses the host and scheme the client reached (X-Forwarded-Host / -Proto)', async () => {
    const response = await presign(
      'proxied.txt',
      { method: 'GET' },
      { 'x-forwarded-host': 'files.example.com', 'x-forwarded-proto': 'https' },
    );
    expect((response.body as { url: string }).url).toMatch(/^https:\/\/files\.example\.com\/v1\/storage\/buckets\//);
  });

  for (const [label, body, field] of [
    ['missing method', {}, 'method'],
    ['method POST', { method: 'POST' }, 'method'],
    ['lowercase method', { method: 'get' }, 'method'],
    ['expires_in 0', { method: 'GET', expires_in: 0 }, 'expires_in'],
    ['expires_in over seven days', { method: 'GET', expires_in: 604_801 }, 'expires_in'],
    ['expires_in as string', { method: 'GET', expires_in: '60' }, 'expires_in'],
  ] as const) {
    test(`presign refuses ${label} with 422`, async () => {
      const response = await presign('k.txt', body);
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field })],
      });
    });
  }

  test('a tampered, re-targeted, re-purposed or extended URL is 403 forbidden', async () => {
    await putObject(server, bucket, 'guarded.txt', 'guarded');
    await putObject(server, bucket, 'other.txt', 'other');
    const url = new URL(await urlOf('guarded.txt', 'GET'));
    const variants: Array<[string, string, string]> = [];
    const withParam = (name: string, value: string) => {
      const copy = new URL(url);
      copy.searchParams.set(name, value);
      return copy.toString();
    };
    const signature = url.searchParams.get('signature')!;
    variants.push([
      'flipped signature',
      'GET',
      withParam('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`),
    ]);
    variants.push(['short signature', 'GET', withParam('signature', 'abc')]);
    variants.push([
      'later expiry',
      'GET',
      withParam('expires', String(Number(url.searchParams.get('expires')) + 3600)),
    ]);
    variants.push(['other account', 'GET', withParam('account', 'acct_0000000000000000')]);
    variants.push(['other object', 'GET', url.toString().replace('/guarded.txt?', '/other.txt?')]);
    variants.push(['other method in query', 'DELETE', withParam('method', 'DELETE')]);
    variants.push(['other method on the wire', 'DELETE', url.toString()]);
    variants.push(['PUT with a GET URL', 'PUT', url.toString()]);
    for (const [label, method, target] of variants) {
      const response = await rawRequest(target, {
        method,
        apiKey: null,
        body: method === 'PUT' ? 'overwrite' : undefined,
      });
      expect(response.status, label).toBe(403);
      expect(errorOf(response.json).code, label).toBe('forbidden');
    }
    // Nothing changed.
    expect(
      (
        await rawRequest(objectUrl(server, bucket, 'guarded.txt'), { method: 'GET', apiKey: server.apiKey })
      ).bytes.toString(),
    ).toBe('guarded');
    expect((await rawRequest(url.toString(), { method: 'GET', apiKey: null })).status).toBe(200);
  });

  test('an expired URL is 403 forbidden', async () => {
    await putObject(server, bucket, 'expiring.txt', 'soon gone');
    const url = await urlOf('expiring.txt', 'GET', 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await rawRequest(url, { method: 'GET', apiKey: null });
    expect(response.status).toBe(403);
    expect(errorOf(response.json).code).toBe('forbidden');
  });

  test('without a signature and without a key the request is 401', async () => {
    const response = await rawRequest(objectUrl(server, bucket, 'guarded.txt'), { method: 'GET', apiKey: null });
    expect(response.status).toBe(401);
  });
});
