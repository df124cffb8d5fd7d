/**
 * Each object-storage fault is observable: with the fault on, the behaviour its requirement
 * demands is broken; the same steps on a server without faults pass (storage-objects*.test.ts).
 */
import { expect, test } from '@playwright/test';
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { STORAGE_OBJECT_FAULTS } from '../../reference/areas/storage-objects/faults.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
import { bytesOf, completionXml, createBucket, objectUrl, putObject, rawRequest, uniqueBucket } from './storage-objects-support.ts';

const observations: Record<string, (server: RunningReference) => Promise<void>> = {
  async 'bucket-name-not-unique'(server) {
    const name = uniqueBucket('dup');
    await createBucket(server, name);
    const again = await client(server.baseUrl, server.altApiKey).call('POST', '/storage/buckets', { name, region: 'nyc1' });
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
    const etag2 = (await rawRequest(`${url}?partNumber=2&uploadId=${uploadId}`, { method: 'PUT', apiKey: server.apiKey, body: last })).headers.get('etag')!;
    const etag1 = (await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, { method: 'PUT', apiKey: server.apiKey, body: first })).headers.get('etag')!;
    const done = await rawRequest(`${url}?uploadId=${uploadId}`, { method: 'POST', apiKey: server.apiKey, body: completionXml([{ number: 1, etag: etag1 }, { number: 2, etag: etag2 }]) });
    expect(done.status).toBe(200);
    const get = await rawRequest(url, { method: 'GET', apiKey: server.apiKey });
    expect(get.bytes.equals(Buffer.concat([first, last]))).toBe(false);
    expect(get.bytes.subarray(0, 4).toString()).toBe('tail');
  },

  async 'presigned-signature-unchecked'(server) {
    const bucket = uniqueBucket('sig');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'other.txt', 'not yours');
    const presign = await client(server.baseUrl, server.apiKey).call('POST', `/storage/buckets/${bucket}/objects/mine.txt/presigned-url`, { method: 'GET' });
    const url = (presign.body as { url: string }).url.replace('/mine.txt?', '/other.txt?');
    const response = await rawRequest(url, { method: 'GET', apiKey: null });
    expect(response.status).toBe(200);
    expect(response.bytes.toString()).toBe('not yours');
  },

  async 'presigned-expiry-unchecked'(server) {
    const bucket = uniqueBucket('exp');
    await createBucket(server, bucket);
    await putObject(server, bucket, 'old.txt', 'still here');
    const presign = await client(server.baseUrl, server.apiKey).call('POST', `/storage/buckets/${bucket}/objects/old.txt/presigned-url`, { method: 'GET', expires_in: 1 });
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
    const list = await client(server.baseUrl, server.apiKey).call('GET', `/storage/buckets/${bucket}/objects?prefix=logs/`);
    expect((list.body as { objects: Array<{ key: string }> }).objects.map((o) => o.key)).toContain('data/1');
  },

  async 'multipart-content-type-lost'(server) {
    const bucket = uniqueBucket('ctype');
    await createBucket(server, bucket);
    const url = objectUrl(server, bucket, 'page.html');
    const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey, headers: { 'content-type': 'text/html' } });
    const uploadId = (init.json as { upload_id: string }).upload_id;
    const part = await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, { method: 'PUT', apiKey: server.apiKey, body: '<p>hi</p>' });
    await rawRequest(`${url}?uploadId=${uploadId}`, { method: 'POST', apiKey: server.apiKey, body: completionXml([{ number: 1, etag: part.headers.get('etag')! }]) });
    const get = await rawRequest(url, { method: 'GET', apiKey: server.apiKey });
    expect(get.headers.get('content-type')).not.toBe('text/html');
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
