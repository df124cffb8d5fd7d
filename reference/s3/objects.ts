/** Object operations: PutObject, CopyObject, GetObject/HeadObject (ranges, parts), attributes, and the object dispatch. */
import { objectKeyProblem } from '../areas/storage-objects/catalog.ts';
import { cannedAcl } from '../areas/storage-objects/acl.ts';
import { type ChecksumAlgorithm } from './checksums.ts';
import { checkRead, requireCopySource } from './conditions.ts';
import { S3Error } from './errors.ts';
import { xmlDocument } from './xml.ts';
import {
  type Call,
  type ObjectExtras,
  STANDARD_HEADERS,
  header,
  httpDate,
  parseRange,
  slice,
  userMetadata,
} from './shared.ts';
import type { S3Env, S3Helpers } from './env.ts';
import type { MultipartOperations } from './multipart.ts';
import type { AclOperations } from './acls.ts';
import { NULL_VERSION, isDeleteMarker } from '../areas/storage-objects/store.ts';

/** C1 control characters: what a Latin-1 key read as UTF-8 turns into; S3 cannot parse such a URI. */
const UNREADABLE = /[\u0080-\u009F]/;

export function objectOperations(env: S3Env, helpers: S3Helpers, multipart: MultipartOperations, acls: AclOperations) {
  const { ctx, store, objectExtras, uploadExtras } = env;
  const {
    bodyOf,
    smallBody,
    copySourceOf,
    setObjectHeaders,
    storedHeaders,
    writeConditions,
    checksumHeaders,
    objectFor,
    versionHeader,
    requireLength,
  } = helpers;
  const { createUpload, uploadPart, completeUpload, listParts } = multipart;
  const { requestedAcl, getObjectAcl, putObjectAcl } = acls;

  /** The ACL of a new object: what the request asks for, else private; owned by its writer. */
  function aclOfWrite(call: Call) {
    const writer = call.principal ?? call.accountId;
    return requestedAcl(call, writer, call.accountId) ?? cannedAcl('private', writer);
  }

  /** A write's new version id: S3 names it only where the bucket is versioning. */
  function writtenVersion(call: Call, bucket: string, key: string, versionId: string): void {
    if (versionId !== NULL_VERSION) void call.reply.header('x-amz-version-id', versionId);
    const older = store.getBucket(call.accountId, bucket).versions.get(key)?.[1];
    if (older && versionId !== NULL_VERSION && ctx.faults.has('s3-versioning-overwrite-lost'))
      store.deleteVersion(call.accountId, bucket, key, older.version_id);
  }

  async function putObject(call: Call, bucket: string, key: string) {
    store.getBucket(call.accountId, bucket);
    requireLength(call);
    writeConditions(call, bucket, key);
    const acl = aclOfWrite(call);
    const { stream, decoder } = bodyOf(call);
    // An empty Content-Type is as good as none (S3 stores its default).
    const contentType = header(call.request, 'content-type') || undefined;
    const record = await store.putObjectStream(call.accountId, bucket, key, stream, {
      contentType,
      limit: ctx.options.objectLimit,
      acl,
    });
    objectExtras.set(record.blob, {
      checksums: Object.fromEntries(decoder.verified),
      metadata: userMetadata(call.request),
      headers: storedHeaders(call.request),
    });
    checksumHeaders(call.reply, decoder.verified);
    writtenVersion(call, bucket, key, record.version_id);
    return call.reply.header('etag', record.etag).send();
  }

  async function copyObject(call: Call, bucket: string, key: string, sourceText: string) {
    store.getBucket(call.accountId, bucket);
    const from = copySourceOf(call, sourceText);
    await smallBody(call);
    const replace = header(call.request, 'x-amz-metadata-directive') === 'REPLACE';
    const source = from.object;
    // S3 refuses a copy onto itself that changes nothing (no REPLACE of metadata); copying an
    // older version over the current one is a restore, and allowed.
    const current = store.findBucket(call.accountId, bucket)?.objects.get(key);
    if (from.bucket === bucket && from.key === key && !replace && current === source) {
      throw new S3Error(
        'InvalidRequest',
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      );
    }
    requireCopySource(call.request.headers, { etag: source.etag, lastModified: source.last_modified });
    const sourceExtras = objectExtras.get(source.blob);
    const acl = aclOfWrite(call);
    const record = await store.copyObject(
      call.accountId,
      source,
      { bucket, key },
      {
        ...(replace ? { contentType: header(call.request, 'content-type') } : {}),
        acl,
      },
    );
    objectExtras.set(record.blob, {
      checksums: { ...sourceExtras?.checksums },
      metadata: replace ? userMetadata(call.request) : { ...sourceExtras?.metadata },
      headers: replace ? storedHeaders(call.request) : { ...sourceExtras?.headers },
    });
    writtenVersion(call, bucket, key, record.version_id);
    return call.reply
      .type('application/xml')
      .send(xmlDocument('CopyObjectResult', { LastModified: record.last_modified, ETag: record.etag }));
  }

  async function getObject(call: Call, bucket: string, key: string, head: boolean) {
    const object = objectFor(call, bucket, key, 'READ');
    versionHeader(call, store.getBucket(call.accountId, bucket), object.version_id);
    const extras = objectExtras.get(object.blob);
    // Objects written through S3 have extras; the REST side writes none.
    if (!extras && ctx.faults.has('s3-rest-objects-invisible'))
      throw new S3Error('NoSuchKey', 'The specified key does not exist.');
    setObjectHeaders(call.reply, object, extras);
    if (!ctx.faults.has('s3-conditional-read-ignored')) {
      // Evaluated before the Range, as HTTP says: a failed precondition wins over InvalidRange.
      const outcome = checkRead(call.request.headers, { etag: object.etag, lastModified: object.last_modified });
      if (outcome === 'failed')
        throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
          Condition: 'If-Match',
        });
      if (outcome === 'not-modified') {
        // 304 carries the validators and no body or representation headers.
        for (const name of ['content-type', 'content-length', 'accept-ranges', ...STANDARD_HEADERS])
          call.reply.removeHeader(name);
        return call.reply.status(304).send();
      }
    }
    const part = partOf(call, extras);
    const range = part?.range ?? parseRange(header(call.request, 'range'), object.size);
    for (const [param, name] of [
      ['response-content-type', 'content-type'],
      ['response-content-disposition', 'content-disposition'],
      ['response-cache-control', 'cache-control'],
      ['response-content-encoding', 'content-encoding'],
      ['response-content-language', 'content-language'],
      ['response-expires', 'expires'],
    ] as const) {
      const value = call.query.get(param);
      if (value) void call.reply.header(name, value);
    }
    // Whole-object checksums only describe whole reads (S3 omits them for ranges); a part read
    // carries the part's own.
    const checksumMode = header(call.request, 'x-amz-checksum-mode')?.toUpperCase() === 'ENABLED' && extras;
    if (checksumMode && !range) checksumHeaders(call.reply, extras.checksums, extras.checksumType);
    if (checksumMode && part?.checksum) {
      const algorithm = Object.keys(extras.checksums)[0] as ChecksumAlgorithm | undefined;
      if (algorithm) checksumHeaders(call.reply, { [algorithm]: part.checksum }, extras.checksumType);
    }
    if (part) void call.reply.header('x-amz-mp-parts-count', String(part.count));
    const length = range ? range.end - range.start + 1 : object.size;
    void call.reply.header('content-length', String(length));
    if (range) void call.reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${object.size}`);
    if (head) return call.reply.send();
    const body = store.blobs.read(object.blob);
    store.recordDownload(call.accountId, bucket, length);
    return call.reply.send(range ? body.pipe(slice(range.start, length)) : body);
  }

  /**
   * GetObject/HeadObject `?partNumber=`: the byte range of that part of a multipart object.
   * An object uploaded whole has one part (the whole object); a part past the last is InvalidPart.
   */
  function partOf(
    call: Call,
    extras: ObjectExtras | undefined,
  ): { range?: { start: number; end: number }; count: number; checksum?: string } | undefined {
    const text = call.query.get('partNumber');
    if (text === undefined || ctx.faults.has('s3-part-number-ignored')) return undefined;
    const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (!(n >= 1 && n <= 10_000))
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
    const layout = extras?.parts;
    if (!layout) {
      if (n !== 1) throw new S3Error('InvalidPart', 'The requested partnumber is not satisfiable');
      return { count: 1 };
    }
    if (n > layout.length) throw new S3Error('InvalidPart', 'The requested partnumber is not satisfiable');
    const start = layout.slice(0, n - 1).reduce((sum, p) => sum + p.size, 0);
    const size = layout[n - 1]!.size;
    return {
      range: { start, end: start + size - 1 },
      count: layout.length,
      ...(layout[n - 1]!.checksum ? { checksum: layout[n - 1]!.checksum } : {}),
    };
  }

  /** GetObjectAttributes: the attributes asked for in x-amz-object-attributes. */
  async function objectAttributes(call: Call, bucket: string, key: string) {
    const object = objectFor(call, bucket, key, 'READ');
    versionHeader(call, store.getBucket(call.accountId, bucket), object.version_id);
    const extras = objectExtras.get(object.blob);
    const wanted = new Set(
      (header(call.request, 'x-amz-object-attributes') ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    );
    if (wanted.size === 0)
      throw new S3Error('InvalidArgument', 'x-amz-object-attributes must name at least one attribute.');
    const checksums = Object.entries(extras?.checksums ?? {}) as Array<[ChecksumAlgorithm, string]>;
    const algorithm = checksums[0]?.[0];
    const body: Record<string, unknown> = {};
    if (wanted.has('ETag')) body.ETag = object.etag.replace(/^"|"$/g, '');
    if (wanted.has('Checksum') && checksums.length > 0) {
      body.Checksum = {
        ...Object.fromEntries(checksums.map(([a, v]) => [`Checksum${a.toUpperCase()}`, v])),
        ChecksumType: extras?.checksumType ?? 'FULL_OBJECT',
      };
    }
    if (wanted.has('ObjectParts') && extras?.parts) {
      const marker = Number(header(call.request, 'x-amz-part-number-marker') ?? 0) || 0;
      const maxParts = Math.min(Number(header(call.request, 'x-amz-max-parts') ?? 1000) || 1000, 1000);
      const all = extras.parts.map((p, i) => ({ n: i + 1, ...p })).filter((p) => p.n > marker);
      const page = all.slice(0, maxParts);
      body.ObjectParts = {
        PartsCount: extras.parts.length,
        PartNumberMarker: marker,
        ...(page.length ? { NextPartNumberMarker: page.at(-1)!.n } : {}),
        MaxParts: maxParts,
        IsTruncated: all.length > page.length,
        ...(page.length
          ? {
              Part: page.map((p) => ({
                PartNumber: p.n,
                Size: p.size,
                ...(p.checksum && algorithm ? { [`Checksum${algorithm.toUpperCase()}`]: p.checksum } : {}),
              })),
            }
          : {}),
      };
    }
    if (wanted.has('StorageClass')) body.StorageClass = object.storage_class;
    if (wanted.has('ObjectSize')) body.ObjectSize = object.size;
    void call.reply.header('last-modified', httpDate(object.last_modified));
    return call.reply.type('application/xml').send(xmlDocument('GetObjectAttributesResponse', body));
  }

  /** DeleteObject: one version for good (`versionId`), else the key (a delete marker where versioning). */
  function deleteObject(call: Call, bucket: string, key: string) {
    const versionId = call.query.get('versionId');
    const record = store.getBucket(call.accountId, bucket);
    if (versionId !== undefined) {
      if (versionId === '') throw new S3Error('InvalidArgument', 'Version id cannot be the empty string');
      const removed = store.deleteVersion(call.accountId, bucket, key, versionId);
      if (removed && isDeleteMarker(removed)) void call.reply.header('x-amz-delete-marker', 'true');
      void call.reply.header('x-amz-version-id', versionId);
      return call.reply.status(204).send();
    }
    if (record.versioning !== 'off' && ctx.faults.has('s3-delete-versions-lost')) {
      for (const v of [...(record.versions.get(key) ?? [])])
        store.deleteVersion(call.accountId, bucket, key, v.version_id);
      return call.reply.status(204).send();
    }
    const { marker } = store.deleteKey(call.accountId, bucket, key, call.principal ?? call.accountId);
    if (marker) void call.reply.header('x-amz-delete-marker', 'true').header('x-amz-version-id', marker.version_id);
    return call.reply.status(204).send();
  }

  async function objectOperation(call: Call, bucket: string, key: string) {
    if (UNREADABLE.test(key) && !ctx.faults.has('s3-invalid-key-404'))
      throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
    const problem = objectKeyProblem(key);
    if (problem) throw new S3Error('InvalidArgument', problem);
    const { method } = call.request;
    const q = call.query;
    const uploadId = q.get('uploadId');
    // Hoisted headers (`X-Amz-*`, `x-amz-*`) are not sub-resources. The JS SDK's presigner puts
    // `x-amz-checksum-crc32` of an EMPTY body into presigned PUT URLs; AWS ignores checksum query
    // parameters (LocalStack aligned with that in 2025), so they are ignored here too.
    const subresources = [...q.keys()].filter(
      (k) =>
        !/^x-amz-/i.test(k) &&
        !k.startsWith('response-') &&
        ![
          'uploadId',
          'partNumber',
          'uploads',
          'x-id',
          'part-number-marker',
          'max-parts',
          'attributes',
          'versionId',
          'acl',
        ].includes(k),
    );
    if (subresources.length > 0)
      throw new S3Error('NotImplemented', `The object sub-resource ${subresources[0]} is not implemented.`);
    if (q.has('acl') && ctx.faults.has('s3-acl-missing'))
      throw new S3Error('NotImplemented', 'The object sub-resource acl is not implemented.');
    if (method === 'GET' && q.has('acl')) return getObjectAcl(call, bucket, key);
    if (method === 'PUT' && q.has('acl')) return putObjectAcl(call, bucket, key);
    if (method === 'POST' && q.has('uploads')) return createUpload(call, bucket, key);
    if (method === 'GET' && q.has('attributes')) return objectAttributes(call, bucket, key);
    if (uploadId !== undefined) {
      if (method === 'PUT') return uploadPart(call, bucket, key, uploadId);
      if (method === 'POST') return completeUpload(call, bucket, key, uploadId);
      if (method === 'DELETE') {
        store.abortMultipart(call.accountId, bucket, key, uploadId);
        uploadExtras.delete(uploadId);
        return call.reply.status(204).send();
      }
      if (method === 'GET') return listParts(call, bucket, key, uploadId);
    }
    switch (method) {
      case 'PUT': {
        const copySource = header(call.request, 'x-amz-copy-source');
        return copySource ? copyObject(call, bucket, key, copySource) : putObject(call, bucket, key);
      }
      case 'GET':
        return getObject(call, bucket, key, false);
      case 'HEAD':
        return getObject(call, bucket, key, true);
      case 'DELETE':
        return deleteObject(call, bucket, key);
      default:
        throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  }

  return { putObject, copyObject, getObject, objectAttributes, objectOperation };
}
