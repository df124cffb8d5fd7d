/** Multipart uploads: create, upload a part (or copy one), complete, list parts. */
import { randomBytes } from 'node:crypto';
import { type ChecksumAlgorithm, isChecksumAlgorithm } from './checksums.ts';
import {
  type ChecksumType,
  defaultChecksumType,
  multipartChecksum,
  sameMultipartChecksum,
} from './multipart-checksums.ts';
import { requireCopySource } from './conditions.ts';
import { S3Error } from './errors.ts';
import { parseXml, xmlDocument } from './xml.ts';
import { type Call, header, intParam, slice, userMetadata } from './shared.ts';
import { cannedAcl } from '../areas/storage-objects/acl.ts';
import { NULL_VERSION } from '../areas/storage-objects/store.ts';
import type { S3Env, S3Helpers } from './env.ts';
import type { AclOperations } from './acls.ts';

export function multipartOperations(env: S3Env, helpers: S3Helpers, acls: AclOperations) {
  const { ctx, store, objectExtras, uploadExtras, completed } = env;
  const { bodyOf, smallBody, copySourceOf, storedHeaders, writeConditions, checksumHeaders, requireLength } = helpers;

  async function createUpload(call: Call, bucket: string, key: string) {
    await smallBody(call);
    const acl = acls.requestedAcl(call, call.principal ?? call.accountId, call.accountId);
    const upload = store.initiateMultipart(call.accountId, bucket, key, {
      contentType: header(call.request, 'content-type'),
      // The initiator owns what it uploads (S3's ObjectWriter ownership).
      acl: acl ?? cannedAcl('private', call.principal ?? call.accountId),
    });
    const algorithm = header(call.request, 'x-amz-checksum-algorithm');
    const lower = algorithm?.toLowerCase();
    if (lower !== undefined && !isChecksumAlgorithm(lower))
      throw new S3Error('InvalidRequest', `Checksum algorithm ${algorithm} is not supported.`);
    const typeText = header(call.request, 'x-amz-checksum-type')?.toUpperCase();
    if (typeText !== undefined && typeText !== 'COMPOSITE' && typeText !== 'FULL_OBJECT')
      throw new S3Error('InvalidRequest', 'x-amz-checksum-type must be COMPOSITE or FULL_OBJECT.');
    const checksum = lower ? { algorithm: lower, type: typeText ?? defaultChecksumType(lower) } : undefined;
    uploadExtras.set(upload.upload_id, {
      metadata: userMetadata(call.request),
      headers: storedHeaders(call.request),
      ...(checksum ? { checksum } : {}),
    });
    if (algorithm) void call.reply.header('x-amz-checksum-algorithm', algorithm);
    if (checksum) void call.reply.header('x-amz-checksum-type', checksum.type);
    return call.reply
      .type('application/xml')
      .send(xmlDocument('InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: upload.upload_id }));
  }

  async function uploadPart(call: Call, bucket: string, key: string, uploadId: string) {
    const text = call.query.get('partNumber') ?? '';
    const partNumber = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (!(partNumber >= 1 && partNumber <= 10_000))
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
    const copySource = header(call.request, 'x-amz-copy-source');
    if (copySource !== undefined && ctx.faults.has('s3-upload-part-copy-missing'))
      throw new S3Error('NotImplemented', 'UploadPartCopy is not implemented.');
    if (copySource !== undefined) return uploadPartCopy(call, bucket, key, uploadId, partNumber, copySource);
    store.getUpload(call.accountId, bucket, key, uploadId);
    requireLength(call);
    const { stream, decoder } = bodyOf(call);
    const part = await store.uploadPart(
      call.accountId,
      bucket,
      key,
      uploadId,
      partNumber,
      stream,
      ctx.options.objectLimit,
    );
    checksumHeaders(call.reply, decoder.verified);
    call.reply.removeHeader('x-amz-checksum-type');
    const etag = ctx.faults.has('s3-multipart-etag-wrong') ? `"${randomBytes(16).toString('hex')}"` : part.etag;
    return call.reply.header('etag', etag).send();
  }

  /**
   * UploadPartCopy: a part made of (a range of) an existing object, as the SDKs' managed copies
   * of large objects (aws s3 cp/mv/sync between S3 locations) do. The range must be one
   * `bytes=first-last` within the source: malformed is InvalidArgument, outside it InvalidRange.
   */
  async function uploadPartCopy(
    call: Call,
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    sourceText: string,
  ) {
    store.getUpload(call.accountId, bucket, key, uploadId);
    const source = copySourceOf(call, sourceText).object;
    await smallBody(call);
    requireCopySource(call.request.headers, { etag: source.etag, lastModified: source.last_modified });
    const rangeText = header(call.request, 'x-amz-copy-source-range');
    let start = 0;
    let length = source.size;
    if (rangeText !== undefined) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(rangeText.trim());
      if (!m || Number(m[2]) < Number(m[1]))
        throw new S3Error(
          'InvalidArgument',
          'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
        );
      start = Number(m[1]);
      const end = Number(m[2]);
      if (end >= source.size)
        throw new S3Error('InvalidRange', 'The requested range is not satisfiable', {
          RangeRequested: rangeText,
          ActualObjectSize: String(source.size),
        });
      length = end - start + 1;
    }
    const body = store.blobs.read(source.blob);
    const part = await store.uploadPart(
      call.accountId,
      bucket,
      key,
      uploadId,
      partNumber,
      body.pipe(slice(start, length)),
      ctx.options.objectLimit,
    );
    return call.reply
      .type('application/xml')
      .send(xmlDocument('CopyPartResult', { LastModified: part.last_modified, ETag: part.etag }));
  }

  /**
   * The object checksum of a completion: the upload's algorithm (or the one of an
   * x-amz-checksum-* header of the completion), worked out from the listed parts and compared
   * with the header when there is one (BadDigest when it differs).
   */
  async function completionChecksum(
    call: Call,
    upload: { bucket: string; key: string; uploadId: string },
    partNumbers: number[],
  ) {
    const given = [...Object.keys(call.request.headers)]
      .map((name) => ({ name, algorithm: /^x-amz-checksum-([a-z0-9]+)$/.exec(name)?.[1] }))
      .find(
        (h): h is { name: string; algorithm: ChecksumAlgorithm } =>
          h.algorithm !== undefined && isChecksumAlgorithm(h.algorithm),
      );
    const chosen = uploadExtras.get(upload.uploadId)?.checksum;
    const algorithm = chosen?.algorithm ?? given?.algorithm;
    if (!algorithm) return undefined;
    const givenValue = given && given.algorithm === algorithm ? header(call.request, given.name) : undefined;
    const typeText = header(call.request, 'x-amz-checksum-type')?.toUpperCase();
    const type: ChecksumType =
      chosen?.type ??
      (typeText === 'COMPOSITE' || typeText === 'FULL_OBJECT'
        ? typeText
        : /-\d+$/.test(givenValue ?? '')
          ? 'COMPOSITE'
          : algorithm.startsWith('crc')
            ? 'FULL_OBJECT'
            : 'COMPOSITE');
    const records = new Map(
      store.listParts(call.accountId, upload.bucket, upload.key, upload.uploadId).map((p) => [p.part_number, p]),
    );
    const streams = partNumbers.flatMap((n) => {
      const part = records.get(n);
      return part ? [store.blobs.read(part.blob)] : [];
    });
    // A listed part that does not exist fails the completion itself (InvalidPart) just after.
    if (streams.length !== partNumbers.length) return undefined;
    const { value, parts } = await multipartChecksum(algorithm, type, streams);
    if (givenValue !== undefined && !sameMultipartChecksum(givenValue, value)) {
      throw new S3Error(
        'BadDigest',
        `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    }
    return { algorithm, type, value, parts };
  }

  async function completeUpload(call: Call, bucket: string, key: string, uploadId: string) {
    const doc = parseXml(
      (await smallBody(call, { objectChecksums: !ctx.faults.has('s3-complete-checksum-on-body') })).toString('utf8'),
    ).CompleteMultipartUpload as { Part?: Array<{ PartNumber?: unknown; ETag?: unknown }> } | undefined;
    if (!doc || !Array.isArray(doc.Part))
      throw new S3Error('MalformedXML', 'CompleteMultipartUpload must list its parts.');
    const parts = doc.Part.map((p) => {
      const number = Number(typeof p.PartNumber === 'string' ? p.PartNumber.trim() : NaN);
      if (!Number.isInteger(number) || typeof p.ETag !== 'string')
        throw new S3Error('MalformedXML', 'Each Part needs PartNumber and ETag.');
      return { partNumber: number, etag: p.ETag };
    });
    const done = completed.get(uploadId);
    if (
      done &&
      !ctx.faults.has('s3-complete-not-idempotent') &&
      done.bucket === bucket &&
      done.key === key &&
      store.getBucket(call.accountId, bucket).objects.get(key)?.blob === done.blob
    ) {
      return call.reply.type('application/xml').send(done.body);
    }
    writeConditions(call, bucket, key);
    store.getUpload(call.accountId, bucket, key, uploadId);
    const sizes = new Map(store.listParts(call.accountId, bucket, key, uploadId).map((p) => [p.part_number, p.size]));
    // A part number listed twice in a row is one part (the store's rule).
    const numbers = [...new Set(parts.map((p) => p.partNumber))];
    const checksum = await completionChecksum(call, { bucket, key, uploadId }, numbers);
    const record = await store.completeMultipart(call.accountId, bucket, key, uploadId, parts);
    const extras = uploadExtras.get(uploadId);
    objectExtras.set(record.blob, {
      checksums: checksum ? { [checksum.algorithm]: checksum.value } : {},
      ...(checksum ? { checksumType: checksum.type } : {}),
      metadata: extras?.metadata ?? {},
      headers: extras?.headers ?? {},
      parts: numbers.map((n, i) => ({
        size: sizes.get(n) ?? 0,
        ...(checksum ? { checksum: checksum.parts[i] } : {}),
      })),
    });
    uploadExtras.delete(uploadId);
    const host = header(call.request, 'host') ?? '';
    const body = xmlDocument('CompleteMultipartUploadResult', {
      Location: `http://${host}/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`,
      Bucket: bucket,
      Key: key,
      ETag: record.etag,
      ...(checksum
        ? { [`Checksum${checksum.algorithm.toUpperCase()}`]: checksum.value, ChecksumType: checksum.type }
        : {}),
    });
    completed.set(uploadId, { bucket, key, blob: record.blob, body });
    if (record.version_id !== NULL_VERSION) void call.reply.header('x-amz-version-id', record.version_id);
    return call.reply.type('application/xml').send(body);
  }

  async function listParts(call: Call, bucket: string, key: string, uploadId: string) {
    const marker = intParam(call.query, 'part-number-marker', 0, 10_000);
    const maxParts = intParam(call.query, 'max-parts', 1000, 1000);
    const all = store.listParts(call.accountId, bucket, key, uploadId).filter((p) => p.part_number > marker);
    const page = all.slice(0, maxParts);
    const truncated = all.length > page.length;
    return call.reply.type('application/xml').send(
      xmlDocument('ListPartsResult', {
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumberMarker: marker,
        ...(page.length ? { NextPartNumberMarker: page.at(-1)!.part_number } : {}),
        MaxParts: maxParts,
        IsTruncated: truncated,
        ...(page.length
          ? {
              Part: page.map((p) => ({
                PartNumber: p.part_number,
                LastModified: p.last_modified,
                ETag: p.etag,
                Size: p.size,
              })),
            }
          : {}),
      }),
    );
  }

  return { createUpload, uploadPart, completeUpload, listParts };
}

export type MultipartOperations = ReturnType<typeof multipartOperations>;
