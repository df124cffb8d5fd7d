/**
 * Account-wide object-storage routes: storage access keys (the S3 endpoint's credentials) and
 * usage built from the store's real counters.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { authOf } from '../../core/http.ts';
import { Fields } from '../../core/validation.ts';
import { ACCESS_KEY_PERMISSIONS } from './catalog.ts';
import { accessKeyView } from './rest.ts';
import type { ObjectStore } from './store.ts';

/** Longest usage report: one year and a day, so a report stays a few hundred records. */
const MAX_USAGE_DAYS = 366;

export function accountRoutes(app: FastifyInstance, ctx: ReferenceContext, store: ObjectStore): void {
  app.get('/storage/access-keys', async (request) => {
    const { account } = authOf(request);
    return { access_keys: store.listAccessKeys(account.id).map((key) => accessKeyView(key, false)) };
  });

  app.post('/storage/access-keys', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('storage', request.body);
    const name = fields.string('name', { required: true, max: 255 });
    const permissions = fields.stringArray('permissions', {
      required: true,
      maxItems: 2,
      oneOf: ACCESS_KEY_PERMISSIONS,
    });
    const bucketAccess = fields.stringArray('bucket_access', { maxItems: 1000 });
    const unknown = bucketAccess?.find((bucket) => !store.findBucket(account.id, bucket));
    if (unknown !== undefined)
      fields.fail('bucket_access', `bucket_access names a bucket the account does not have: ${unknown}.`);
    const key = store.createAccessKey(account.id, {
      name,
      permissions: [...new Set(permissions)],
      bucket_access: bucketAccess ? [...new Set(bucketAccess)] : null,
    });
    ctx.faults.madeForCurrentCheck(key.access_key_id);
    // The only response that ever shows the secret.
    return reply.status(201).send({ access_key: accessKeyView(key, true) });
  });

  app.get('/storage/usage', async (request) => {
    const { account } = authOf(request);
    const query = new Fields('storage', request.query);
    const now = ctx.clock.now();
    const fromText = query.timestamp('from_date', { allowDate: true });
    const toText = query.timestamp('to_date', { allowDate: true });
    const bucket = query.string('bucket');
    if (bucket !== undefined && ctx.faults.has('usage-bucket-filter-refused'))
      query.fail('bucket', 'bucket is not a known filter.');
    // Default period: the current month so far.
    const monthStart = new Date(now);
    const from =
      fromText !== undefined
        ? Date.parse(fromText)
        : Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth(), 1);
    const to = toText !== undefined ? Date.parse(toText) : now;
    if (to < from) query.fail('to_date', 'to_date must not be before from_date.');
    if ((to - from) / 86_400_000 > MAX_USAGE_DAYS)
      query.fail('to_date', `The period may span at most ${MAX_USAGE_DAYS} days.`);
    // A bucket filter must name a bucket of the account; a deleted one keeps its history.
    const usage = store.usage(account.id);
    if (bucket !== undefined && !store.findBucket(account.id, bucket) && !usage.knows(bucket)) {
      query.fail('bucket', `No bucket named ${bucket}.`);
    }
    const report = usage.report(from, to, bucket);
    if (!ctx.faults.has('usage-summary-cost-missing')) return report;
    const { total_cost: _dropped, ...summary } = report.summary;
    return { ...report, summary };
  });
}
