/**
 * Flow: isolation between two accounts. This account creates a project, a VPS, a volume, a
 * bucket with an object, a template, a message and an API key; the other account (the run's
 * alternate key) then tries to read, list, change and delete each of them, to take the bucket's
 * name and to send with the template. Everything is refused as if it did not exist (404,
 * docs/conventions.md), and afterwards every resource is unchanged.
 *
 * The specification is silent on isolation, so most steps are SHOULD (ISO-*); two are MUST where
 * a requirement states it: a bucket name taken by another account is refused (BKT-CRT-003), and a
 * template_id that names no template of the caller's account is refused (MSG-TPL-006). The last
 * steps hold the conventions for names, ids in bodies and the S3 endpoint: a taken name is a 409
 * that reveals nothing more, another account's VPS or snapshot is as unknown as a missing one, and
 * its access key reaches nothing of this account's bucket over S3.
 */
import {
  defineFlow,
  expect,
  expectErrorEnvelope,
  expectRefused,
  expectResource,
  expectStatus,
  fail,
  judged,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiResponse } from '../../src/harness/check.ts';
import { computeCatalogue } from './_compute.ts';
import { createBucket, objectPath } from './_storage.ts';

interface Owned {
  projectId: string;
  projectName: string;
  vpsId: string;
  vpsName: string;
  volumeId: string;
  volumeName: string;
  bucket: string;
  objectKey: string;
  objectBody: string;
  templateId: string;
  messageId: string;
  keyId: string;
  key: string;
}

interface State {
  owned: Owned;
}

const FLOW = 'flow.isolation';
const enc = encodeURIComponent;

/** 404 (as for an id that does not exist) with the error envelope. */
function expectNotFound(res: ApiResponse, what: string, secret?: string): void {
  if (res.status !== 404)
    fail({
      kind: 'status',
      subject: 'status',
      expected: '404',
      actual: String(res.status),
      judged: judged(res),
      context: what,
      says: `${what}: the other account got ${res.status}; it must get 404, as for an unknown id`,
    });
  expectErrorEnvelope(res, 'not_found');
  if (secret) expect(res.text.includes(secret), `${what}: the response must not disclose the resource`).toBe(false);
}

defineFlow<State>(
  {
    id: FLOW,
    class: 'isolation',
    title: "isolation: the other account cannot read, change or delete this account's resources",
  },
  (step) => {
    step(
      {
        id: `${FLOW}.setup`,
        requirement: 'AUTH-KEY-003',
        level: 'MUST',
        class: 'auth',
        operation: null,
        title:
          'this account creates a project, a VPS, a volume, a bucket with an object, a template, a message and an API key',
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const o = {} as Owned;
        o.projectName = ctx.name('iso-proj');
        const project = await api.post('/projects', { name: o.projectName, description: 'cloudcheck isolation' });
        expectStatus(project, [200, 201], 'create project');
        o.projectId = ledger.track('project', expectResource<{ id: string }>(project, 'project').id);

        const catalogue = await computeCatalogue(api);
        o.vpsName = ctx.name('iso-vps');
        const vps = await api.post('/vps', {
          name: o.vpsName,
          region: catalogue.region,
          image: catalogue.image,
          size: catalogue.size.slug,
          tags: ['cloudcheck'],
        });
        expectStatus(vps, [200, 201, 202], 'create VPS');
        o.vpsId = ledger.track('vps', vps.json<{ vps: { id: string } }>().vps.id);

        o.volumeName = ctx.name('iso-vol');
        const volume = await api.post('/storage/volumes', { name: o.volumeName, size: 1, region: catalogue.region });
        expectStatus(volume, [200, 201, 202], 'create volume');
        o.volumeId = ledger.track('volume', expectResource<{ id: string }>(volume, 'volume').id);

        o.bucket = await createBucket(api, ledger, ctx, 'iso-bkt');
        o.objectKey = 'cloudcheck/isolation.txt';
        o.objectBody = `cloudcheck isolation ${ctx.name('secret-body')}`;
        const put = await api.request({
          method: 'PUT',
          path: objectPath(o.bucket, o.objectKey),
          body: o.objectBody,
          headers: { 'content-type': 'text/plain' },
        });
        expectStatus(put, [200, 201], 'upload object');
        ledger.track('object', `${o.bucket}/${o.objectKey}`);

        const template = await api.post('/messaging/templates', {
          name: ctx.name('iso-tpl'),
          content: 'cloudcheck isolation {{code}}',
        });
        expectStatus(template, [200, 201], 'create template');
        o.templateId = ledger.track('template', expectResource<{ id: string }>(template, 'template').id);

        const send = await api.post('/sms/send', {
          to: ctx.testNumbers.succeed,
          message: `cloudcheck ${ctx.runPrefix}isolation`,
        });
        expectStatus(send, [200, 201], 'send message');
        o.messageId = ledger.track('message', send.json<{ message_id: string }>().message_id);

        const key = await api.post('/account/api-keys', { name: ctx.name('iso-key'), permissions: ['read'] });
        expectStatus(key, [200, 201], 'create API key');
        const apiKey = key.json<{ api_key: { id: string; key: string } }>().api_key;
        o.keyId = ledger.track('api-key', apiKey.id);
        o.key = apiKey.key;
        state.owned = o;
      },
    );

    step(
      {
        id: `${FLOW}.read`,
        requirement: 'ISO-READ-001',
        level: 'SHOULD',
        operation: 'GET /vps/{vps_id}',
        title: "reading this account's message, VPS, volume, bucket, objects and project as the other account is 404",
      },
      async ({ api, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const alt = { account: 'alt' as const };
        expectNotFound(await api.get(`/sms/status/${enc(o.messageId)}`, alt), 'GET /sms/status/{message_id}');
        expectNotFound(await api.get(`/vps/${enc(o.vpsId)}`, alt), 'GET /vps/{vps_id}', o.vpsName);
        expectNotFound(await api.get(`/vps/${enc(o.vpsId)}/metrics`, alt), 'GET /vps/{vps_id}/metrics');
        expectNotFound(
          await api.get(`/storage/volumes/${enc(o.volumeId)}`, alt),
          'GET /storage/volumes/{volume_id}',
          o.volumeName,
        );
        expectNotFound(await api.get(`/storage/buckets/${enc(o.bucket)}`, alt), 'GET /storage/buckets/{bucket_name}');
        expectNotFound(
          await api.get(`/storage/buckets/${enc(o.bucket)}/objects`, alt),
          'GET /storage/buckets/{bucket_name}/objects',
          o.objectKey,
        );
        expectNotFound(
          await api.get(objectPath(o.bucket, o.objectKey), alt),
          'GET /storage/buckets/{bucket_name}/objects/{object_key}',
          o.objectBody,
        );
        expectNotFound(
          await api.get(`/projects/${enc(o.projectId)}`, alt),
          'GET /projects/{project_id}',
          o.projectName,
        );
      },
    );

    step(
      {
        id: `${FLOW}.lists`,
        requirement: 'ISO-LIST-001',
        level: 'SHOULD',
        operation: 'GET /vps',
        title: "the other account's lists hold none of this account's resources",
      },
      async ({ api, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const lists: Array<[string, Record<string, string | number>, string[]]> = [
          ['/sms/messages', { per_page: 100 }, [o.messageId]],
          ['/vps', { per_page: 100 }, [o.vpsId, o.vpsName]],
          ['/storage/volumes', {}, [o.volumeId, o.volumeName]],
          ['/storage/buckets', {}, [o.bucket]],
          ['/projects', {}, [o.projectId, o.projectName]],
          ['/account/api-keys', {}, [o.keyId, o.key.slice(0, 12)]],
          ['/messaging/templates', {}, [o.templateId]],
        ];
        for (const [path, query, needles] of lists) {
          const res = await api.get(path, { account: 'alt', query });
          expectStatus(res, 200, `GET ${path} as the other account`);
          for (const needle of needles)
            expect(res.text.includes(needle), `GET ${path} of the other account shows ${needle}`).toBe(false);
        }
      },
    );

    step(
      {
        id: `${FLOW}.template`,
        requirement: 'MSG-TPL-006',
        level: 'MUST',
        class: 'messaging',
        operation: 'POST /sms/send-template',
        title: "the other account cannot send with this account's template: it names no template of its account",
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const res = await api.post(
          '/sms/send-template',
          { to: ctx.testNumbers.succeed, template_id: state.owned.templateId, variables: { code: '1' } },
          { account: 'alt' },
        );
        const id = (res.body as { message_id?: unknown } | undefined)?.message_id;
        if (res.status < 300 && typeof id === 'string') ledger.track('message', id, { account: 'alt' });
        expectRefused(res, 'the send');
        // The code (invalid_template) is ERR-CODE-006's, checked by the template-send flow.
        expectErrorEnvelope(res);
      },
    );

    step(
      {
        id: `${FLOW}.bucket-name`,
        requirement: 'BKT-CRT-003',
        level: 'MUST',
        class: 'storage-objects',
        operation: 'POST /storage/buckets',
        title: "the other account cannot create a bucket with this account's bucket name",
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const bucket = await api.get(`/storage/buckets/${enc(state.owned.bucket)}`);
        expectStatus(bucket, 200);
        const region = resourceOf<{ region?: string }>(bucket.body, 'bucket', 'region')?.region;
        const res = await api.post('/storage/buckets', { name: state.owned.bucket, region }, { account: 'alt' });
        if (res.status < 300) ledger.track('bucket', state.owned.bucket, { account: 'alt', rank: 61 });
        expectRefused(res, 'taking a name another account holds');
        expectErrorEnvelope(res, 'bucket_already_exists');
      },
    );

    step(
      {
        id: `${FLOW}.write`,
        requirement: 'ISO-WRITE-001',
        level: 'SHOULD',
        operation: 'DELETE /vps/{vps_id}',
        title: "changing or deleting this account's resources as the other account is 404",
      },
      async ({ api, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const alt = { account: 'alt' as const };
        expectNotFound(
          await api.put(`/vps/${enc(o.vpsId)}`, { name: ctx.name('iso-stolen') }, alt),
          'PUT /vps/{vps_id}',
        );
        expectNotFound(
          await api.post(`/vps/${enc(o.vpsId)}/actions`, { type: 'stop' }, alt),
          'POST /vps/{vps_id}/actions',
        );
        expectNotFound(await api.delete(`/vps/${enc(o.vpsId)}`, alt), 'DELETE /vps/{vps_id}');
        expectNotFound(
          await api.post(`/storage/volumes/${enc(o.volumeId)}/resize`, { size: 2 }, alt),
          'POST /storage/volumes/{volume_id}/resize',
        );
        expectNotFound(
          await api.delete(`/storage/volumes/${enc(o.volumeId)}`, alt),
          'DELETE /storage/volumes/{volume_id}',
        );
        expectNotFound(
          await api.request({
            method: 'PUT',
            path: objectPath(o.bucket, o.objectKey),
            body: 'overwritten by the other account',
            headers: { 'content-type': 'text/plain' },
            account: 'alt',
          }),
          'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
        );
        expectNotFound(
          await api.delete(objectPath(o.bucket, o.objectKey), alt),
          'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
        );
        expectNotFound(
          await api.delete(`/storage/buckets/${enc(o.bucket)}`, alt),
          'DELETE /storage/buckets/{bucket_name}',
        );
        expectNotFound(
          await api.put(`/projects/${enc(o.projectId)}`, { name: ctx.name('iso-stolen') }, alt),
          'PUT /projects/{project_id}',
        );
        expectNotFound(await api.delete(`/projects/${enc(o.projectId)}`, alt), 'DELETE /projects/{project_id}');
        expectNotFound(await api.delete(`/account/api-keys/${enc(o.keyId)}`, alt), 'DELETE /account/api-keys/{key_id}');
      },
    );

    step(
      {
        id: `${FLOW}.unchanged`,
        requirement: 'ISO-WRITE-001',
        level: 'SHOULD',
        operation: 'GET /vps/{vps_id}',
        title: 'afterwards every resource of this account is still there, unchanged',
      },
      async ({ api, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const vps = await api.get(`/vps/${enc(o.vpsId)}`);
        expectStatus(vps, 200, 'the VPS still exists');
        expect(expectResource<{ name: string }>(vps, 'vps').name, 'the VPS keeps its name').toBe(o.vpsName);
        const volume = await api.get(`/storage/volumes/${enc(o.volumeId)}`);
        expectStatus(volume, 200, 'the volume still exists');
        expect(expectResource<{ size: number }>(volume, 'volume').size, 'the volume keeps its size').toBe(1);
        expectStatus(await api.get(`/storage/buckets/${enc(o.bucket)}`), 200, 'the bucket still exists');
        const object = await api.get(objectPath(o.bucket, o.objectKey));
        expectStatus(object, 200, 'the object still exists');
        expect(object.text, 'the object keeps its content').toBe(o.objectBody);
        const project = await api.get(`/projects/${enc(o.projectId)}`);
        expectStatus(project, 200, 'the project still exists');
        expect(expectResource<{ name: string }>(project, 'project').name, 'the project keeps its name').toBe(
          o.projectName,
        );
        expectStatus(await api.get('/account', { key: o.key }), 200, 'the API key still works');
        expectStatus(await api.get(`/sms/status/${enc(o.messageId)}`), 200, 'the message is still readable');
      },
    );

    step(
      {
        id: `${FLOW}.bucket-name-conflict`,
        requirement: 'ISO-BKT-001',
        level: 'SHOULD',
        operation: 'POST /storage/buckets',
        title:
          "the other account taking this account's bucket name gets 409 bucket_already_exists, and the bucket stays 404 to it",
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const bucket = await api.get(`/storage/buckets/${enc(o.bucket)}`);
        expectStatus(bucket, 200);
        const region = resourceOf<{ region?: string }>(bucket.body, 'bucket', 'region')?.region;
        const res = await api.post('/storage/buckets', { name: o.bucket, region }, { account: 'alt' });
        if (res.status < 300) ledger.track('bucket', o.bucket, { account: 'alt', rank: 61 });
        expectStatus(res, 409, 'taking a name another account holds');
        expectErrorEnvelope(res, 'bucket_already_exists');
        expectNotFound(await api.get(`/storage/buckets/${enc(o.bucket)}`, { account: 'alt' }), 'GET of that bucket');
      },
    );

    step(
      {
        id: `${FLOW}.volume-foreign-ids`,
        requirement: 'ISO-VOL-001',
        level: 'SHOULD',
        operation: 'POST /storage/volumes/{volume_id}/attach',
        title:
          "the other account attaching its volume to this account's VPS, or restoring from this account's snapshot, is refused as for ids that name nothing",
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const o = state.owned;
        const alt = { account: 'alt' as const };
        const snapshot = await api.post('/storage/snapshots', { volume_id: o.volumeId, name: ctx.name('iso-vsnap') });
        expectStatus(snapshot, [200, 201], "a snapshot of this account's volume");
        const snapshotId = ledger.track('volume-snapshot', expectResource<{ id: string }>(snapshot, 'snapshot').id);
        const region = expectResource<{ region: string }>(
          await api.get(`/storage/volumes/${enc(o.volumeId)}`),
          'volume',
        ).region;
        const own = await api.post('/storage/volumes', { name: ctx.name('iso-alt-vol'), size: 1, region }, alt);
        expectStatus(own, [200, 201], "the other account's own volume");
        const volumeId = ledger.track('volume', expectResource<{ id: string }>(own, 'volume').id, alt);
        const nowhere = `${o.vpsId}-cloudcheck-none`;
        const attach = async (vpsId: string) => {
          const res = await api.post(`/storage/volumes/${enc(volumeId)}/attach`, { vps_id: vpsId }, alt);
          // Attached after all: detached at once, or its volume could not be deleted at teardown.
          if (res.status < 300)
            await api.request({ method: 'POST', path: `/storage/volumes/${enc(volumeId)}/detach`, account: 'alt' });
          return res;
        };
        const restore = async (id: string) => {
          const res = await api.post('/storage/volumes/restore', { snapshot_id: id, name: ctx.name('iso-rst') }, alt);
          const restored = resourceOf<{ id?: unknown }>(res.body, 'volume')?.id;
          if (res.status < 300 && typeof restored === 'string') ledger.track('volume', restored, alt);
          return res;
        };
        const cases: Array<[string, ApiResponse, ApiResponse]> = [
          ["attaching to this account's VPS", await attach(o.vpsId), await attach(nowhere)],
          [
            "restoring from this account's snapshot",
            await restore(snapshotId),
            await restore(`${snapshotId}-cloudcheck-none`),
          ],
        ];
        for (const [what, foreign, unknown] of cases) {
          const code = (res: ApiResponse): unknown =>
            (res.body as { error?: { code?: unknown } } | undefined)?.error?.code;
          expectRefused(foreign, what);
          expect(
            { status: foreign.status, code: code(foreign) },
            `${what} is answered as for an id that names nothing: ${foreign.text.slice(0, 200)}`,
          ).toEqual({ status: unknown.status, code: code(unknown) });
        }
      },
    );

    step(
      {
        id: `${FLOW}.s3`,
        requirement: 'ISO-S3-001',
        level: 'SHOULD',
        operation: null,
        title:
          "the other account's storage access key can neither list, read nor write this account's bucket through S3, nor sees it in ListBuckets",
      },
      async ({ api, ledger, ctx, state }) => {
        ctx.requireAlt();
        const endpoint = ctx.requireS3();
        const o = state.owned;
        // Loaded here: the S3 SDK is what only this step of the flow needs.
        const s3 = await import('../s3/_s3.ts');
        const sdk = await import('@aws-sdk/client-s3');
        const pair = await s3.createAccessKey(api, ledger, ctx, { account: 'alt' });
        const bucket = await api.get(`/storage/buckets/${enc(o.bucket)}`);
        const region = resourceOf<{ region?: string }>(bucket.body, 'bucket', 'region')?.region ?? 'us-east-1';
        const client = s3.s3Client(endpoint, region, pair);
        try {
          const attempts: Array<[string, () => Promise<unknown>]> = [
            ['ListObjectsV2', () => client.send(new sdk.ListObjectsV2Command({ Bucket: o.bucket }))],
            ['GetObject', () => client.send(new sdk.GetObjectCommand({ Bucket: o.bucket, Key: o.objectKey }))],
            [
              'PutObject',
              () =>
                client.send(
                  new sdk.PutObjectCommand({ Bucket: o.bucket, Key: o.objectKey, Body: 'overwritten over S3' }),
                ),
            ],
          ];
          // One at a time, and a body that came after all is read: an unread one holds its connection.
          for (const [what, attempt] of attempts) {
            const { code } = await s3.s3ErrorCode(
              attempt().then(async (out) => {
                const body = (out as { Body?: { transformToByteArray(): Promise<Uint8Array> } }).Body;
                if (body) await body.transformToByteArray();
              }),
            );
            expect(code, `${what} of this account's bucket with the other account's key`).not.toBe('no error');
          }
          const listed = await client.send(new sdk.ListBucketsCommand({}));
          expect(
            (listed.Buckets ?? []).map((b) => b.Name),
            "ListBuckets with the other account's key",
          ).not.toContain(o.bucket);
        } finally {
          client.destroy();
        }
        const object = await api.get(objectPath(o.bucket, o.objectKey));
        expect(object.text, 'the object keeps its content').toBe(o.objectBody);
      },
    );
  },
);
