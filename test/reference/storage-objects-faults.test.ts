/**
 * Each object-storage fault is observable: with the fault on, the behaviour its requirement
 * demands is broken; the same steps on a server without faults pass (storage-objects*.test.ts).
 */
import { expect, test } from '../base.ts';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { STORAGE_OBJECT_FAULTS } from '../../reference/areas/storage-objects/faults.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
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

/** A bucket whose key `k` was uploaded as "old" (text/plain), then over again as "new!!" (text/csv). */
async function overwritten(server: RunningReference): Promise<string> {
  const bucket = uniqueBucket('over');
  await createBucket(server, bucket);
  await putObject(server, bucket, 'k', 'old', { 'content-type': 'text/plain' });
  await putObject(server, bucket, 'k', 'new!!', { 'content-type': 'text/csv' });
  return bucket;
}

const observations: Record<string, (server: RunningReference) => Promise<void>> = {
  async 'object-key-decoded-twice'(server) {
    const bucket = uniqueBucket('keys');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'a%20b.txt', 'x');
    const listed = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects`);
    expect((listed.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key)).toEqual(['a b.txt']);
  },

  async 'object-presigned-suffix-refused'(server) {
    const bucket = uniqueBucket('suffix');
    await createBucket(server, bucket);
    expect((await putObject(server, bucket, 'x/presigned-url', 'x')).status).toBe(404);
  },

  async 'multipart-unknown-upload-422'(server) {
    const bucket = uniqueBucket('unknown');
    await createBucket(server, bucket);
    const res = await rawRequest(`${objectUrl(server, bucket, 'k')}?partNumber=1&uploadId=none`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: 'x',
    });
    expect([res.status, errorOf(res.json).code]).toEqual([422, 'validation_error']);
  },

  async 'multipart-part-number-unbounded'(server) {
    const bucket = uniqueBucket('parts');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'k');
    const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const res = await rawRequest(`${url}?partNumber=10001&uploadId=${uploadId}`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: 'x',
    });
    expect(res.status).toBe(200);
  },

  async 'presign-url-localhost'(server) {
    const bucket = uniqueBucket('host');
    await createBucket(server, bucket);
    const res = await rawRequest(`${objectUrl(server, bucket, 'k')}/presigned-url`, {
      method: 'POST',
      apiKey: server.apiKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET' }),
    });
    expect(new URL((res.json as { url: string }).url).hostname).toBe('localhost');
  },

  async 'bucket-taken-422'(server) {
    const bucket = uniqueBucket('taken');
    await createBucket(server, bucket);
    const api = client(server.baseUrl, server.apiKey);
    const again = await api.call('POST', '/storage/buckets', { name: bucket, region: 'nyc1' });
    expect([again.status, errorOf(again.body).code]).toEqual([422, 'bucket_already_exists']);
  },

  async 'bucket-foreign-name-403'(server) {
    const bucket = uniqueBucket('foreign');
    await createBucket(server, bucket);
    const alt = client(server.baseUrl, server.altApiKey);
    const taken = await alt.call('POST', '/storage/buckets', { name: bucket, region: 'nyc1' });
    expect([taken.status, errorOf(taken.body).code]).toEqual([403, 'bucket_already_exists']);
  },

  async 'bucket-name-not-unique'(server) {
    const name = uniqueBucket('dup');
    await createBucket(server, name);
    const again = await client(server.baseUrl, server.altApiKey).call('POST', '/storage/buckets', {
      name,
      region: 'nyc1',
    });
    expect(again.status).toBe(201);
  },

  async 'bucket-delete-non-empty'(server) {
    const name = uniqueBucket('full');
    await createBucket(server, name);
    await putObject(server, name, 'a.txt', 'a');
    expect((await client(server.baseUrl, server.apiKey).call('DELETE', `/storage/buckets/${name}`)).status).toBe(204);
  },

  async 'multipart-parts-out-of-order'(server) {
    const bucket = uniqueBucket('order');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'joined.bin');
    const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const first = bytesOf(5 * 1024 * 1024, 1);
    const last = Buffer.from('tail');
    const etag2 = (
      await rawRequest(`${url}?partNumber=2&uploadId=${uploadId}`, { method: 'PUT', apiKey: server.apiKey, body: last })
    ).headers.get('etag')!;
    const etag1 = (
      await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, {
        method: 'PUT',
        apiKey: server.apiKey,
        body: first,
      })
    ).headers.get('etag')!;
    const done = await rawRequest(`${url}?uploadId=${uploadId}`, {
      method: 'POST',
      apiKey: server.apiKey,
      body: completionXml([
        { number: 1, etag: etag1 },
        { number: 2, etag: etag2 },
      ]),
    });
    expect(done.status).toBe(200);
    const get = await rawRequest(url, { method: 'GET', apiKey: server.apiKey });
    expect(get.bytes.equals(Buffer.concat([first, last]))).toBe(false);
    expect(get.bytes.subarray(0, 4).toString()).toBe('tail');
  },

  async 'presigned-signature-unchecked'(server) {
    const bucket = uniqueBucket('sig');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'other.txt', 'not yours');
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/mine.txt/presigned-url`,
      { method: 'GET' },
    );
    const url = (presign.body as { url: string }).url.replace('/mine.txt?', '/other.txt?');
    const response = await rawRequest(url, { method: 'GET', apiKey: null });
    expect(response.status).toBe(200);
    expect(response.bytes.toString()).toBe('not yours');
  },

  async 'presigned-expiry-unchecked'(server) {
    const bucket = uniqueBucket('exp');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'old.txt', 'still here');
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/old.txt/presigned-url`,
      { method: 'GET', expires_in: 1 },
    );
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await rawRequest((presign.body as { url: string }).url, { method: 'GET', apiKey: null });
    expect(response.status).toBe(200);
  },

  async 'object-listing-marker-ignored'(server) {
    const bucket = uniqueBucket('marker');
    await createBucket(server, bucket);
    for (const key of ['a', 'b', 'c']) await putObject(server, bucket, key, key);
    const list = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects?marker=b`);
    expect((list.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key)).toContain('a');
  },

  async 'object-head-no-length'(server) {
    const bucket = uniqueBucket('head');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'h.txt', 'twelve bytes');
    const head = await rawRequest(objectUrl(server, bucket, 'h.txt'), { method: 'HEAD', apiKey: server.apiKey });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).not.toBe('12');
  },

  async 'object-listing-prefix-ignored'(server) {
    const bucket = uniqueBucket('prefix');
    await createBucket(server, bucket);
    for (const key of ['logs/1', 'data/1']) await putObject(server, bucket, key, key);
    const list = await client(server.baseUrl, server.apiKey).call(
      'GET',
      `/storage/buckets/${bucket}/objects?prefix=logs/`,
    );
    expect((list.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key)).toContain('data/1');
  },

  async 'object-listing-prefix-first-page-only'(server) {
    const bucket = uniqueBucket('prefix-page');
    await createBucket(server, bucket);
    for (const key of ['logs/1', 'logs/2', 'z/1']) await putObject(server, bucket, key, key);
    const api = client(server.baseUrl, server.apiKey);
    const keys = async (query: string): Promise<string[]> =>
      (
        (await api.call('GET', `/storage/buckets/${bucket}/objects?${query}`)).body as {
          objects: Array<{ key: string }>;
        }
      ).objects.map((o) => o.key);
    expect(await keys('prefix=logs/&max_keys=1')).toEqual(['logs/1']);
    expect(await keys('prefix=logs/&max_keys=5&marker=logs/1')).toContain('z/1');
  },

  async 'object-listing-truncated-off-by-one'(server) {
    const bucket = uniqueBucket('truncated');
    await createBucket(server, bucket);
    for (const key of ['a', 'b', 'c']) await putObject(server, bucket, key, key);
    const api = client(server.baseUrl, server.apiKey);
    const page = async (maxKeys: number): Promise<boolean> =>
      (
        (await api.call('GET', `/storage/buckets/${bucket}/objects?max_keys=${maxKeys}`)).body as {
          is_truncated: boolean;
        }
      ).is_truncated;
    expect(await page(1)).toBe(true);
    expect(await page(2)).toBe(false);
  },

  async 'object-listing-max-keys-ignored-with-prefix'(server) {
    const bucket = uniqueBucket('maxkeys');
    await createBucket(server, bucket);
    for (const key of ['a', 'a1', 'b']) await putObject(server, bucket, key, key);
    const api = client(server.baseUrl, server.apiKey);
    const count = async (query: string): Promise<number> =>
      ((await api.call('GET', `/storage/buckets/${bucket}/objects?${query}`)).body as { objects: unknown[] }).objects
        .length;
    expect(await count('max_keys=1')).toBe(1);
    expect(await count('prefix=a&max_keys=1')).toBe(2);
  },

  async 'object-listing-marker-skips-extension'(server) {
    const bucket = uniqueBucket('extension');
    await createBucket(server, bucket);
    for (const key of ['a', 'a1', 'b']) await putObject(server, bucket, key, key);
    const api = client(server.baseUrl, server.apiKey);
    const keys = (
      (await api.call('GET', `/storage/buckets/${bucket}/objects?marker=a`)).body as { objects: Array<{ key: string }> }
    ).objects.map((o) => o.key);
    expect(keys).toEqual(['b']);
  },

  async 'object-get-stale-after-reupload'(server) {
    const bucket = uniqueBucket('stale');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'k', 'old');
    const url = objectUrl(server, bucket, 'k');
    expect((await rawRequest(url, { method: 'DELETE', apiKey: server.apiKey })).status).toBe(204);
    await putObject(server, bucket, 'k', 'new');
    expect((await rawRequest(url, { method: 'GET', apiKey: server.apiKey })).bytes.toString()).toBe('old');
  },

  async 'object-listing-stale-after-overwrite'(server) {
    const bucket = await overwritten(server);
    const listing = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects`);
    expect((listing.body as { objects: unknown[] }).objects).toMatchObject([
      { key: 'k', size: 3, content_type: 'text/plain' },
    ]);
    const head = await rawRequest(objectUrl(server, bucket, 'k'), { method: 'HEAD', apiKey: server.apiKey });
    expect(head.headers.get('content-length')).toBe('5');
  },

  async 'object-head-stale-after-overwrite'(server) {
    const bucket = await overwritten(server);
    const head = await rawRequest(objectUrl(server, bucket, 'k'), { method: 'HEAD', apiKey: server.apiKey });
    expect([head.headers.get('content-length'), head.headers.get('content-type')]).toEqual(['3', 'text/plain']);
  },

  async 'object-get-type-stale-after-overwrite'(server) {
    const bucket = await overwritten(server);
    const get = await rawRequest(objectUrl(server, bucket, 'k'), { method: 'GET', apiKey: server.apiKey });
    expect([get.bytes.toString(), get.headers.get('content-type')]).toEqual(['new!!', 'text/plain']);
  },

  async 'multipart-content-type-lost'(server) {
    const bucket = uniqueBucket('ctype');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'page.html');
    const init = await rawRequest(`${url}?uploads`, {
      method: 'POST',
      apiKey: server.apiKey,
      headers: { 'content-type': 'text/html' },
    });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const part = await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: '<p>hi</p>',
    });
    await rawRequest(`${url}?uploadId=${uploadId}`, {
      method: 'POST',
      apiKey: server.apiKey,
      body: completionXml([{ number: 1, etag: part.headers.get('etag')! }]),
    });
    const get = await rawRequest(url, { method: 'GET', apiKey: server.apiKey });
    expect(get.headers.get('content-type')).not.toBe('text/html');
  },

  async 'bucket-versioning-dropped'(server) {
    const name = uniqueBucket('ver');
    await createBucket(server, name, server.apiKey, { versioning: true });
    const get = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${name}`);
    expect((get.body as { bucket: { versioning: boolean } }).bucket.versioning).toBe(false);
  },

  async 'bucket-size-string'(server) {
    const name = uniqueBucket('size');
    await client(server.baseUrl, server.apiKey).call('POST', '/storage/buckets', { name, region: 'nyc1' });
    const get = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${name}`);
    expect((get.body as { bucket: { size: unknown } }).bucket.size).toBe('0');
  },

  async 'object-overwrite-ignored'(server) {
    const bucket = uniqueBucket('over');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'k.txt', 'first');
    expect((await putObject(server, bucket, 'k.txt', 'second')).status).toBe(200);
    expect(
      (await rawRequest(objectUrl(server, bucket, 'k.txt'), { method: 'GET', apiKey: server.apiKey })).bytes.toString(),
    ).toBe('first');
  },

  async 'bucket-policy-statement-dropped'(server) {
    const bucket = uniqueBucket('pol');
    await createBucket(server, bucket);
    const api = client(server.baseUrl, server.apiKey);
    const policy = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/*` }],
    };
    expect((await api.call('PUT', `/storage/buckets/${bucket}/policy`, policy)).status).toBe(200);
    expect((await api.call('GET', `/storage/buckets/${bucket}/policy`)).body).toEqual({
      policy: { Version: '2012-10-17', Statement: [] },
    });
  },

  async 'usage-summary-cost-missing'(server) {
    const usage = await client(server.baseUrl, server.apiKey).call('GET', '/storage/usage');
    expect(usage.status).toBe(200);
    expect((usage.body as { summary: Record<string, unknown> }).summary).not.toHaveProperty('total_cost');
  },

  async 'usage-bucket-filter-refused'(server) {
    const bucket = uniqueBucket('use');
    await createBucket(server, bucket);
    expect((await client(server.baseUrl, server.apiKey).call('GET', `/storage/usage?bucket=${bucket}`)).status).toBe(
      422,
    );
  },

  async 'bucket-exists-wrong-code'(server) {
    const name = uniqueBucket('code');
    await createBucket(server, name);
    const again = await client(server.baseUrl, server.apiKey).call('POST', '/storage/buckets', {
      name,
      region: 'nyc1',
    });
    expect(errorOf(again.body).code).toBe('conflict');
  },

  async 'object-listing-storage-class-missing'(server) {
    const bucket = uniqueBucket('class');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'a', 'a');
    const list = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects`);
    expect((list.body as { objects: Array<Record<string, unknown>> }).objects[0]).not.toHaveProperty('storage_class');
  },

  async 'object-listing-never-truncated'(server) {
    const bucket = uniqueBucket('trunc');
    await createBucket(server, bucket);
    for (const key of ['a', 'b']) await putObject(server, bucket, key, key);
    const list = await client(server.baseUrl, server.apiKey).call(
      'GET',
      `/storage/buckets/${bucket}/objects?max_keys=1`,
    );
    expect((list.body as { is_truncated: boolean }).is_truncated).toBe(false);
  },

  async 'object-listing-delimiter-refused'(server) {
    const bucket = uniqueBucket('delim');
    await createBucket(server, bucket);
    expect(
      (await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects?delimiter=/`))
        .status,
    ).toBe(422);
  },

  async 'object-listing-content-type-default'(server) {
    const bucket = uniqueBucket('ltype');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'a.csv', 'a,b', { 'content-type': 'text/csv' });
    const list = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects`);
    expect((list.body as { objects: Array<{ content_type: string }> }).objects[0]!.content_type).toBe(
      'application/octet-stream',
    );
  },

  async 'object-acl-refused'(server) {
    const bucket = uniqueBucket('acl');
    await createBucket(server, bucket);
    expect((await putObject(server, bucket, 'a', 'a', { 'x-cloud-acl': 'private' })).status).toBe(422);
  },

  async 'object-get-content-type-default'(server) {
    const bucket = uniqueBucket('gtype');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'a.csv', 'a,b', { 'content-type': 'text/csv' });
    const get = await rawRequest(objectUrl(server, bucket, 'a.csv'), { method: 'GET', apiKey: server.apiKey });
    expect(get.headers.get('content-type')).toBe('application/octet-stream');
  },

  async 'object-delete-ghost'(server) {
    const bucket = uniqueBucket('ghost');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'g.txt', 'boo');
    expect(
      (await rawRequest(objectUrl(server, bucket, 'g.txt'), { method: 'DELETE', apiKey: server.apiKey })).status,
    ).toBe(204);
    expect(
      (await rawRequest(objectUrl(server, bucket, 'g.txt'), { method: 'GET', apiKey: server.apiKey })).bytes.toString(),
    ).toBe('boo');
  },

  async 'multipart-initiate-wrapped'(server) {
    const bucket = uniqueBucket('wrap');
    await createBucket(server, bucket);
    const init = await rawRequest(`${objectUrl(server, bucket, 'w.bin')}?uploads`, {
      method: 'POST',
      apiKey: server.apiKey,
    });
    expect(init.json).toHaveProperty('upload.upload_id');
  },

  async 'multipart-part-etag-missing'(server) {
    const bucket = uniqueBucket('petag');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'p.bin');
    const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const part = await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: 'x',
    });
    expect(part.status).toBe(200);
    expect(part.headers.get('etag')).toBeNull();
    expect(part.json).not.toHaveProperty('part.etag');
  },

  async 'multipart-complete-xml-refused'(server) {
    const bucket = uniqueBucket('xml');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'x.bin');
    const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const part = await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, {
      method: 'PUT',
      apiKey: server.apiKey,
      body: 'x',
    });
    const body = completionXml([{ number: 1, etag: part.headers.get('etag')! }]);
    const done = await rawRequest(`${url}?uploadId=${uploadId}`, {
      method: 'POST',
      apiKey: server.apiKey,
      headers: { 'content-type': 'application/xml' },
      body,
    });
    expect(done.status).toBe(422);
  },

  async 'presigned-method-missing'(server) {
    const bucket = uniqueBucket('pmeth');
    await createBucket(server, bucket);
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/a/presigned-url`,
      { method: 'GET' },
    );
    expect(presign.body).not.toHaveProperty('method');
  },

  async 'presigned-default-expiry-short'(server) {
    const bucket = uniqueBucket('pdef');
    await createBucket(server, bucket);
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/a/presigned-url`,
      { method: 'GET' },
    );
    const seconds = (Date.parse((presign.body as { expires_at: string }).expires_at) - Date.now()) / 1000;
    expect(seconds).toBeLessThan(1000);
  },

  async 'presigned-signature-param-renamed'(server) {
    const bucket = uniqueBucket('psig');
    await createBucket(server, bucket);
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/a/presigned-url`,
      { method: 'GET' },
    );
    expect(new URL((presign.body as { url: string }).url).searchParams.has('signature')).toBe(false);
  },

  async 'presigned-url-refused'(server) {
    const bucket = uniqueBucket('pref');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'a', 'a');
    const presign = await client(server.baseUrl, server.apiKey).call(
      'POST',
      `/storage/buckets/${bucket}/objects/a/presigned-url`,
      { method: 'GET' },
    );
    expect((await rawRequest((presign.body as { url: string }).url, { method: 'GET', apiKey: null })).status).toBe(401);
  },
};

/**
 * A reference server for one test, with `fetch` on a connection pool of its own. The server's
 * close() closes the connections idle at that moment only; one whose response is still finishing
 * (a streamed object GET whose bytes this process has already read) then stays open until the
 * 72 s keep-alive timeout. Closing the client's pool first ends those connections at once.
 */
async function withServer(faults: string[], body: (server: RunningReference) => Promise<void>): Promise<void> {
  const previous = getGlobalDispatcher();
  const agent = new Agent();
  setGlobalDispatcher(agent);
  const server = await startReferenceServer({ faults });
  try {
    await body(server);
  } finally {
    setGlobalDispatcher(previous);
    await agent.close();
    await server.close();
  }
}

test('every fault of the area has an observation, and every observation a fault', () => {
  expect(Object.keys(observations).sort()).toEqual(STORAGE_OBJECT_FAULTS.map((fault) => fault.name).sort());
});

for (const fault of STORAGE_OBJECT_FAULTS) {
  test(`fault ${fault.name} (${fault.requirement}) is observable`, async () => {
    const observe = observations[fault.name];
    if (!observe) throw new Error(`no observation for ${fault.name}`);
    await withServer([fault.name], observe);
  });
}

test('the same observations fail on a server without faults', async () => {
  await withServer([], async (server) => {
    for (const [name, observe] of Object.entries(observations)) {
      let held = true;
      try {
        await observe(server);
      } catch {
        held = false;
      }
      expect(held, `${name} must not be observable without the fault`).toBe(false);
    }
  });
});
