/** The service and bucket operations: ListBuckets, CreateBucket, DeleteObjects and the bucket dispatch. */
import { REGIONS, bucketNameProblem } from '../areas/storage-objects/catalog.ts';
import { S3Error } from './errors.ts';
import { parseXml, xmlDocument } from './xml.ts';
import { type Call, intParam } from './shared.ts';
import type { S3Env, S3Helpers } from './env.ts';
import type { ListingOperations } from './listing.ts';
import type { AclOperations } from './acls.ts';
import { isSubresource } from './access.ts';

export function bucketOperations(env: S3Env, helpers: S3Helpers, listing: ListingOperations, acls: AclOperations) {
  const { ctx, store } = env;
  const { smallBody } = helpers;
  const { listObjects, listUploads, listVersions } = listing;
  const { requestedAcl, getBucketAcl, putBucketAcl } = acls;

  async function listBuckets(call: Call) {
    const limited = call.auth?.key.bucket_access;
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
      Owner: env.ownerElement(call.accountId),
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
    const signing = call.auth?.region ?? '';
    const chosen = region && slugs.includes(region) ? region : slugs.includes(signing) ? signing : REGIONS[0];
    if (region && !slugs.includes(region))
      throw new S3Error(
        'InvalidArgument' as const,
        `Unknown LocationConstraint ${region}; use a region slug (${REGIONS.join(', ')}).`,
      );
    // The creator is the signer, whoever owns the name now (then it is taken, or already its own).
    const creator = call.principal!;
    const acl = requestedAcl(call, creator);
    if (store.ownerOf(bucket) === creator) return recreateOwnBucket(call, bucket);
    store.createBucket(creator, { name: bucket, region: chosen, ...(acl ? { acl } : {}) });
    return call.reply.header('location', `/${bucket}`).send();
  }

  /**
   * CreateBucket of a bucket the caller owns: 200 with the bucket unchanged, as S3 answers in its
   * default region (us-east-1), or 409 BucketAlreadyOwnedByYou as it answers elsewhere (variant).
   */
  function recreateOwnBucket(call: Call, bucket: string) {
    if (ctx.faults.has('s3-recreate-own-bucket-taken'))
      throw new S3Error('BucketAlreadyExists', 'The requested bucket name is not available.');
    if (ctx.variants.has('s3-recreate-own-bucket-409'))
      throw new S3Error(
        'BucketAlreadyOwnedByYou',
        'Your previous request to create the named bucket succeeded and you already own it.',
        { BucketName: bucket },
      );
    return call.reply.header('location', `/${bucket}`).send();
  }

  /** Get/PutBucketVersioning: Enabled, Suspended, or no Status for a bucket never versioned. */
  async function getVersioning(call: Call, bucket: string) {
    const { versioning } = store.getBucket(call.accountId, bucket);
    const status = ctx.faults.has('s3-versioning-ignored')
      ? undefined
      : { off: undefined, enabled: 'Enabled', suspended: 'Suspended' }[versioning];
    return call.reply
      .type('application/xml')
      .send(xmlDocument('VersioningConfiguration', status ? { Status: status } : {}));
  }

  async function putVersioning(call: Call, bucket: string) {
    store.getBucket(call.accountId, bucket);
    const doc = parseXml((await smallBody(call)).toString('utf8')).VersioningConfiguration as
      | { Status?: unknown }
      | undefined;
    const status = typeof doc?.Status === 'string' ? doc.Status.trim() : undefined;
    if (status !== 'Enabled' && status !== 'Suspended')
      throw new S3Error(
        'MalformedXML',
        'The XML you provided was not well-formed or did not validate against our published schema.',
      );
    if (ctx.faults.has('s3-versioning-ignored')) return call.reply.send();
    store.setVersioning(call.accountId, bucket, status === 'Enabled' ? 'enabled' : 'suspended');
    return call.reply.send();
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
      | { Object?: Array<{ Key?: unknown; VersionId?: unknown }>; Quiet?: unknown }
      | undefined;
    if (!doc || !Array.isArray(doc.Object) || doc.Object.length === 0 || doc.Object.length > 1000) {
      throw new S3Error('MalformedXML', 'The Delete body must list 1 to 1000 objects.');
    }
    const quiet = String(doc.Quiet ?? '').trim() === 'true';
    store.getBucket(call.accountId, bucketName);
    const deleted: Array<Record<string, unknown>> = [];
    const errors: Array<{ Key: string; Code: string; Message: string }> = [];
    for (const object of doc.Object) {
      const key = typeof object.Key === 'string' ? object.Key : '';
      const versionId = typeof object.VersionId === 'string' ? object.VersionId.trim() : undefined;
      if (!key) errors.push({ Key: key, Code: 'InvalidArgument', Message: 'Empty key.' });
      else deleted.push(deleteOne(call, bucketName, key, versionId));
    }
    const body = xmlDocument('DeleteResult', {
      ...(!quiet && deleted.length ? { Deleted: deleted } : {}),
      ...(errors.length ? { Error: errors } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  /** One entry of DeleteObjects: a version removed for good, or a delete marker put (or a key removed). */
  function deleteOne(call: Call, bucket: string, key: string, versionId: string | undefined): Record<string, unknown> {
    if (versionId !== undefined) {
      const removed = store.deleteVersion(call.accountId, bucket, key, versionId);
      const marker = removed && 'delete_marker' in removed;
      return {
        Key: key,
        VersionId: versionId,
        ...(marker ? { DeleteMarker: true, DeleteMarkerVersionId: versionId } : {}),
      };
    }
    const { marker } = store.deleteKey(call.accountId, bucket, key, call.principal ?? call.accountId);
    return {
      Key: key,
      ...(marker ? { DeleteMarker: true, DeleteMarkerVersionId: marker.version_id } : {}),
    };
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
    if (method === 'GET' && q.has('versioning')) return getVersioning(call, bucket);
    if (method === 'PUT' && q.has('versioning')) return putVersioning(call, bucket);
    if (q.has('acl') && ctx.faults.has('s3-acl-missing'))
      throw new S3Error('NotImplemented', 'The bucket sub-resource acl is not implemented.');
    if (method === 'GET' && q.has('acl')) return getBucketAcl(call, bucket);
    if (method === 'PUT' && q.has('acl')) return putBucketAcl(call, bucket);
    if (method === 'POST' && q.has('delete')) return deleteObjects(call, bucket);
    const unknown = [...q.keys()].filter(isSubresource);
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
