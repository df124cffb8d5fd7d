/**
 * Flow: bucket records and bucket-wide state. A bucket created with every optional setting
 * reports them back and starts empty; its record has the fields of the specification in the
 * stated types, in GET and in the listing; a policy set is the policy read; an upload to an
 * existing key replaces the object; the usage report answers a summary and takes its filters.
 */
import {
  defineFlow,
  expect,
  expectResource,
  expectStatus,
  expectSuccess,
  listOf,
  resourceOf,
} from '../../src/harness/check.ts';
import { deterministicBytes, objectPath, sha256, storageRegion } from './_storage.ts';

interface State {
  bucket: string;
  region: string;
}

type Json = Record<string, unknown>;

const FLOW = 'flow.buckets';
/** Every optional setting away from its likely default, so an ignored one shows. */
const SETTINGS = { public: true, versioning: true, encryption: 'KMS' } as const;

const bucketPath = (name: string): string => `/storage/buckets/${encodeURIComponent(name)}`;

/** The Bucket fields of the specification, in their stated types. */
function expectBucketFields(bucket: Json, where: string): void {
  expect(typeof bucket.name, `${where}: name`).toBe('string');
  expect(typeof bucket.region, `${where}: region`).toBe('string');
  expect(
    typeof bucket.created_at === 'string' && !Number.isNaN(Date.parse(bucket.created_at)),
    `${where}: created_at ${String(bucket.created_at)} is a timestamp`,
  ).toBe(true);
  expect(Number.isInteger(bucket.size), `${where}: size ${JSON.stringify(bucket.size)} is an integer`).toBe(true);
  expect(
    Number.isInteger(bucket.object_count),
    `${where}: object_count ${JSON.stringify(bucket.object_count)} is an integer`,
  ).toBe(true);
  expect(typeof bucket.public, `${where}: public`).toBe('boolean');
  expect(typeof bucket.versioning, `${where}: versioning`).toBe('boolean');
  expect(['AES256', 'KMS'], `${where}: encryption`).toContain(bucket.encryption);
}

defineFlow<State>({ id: FLOW, class: 'storage-objects', title: 'bucket records, policy and overwrite' }, (step) => {
  step(
    {
      id: `${FLOW}.create`,
      requirement: 'BKT-CRT-004',
      level: 'MUST',
      operation: 'POST /storage/buckets',
      title:
        'a bucket created with public, versioning and encryption reports them, its name and region, and object_count 0',
    },
    async ({ api, ledger, ctx, state }) => {
      state.region = await storageRegion(api);
      state.bucket = ctx.name('rec');
      const res = await api.post('/storage/buckets', { name: state.bucket, region: state.region, ...SETTINGS });
      expectSuccess(res, 'create a bucket with every setting');
      ledger.track('bucket', state.bucket);
      const expected = { name: state.bucket, region: state.region, ...SETTINGS, object_count: 0 };
      // The create response is not shown; when it carries the bucket, it must say the same.
      const created = resourceOf<Json>(res.body, 'bucket', 'name');
      if (created && 'name' in created) expect(created, 'the bucket in the create response').toMatchObject(expected);
      expect(
        expectResource<Json>(await api.get(bucketPath(state.bucket)), 'bucket', 'name'),
        'GET of the created bucket',
      ).toMatchObject(expected);
    },
  );

  step(
    {
      id: `${FLOW}.fields`,
      requirement: 'BKT-FLD-001',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}',
      title:
        'the bucket record carries name, region, created_at, size, object_count, public, versioning and encryption in their types',
    },
    async ({ api, state }) => {
      expectBucketFields(
        expectResource<Json>(await api.get(bucketPath(state.bucket)), 'bucket', 'name'),
        'GET /storage/buckets/{bucket_name}',
      );
      const list = await api.get('/storage/buckets');
      expectSuccess(list);
      const entry = listOf<Json>(list.body, 'buckets')?.find((b) => b.name === state.bucket);
      expect(entry, `${state.bucket} in GET /storage/buckets`).toBeTruthy();
      expectBucketFields(entry!, 'GET /storage/buckets');
    },
  );

  step(
    {
      id: `${FLOW}.policy`,
      requirement: 'BKT-POL-002',
      level: 'MUST',
      operation: 'GET /storage/buckets/{bucket_name}/policy',
      title: 'GET of the bucket policy answers the Version and Statement last set',
    },
    async ({ api, state }) => {
      const policy = {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'cloudcheck-read',
            Effect: 'Allow',
            Principal: '*',
            Action: ['s3:GetObject'],
            Resource: [`arn:aws:s3:::${state.bucket}/*`],
          },
        ],
      };
      expectSuccess(await api.put(`${bucketPath(state.bucket)}/policy`, policy), 'set the policy');
      const res = await api.get(`${bucketPath(state.bucket)}/policy`);
      expectSuccess(res, 'read the policy');
      // The policy response is not shown: flat, or under a wrapper such as `policy`.
      const read = resourceOf<Json>(res.body, 'policy', 'Version');
      // Extra members are legal anywhere (fields not named by the specification); the set ones must be there.
      expect(read, 'the policy read back').toMatchObject(policy);
    },
  );

  step(
    {
      id: `${FLOW}.overwrite`,
      requirement: 'OBJ-PUT-003',
      level: 'MUST',
      operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
      title: 'an upload to an existing key replaces the object: the download is the new bytes',
    },
    async ({ api, ledger, ctx, state }) => {
      const path = objectPath(state.bucket, 'replaced.bin');
      const first = deterministicBytes(1500, ctx.seed + 21);
      const second = deterministicBytes(900, ctx.seed + 22);
      for (const [i, bytes] of [first, second].entries()) {
        const res = await api.request({
          method: 'PUT',
          path,
          headers: { 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        expectSuccess(res, `upload ${i + 1} to the same key`);
        if (i === 0) ledger.track('object', `${state.bucket}/replaced.bin`);
      }
      const get = await api.get(path, { headers: { accept: '*/*' } });
      expectStatus(get, 200);
      expect(sha256(get.bytes), 'SHA-256 of the download vs the second upload').toBe(sha256(second));
    },
  );

  step(
    {
      id: `${FLOW}.usage-summary`,
      requirement: 'STO-USE-002',
      level: 'MUST',
      operation: 'GET /storage/usage',
      title: 'GET /storage/usage answers a summary with total_storage, total_bandwidth, total_requests and total_cost',
    },
    async ({ api }) => {
      const res = await api.get('/storage/usage');
      expectSuccess(res);
      const summary = (res.body as { summary?: unknown } | undefined)?.summary;
      expect(
        typeof summary === 'object' && summary !== null && !Array.isArray(summary),
        `an object summary: ${res.text.slice(0, 300)}`,
      ).toBe(true);
      for (const member of ['total_storage', 'total_bandwidth', 'total_requests', 'total_cost']) {
        expect((summary as Json)[member], `summary.${member}`).toBeDefined();
      }
    },
  );

  step(
    {
      id: `${FLOW}.usage-filters`,
      requirement: 'STO-USE-003',
      level: 'MUST',
      operation: 'GET /storage/usage',
      title: 'GET /storage/usage accepts from_date, to_date and bucket',
    },
    async ({ api, state }) => {
      const to = new Date();
      const from = new Date(to.getTime() - 7 * 86_400_000);
      const query = {
        from_date: from.toISOString().slice(0, 10),
        to_date: to.toISOString().slice(0, 10),
        bucket: state.bucket,
      };
      expectSuccess(await api.get('/storage/usage', { query }), 'usage with from_date, to_date and bucket');
    },
  );
});
