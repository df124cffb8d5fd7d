/**
 * Object storage on the reference server: buckets, objects, listing, key handling, policy, CDN,
 * access keys and usage. Multipart and presigned URLs: storage-objects-transfer.test.ts.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect, test } from '../base.ts';
import { objectStoreOf } from '../../reference/areas/storage-objects/index.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client, expectDocumented } from './helpers.ts';
import {
  bytesOf,
  createBucket,
  errorOf,
  exactPathRequest,
  objectUrl,
  putObject,
  rawRequest,
  uniqueBucket,
} from './storage-objects-support.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({
    delays: { vpsBootMs: 20, smsDeliveryMs: 20, senderApprovalMs: 20, webhookRetryMs: 20 },
  });
});
test.afterAll(async () => {
  await server.close();
});

const api = () => client(server.baseUrl, server.apiKey);
const alt = () => client(server.baseUrl, server.altApiKey);
const md5 = (bytes: Uint8Array) => `"${createHash('md5').update(bytes).digest('hex')}"`;

test.describe('buckets', () => {
  test('create answers 201 {bucket} with every field; list and get show it', async () => {
    const name = uniqueBucket('fields');
    const created = await api().call('POST', '/storage/buckets', {
      name,
      region: 'ams3',
      public: true,
      versioning: true,
      encryption: 'KMS',
    });
    expect(created.status).toBe(201);
    await expectDocumented('POST /storage/buckets', created);
    const bucket = (created.body as { bucket: Record<string, unknown> }).bucket;
    expect(bucket).toMatchObject({
      name,
      region: 'ams3',
      size: 0,
      object_count: 0,
      public: true,
      versioning: true,
      encryption: 'KMS',
    });
    expect(Date.parse(String(bucket.created_at))).not.toBeNaN();

    const defaults = (await createBucket(server, uniqueBucket('defaults'))).body as { bucket: Record<string, unknown> };
    expect(defaults.bucket).toMatchObject({ public: false, versioning: false, encryption: 'AES256' });

    const list = await api().call('GET', '/storage/buckets');
    expect(list.status).toBe(200);
    await expectDocumented('GET /storage/buckets', list);
    expect((list.body as { buckets: Array<{ name: string }> }).buckets.map((b) => b.name)).toContain(name);

    const one = await api().call('GET', `/storage/buckets/${name}`);
    expect(one.status).toBe(200);
    await expectDocumented('GET /storage/buckets/{bucket_name}', one);
    expect((one.body as { bucket: unknown }).bucket).toEqual(bucket);
  });

  for (const [label, body, field] of [
    ['missing name', { region: 'nyc1' }, 'name'],
    ['missing region', { name: 'cc-no-region-x' }, 'region'],
    ['uppercase name', { name: 'Bad-Name', region: 'nyc1' }, 'name'],
    ['two-character name', { name: 'ab', region: 'nyc1' }, 'name'],
    ['name ending in a hyphen', { name: 'abc-', region: 'nyc1' }, 'name'],
    ['IP address name', { name: '192.168.1.10', region: 'nyc1' }, 'name'],
    ['unknown region', { name: 'cc-region-x', region: 'mars1' }, 'region'],
    ['encryption value', { name: 'cc-enc-x', region: 'nyc1', encryption: 'DES' }, 'encryption'],
    ['public as string', { name: 'cc-pub-x', region: 'nyc1', public: 'yes' }, 'public'],
    ['versioning as number', { name: 'cc-ver-x', region: 'nyc1', versioning: 1 }, 'versioning'],
  ] as const) {
    test(`create refuses ${label} with 422 validation_error and array details`, async () => {
      const response = await api().call('POST', '/storage/buckets', body);
      expect(response.status).toBe(422);
      await expectDocumented('POST /storage/buckets', response);
      const error = errorOf(response.body);
      expect(error.code).toBe('validation_error');
      expect(error.details).toEqual([expect.objectContaining({ field })]);
    });
  }

  test('names are unique across accounts: 409 bucket_already_exists, the first bucket untouched', async () => {
    const name = uniqueBucket('unique');
    await createBucket(server, name);
    await putObject(server, name, 'keep.txt', 'kept');
    for (const who of [alt(), api()]) {
      const again = await who.call('POST', '/storage/buckets', { name, region: 'fra1' });
      expect(again.status).toBe(409);
      await expectDocumented('POST /storage/buckets', again);
      expect(errorOf(again.body)).toMatchObject({ code: 'bucket_already_exists', resource: 'bucket' });
    }
    const still = await api().call('GET', `/storage/buckets/${name}`);
    expect((still.body as { bucket: Record<string, unknown> }).bucket).toMatchObject({
      region: 'nyc1',
      object_count: 1,
    });
    expect((await alt().call('GET', `/storage/buckets/${name}`)).status).toBe(404);
  });

  test('another account sees 404 not_found for every operation on the bucket', async () => {
    const name = uniqueBucket('foreign');
    await createBucket(server, name);
    await putObject(server, name, 'secret.txt', 'mine');
    const checks: Array<[string, string, unknown?]> = [
      ['GET', `/storage/buckets/${name}`],
      ['DELETE', `/storage/buckets/${name}`],
      ['GET', `/storage/buckets/${name}/objects`],
      ['GET', `/storage/buckets/${name}/objects/secret.txt`],
      ['DELETE', `/storage/buckets/${name}/objects/secret.txt`],
      ['POST', `/storage/buckets/${name}/objects/secret.txt/presigned-url`, { method: 'GET' }],
      ['GET', `/storage/buckets/${name}/policy`],
      ['POST', `/storage/buckets/${name}/cdn`, {}],
    ];
    for (const [method, path, body] of checks) {
      const response = await alt().call(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(errorOf(response.body)).toMatchObject({ code: 'not_found', resource: 'bucket' });
    }
    const head = await rawRequest(objectUrl(server, name, 'secret.txt'), { method: 'HEAD', apiKey: server.altApiKey });
    expect(head.status).toBe(404);
    const put = await rawRequest(objectUrl(server, name, 'x.txt'), {
      method: 'PUT',
      apiKey: server.altApiKey,
      body: 'intruder',
    });
    expect(put.status).toBe(404);
    expect(
      ((await api().call('GET', `/storage/buckets/${name}`)).body as { bucket: { object_count: number } }).bucket
        .object_count,
    ).toBe(1);
  });

  test('a non-empty bucket cannot be deleted (409 bucket_not_empty); an empty one is gone after 204', async () => {
    const name = uniqueBucket('delete');
    await createBucket(server, name);
    await putObject(server, name, 'a.txt', 'a');
    const refused = await api().call('DELETE', `/storage/buckets/${name}`);
    expect(refused.status).toBe(409);
    await expectDocumented('DELETE /storage/buckets/{bucket_name}', refused);
    expect(errorOf(refused.body)).toMatchObject({ code: 'bucket_not_empty', resource: 'bucket' });
    expect(
      (await rawRequest(objectUrl(server, name, 'a.txt'), { method: 'GET', apiKey: server.apiKey })).bytes.toString(),
    ).toBe('a');

    expect((await api().call('DELETE', `/storage/buckets/${name}/objects/a.txt`)).status).toBe(204);
    const deleted = await api().call('DELETE', `/storage/buckets/${name}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api().call('GET', `/storage/buckets/${name}`)).status).toBe(404);
    const list = (await api().call('GET', '/storage/buckets')).body as { buckets: Array<{ name: string }> };
    expect(list.buckets.map((b) => b.name)).not.toContain(name);
    // The name is free again, for anyone.
    await createBucket(server, name, server.altApiKey);
  });
});

test.describe('objects', () => {
  let bucket: string;
  test.beforeAll(async () => {
    bucket = uniqueBucket('objects');
    await createBucket(server, bucket);
  });

  for (const [label, bytes] of [
    ['empty', Buffer.alloc(0)],
    ['small binary (every byte value)', Buffer.from(Array.from({ length: 256 }, (_, i) => i))],
    ['12 MiB', bytesOf(12 * 1024 * 1024 + 17, 7)],
  ] as const) {
    test(`round trip is byte-exact: ${label}`, async () => {
      const key = `round/${label.replace(/\W+/g, '-')}.bin`;
      const put = await putObject(server, bucket, key, bytes, { 'content-type': 'application/x-test' });
      expect(put.status).toBe(200);
      expect(put.headers.get('etag')).toBe(md5(bytes));
      expect((put.json as { object: unknown }).object).toMatchObject({
        key,
        size: bytes.length,
        etag: md5(bytes),
        content_type: 'application/x-test',
        storage_class: 'STANDARD',
        bucket,
      });
      const get = await rawRequest(objectUrl(server, bucket, key), { method: 'GET', apiKey: server.apiKey });
      expect(get.status).toBe(200);
      expect(get.bytes.equals(bytes)).toBe(true);
      expect(get.headers.get('content-type')).toBe('application/x-test');
      expect(get.headers.get('content-length')).toBe(String(bytes.length));
      expect(get.headers.get('etag')).toBe(md5(bytes));
      expect(Date.parse(get.headers.get('last-modified') ?? '')).not.toBeNaN();
    });
  }

  test('HEAD reports the metadata in headers and sends no body', async () => {
    const body = 'hello, head';
    await putObject(server, bucket, 'head.txt', body, { 'content-type': 'text/plain; charset=utf-8' });
    const head = await rawRequest(objectUrl(server, bucket, 'head.txt'), { method: 'HEAD', apiKey: server.apiKey });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(head.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(head.headers.get('etag')).toBe(md5(Buffer.from(body)));
    expect(head.headers.get('last-modified')).toMatch(/GMT$/);
    const missing = await rawRequest(objectUrl(server, bucket, 'no-such.txt'), {
      method: 'HEAD',
      apiKey: server.apiKey,
    });
    expect(missing.status).toBe(404);
  });

  test('any Content-Type is stored raw (JSON is not parsed, none means application/octet-stream)', async () => {
    const json = await putObject(server, bucket, 'raw.json', '{"not": valid json', {
      'content-type': 'application/json',
    });
    expect(json.status).toBe(200);
    const back = await rawRequest(objectUrl(server, bucket, 'raw.json'), { method: 'GET', apiKey: server.apiKey });
    expect(back.bytes.toString()).toBe('{"not": valid json');
    expect(back.headers.get('content-type')).toBe('application/json');
    const none = await putObject(server, bucket, 'none.bin', new Uint8Array([1, 2, 3]));
    expect((none.json as { object: { content_type: string } }).object.content_type).toBe('application/octet-stream');
  });

  test('upload replaces an existing key; listing shows size and content type', async () => {
    await putObject(server, bucket, 'replace/me.txt', 'first version', { 'content-type': 'text/plain' });
    await putObject(server, bucket, 'replace/me.txt', 'second', { 'content-type': 'text/markdown' });
    const get = await rawRequest(objectUrl(server, bucket, 'replace/me.txt'), { method: 'GET', apiKey: server.apiKey });
    expect(get.bytes.toString()).toBe('second');
    const list = await api().call('GET', `/storage/buckets/${bucket}/objects?prefix=replace/`);
    await expectDocumented('GET /storage/buckets/{bucket_name}/objects', list);
    const objects = (list.body as { objects: Array<Record<string, unknown>> }).objects;
    expect(objects).toHaveLength(1);
    expect(objects[0]).toMatchObject({
      key: 'replace/me.txt',
      size: 6,
      content_type: 'text/markdown',
      storage_class: 'STANDARD',
      etag: md5(Buffer.from('second')),
    });
  });

  test('DELETE answers 204 and the object is gone; deleting again is 404 not_found (object)', async () => {
    await putObject(server, bucket, 'gone.txt', 'bye');
    const deleted = await rawRequest(objectUrl(server, bucket, 'gone.txt'), {
      method: 'DELETE',
      apiKey: server.apiKey,
    });
    expect(deleted.status).toBe(204);
    expect(deleted.bytes.length).toBe(0);
    const get = await rawRequest(objectUrl(server, bucket, 'gone.txt'), { method: 'GET', apiKey: server.apiKey });
    expect(get.status).toBe(404);
    expect(errorOf(get.json)).toMatchObject({ code: 'not_found', resource: 'object' });
    const again = await rawRequest(objectUrl(server, bucket, 'gone.txt'), { method: 'DELETE', apiKey: server.apiKey });
    expect(again.status).toBe(404);
    const list = await api().call('GET', `/storage/buckets/${bucket}/objects?prefix=gone`);
    expect((list.body as { objects: unknown[] }).objects).toEqual([]);
  });

  test('x-cloud-acl takes the canned ACLs; another value is 422', async () => {
    for (const acl of ['private', 'public-read', 'public-read-write', 'authenticated-read']) {
      const put = await putObject(server, bucket, `acl/${acl}`, 'x', { 'x-cloud-acl': acl });
      expect(put.status).toBe(200);
    }
    const bad = await rawRequest(objectUrl(server, bucket, 'acl/bad'), {
      method: 'PUT',
      apiKey: server.apiKey,
      headers: { 'x-cloud-acl': 'everyone' },
      body: 'x',
    });
    expect(bad.status).toBe(422);
    expect(errorOf(bad.json)).toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'x-cloud-acl' })],
    });
  });

  test('keys are percent-decoded and may hold / and unicode', async () => {
    const put = await rawRequest(`${server.baseUrl}/storage/buckets/${bucket}/objects/dec/b%20c.txt`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: 'spaced',
    });
    expect((put.json as { object: { key: string } }).object.key).toBe('dec/b c.txt');
    await putObject(server, bucket, 'dec/ünï/😀.txt', 'unicode');
    const list = await api().call('GET', `/storage/buckets/${bucket}/objects?prefix=dec/`);
    expect((list.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key)).toEqual([
      'dec/b c.txt',
      'dec/ünï/😀.txt',
    ]);
    const get = await rawRequest(objectUrl(server, bucket, 'dec/ünï/😀.txt'), { method: 'GET', apiKey: server.apiKey });
    expect(get.bytes.toString()).toBe('unicode');
  });

  test('an object over the size limit is refused with 413 payload_too_large and not stored', async () => {
    const options = server.context.options;
    const saved = options.objectLimit;
    options.objectLimit = 1024;
    try {
      const big = await rawRequest(objectUrl(server, bucket, 'too-big.bin'), {
        method: 'PUT',
        apiKey: server.apiKey,
        body: bytesOf(4096, 3),
      });
      expect(big.status).toBe(413);
      expect(errorOf(big.json).code).toBe('payload_too_large');
      // Announced length unknown (chunked): refused while streaming.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(bytesOf(512, i + 1));
          controller.close();
        },
      });
      const chunked = await fetch(objectUrl(server, bucket, 'too-big-chunked.bin'), {
        method: 'PUT',
        headers: { authorization: `Bearer ${server.apiKey}` },
        body: stream,
        duplex: 'half',
      });
      expect(chunked.status).toBe(413);
    } finally {
      options.objectLimit = saved;
    }
    const get = await rawRequest(objectUrl(server, bucket, 'too-big.bin'), { method: 'GET', apiKey: server.apiKey });
    expect(get.status).toBe(404);
  });
});

test.describe('listing', () => {
  // UTF-8 byte order differs from JavaScript's UTF-16 order for '\uFF5E' versus '😀'.
  const keys = ['a', 'b/1', 'b/2', 'b/3/x', 'c', 'd/1', 'e', 'f', '\uFF5E', '😀', 'é'];
  const byteOrder = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  let bucket: string;
  test.beforeAll(async () => {
    bucket = uniqueBucket('listing');
    await createBucket(server, bucket);
    for (const key of keys) await putObject(server, bucket, key, key);
  });

  const list = async (query: string) => {
    const response = await api().call('GET', `/storage/buckets/${bucket}/objects${query}`);
    if (response.status === 200) await expectDocumented('GET /storage/buckets/{bucket_name}/objects', response);
    return response;
  };
  type Listing = {
    objects: Array<{ key: string }>;
    is_truncated: boolean;
    next_marker: string | null;
    common_prefixes: string[];
  };

  test('without parameters: every key in UTF-8 byte order, not truncated, next_marker null', async () => {
    const body = (await list('')).body as Listing;
    expect(body.objects.map((o) => o.key)).toEqual(byteOrder);
    expect(body.is_truncated).toBe(false);
    expect(body.next_marker).toBeNull();
  });

  test('prefix keeps only matching keys; delimiter rolls up common prefixes', async () => {
    expect(((await list('?prefix=b/')).body as Listing).objects.map((o) => o.key)).toEqual(['b/1', 'b/2', 'b/3/x']);
    const rolled = (await list('?delimiter=/')).body as Listing;
    expect(rolled.common_prefixes).toEqual(['b/', 'd/']);
    expect(rolled.objects.map((o) => o.key)).toEqual(byteOrder.filter((k) => !k.includes('/')));
    const nested = (await list('?prefix=b/&delimiter=/')).body as Listing;
    expect(nested.objects.map((o) => o.key)).toEqual(['b/1', 'b/2']);
    expect(nested.common_prefixes).toEqual(['b/3/']);
  });

  test('max_keys and marker page through every key exactly once', async () => {
    const seen: string[] = [];
    let marker: string | null = null;
    for (let page = 0; page < 20; page++) {
      const body = (await list(`?max_keys=3${marker ? `&marker=${encodeURIComponent(marker)}` : ''}`)).body as Listing;
      expect(body.objects.length).toBeLessThanOrEqual(3);
      seen.push(...body.objects.map((o) => o.key));
      if (!body.is_truncated) {
        expect(body.next_marker).toBeNull();
        break;
      }
      expect(body.objects).toHaveLength(3);
      marker = body.next_marker;
      expect(typeof marker).toBe('string');
    }
    expect(seen).toEqual(byteOrder);
  });

  test('paging with a delimiter returns each common prefix once', async () => {
    const entries: string[] = [];
    let marker: string | null = null;
    for (let page = 0; page < 20; page++) {
      const body = (await list(`?delimiter=/&max_keys=2${marker ? `&marker=${encodeURIComponent(marker)}` : ''}`))
        .body as Listing;
      entries.push(...body.objects.map((o) => o.key), ...body.common_prefixes);
      if (!body.is_truncated) break;
      marker = body.next_marker;
    }
    expect(entries.sort()).toEqual([...byteOrder.filter((k) => !k.includes('/')), 'b/', 'd/'].sort());
  });

  test('marker starts after that key', async () => {
    const body = (await list('?marker=c')).body as Listing;
    expect(body.objects.map((o) => o.key)).toEqual(
      byteOrder.filter((k) => Buffer.compare(Buffer.from(k), Buffer.from('c')) > 0),
    );
  });

  for (const bad of ['0', '1001', 'ten', '-1', '2.5']) {
    test(`max_keys=${bad} is 422 validation_error`, async () => {
      const response = await list(`?max_keys=${bad}`);
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field: 'max_keys' })],
      });
    });
  }
});

test.describe('key path tricks', () => {
  let bucket: string;
  test.beforeAll(async () => {
    bucket = uniqueBucket('tricks');
    await createBucket(server, bucket);
  });

  test('dot segments, NUL, empty, over-long and broken keys are 4xx with the envelope, never 5xx, never outside the data dir', async () => {
    const parent = dirname(server.context.options.dataDir);
    const before = new Set(await readdir(parent));
    const base = `/v1/storage/buckets/${bucket}/objects/`;
    const tricks = [
      '../../../escape-1',
      '%2e%2e/%2e%2e/escape-2',
      '%2E%2E%2Fescape-3',
      'a/../../escape-4',
      './escape-5',
      'a/./b',
      'nul%00byte',
      '',
      'x'.repeat(1025),
      'bad%E0%A4%A',
      '%ff%fe',
    ];
    for (const trick of tricks) {
      for (const method of ['PUT', 'GET', 'HEAD', 'DELETE']) {
        const response = await exactPathRequest(
          server,
          method,
          `${base}${trick}`,
          method === 'PUT' ? 'payload' : undefined,
        );
        expect(response.status, `${method} ${trick.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${method} ${trick.slice(0, 40)}`).toBeLessThan(500);
        if (method !== 'HEAD')
          expect(typeof errorOf(response.json).code, `${method} ${trick.slice(0, 40)}`).toBe('string');
      }
    }
    const after = await readdir(parent);
    expect(after.filter((name) => name.startsWith('escape') && !before.has(name))).toEqual([]);
    // Nothing was stored under any of those keys.
    const list = await api().call('GET', `/storage/buckets/${bucket}/objects`);
    expect((list.body as { objects: unknown[] }).objects).toEqual([]);
  });

  test('dots inside a segment and a 1024-byte key are fine', async () => {
    for (const key of ['a/..b/c..', '...', 'k'.repeat(1024)]) {
      const put = await putObject(server, bucket, key, key.slice(0, 10));
      expect(put.status, key.slice(0, 20)).toBe(200);
    }
  });
});

test.describe('bucket policy', () => {
  test('defaults to an empty policy; PUT answers {policy} and GET returns it exactly', async () => {
    const name = uniqueBucket('policy');
    await createBucket(server, name);
    const initial = await api().call('GET', `/storage/buckets/${name}/policy`);
    expect(initial.status).toBe(200);
    await expectDocumented('GET /storage/buckets/{bucket_name}/policy', initial);
    expect(initial.body).toEqual({ policy: { Version: '2012-10-17', Statement: [] } });

    const document = {
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'PublicRead',
          Effect: 'Allow',
          Principal: '*',
          Action: 's3:GetObject',
          Resource: `arn:aws:s3:::${name}/*`,
        },
        {
          Effect: 'Deny',
          Principal: { AWS: ['arn:aws:iam::123:root'] },
          Action: ['s3:DeleteObject', 's3:PutObject'],
          Resource: [`arn:aws:s3:::${name}`, `arn:aws:s3:::${name}/logs/*`],
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    };
    const put = await api().call('PUT', `/storage/buckets/${name}/policy`, document);
    expect(put.status).toBe(200);
    await expectDocumented('PUT /storage/buckets/{bucket_name}/policy', put);
    expect(put.body).toEqual({ policy: document });
    const get = await api().call('GET', `/storage/buckets/${name}/policy`);
    expect(get.body).toEqual({ policy: document });
  });

  const statement = (bucket: string) => ({
    Effect: 'Allow',
    Principal: '*',
    Action: 's3:GetObject',
    Resource: `arn:aws:s3:::${bucket}/*`,
  });
  for (const [label, make, field] of [
    ['missing Version', (b: string) => ({ Statement: [statement(b)] }), 'Version'],
    ['unknown Version', (b: string) => ({ Version: '2024-01-01', Statement: [statement(b)] }), 'Version'],
    ['missing Statement', () => ({ Version: '2012-10-17' }), 'Statement'],
    ['empty Statement', () => ({ Version: '2012-10-17', Statement: [] }), 'Statement'],
    ['Statement not an array', (b: string) => ({ Version: '2012-10-17', Statement: statement(b) }), 'Statement'],
    [
      'bad Effect',
      (b: string) => ({ Version: '2012-10-17', Statement: [{ ...statement(b), Effect: 'Maybe' }] }),
      'Statement[0].Effect',
    ],
    [
      'missing Principal',
      (b: string) => ({ Version: '2012-10-17', Statement: [{ ...statement(b), Principal: undefined }] }),
      'Statement[0].Principal',
    ],
    [
      'Action as number',
      (b: string) => ({ Version: '2012-10-17', Statement: [{ ...statement(b), Action: 5 }] }),
      'Statement[0].Action',
    ],
    [
      'Resource of another bucket',
      (b: string) => ({
        Version: '2012-10-17',
        Statement: [{ ...statement(b), Resource: 'arn:aws:s3:::someone-else/*' }],
      }),
      'Statement[0].Resource',
    ],
  ] as const) {
    test(`PUT policy refuses ${label} with 422 and keeps the old policy`, async () => {
      const name = uniqueBucket('polbad');
      await createBucket(server, name);
      const response = await api().call('PUT', `/storage/buckets/${name}/policy`, make(name));
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field })],
      });
      expect((await api().call('GET', `/storage/buckets/${name}/policy`)).body).toEqual({
        policy: { Version: '2012-10-17', Statement: [] },
      });
    });
  }
});

test.describe('CDN', () => {
  test('enable answers {cdn}; purge before enabling is 409 conflict, after it {purge} completed', async () => {
    const name = uniqueBucket('cdn');
    await createBucket(server, name);
    const early = await api().call('POST', `/storage/buckets/${name}/cdn/purge`, {});
    expect(early.status).toBe(409);
    expect(errorOf(early.body)).toMatchObject({ code: 'conflict', resource: 'cdn' });

    const enabled = await api().call('POST', `/storage/buckets/${name}/cdn`, {});
    expect(enabled.status).toBe(200);
    await expectDocumented('POST /storage/buckets/{bucket_name}/cdn', enabled);
    expect((enabled.body as { cdn: unknown }).cdn).toMatchObject({
      bucket: name,
      enabled: true,
      endpoint: `${name}.cdn.example.net`,
      custom_domain: null,
      cache_ttl: 3600,
    });

    const custom = await api().call('POST', `/storage/buckets/${name}/cdn`, {
      custom_domain: 'static.example.com',
      cache_ttl: 0,
    });
    expect((custom.body as { cdn: unknown }).cdn).toMatchObject({ custom_domain: 'static.example.com', cache_ttl: 0 });

    const all = await api().call('POST', `/storage/buckets/${name}/cdn/purge`, {});
    expect(all.status).toBe(200);
    await expectDocumented('POST /storage/buckets/{bucket_name}/cdn/purge', all);
    expect((all.body as { purge: unknown }).purge).toMatchObject({ bucket: name, paths: [], status: 'completed' });
    const some = await api().call('POST', `/storage/buckets/${name}/cdn/purge`, { paths: ['/index.html', '/img/*'] });
    expect((some.body as { purge: { paths: string[] } }).purge.paths).toEqual(['/index.html', '/img/*']);
  });

  for (const [label, path, body, field] of [
    ['cache_ttl as string', 'cdn', { cache_ttl: '60' }, 'cache_ttl'],
    ['negative cache_ttl', 'cdn', { cache_ttl: -1 }, 'cache_ttl'],
    ['cache_ttl over a year', 'cdn', { cache_ttl: 31_536_001 }, 'cache_ttl'],
    ['custom_domain not a host name', 'cdn', { custom_domain: 'not a host' }, 'custom_domain'],
    ['paths not an array', 'cdn/purge', { paths: '/x' }, 'paths'],
    ['a path without leading /', 'cdn/purge', { paths: ['x'] }, 'paths'],
  ] as const) {
    test(`CDN refuses ${label} with 422`, async () => {
      const name = uniqueBucket('cdnbad');
      await createBucket(server, name);
      await api().call('POST', `/storage/buckets/${name}/cdn`, {});
      const response = await api().call('POST', `/storage/buckets/${name}/${path}`, body);
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field })],
      });
    });
  }
});

test.describe('access keys', () => {
  test('creation shows the secret once; the listing never does; the S3 side finds the key', async () => {
    const bucket = uniqueBucket('keys');
    await createBucket(server, bucket);
    const created = await api().call('POST', '/storage/access-keys', {
      name: 'backup',
      permissions: ['read', 'write'],
      bucket_access: [bucket],
    });
    expect(created.status).toBe(201);
    await expectDocumented('POST /storage/access-keys', created);
    const key = (created.body as { access_key: Record<string, unknown> }).access_key;
    expect(key).toMatchObject({ name: 'backup', permissions: ['read', 'write'], bucket_access: [bucket] });
    expect(key.id).toMatch(/^ak_/);
    expect(key.access_key_id).toMatch(/^CCAK[A-Z0-9]{16}$/);
    expect(key.secret_access_key).toMatch(/^[A-Za-z0-9+/]{40}$/);

    const list = await api().call('GET', '/storage/access-keys');
    expect(list.status).toBe(200);
    await expectDocumented('GET /storage/access-keys', list);
    const listed = (list.body as { access_keys: Array<Record<string, unknown>> }).access_keys.find(
      (k) => k.id === key.id,
    );
    expect(listed).toMatchObject({ name: 'backup', access_key_id: key.access_key_id });
    expect(listed).not.toHaveProperty('secret_access_key');
    expect(list.text).not.toContain(String(key.secret_access_key));

    const stored = objectStoreOf(server.context).accessKeyById(String(key.access_key_id));
    expect(stored?.secret_access_key).toBe(key.secret_access_key);
    // Other accounts do not see it.
    const other = await alt().call('GET', '/storage/access-keys');
    expect(other.text).not.toContain(String(key.access_key_id));
    // bucket_access is optional: null means every bucket.
    const open = await api().call('POST', '/storage/access-keys', { name: 'all', permissions: ['read'] });
    expect((open.body as { access_key: { bucket_access: unknown } }).access_key.bucket_access).toBeNull();
  });

  for (const [label, body, field] of [
    ['missing name', { permissions: ['read'] }, 'name'],
    ['missing permissions', { name: 'k' }, 'permissions'],
    ['empty permissions', { name: 'k', permissions: [] }, 'permissions'],
    ['unknown permission', { name: 'k', permissions: ['admin'] }, 'permissions'],
    ['permissions as string', { name: 'k', permissions: 'read' }, 'permissions'],
    [
      'bucket_access naming an unknown bucket',
      { name: 'k', permissions: ['read'], bucket_access: ['cc-no-such-bucket-zz'] },
      'bucket_access',
    ],
  ] as const) {
    test(`access key creation refuses ${label} with 422`, async () => {
      const response = await api().call('POST', '/storage/access-keys', body);
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field })],
      });
    });
  }

  test("bucket_access may not name another account's bucket", async () => {
    const foreign = uniqueBucket('foreignkey');
    await createBucket(server, foreign, server.altApiKey);
    const response = await api().call('POST', '/storage/access-keys', {
      name: 'k',
      permissions: ['read'],
      bucket_access: [foreign],
    });
    expect(response.status).toBe(422);
  });
});

test.describe('usage', () => {
  test('counts stored bytes, downloaded bytes and requests; the summary is the sum of the records', async () => {
    const fresh = await startReferenceServer();
    try {
      const who = client(fresh.baseUrl, fresh.apiKey);
      const bucket = uniqueBucket('usage');
      await createBucket(fresh, bucket);
      await putObject(fresh, bucket, 'one.bin', bytesOf(1000, 1));
      await putObject(fresh, bucket, 'two.bin', bytesOf(500, 2));
      for (let i = 0; i < 3; i++)
        await rawRequest(objectUrl(fresh, bucket, 'one.bin'), { method: 'GET', apiKey: fresh.apiKey });
      const today = new Date().toISOString().slice(0, 10);
      const response = await who.call('GET', `/storage/usage?from_date=${today}&to_date=${today}`);
      expect(response.status).toBe(200);
      await expectDocumented('GET /storage/usage', response);
      const body = response.body as { usage: Array<Record<string, number | string>>; summary: Record<string, number> };
      expect(body.usage).toHaveLength(1);
      expect(body.usage[0]).toMatchObject({ date: today, storage_used: 1500, bandwidth_used: 3000 });
      // create bucket, 2 uploads, 3 downloads (this usage request is counted after it answers).
      expect(body.usage[0]?.requests).toBe(6);
      expect(body.summary).toEqual({
        total_storage: 1500,
        total_bandwidth: 3000,
        total_requests: 6,
        total_cost: body.usage[0]?.cost,
      });

      const month = await who.call('GET', '/storage/usage');
      const records = (month.body as typeof body).usage;
      const summary = (month.body as typeof body).summary;
      expect(summary.total_storage).toBe(records.reduce((s, r) => s + Number(r.storage_used), 0));
      expect(summary.total_bandwidth).toBe(records.reduce((s, r) => s + Number(r.bandwidth_used), 0));
      expect(summary.total_requests).toBe(records.reduce((s, r) => s + Number(r.requests), 0));
      expect(summary.total_cost).toBeCloseTo(
        records.reduce((s, r) => s + Number(r.cost), 0),
        9,
      );
      expect(records.at(-1)?.date).toBe(today);

      const filtered = await who.call('GET', `/storage/usage?bucket=${bucket}&from_date=${today}`);
      expect((filtered.body as typeof body).usage[0]).toMatchObject({ storage_used: 1500, bandwidth_used: 3000 });

      // The other account's usage is its own.
      const other = await client(fresh.baseUrl, fresh.altApiKey).call('GET', `/storage/usage?from_date=${today}`);
      expect((other.body as typeof body).summary).toMatchObject({ total_storage: 0, total_bandwidth: 0 });
    } finally {
      await fresh.close();
    }
  });

  for (const [label, query, field] of [
    ['from_date not a date', '?from_date=yesterday', 'from_date'],
    ['to_date before from_date', '?from_date=2025-02-10&to_date=2025-02-01', 'to_date'],
    ['a period over a year', '?from_date=2020-01-01&to_date=2025-01-01', 'to_date'],
    ['an unknown bucket', '?bucket=cc-never-existed-zz', 'bucket'],
  ] as const) {
    test(`usage refuses ${label} with 422`, async () => {
      const response = await api().call('GET', `/storage/usage${query}`);
      expect(response.status).toBe(422);
      expect(errorOf(response.body)).toMatchObject({
        code: 'validation_error',
        details: [expect.objectContaining({ field })],
      });
    });
  }
});
