/**
 * Flow: a multipart upload through the REST API. Parts go up out of order (part 2 before
 * part 1), one of them the 5 MiB minimum for a non-final part; the completed object must be the
 * parts joined in part-number order, byte for byte, with the Content-Type given at initiation.
 * Completions naming a wrong ETag or a part never uploaded are refused and create no object. By
 * the conventions, an unknown upload id is 404, and parts are numbered 1 to 10000 and, but for
 * the last, at least 5 MiB.
 */
import {
  defineFlow,
  expect,
  expectEchoed,
  expectErrorEnvelope,
  expectFields,
  expectHeader,
  expectNoBody,
  expectRefused,
  expectStatus,
} from '../../src/harness/check.ts';
import type { ApiClient } from '../../src/harness/check.ts';
import { bareEtag, createBucket, deterministicBytes, listObjects, md5, objectPath, sha256 } from './_storage.ts';

interface Part {
  number: number;
  bytes: Buffer;
  etag?: string;
}

interface State {
  bucket: string;
  key: string;
  uploadId: string;
  parts: Part[];
  objectEtag: string;
}

const FLOW = 'flow.multipart-upload';
const CONTENT_TYPE = 'application/x-cloudcheck-multipart';
const MiB = 1024 * 1024;

function completionXml(parts: Array<{ number: number; etag: string }>): string {
  const items = parts.map((p) => `<Part><PartNumber>${p.number}</PartNumber><ETag>${p.etag}</ETag></Part>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload>${items}</CompleteMultipartUpload>`;
}

function complete(api: ApiClient, state: State, parts: Array<{ number: number; etag: string }>) {
  return api.request({
    method: 'POST',
    path: objectPath(state.bucket, state.key),
    query: { uploadId: state.uploadId },
    headers: { 'content-type': 'application/xml' },
    body: completionXml(parts),
  });
}

const joined = (state: State): Buffer =>
  Buffer.concat([...state.parts].sort((a, b) => a.number - b.number).map((p) => p.bytes));

/** A refused completion: a client error with the envelope, and still no object under the key. */
async function expectRefusedCompletion(
  api: ApiClient,
  state: State,
  parts: Array<{ number: number; etag: string }>,
  what: string,
): Promise<void> {
  const res = await complete(api, state, parts);
  expectRefused(res, `completion with ${what}`);
  expectStatus(res, 422, `completion with ${what}`);
  expectErrorEnvelope(res, 'validation_error');
  const get = await api.get(objectPath(state.bucket, state.key));
  expect(get.status, `no object should exist after a completion with ${what}`).toBe(404);
}

defineFlow<State>({ id: FLOW, class: 'storage-objects', title: 'multipart upload' }, (step) => {
  step(
    {
      id: `${FLOW}.initiate`,
      requirement: 'MPU-INIT-001',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'POST ?uploads answers upload_id, bucket and key',
    },
    async ({ api, ledger, ctx, state }) => {
      state.bucket = await createBucket(api, ledger, ctx, 'mpu');
      state.key = `flows/multipart/${ctx.name('obj')}.bin`;
      const path = objectPath(state.bucket, state.key);
      const res = await api.request({
        method: 'POST',
        path,
        query: { uploads: true },
        headers: { 'content-type': CONTENT_TYPE },
      });
      expectStatus(res, [200, 201]);
      const body = res.json<{ upload_id?: unknown; bucket?: unknown; key?: unknown }>();
      expectFields(body, { upload_id: 'string' }, 'the initiation', res);
      // Track the upload first: an unfinished one is aborted at teardown (404 once completed is fine).
      ledger.track('multipart-upload', String(body.upload_id), {
        deletePath: `${path}?uploadId=${encodeURIComponent(String(body.upload_id))}`,
        deleteOperation: 'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
        rank: 95,
      });
      state.uploadId = String(body.upload_id);
      expectEchoed(res, body, { bucket: state.bucket, key: state.key }, 'the initiation');
    },
  );

  step(
    {
      id: `${FLOW}.parts`,
      requirement: 'MPU-PART-001',
      level: 'MUST',
      operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'parts uploaded out of order (part 2, then a 5 MiB part 1) each answer an ETag',
    },
    async ({ api, ctx, state }) => {
      const seed = ctx.seed * 7919 + 17;
      state.parts = [
        { number: 2, bytes: deterministicBytes(200 * 1024 + 17, seed + 2) },
        { number: 1, bytes: deterministicBytes(5 * MiB, seed + 1) },
      ];
      for (const part of state.parts) {
        const res = await api.request({
          method: 'PUT',
          path: objectPath(state.bucket, state.key),
          query: { partNumber: part.number, uploadId: state.uploadId },
          headers: { 'content-type': 'application/octet-stream' },
          body: part.bytes,
        });
        expectStatus(res, 200, `part ${part.number}`);
        const fromBody =
          (res.body as { part?: { etag?: unknown }; etag?: unknown } | undefined)?.part?.etag ??
          (res.body as { etag?: unknown } | undefined)?.etag;
        const etag = res.headers.etag ?? (typeof fromBody === 'string' ? fromBody : undefined);
        expect(etag, `part ${part.number}: an ETag (header or body)`).toBeTruthy();
        part.etag = etag!;
      }
    },
  );

  step(
    {
      id: `${FLOW}.complete-wrong-etag`,
      requirement: 'MPU-CMP-004',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'a completion with a wrong ETag is refused with 422 validation_error and creates no object',
    },
    async ({ api, state }) => {
      const p1 = state.parts.find((p) => p.number === 1)!;
      await expectRefusedCompletion(
        api,
        state,
        [
          { number: 1, etag: p1.etag! },
          { number: 2, etag: `"${'0'.repeat(32)}"` },
        ],
        'a wrong ETag for part 2',
      );
    },
  );

  step(
    {
      id: `${FLOW}.complete-missing-part`,
      requirement: 'MPU-CMP-004',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'a completion naming a part never uploaded is refused with 422 validation_error and creates no object',
    },
    async ({ api, state }) => {
      const p1 = state.parts.find((p) => p.number === 1)!;
      const p2 = state.parts.find((p) => p.number === 2)!;
      await expectRefusedCompletion(
        api,
        state,
        [
          { number: 1, etag: p1.etag! },
          { number: 2, etag: p2.etag! },
          { number: 3, etag: p2.etag! },
        ],
        'part 3, which was never uploaded',
      );
    },
  );

  step(
    {
      id: `${FLOW}.complete`,
      requirement: 'MPU-CMP-001',
      level: 'MUST',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'POST ?uploadId= with the CompleteMultipartUpload XML body completes the upload',
    },
    async ({ api, ledger, state }) => {
      const parts = [...state.parts]
        .sort((a, b) => a.number - b.number)
        .map((p) => ({ number: p.number, etag: p.etag! }));
      const res = await complete(api, state, parts);
      expectStatus(res, 200);
      ledger.track('object', `${state.bucket}/${state.key}`);
      const fromBody = (res.body as { object?: { etag?: unknown } } | undefined)?.object?.etag;
      state.objectEtag = res.headers.etag ?? (typeof fromBody === 'string' ? fromBody : '');
    },
  );

  step(
    {
      id: `${FLOW}.download`,
      requirement: 'MPU-CMP-002',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'GET returns exactly the parts joined in part-number order (SHA-256)',
    },
    async ({ api, state }) => {
      const res = await api.get(objectPath(state.bucket, state.key), { headers: { accept: '*/*' } });
      expectStatus(res, 200);
      const expected = joined(state);
      expect(res.bytes.length, 'downloaded length').toBe(expected.length);
      expect(sha256(res.bytes), 'SHA-256 of the download vs the parts in part-number order').toBe(sha256(expected));
    },
  );

  step(
    {
      id: `${FLOW}.content-type`,
      requirement: 'MPU-INIT-002',
      level: 'MUST',
      operation: 'HEAD /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'the completed object has the Content-Type sent at initiation',
    },
    async ({ api, state }) => {
      const res = await api.request({ method: 'HEAD', path: objectPath(state.bucket, state.key) });
      expectStatus(res, 200);
      expect(res.headers['content-type'], 'Content-Type of the completed object').toBe(CONTENT_TYPE);
    },
  );

  step(
    {
      id: `${FLOW}.head`,
      requirement: 'OBJ-HEAD-001',
      level: 'MUST',
      operation: 'HEAD /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'HEAD reports Content-Length of the whole object and its ETag, without a body',
    },
    async ({ api, state }) => {
      const res = await api.request({ method: 'HEAD', path: objectPath(state.bucket, state.key) });
      expectStatus(res, 200);
      expectNoBody(res);
      expectHeader(res, 'Content-Length', String(joined(state).length), {
        context: 'the size of the whole object',
        expectedAs: 'the uploaded size',
      });
      expectHeader(res, 'ETag');
      if (state.objectEtag)
        expect(bareEtag(res.headers.etag), 'ETag of HEAD vs the completion').toBe(bareEtag(state.objectEtag));
    },
  );

  step(
    {
      id: `${FLOW}.etag-format`,
      requirement: 'MPU-CMP-004',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'the multipart ETag is "<md5 of the part md5s>-<part count>"',
    },
    async ({ state }) => {
      const sorted = [...state.parts].sort((a, b) => a.number - b.number);
      const expected = `${md5(Buffer.concat(sorted.map((p) => md5(p.bytes)))).toString('hex')}-${sorted.length}`;
      expect(bareEtag(state.objectEtag), 'completed object ETag').toBe(expected);
    },
  );

  step(
    {
      id: `${FLOW}.listed`,
      requirement: 'OBJ-LIST-002',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/objects',
      title: 'the completed object is listed with its size, ETag and content type',
    },
    async ({ api, state }) => {
      const listing = await listObjects(api, state.bucket, { prefix: state.key });
      const entry = listing.objects.find((o) => o.key === state.key);
      expect(entry, `${state.key} in the listing`).toBeTruthy();
      expect(entry!.size, 'listed size').toBe(joined(state).length);
      expect(bareEtag(entry!.etag), 'listed etag').toBe(bareEtag(state.objectEtag));
      expect(entry!.content_type, 'listed content_type').toBe(CONTENT_TYPE);
      expect(Number.isNaN(Date.parse(entry!.last_modified)), 'last_modified is a timestamp').toBe(false);
      expect(typeof entry!.storage_class, 'storage_class').toBe('string');
    },
  );

  step(
    {
      id: `${FLOW}.unknown-upload`,
      requirement: 'MPU-CMP-003',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title:
        'a part or completion naming an upload never started, or completing the completed one again, answers 404 not_found and leaves the object as it was',
    },
    async ({ api, state }) => {
      const parts = [...state.parts]
        .sort((a, b) => a.number - b.number)
        .map((p) => ({ number: p.number, etag: p.etag! }));
      const unknown = `${state.uploadId}-cloudcheck-unknown`;
      const answers: Array<[string, { status: number; text: string; body: unknown }]> = [
        [
          'a part of an upload never started',
          await api.request({
            method: 'PUT',
            path: objectPath(state.bucket, state.key),
            query: { partNumber: 1, uploadId: unknown },
            headers: { 'content-type': 'application/octet-stream' },
            body: Buffer.from('cloudcheck'),
          }),
        ],
        ['the completion of an upload never started', await complete(api, { ...state, uploadId: unknown }, parts)],
        ['the completion of the completed upload, again', await complete(api, state, parts)],
      ];
      for (const [what, res] of answers) {
        expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(404);
        expect((res.body as { error?: { code?: unknown } } | undefined)?.error?.code, `${what}: error.code`).toBe(
          'not_found',
        );
      }
      const get = await api.get(objectPath(state.bucket, state.key), { headers: { accept: '*/*' } });
      expectStatus(get, 200);
      expect(sha256(get.bytes), 'the object after the refused uploads and completions').toBe(sha256(joined(state)));
    },
  );

  step(
    {
      id: `${FLOW}.delete`,
      requirement: 'OBJ-DEL-001',
      level: 'MUST',
      operation: 'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'DELETE removes the object: the download fails and the listing no longer holds it',
    },
    async ({ api, ledger, state }) => {
      const res = await api.delete(objectPath(state.bucket, state.key));
      expectStatus(res, [200, 204]);
      ledger.deleted('object', `${state.bucket}/${state.key}`);
      const get = await api.get(objectPath(state.bucket, state.key));
      expectRefused(get, 'GET after DELETE');
      const listing = await listObjects(api, state.bucket, { prefix: state.key });
      expect(listing.objects.map((o) => o.key)).not.toContain(state.key);
    },
  );

  step(
    {
      id: `${FLOW}.part-limits`,
      requirement: 'MPU-PART-002',
      level: 'SHOULD',
      operation: 'POST /storage/buckets/{bucket_name}/objects/{object_key}',
      title:
        'part numbers 0 and 10001 answer 422, and two parts of 1 KiB do not complete: 422 validation_error, no object',
    },
    async ({ api, ledger, ctx, state }) => {
      const key = `flows/multipart/${ctx.name('small')}.bin`;
      const path = objectPath(state.bucket, key);
      const started = await api.request({ method: 'POST', path, query: { uploads: true } });
      expectStatus(started, [200, 201], 'initiate a second upload');
      const uploadId = String(started.json<{ upload_id?: unknown }>().upload_id);
      ledger.track('multipart-upload', uploadId, {
        deletePath: `${path}?uploadId=${encodeURIComponent(uploadId)}`,
        deleteOperation: 'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
        rank: 95,
      });
      const part = (partNumber: number) =>
        api.request({
          method: 'PUT',
          path,
          query: { partNumber, uploadId },
          headers: { 'content-type': 'application/octet-stream' },
          body: deterministicBytes(1024, ctx.seed + partNumber),
        });
      for (const outside of [0, 10_001]) {
        const res = await part(outside);
        expectStatus(res, 422, `part number ${outside}`);
        expectErrorEnvelope(res, 'validation_error');
      }
      const small: Array<{ number: number; etag: string }> = [];
      for (const number of [1, 2]) {
        const res = await part(number);
        expectStatus(res, 200, `part ${number} of 1 KiB`);
        const fromBody = (res.body as { part?: { etag?: unknown } } | undefined)?.part?.etag;
        small.push({ number, etag: res.headers.etag ?? String(fromBody) });
      }
      const done = await complete(api, { ...state, key, uploadId }, small);
      if (done.status < 300) ledger.track('object', `${state.bucket}/${key}`);
      expectStatus(done, 422, 'a completion whose first part is 1 KiB');
      expectErrorEnvelope(done, 'validation_error');
      expect((await api.get(path)).status, 'no object after the refused completion').toBe(404);
    },
  );
});
