/**
 * Object storage, REST side: buckets, objects, multipart uploads, presigned URLs, CDN, bucket
 * policy, access keys and usage. The bytes and records live in `store.ts`, which the
 * S3-compatible endpoint shares through `objectStoreOf(ctx)`.
 */
import type { FastifyRequest } from 'fastify';
import { namedPlugin, type AreaModule } from '../area.ts';
import { STORAGE_OBJECT_FAULTS } from './faults.ts';
import { storageObjectsProvider } from './provider.ts';
import { accountRoutes } from './routes-account.ts';
import { bucketRoutes } from './routes-buckets.ts';
import { objectRoutes, presignedAccounts } from './routes-objects.ts';
import { objectStoreOf } from './store.ts';
import { STORAGE_OBJECT_VARIANTS } from './variants.ts';
import { ApiError } from '../../core/errors.ts';

export { objectStoreOf } from './store.ts';

export const storageObjectsArea: AreaModule = {
  name: 'storage-objects',
  faults: STORAGE_OBJECT_FAULTS,
  variants: STORAGE_OBJECT_VARIANTS,
  setup(ctx) {
    ctx.services.addResourceProvider(storageObjectsProvider(objectStoreOf(ctx)));
  },
  plugin: async (app, { ctx }) => {
    const store = objectStoreOf(ctx);

    // Every answered request of the account counts in its usage (and against the bucket it names).
    // Counted in onSend, before the response leaves: a client that reads its usage right after a
    // response must see that request counted (onResponse runs only after the bytes are out).
    app.addHook('onSend', async (request: FastifyRequest, _reply, payload) => {
      const accountId = request.auth?.account.id ?? presignedAccounts.get(request);
      if (accountId) {
        const bucket = (request.params as { bucket_name?: unknown } | undefined)?.bucket_name;
        store.recordRequest(accountId, typeof bucket === 'string' ? bucket : undefined);
      }
      return payload;
    });

    // Variant `foreign-resources-403`: another account's bucket exists, but not for the caller.
    if (ctx.variants.has('foreign-resources-403'))
      app.addHook('preHandler', async (request: FastifyRequest) => {
        const bucket = (request.params as { bucket_name?: unknown } | undefined)?.bucket_name;
        const account = request.auth?.account.id;
        if (typeof bucket === 'string' && account !== undefined && store.ownedByAnother(account, bucket))
          throw new ApiError('forbidden', `The bucket ${bucket} belongs to another account.`, undefined, 'bucket');
      });

    // JSON routes keep the shared JSON parser; object routes get a scope that leaves bodies unread.
    await app.register(
      namedPlugin('storage-objects json', async (json) => {
        bucketRoutes(json, ctx, store);
        accountRoutes(json, ctx, store);
      }),
    );
    await app.register(
      namedPlugin('storage-objects raw', async (raw) => {
        objectRoutes(raw, ctx, store);
      }),
    );
  },
};
