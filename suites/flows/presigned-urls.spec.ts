/**
 * Flow: presigned URLs. They are used with plain fetch and no Authorization header at all (the
 * point of a presigned URL), so the recording client and its keys stay out of those requests.
 * GET, PUT and DELETE work through their URLs; a tampered signature, the signature used on
 * another object or with another method, and an expired URL are refused and change nothing.
 */
import {
  EnvironmentError,
  defineFlow,
  expect,
  expectFieldValues,
  expectRefused,
  expectStatus,
} from '../../src/harness/check.ts';
import type { ApiClient } from '../../src/harness/check.ts';
import { createBucket, deterministicBytes, objectPath, sha256 } from './_storage.ts';

interface Presigned {
  url: string;
  expires_at: string;
  method: string;
}

interface State {
  bucket: string;
  key: string;
  otherKey: string;
  bytes: Buffer;
  get: Presigned;
  putKey: string;
}

const FLOW = 'flow.presigned-urls';

async function presign(
  api: ApiClient,
  bucket: string,
  key: string,
  body: Record<string, unknown>,
): Promise<{ presigned: Presigned; date: number }> {
  const res = await api.post(`${objectPath(bucket, key)}/presigned-url`, body);
  expectStatus(res, [200, 201], `presign ${String(body.method)}`);
  const presigned = res.json<Presigned>();
  expect(typeof presigned.url, 'url').toBe('string');
  const date = Date.parse(res.headers.date ?? '');
  return { presigned, date: Number.isNaN(date) ? Date.now() : date };
}

/** A plain request, no Authorization header, no recording client; it still names its check (`api`'s). */
async function plain(
  api: ApiClient,
  method: string,
  url: string,
  body?: Buffer,
): Promise<{ status: number; bytes: Buffer; text: string }> {
  const headers = { ...api.checkHeaders, ...(body ? { 'content-type': 'application/octet-stream' } : {}) };
  let res: Response;
  let bytes: Buffer;
  try {
    res = await fetch(url, { method, headers, ...(body ? { body } : {}) });
    bytes = Buffer.from(await res.arrayBuffer());
  } catch (error) {
    // fetch's "TypeError: fetch failed" is no answer (refused, reset, timed out), not cloudcheck's error.
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new EnvironmentError(
      `${method} ${new URL(url).pathname} (presigned) failed without a response: ${cause ?? (error as Error).message}`,
    );
  }
  return { status: res.status, bytes, text: bytes.toString('utf8').slice(0, 300) };
}

/** The URL with its `signature` parameter changed in its last character. */
function tampered(url: string): string {
  const u = new URL(url);
  const sig = u.searchParams.get('signature') ?? '';
  const last = sig.at(-1) ?? '0';
  u.searchParams.set('signature', `${sig.slice(0, -1)}${last === '0' ? '1' : '0'}`);
  return u.toString();
}

/** The same query (signature included) on another object's path. */
function onOtherObject(url: string, bucket: string, key: string, otherKey: string): string {
  const u = new URL(url);
  const own = objectPath(bucket, key);
  const i = u.pathname.lastIndexOf(own);
  expect(i, `the presigned URL path ${u.pathname} should end with the object path ${own}`).toBeGreaterThanOrEqual(0);
  u.pathname = `${u.pathname.slice(0, i)}${objectPath(bucket, otherKey)}`;
  return u.toString();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function objectStatus(api: ApiClient, bucket: string, key: string): Promise<number> {
  return (await api.get(objectPath(bucket, key), { headers: { accept: '*/*' } })).status;
}

defineFlow<State>({ id: FLOW, class: 'storage-objects', title: 'presigned URLs' }, (step) => {
  step(
    {
      id: `${FLOW}.create`,
      requirement: 'PRE-URL-002',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'presigning a GET answers a flat url, expires_at and method',
    },
    async ({ api, ledger, ctx, state }) => {
      state.bucket = await createBucket(api, ledger, ctx, 'pre');
      state.key = 'shared/file.bin';
      state.otherKey = 'shared/other.bin';
      state.bytes = deterministicBytes(4096, ctx.seed + 11);
      for (const [key, bytes] of [
        [state.key, state.bytes],
        [state.otherKey, Buffer.from('the other object\n')],
      ] as const) {
        const res = await api.request({
          method: 'PUT',
          path: objectPath(state.bucket, key),
          headers: { 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        expectStatus(res, [200, 201], `upload ${key}`);
        ledger.track('object', `${state.bucket}/${key}`);
      }
      const { presigned } = await presign(api, state.bucket, state.key, { method: 'GET', expires_in: 600 });
      state.get = presigned;
      expectFieldValues(presigned, { method: 'GET' }, 'the presigned URL');
      expect(Number.isNaN(Date.parse(presigned.expires_at)), `expires_at ${presigned.expires_at} is a timestamp`).toBe(
        false,
      );
      expect(() => new URL(presigned.url), 'url is an absolute URL').not.toThrow();
    },
  );

  step(
    {
      id: `${FLOW}.host`,
      requirement: 'PRE-URL-008',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'the presigned url names the scheme, host and port the client reached',
    },
    async ({ ctx, state }) => {
      expect(new URL(state.get.url).origin, 'the origin of the presigned url').toBe(new URL(ctx.target).origin);
    },
  );

  step(
    {
      id: `${FLOW}.signature-param`,
      requirement: 'PRE-URL-004',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'the presigned url carries a signature query parameter',
    },
    async ({ state }) => {
      expect(new URL(state.get.url).searchParams.get('signature'), 'signature parameter').toBeTruthy();
    },
  );

  step(
    {
      id: `${FLOW}.expires-at`,
      requirement: 'PRE-URL-003',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'expires_at is expires_in seconds after the response Date (600 s given, 3600 s by default)',
    },
    async ({ api, state }) => {
      for (const [body, seconds] of [
        [{ method: 'GET', expires_in: 600 }, 600],
        [{ method: 'GET' }, 3600],
      ] as const) {
        const { presigned, date } = await presign(api, state.bucket, state.key, body);
        const delta = (Date.parse(presigned.expires_at) - date) / 1000;
        // Date has a one-second resolution; allow a few seconds for the request itself.
        expect(
          Math.abs(delta - seconds),
          `expires_at ${presigned.expires_at} vs Date + ${seconds} s (${new Date(date).toISOString()})`,
        ).toBeLessThanOrEqual(5);
      }
    },
  );

  step(
    {
      id: `${FLOW}.get`,
      requirement: 'PRE-URL-005',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a presigned GET downloads the object without an Authorization header',
    },
    async ({ api, state }) => {
      const res = await plain(api, 'GET', state.get.url);
      expect(res.status, `presigned GET (${res.text})`).toBe(200);
      expect(sha256(res.bytes), 'SHA-256 of the presigned download').toBe(sha256(state.bytes));
    },
  );

  step(
    {
      id: `${FLOW}.refused`,
      requirement: 'PRE-URL-007',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a tampered signature, another object and another method are refused and change nothing',
    },
    async ({ api, state }) => {
      expectRefused(await plain(api, 'GET', tampered(state.get.url)), 'a GET with a tampered signature');
      expectRefused(
        await plain(api, 'GET', onOtherObject(state.get.url, state.bucket, state.key, state.otherKey)),
        "the GET URL's signature on another object",
      );
      expectRefused(await plain(api, 'DELETE', state.get.url), 'a DELETE with a URL presigned for GET');
      expectRefused(
        await plain(api, 'PUT', state.get.url, Buffer.from('overwritten')),
        'a PUT with a URL presigned for GET',
      );
      const after = await api.get(objectPath(state.bucket, state.key), { headers: { accept: '*/*' } });
      expectStatus(after, 200, 'the object must still exist');
      expect(sha256(after.bytes), 'the object must be unchanged').toBe(sha256(state.bytes));
      expect(await objectStatus(api, state.bucket, state.otherKey), 'the other object must still exist').toBe(200);
    },
  );

  step(
    {
      id: `${FLOW}.refused-forbidden`,
      requirement: 'PRE-URL-009',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a tampered presigned URL is answered 403 forbidden',
    },
    async ({ api, state }) => {
      const res = await plain(api, 'GET', tampered(state.get.url));
      expect(res.status, res.text).toBe(403);
      expect((JSON.parse(res.bytes.toString('utf8')) as { error?: { code?: string } }).error?.code).toBe('forbidden');
    },
  );

  step(
    {
      id: `${FLOW}.put`,
      requirement: 'PRE-URL-005',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a presigned PUT uploads its body as the object without an Authorization header',
    },
    async ({ api, ledger, state }) => {
      state.putKey = 'uploads/through-presigned.bin';
      const { presigned } = await presign(api, state.bucket, state.putKey, { method: 'PUT', expires_in: 600 });
      expect(presigned.method).toBe('PUT');
      const body = deterministicBytes(2048, 99);
      const res = await plain(api, 'PUT', presigned.url, body);
      if (res.status >= 200 && res.status < 300) ledger.track('object', `${state.bucket}/${state.putKey}`);
      expect(res.status, `presigned PUT (${res.text})`).toBeGreaterThanOrEqual(200);
      expect(res.status, `presigned PUT (${res.text})`).toBeLessThan(300);
      const get = await api.get(objectPath(state.bucket, state.putKey), { headers: { accept: '*/*' } });
      expectStatus(get, 200);
      expect(sha256(get.bytes), 'the uploaded object is the PUT body').toBe(sha256(body));
    },
  );

  step(
    {
      id: `${FLOW}.delete`,
      requirement: 'PRE-URL-005',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a presigned DELETE removes the object without an Authorization header',
    },
    async ({ api, ledger, state }) => {
      const { presigned } = await presign(api, state.bucket, state.putKey, { method: 'DELETE', expires_in: 600 });
      const res = await plain(api, 'DELETE', presigned.url);
      expect(res.status, `presigned DELETE (${res.text})`).toBeGreaterThanOrEqual(200);
      expect(res.status, `presigned DELETE (${res.text})`).toBeLessThan(300);
      ledger.deleted('object', `${state.bucket}/${state.putKey}`);
      expect(await objectStatus(api, state.bucket, state.putKey), 'GET after the presigned DELETE').toBe(404);
    },
  );

  step(
    {
      id: `${FLOW}.expired`,
      requirement: 'PRE-URL-006',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
      title: 'a presigned URL with expires_in 1 is refused once expires_at has passed',
    },
    async ({ api, state }) => {
      const { presigned, date } = await presign(api, state.bucket, state.key, { method: 'GET', expires_in: 1 });
      // Wait on the server's clock (its Date header), not ours: until a second past expires_at.
      const offset = date - Date.now();
      const waitMs = Date.parse(presigned.expires_at) + 1_000 - (Date.now() + offset);
      expect(waitMs, `expires_at ${presigned.expires_at} should be about a second after Date`).toBeLessThanOrEqual(
        10_000,
      );
      if (waitMs > 0) await sleep(waitMs + 100);
      expectRefused(
        await plain(api, 'GET', presigned.url),
        `a GET ${Math.round((Date.now() + offset - Date.parse(presigned.expires_at)) / 1000)} s after expires_at`,
      );
    },
  );
});
