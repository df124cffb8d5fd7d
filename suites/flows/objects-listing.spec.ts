/**
 * Flow: objects and listings. Upload with Content-Type and `x-cloud-acl`, read the same bytes
 * back, HEAD, then list with `prefix`, `delimiter`, and page with `max_keys` and `marker` through
 * every key exactly once. A bucket that holds objects cannot be deleted, and a bucket name
 * already taken is refused with `bucket_already_exists`. By the conventions, that refusal is a
 * 409 naming the bucket, keys are percent-decoded once, and a key may end in `/presigned-url`.
 */
import {
  defineFlow,
  expect,
  expectContentType,
  expectErrorEnvelope,
  expectHeader,
  expectRefused,
  expectStatus,
} from '../../src/harness/check.ts';
import type { ApiClient, Ledger } from '../../src/harness/check.ts';
import { createBucket, deterministicBytes, listObjects, objectPath, sha256, storageRegion } from './_storage.ts';

interface State {
  bucket: string;
  region: string;
  mainKey: string;
  mainBytes: Buffer;
  keys: string[];
}

const FLOW = 'flow.objects-listing';
const MAIN_TYPE = 'text/csv';
/** Keys of the listing: nested "folders", a key sorting before and after them. */
const OTHER_KEYS = ['docs/a.txt', 'docs/b.txt', 'docs/sub/c.txt', 'docs/sub/d.txt', 'img/e.bin', 'z-last.txt'];
/** Where the key of the decoding step goes (after the listing steps, which list the whole bucket). */
const ENCODED_PREFIX = 'zz-encoded/';

async function put(
  api: ApiClient,
  ledger: Ledger,
  bucket: string,
  key: string,
  body: Buffer,
  contentType: string,
  acl?: string,
) {
  const res = await api.request({
    method: 'PUT',
    path: objectPath(bucket, key),
    headers: { 'content-type': contentType, ...(acl ? { 'x-cloud-acl': acl } : {}) },
    body,
  });
  if (res.status >= 200 && res.status < 300) ledger.track('object', `${bucket}/${key}`);
  return res;
}

defineFlow<State>({ id: FLOW, class: 'storage-objects', title: 'objects and listing' }, (step) => {
  step(
    {
      id: `${FLOW}.put-acl`,
      requirement: 'OBJ-PUT-002',
      level: 'MUST',
      operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'an upload with Content-Type and x-cloud-acl is accepted',
    },
    async ({ api, ledger, ctx, state }) => {
      state.region = await storageRegion(api);
      state.bucket = await createBucket(api, ledger, ctx, 'objs', state.region);
      state.mainKey = 'data/report.csv';
      state.mainBytes = Buffer.concat([
        Buffer.from('id,value\n'),
        Buffer.from(deterministicBytes(3000, ctx.seed + 3).toString('hex')),
      ]);
      const res = await put(api, ledger, state.bucket, state.mainKey, state.mainBytes, MAIN_TYPE, 'private');
      expectStatus(res, [200, 201]);
    },
  );

  step(
    {
      id: `${FLOW}.get`,
      requirement: 'OBJ-GET-001',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'GET returns the identical bytes with the Content-Type of the upload',
    },
    async ({ api, state }) => {
      const res = await api.get(objectPath(state.bucket, state.mainKey), { headers: { accept: '*/*' } });
      expectStatus(res, 200);
      expect(sha256(res.bytes), 'SHA-256 of the download vs the upload').toBe(sha256(state.mainBytes));
      expectContentType(res, MAIN_TYPE, 'Content-Type of the download');
    },
  );

  step(
    {
      id: `${FLOW}.head`,
      requirement: 'OBJ-HEAD-001',
      level: 'MUST',
      operation: 'HEAD /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'HEAD reports Content-Type and Content-Length of the upload, without a body',
    },
    async ({ api, state }) => {
      const res = await api.request({ method: 'HEAD', path: objectPath(state.bucket, state.mainKey) });
      expectStatus(res, 200);
      expect(res.bytes.length, 'HEAD body').toBe(0);
      expect(res.headers['content-type']?.split(';')[0]?.trim(), 'Content-Type').toBe(MAIN_TYPE);
      expectHeader(res, 'Content-Length', String(state.mainBytes.length), { expectedAs: 'the uploaded size' });
    },
  );

  step(
    {
      id: `${FLOW}.listed`,
      requirement: 'OBJ-PUT-001',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'the uploaded objects are listed with their byte size and content type',
    },
    async ({ api, ledger, state }) => {
      for (const [i, key] of OTHER_KEYS.entries()) {
        const res = await put(
          api,
          ledger,
          state.bucket,
          key,
          Buffer.from(`cloudcheck object ${i} ${key}\n`),
          'text/plain',
        );
        expectStatus(res, [200, 201], `upload ${key}`);
      }
      state.keys = [state.mainKey, ...OTHER_KEYS].sort();
      const listing = await listObjects(api, state.bucket);
      const byKey = new Map(listing.objects.map((o) => [o.key, o]));
      expect([...byKey.keys()].sort(), 'keys listed').toEqual(state.keys);
      expect(byKey.get(state.mainKey)).toMatchObject({ size: state.mainBytes.length, content_type: MAIN_TYPE });
      expect(byKey.get('docs/a.txt')!.size).toBe(Buffer.byteLength(`cloudcheck object 0 docs/a.txt\n`));
    },
  );

  step(
    {
      id: `${FLOW}.prefix`,
      requirement: 'OBJ-LIST-003',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'a listing with prefix holds exactly the keys starting with it',
    },
    async ({ api, state }) => {
      const listing = await listObjects(api, state.bucket, { prefix: 'docs/' });
      expect(listing.objects.map((o) => o.key).sort()).toEqual(state.keys.filter((k) => k.startsWith('docs/')));
    },
  );

  step(
    {
      id: `${FLOW}.delimiter`,
      requirement: 'OBJ-LIST-006',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'a listing with prefix and delimiter answers the keys directly under the prefix',
    },
    async ({ api, state }) => {
      const listing = await listObjects(api, state.bucket, { prefix: 'docs/', delimiter: '/' });
      // Keys below a further delimiter roll up (S3 semantics); the ones directly under it stay.
      expect(listing.objects.map((o) => o.key).sort()).toEqual(['docs/a.txt', 'docs/b.txt']);
      if (listing.common_prefixes !== undefined)
        expect(listing.common_prefixes, 'common_prefixes (extension)').toEqual(['docs/sub/']);
    },
  );

  step(
    {
      id: `${FLOW}.max-keys`,
      requirement: 'OBJ-LIST-004',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'max_keys=2 answers at most two objects and is_truncated true',
    },
    async ({ api, state }) => {
      const listing = await listObjects(api, state.bucket, { max_keys: 2 });
      expect(listing.objects.length, 'objects on the page').toBeLessThanOrEqual(2);
      expect(listing.objects.length, 'objects on the page').toBeGreaterThan(0);
      expect(listing.is_truncated, `is_truncated with ${state.keys.length} keys`).toBe(true);
    },
  );

  step(
    {
      id: `${FLOW}.marker-walk`,
      requirement: 'OBJ-LIST-005',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'paging with max_keys and marker yields every key exactly once, each page after its marker',
    },
    async ({ api, state }) => {
      const seen: string[] = [];
      let marker: string | undefined;
      for (let page = 0; page <= state.keys.length; page++) {
        const listing = await listObjects(api, state.bucket, {
          max_keys: 2,
          ...(marker !== undefined ? { marker } : {}),
        });
        for (const o of listing.objects) {
          if (marker !== undefined) expect(o.key > marker, `key ${o.key} listed after marker ${marker}`).toBe(true);
          expect(seen, `key ${o.key} listed twice`).not.toContain(o.key);
          seen.push(o.key);
        }
        if (!listing.is_truncated) break;
        const next = listing.next_marker ?? listing.objects.at(-1)?.key;
        expect(next, 'a truncated page needs next_marker (or a last key)').toBeTruthy();
        marker = next!;
      }
      expect(seen.sort(), 'keys seen over all pages').toEqual(state.keys);
    },
  );

  step(
    {
      id: `${FLOW}.delete-non-empty`,
      requirement: 'BKT-DEL-001',
      level: 'MUST',
      operation: 'DELETE /storage/buckets/{bucket_name}',
      title: 'deleting a bucket that holds objects is refused, and bucket and objects remain',
    },
    async ({ api, state }) => {
      const res = await api.delete(`/storage/buckets/${encodeURIComponent(state.bucket)}`);
      expectRefused(res, 'DELETE of a non-empty bucket');
      const bucket = await api.get(`/storage/buckets/${encodeURIComponent(state.bucket)}`);
      expectStatus(bucket, 200, 'the bucket must remain');
      const object = await api.get(objectPath(state.bucket, state.mainKey));
      expectStatus(object, 200, 'its objects must remain');
    },
  );

  step(
    {
      id: `${FLOW}.delete-non-empty-code`,
      requirement: 'ERR-MAP-013',
      level: 'SHOULD',
      operation: 'DELETE /storage/buckets/{bucket_name}',
      title: 'deleting a non-empty bucket answers 409 bucket_not_empty with resource bucket',
    },
    async ({ api, state }) => {
      const res = await api.delete(`/storage/buckets/${encodeURIComponent(state.bucket)}`);
      expectStatus(res, 409);
      const error = expectErrorEnvelope(res, 'bucket_not_empty');
      expect(error.resource).toBe('bucket');
    },
  );

  step(
    {
      id: `${FLOW}.duplicate-name`,
      requirement: 'BKT-CRT-003',
      level: 'MUST',
      operation: 'POST /storage/buckets',
      title: 'creating a bucket with a taken name is refused (same and other account), the bucket untouched',
    },
    async ({ api, ledger, ctx, state }) => {
      const res = await api.post('/storage/buckets', { name: state.bucket, region: state.region });
      expectRefused(res, 'a second POST /storage/buckets with the same name');
      if (ctx.keys.alt) {
        const alt = await api.post(
          '/storage/buckets',
          { name: state.bucket, region: state.region },
          { account: 'alt' },
        );
        if (alt.status >= 200 && alt.status < 300) ledger.track('bucket', state.bucket, { account: 'alt' });
        expectRefused(alt, 'the other account creating a taken name');
      }
      // The existing bucket is untouched: still ours, objects in place.
      expectStatus(await api.get(objectPath(state.bucket, state.mainKey)), 200);
    },
  );

  step(
    {
      id: `${FLOW}.duplicate-name-code`,
      requirement: 'ERR-CODE-008',
      level: 'MUST',
      operation: 'POST /storage/buckets',
      title: 'a taken bucket name is refused with code bucket_already_exists',
    },
    async ({ api, state }) => {
      const res = await api.post('/storage/buckets', { name: state.bucket, region: state.region });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectErrorEnvelope(res, 'bucket_already_exists');
    },
  );

  step(
    {
      id: `${FLOW}.duplicate-name-status`,
      requirement: 'ERR-MAP-012',
      level: 'SHOULD',
      operation: 'POST /storage/buckets',
      title: 'the taken bucket name answers 409 bucket_already_exists with resource bucket',
    },
    async ({ api, state }) => {
      const res = await api.post('/storage/buckets', { name: state.bucket, region: state.region });
      expectStatus(res, 409, 'creating a bucket with a taken name');
      const error = expectErrorEnvelope(res, 'bucket_already_exists');
      expect(error.resource, 'error.resource names the kind of resource').toBe('bucket');
    },
  );

  step(
    {
      id: `${FLOW}.key-decoding`,
      requirement: 'OBJ-KEY-001',
      level: 'SHOULD',
      operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
      title:
        'a key with a space, a plus, a literal %20 and a combining accent, sent percent-encoded, is stored and listed as sent, decoded once',
    },
    async ({ api, ledger, state }) => {
      // `e` and a combining acute accent: a key is bytes, not text to normalise.
      const key = `${ENCODED_PREFIX}a b+c%20d-e\u0301.txt`;
      const bytes = Buffer.from('cloudcheck key decoding\n');
      expectStatus(await put(api, ledger, state.bucket, key, bytes, 'text/plain'), [200, 201], `upload ${key}`);
      const listing = await listObjects(api, state.bucket, { prefix: ENCODED_PREFIX });
      // Escaped: a normalised accent looks the same as the one sent.
      const visible = (k: string): string => k.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
      expect(
        listing.objects.map((o) => visible(o.key)),
        `the keys under ${ENCODED_PREFIX}`,
      ).toEqual([visible(key)]);
      const get = await api.get(objectPath(state.bucket, key), { headers: { accept: '*/*' } });
      expectStatus(get, 200);
      expect(get.text, 'the object read back by its key').toBe(bytes.toString());
    },
  );

  step(
    {
      id: `${FLOW}.presigned-url-key`,
      requirement: 'OBJ-KEY-002',
      level: 'SHOULD',
      operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'a PUT of a key ending in /presigned-url uploads that object, which GET reads back',
    },
    async ({ api, ledger, state }) => {
      const key = 'reports/presigned-url';
      const bytes = Buffer.from('cloudcheck: not an operation, an object\n');
      const res = await put(api, ledger, state.bucket, key, bytes, 'text/plain');
      expectStatus(res, [200, 201], `PUT ${key}`);
      const get = await api.get(objectPath(state.bucket, key), { headers: { accept: '*/*' } });
      expectStatus(get, 200);
      expect(get.text, `the object ${key} read back`).toBe(bytes.toString());
    },
  );
});
