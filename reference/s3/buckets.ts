/** The service and bucket operations: ListBuckets, CreateBucket, DeleteObjects and the bucket dispatch. */
import { REGIONS, bucketNameProblem } from '../areas/storage-objects/catalog.ts';
import { S3Error } from './errors.ts';
import { parseXml, xmlDocument } from './xml.ts';
import { type Call, intParam } from './shared.ts';
import type { S3Env, S3Helpers } from './env.ts';
import type { ListingOperations } from './listing.ts';

export function bucketOperations(env: S3Env, helpers: S3Helpers, listing: ListingOperations) {
  const { ctx, store } = env;
  const { smallBody } = helpers;
  const { listObjects, listUploads, listVersions } = listing;

  async function listBuckets(call: Call) {
    const limited = call.auth.key.bucket_access;
    // Variant `s3-list-buckets-global`: every bucket of the endpoint (their names are global anyway).
    const listed = ctx.variants.has('s3-list-buckets-global')
      ? ctx.accounts.allAccounts().flatMap((account) => store.listBuckets(account.id))
      : store.listBuckets(call.accountId);
    const buckets = ctx.faults.has('s3-list-buckets-empty')
      ? []
      : listed.filter((b) => !limited || limited.length === 0 || limited.includes(b.name));
    // Paged only when asked (max-buckets), as S3: the token is the last name of the page.
    const maxBuckets = call.query.has('max-buckets')
      ? Math.max(1, intParam(call.query, 'max-buckets', 10_000, 10_000))
      : undefined;
    const after = call.query.get('continuation-token')
      ? Buffer.from(call.query.get('continuation-token')!, 'base64url').toString('utf8')
      : undefined;
    const sorted = [...buckets]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .filter((b) => after === undefined || b.name > after);
    const page = maxBuckets === undefined ? sorted : sorted.slice(0, maxBuckets);
    const body = xmlDocument('ListAllMyBucketsResult', {
      Owner: { ID: call.accountId, DisplayName: call.accountId },
      Buckets:
        page.length === 0
          ? ''
          : { Bucket: page.map((b) => ({ Name: b.name, CreationDate: b.created_at, BucketRegion: b.region })) },
      ...(page.length < sorted.length
        ? { ContinuationToken: Buffer.from(page.at(-1)!.name).toString('base64url') }
        : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  async function createBucket(call: Call, bucket: string) {
    const problem = bucketNameProblem(bucket);
    if (problem)
      throw new S3Error('InvalidBucketName', `The specified bucket is not valid: ${problem}`, { BucketName: bucket });
    const text = (await smallBody(call)).toString('utf8').trim();
    let region: string | undefined;
    if (text) {
      const doc = parseXml(text).CreateBucketConfiguration as { LocationConstraint?: unknown } | undefined;
      if (typeof doc?.LocationConstraint === 'string' && doc.LocationConstraint.trim())
        region = doc.LocationConstraint.trim();
    }
    // A region slug of the API (S3-REG-001); the SDK's signing region otherwise, else the first.
    const slugs: readonly string[] = REGIONS;
    const chosen =
      region && slugs.includes(region) ? region : slugs.includes(call.auth.region) ? call.auth.region : REGIONS[0];
    if (region && !slugs.includes(region))
      throw new S3Error(
        'InvalidArgument' as const,
        `Unknown LocationConstraint ${region}; use a region slug (${REGIONS.join(', ')}).`,
      );
    if (store.findBucket(call.accountId, bucket) && ctx.faults.has('s3-recreate-own-bucket-taken'))
      throw new S3Error('BucketAlreadyExists', 'The requested bucket name is not available.');
    if (store.findBucket(call.accountId, bucket))
      throw new S3Error(
        'BucketAlreadyOwnedByYou',
        'Your previous request to create the named bucket succeeded and you already own it.',
        { BucketName: bucket },
      );
    store.createBucket(call.accountId, { name: bucket, region: chosen });
    return call.reply.header('location', `/${bucket}`).send();
  }

  async function deleteObjects(call: Call, bucketName: string) {
    const h = call.request.headers;
    if (
      h['content-md5'] === undefined &&
      !Object.keys(h).some((n) => /^x-amz-checksum-(crc|sha)/.test(n)) &&
      !h['x-amz-trailer']
    ) {
      throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5 or x-amz-checksum-*.');
    }
    const doc = parseXml((await smallBody(call)).toString('utf8')).Delete as
      | { Object?: Array<{ Key?: unknown }>; Quiet?: unknown }
      | undefined;
    if (!doc || !Array.isArray(doc.Object) || doc.Object.length === 0 || doc.Object.length > 1000) {
      throw new S3Error('MalformedXML', 'The Delete body must list 1 to 1000 objects.');
    }
    const keys = doc.Object.map((o) => (typeof o.Key === 'string' ? o.Key : ''));
    const quiet = String(doc.Quiet ?? '').trim() === 'true';
    store.getBucket(call.accountId, bucketName);
    const deleted: Array<{ Key: string }> = [];
    const errors: Array<{ Key: string; Code: string; Message: string }> = [];
    for (const key of keys) {
      if (!key) errors.push({ Key: key, Code: 'InvalidArgument', Message: 'Empty key.' });
      else {
        store.deleteObject(call.accountId, bucketName, key);
        deleted.push({ Key: key });
      }
    }
    const body = xmlDocument('DeleteResult', {
      ...(!quiet && deleted.length ? { Deleted: deleted } : {}),
      ...(errors.length ? { Error: errors } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  async function bucketOperation(call: Call, bucket: string) {
    const { method } = call.request;
    const q = call.query;
    if (method === 'GET' && q.has('location')) {
      const b = store.getBucket(call.accountId, bucket);
      return call.reply.type('application/xml').send(xmlDocument('LocationConstraint', { '#text': b.region }));
    }
    if (method === 'GET' && q.has('uploads')) return listUploads(call, bucket);
    if ((q.has('versions') || q.has('versioning')) && ctx.faults.has('s3-list-versions-missing'))
      throw new S3Error('NotImplemented', 'Versioning is not implemented.');
    if (method === 'GET' && q.has('versions')) return listVersions(call, bucket);
    if (method === 'GET' && q.has('versioning')) {
      store.getBucket(call.accountId, bucket);
      // Never versioned: S3 answers an empty configuration (no Status) for such a bucket.
      return call.reply.type('application/xml').send(xmlDocument('VersioningConfiguration', {}));
    }
    if (method === 'POST' && q.has('delete')) return deleteObjects(call, bucket);
    const known = new Set([
      'list-type',
      'prefix',
      'delimiter',
      'max-keys',
      'continuation-token',
      'start-after',
      'encoding-type',
      'fetch-owner',
      'marker',
      'x-id',
    ]);
    const unknown = [...q.keys()].filter((k) => !known.has(k) && !/^x-amz-/i.test(k));
    if (unknown.length > 0)
      throw new S3Error('NotImplemented', `The bucket sub-resource ${unknown[0]} is not implemented.`);
    switch (method) {
      case 'GET':
        return listObjects(call, bucket);
      case 'HEAD': {
        const b = store.getBucket(call.accountId, bucket);
        return call.reply.header('x-amz-bucket-region', b.region).send();
      }
      case 'PUT':
        return createBucket(call, bucket);
      case 'DELETE':
        store.deleteBucket(call.accountId, bucket);
        return call.reply.status(204).send();
      default:
        throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  }

  return { listBuckets, createBucket, bucketOperation };
}
