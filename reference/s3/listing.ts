/** ListObjects (V1 and V2), ListMultipartUploads and ListObjectVersions of a bucket. */
import { S3Error } from './errors.ts';
import { xmlDocument } from './xml.ts';
import { type Call, MAX_KEYS, encodeForListing, intParam } from './shared.ts';
import type { S3Env } from './env.ts';
import { isDeleteMarker } from '../areas/storage-objects/store.ts';

/** Characters XML 1.0 cannot carry (control characters other than tab and line ends). */
const XML_UNSAFE = {
  test: (text: string): boolean =>
    [...text].some((c) => {
      const code = c.codePointAt(0)!;
      return (code < 0x20 && c !== '\t' && c !== '\n' && c !== '\r') || code === 0xfffe || code === 0xffff;
    }),
};

export function listingOperations(env: S3Env) {
  const { ctx, store } = env;
  const ownerOf = env.ownerElement;

  async function listObjects(call: Call, bucketName: string) {
    const q = call.query;
    const v2 = q.get('list-type') === '2';
    const encodingType = q.get('encoding-type') === 'url';
    if (q.has('encoding-type') && ctx.faults.has('s3-list-encoding-type-refused'))
      throw new S3Error('InvalidArgument', 'encoding-type is not supported.');
    if (q.has('encoding-type') && !encodingType) throw new S3Error('InvalidArgument', 'encoding-type must be url.');
    const encode = encodingType && !ctx.faults.has('s3-list-encoding-ignored');
    const prefix = ctx.faults.has('s3-list-prefix-ignored') ? '' : (q.get('prefix') ?? '');
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = intParam(q, 'max-keys', MAX_KEYS, MAX_KEYS);
    let marker: string | undefined;
    const token = q.get('continuation-token');
    if (v2) {
      // An empty token is no token (S3 starts at the beginning and echoes it).
      if (token === '' && ctx.faults.has('s3-empty-continuation-token-refused'))
        throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.');
      if (token) {
        const decoded = Buffer.from(token, 'base64url').toString('utf8');
        if (!decoded.startsWith('k:'))
          throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.');
        marker = decoded.slice(2);
      } else marker = q.get('start-after') || undefined;
    } else marker = q.get('marker') || undefined;
    const bucket = store.getBucket(call.accountId, bucketName);
    const listing =
      maxKeys === 0
        ? { objects: [], commonPrefixes: [], isTruncated: false, nextMarker: null }
        : store.listObjects(call.accountId, bucket.name, {
            prefix,
            delimiter: delimiter || undefined,
            maxKeys,
            marker,
          });
    let next = listing.nextMarker;
    if (ctx.faults.has('s3-list-continuation-broken') && listing.isTruncated) {
      // Resume one entry early: the last entry of this page comes again on the next one.
      const entries = [...listing.objects.map((o) => o.key), ...listing.commonPrefixes].sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );
      if (entries.length >= 2) next = entries.at(-2)!;
    }
    const contents = listing.objects.map((o) => ({
      Key: encodeForListing(o.key, encode),
      LastModified: o.last_modified,
      ETag: o.etag,
      Size: o.size,
      StorageClass: o.storage_class,
      ...(!v2 || q.get('fetch-owner') === 'true' ? { Owner: ownerOf(o.acl.owner) } : {}),
    }));
    const prefixes = listing.commonPrefixes.map((p) => ({ Prefix: encodeForListing(p, encode) }));
    const common = {
      Name: bucket.name,
      // ListObjects (V1) gives the prefix back as sent, encoding-type or not (botocore, which
      // decodes what S3 encodes there, leaves it alone); XML cannot carry control characters
      // other than tab and newlines, so those are encoded all the same.
      Prefix: encodeForListing(
        prefix,
        encode && (v2 || XML_UNSAFE.test(prefix) || ctx.variants.has('s3-list-v1-prefix-encoded')),
      ),
      ...(delimiter ? { Delimiter: encodeForListing(delimiter, encode) } : {}),
      MaxKeys: maxKeys,
      ...(encodingType ? { EncodingType: 'url' } : {}),
      IsTruncated: listing.isTruncated,
    };
    const body = v2
      ? xmlDocument('ListBucketResult', {
          ...common,
          ...(token !== undefined ? { ContinuationToken: token } : {}),
          ...(q.get('start-after') ? { StartAfter: encodeForListing(q.get('start-after')!, encode) } : {}),
          KeyCount: contents.length + prefixes.length,
          ...(listing.isTruncated && next !== null
            ? { NextContinuationToken: Buffer.from(`k:${next}`).toString('base64url') }
            : {}),
          ...(contents.length ? { Contents: contents } : {}),
          ...(prefixes.length ? { CommonPrefixes: prefixes } : {}),
        })
      : xmlDocument('ListBucketResult', {
          ...common,
          Marker: encodeForListing(q.get('marker') ?? '', encode),
          ...(listing.isTruncated && next !== null ? { NextMarker: encodeForListing(next, encode) } : {}),
          ...(contents.length ? { Contents: contents } : {}),
          ...(prefixes.length ? { CommonPrefixes: prefixes } : {}),
        });
    return call.reply.type('application/xml').send(body);
  }

  async function listUploads(call: Call, bucketName: string) {
    const prefix = call.query.get('prefix') ?? '';
    const uploads = store.listUploads(call.accountId, bucketName).filter((u) => u.key.startsWith(prefix));
    const body = xmlDocument('ListMultipartUploadsResult', {
      Bucket: bucketName,
      KeyMarker: '',
      UploadIdMarker: '',
      Prefix: prefix,
      MaxUploads: MAX_KEYS,
      IsTruncated: false,
      ...(uploads.length
        ? {
            Upload: uploads.map((u) => ({
              Key: u.key,
              UploadId: u.upload_id,
              Initiator: ownerOf(u.acl.owner),
              Owner: ownerOf(u.acl.owner),
              StorageClass: 'STANDARD',
              Initiated: u.initiated,
            })),
          }
        : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  /**
   * ListObjectVersions: every version and delete marker, by key and newest first within a key
   * (a bucket that was never versioned lists each object as its only version, `null`). Tools
   * and the S3 compatibility suites' own clean-up call it on every bucket to empty it.
   */
  async function listVersions(call: Call, bucketName: string) {
    const q = call.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const encode = q.get('encoding-type') === 'url';
    const maxKeys = intParam(q, 'max-keys', MAX_KEYS, MAX_KEYS);
    const keyMarker = q.get('key-marker') || undefined;
    const versionIdMarker = (keyMarker && q.get('version-id-marker')) || undefined;
    const bucket = store.getBucket(call.accountId, bucketName);
    const listing = store.listVersions(call.accountId, bucket.name, {
      prefix,
      maxKeys,
      ...(delimiter ? { delimiter } : {}),
      ...(keyMarker ? { keyMarker } : {}),
      ...(versionIdMarker ? { versionIdMarker } : {}),
    });
    const entries = listing.versions.map(({ version, latest }) => ({
      Key: encodeForListing(version.key, encode),
      VersionId: version.version_id,
      IsLatest: latest,
      LastModified: version.last_modified,
      ...(isDeleteMarker(version)
        ? { Owner: ownerOf(version.owner), marker: true }
        : {
            ETag: version.etag,
            Size: version.size,
            StorageClass: version.storage_class,
            Owner: ownerOf(version.acl.owner),
            marker: false,
          }),
    }));
    const versions = entries.filter((e) => !e.marker).map(({ marker: _m, ...e }) => e);
    const markers = entries.filter((e) => e.marker).map(({ marker: _m, ...e }) => e);
    const prefixes = listing.commonPrefixes.map((p) => ({ Prefix: encodeForListing(p, encode) }));
    const body = xmlDocument('ListVersionsResult', {
      Name: bucket.name,
      Prefix: encodeForListing(prefix, encode),
      KeyMarker: encodeForListing(keyMarker ?? '', encode),
      VersionIdMarker: versionIdMarker ?? '',
      ...(listing.isTruncated && listing.nextKeyMarker !== null
        ? {
            NextKeyMarker: encodeForListing(listing.nextKeyMarker, encode),
            ...(listing.nextVersionIdMarker !== null ? { NextVersionIdMarker: listing.nextVersionIdMarker } : {}),
          }
        : {}),
      MaxKeys: maxKeys,
      ...(delimiter ? { Delimiter: encodeForListing(delimiter, encode) } : {}),
      ...(encode ? { EncodingType: 'url' } : {}),
      IsTruncated: listing.isTruncated,
      ...(versions.length ? { Version: versions } : {}),
      ...(markers.length ? { DeleteMarker: markers } : {}),
      ...(prefixes.length ? { CommonPrefixes: prefixes } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  return { listObjects, listUploads, listVersions };
}

export type ListingOperations = ReturnType<typeof listingOperations>;
