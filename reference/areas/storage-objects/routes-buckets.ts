/**
 * Buckets and their configuration: create, list, get, delete, CDN, CDN purge, policy. These
 * routes take JSON bodies through the shared parser.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError, fieldError } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { Fields } from '../../core/validation.ts';
import {
  CDN_DEFAULT_TTL,
  CDN_DOMAIN,
  CDN_MAX_TTL,
  ENCRYPTIONS,
  REGIONS,
  bucketNameProblem,
  isHostname,
} from './catalog.ts';
import { checkPolicy, isPolicyProblem } from './policy.ts';
import { bucketView, rest } from './rest.ts';
import type { BucketRecord, ObjectStore } from './store.ts';

type BucketParams = { Params: { bucket_name: string } };

export function bucketRoutes(app: FastifyInstance, ctx: ReferenceContext, store: ObjectStore): void {
  const view = (bucket: BucketRecord) =>
    ctx.faults.has('bucket-size-string') ? { ...bucketView(bucket), size: String(bucket.size) } : bucketView(bucket);

  app.get('/storage/buckets', async (request) => {
    const { account } = authOf(request);
    return { buckets: store.listBuckets(account.id).map(view) };
  });

  app.post('/storage/buckets', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('storage', request.body);
    const name = fields.string('name', { required: true });
    const problem = bucketNameProblem(name);
    if (problem) fields.fail('name', problem);
    const region = fields.string('region', { required: true, oneOf: REGIONS });
    const isPublic = fields.boolean('public');
    const versioning = fields.boolean('versioning');
    const encryption = fields.string('encryption', { oneOf: ENCRYPTIONS }) as (typeof ENCRYPTIONS)[number] | undefined;
    // Extension: the project the bucket belongs to (projects list it as a resource).
    const projectId = fields.string('project_id', { max: 64 });
    const bucket = await rest(() =>
      store.createBucket(
        account.id,
        {
          name,
          region,
          public: isPublic,
          versioning: ctx.faults.has('bucket-versioning-dropped') ? false : versioning,
          encryption,
          project_id: projectId ?? null,
        },
        { uniqueNames: !ctx.faults.has('bucket-name-not-unique') },
      ),
    ).catch((error: unknown) => {
      if (
        ctx.faults.has('bucket-exists-wrong-code') &&
        error instanceof ApiError &&
        error.code === 'bucket_already_exists'
      ) {
        throw new ApiError('conflict', error.message, undefined, 'bucket');
      }
      if (error instanceof ApiError && error.code === 'bucket_already_exists') {
        const foreign = store.ownedByAnother(account.id, name);
        // Fault `bucket-foreign-name-403` (another account's name) or `bucket-taken-422` (the caller's own).
        const status = foreign
          ? ctx.faults.has('bucket-foreign-name-403') && 403
          : ctx.faults.has('bucket-taken-422') && 422;
        if (status) throw new ApiError('bucket_already_exists', error.message, undefined, 'bucket', status);
      }
      throw error;
    });
    return reply.status(201).send({ bucket: view(bucket) });
  });

  app.get<BucketParams>('/storage/buckets/:bucket_name', async (request) => {
    const { account } = authOf(request);
    const bucket = await rest(() => store.getBucket(account.id, request.params.bucket_name));
    return { bucket: view(bucket) };
  });

  app.delete<BucketParams>('/storage/buckets/:bucket_name', async (request, reply) => {
    const { account } = authOf(request);
    await rest(() =>
      store.deleteBucket(account.id, request.params.bucket_name, {
        force: ctx.faults.has('bucket-delete-non-empty'),
        purgeVersions: true,
      }),
    );
    return reply.status(204).send();
  });

  app.post<BucketParams>('/storage/buckets/:bucket_name/cdn', async (request) => {
    const { account } = authOf(request);
    const fields = new Fields('storage', request.body);
    const customDomain = fields.string('custom_domain', { max: 253 });
    if (customDomain !== undefined && !isHostname(customDomain))
      fields.fail('custom_domain', 'custom_domain must be a hostname.');
    if (customDomain?.toLowerCase().endsWith(`.${CDN_DOMAIN}`))
      fields.fail('custom_domain', `custom_domain must not be under ${CDN_DOMAIN}.`);
    const cacheTtl = fields.integer('cache_ttl', { min: 0, max: CDN_MAX_TTL }) ?? CDN_DEFAULT_TTL;
    const cdn = await rest(() =>
      store.enableCdn(account.id, request.params.bucket_name, { custom_domain: customDomain, cache_ttl: cacheTtl }),
    );
    return {
      cdn: {
        bucket: request.params.bucket_name,
        ...cdn,
        // The OpenAPI document names the address `cdn_url`; `endpoint` is the bare host name.
        cdn_url: `https://${cdn.endpoint}`,
      },
    };
  });

  app.post<BucketParams>('/storage/buckets/:bucket_name/cdn/purge', async (request) => {
    const { account } = authOf(request);
    const fields = new Fields('storage', request.body);
    const paths = fields.stringArray('paths', { maxItems: 1000, itemPattern: /^\/[\s\S]{0,1023}$/ }) ?? [];
    return { purge: await rest(() => store.purgeCdn(account.id, request.params.bucket_name, paths)) };
  });

  app.get<BucketParams>('/storage/buckets/:bucket_name/policy', async (request) => {
    const { account } = authOf(request);
    const policy = await rest(() => store.getPolicy(account.id, request.params.bucket_name));
    return { policy: ctx.faults.has('bucket-policy-statement-dropped') ? { ...policy, Statement: [] } : policy };
  });

  app.put<BucketParams>('/storage/buckets/:bucket_name/policy', async (request) => {
    const { account } = authOf(request);
    const bucket = await rest(() => store.getBucket(account.id, request.params.bucket_name));
    // Same envelope rules as every JSON body: not an object is invalid_json.
    new Fields('storage', request.body ?? {});
    const checked = checkPolicy(bucket.name, request.body ?? {});
    if (isPolicyProblem(checked)) throw fieldError('storage', checked.field, checked.message);
    return { policy: await rest(() => store.setPolicy(account.id, bucket.name, checked)) };
  });
}
