/**
 * The state every S3 operation family works on (the shared store and the extras S3 keeps beside
 * it) and the helpers they share (body decoding, permissions, headers, conditions).
 */
import { type Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { objectStoreOf } from '../areas/storage-objects/index.ts';
import type { Permission } from '../areas/storage-objects/acl.ts';
import { type BucketRecord, type ObjectRecord, NULL_VERSION, isDeleteMarker } from '../areas/storage-objects/store.ts';
import type { ReferenceContext } from '../core/context.ts';
import { BodyDecoder, planBody } from './body.ts';
import { type ChecksumAlgorithm } from './checksums.ts';
import { type ChecksumType } from './multipart-checksums.ts';
import { type Current, requireWrite } from './conditions.ts';
import { S3Error } from './errors.ts';
import { type VerifiedAuth } from './sigv4.ts';
import { accessDenied, permitted } from './access.ts';
import {
  type Call,
  type CompletedUpload,
  type ObjectExtras,
  type UploadExtras,
  MAX_XML_BODY,
  decode,
  header,
  headerValue,
  httpDate,
  standardHeaders,
} from './shared.ts';

export interface S3Env {
  ctx: ReferenceContext;
  store: ReturnType<typeof objectStoreOf>;
  objectExtras: Map<string, ObjectExtras>;
  uploadExtras: Map<string, UploadExtras>;
  completed: Map<string, CompletedUpload>;
  /** An `<Owner>` (or account grantee) of the XML answers: its ID, and its display name unless a variant drops it. */
  ownerElement(id: string): { ID: string; DisplayName?: string };
}

export function s3Env(ctx: ReferenceContext): S3Env {
  return {
    ctx,
    store: objectStoreOf(ctx),
    objectExtras: ctx.globalState('s3-object-extras', () => new Map<string, ObjectExtras>()),
    uploadExtras: ctx.globalState('s3-upload-extras', () => new Map<string, UploadExtras>()),
    completed: ctx.globalState('s3-completed-uploads', () => new Map<string, CompletedUpload>()),
    ownerElement: (id) => (ctx.variants.has('s3-owner-display-name-absent') ? { ID: id } : { ID: id, DisplayName: id }),
  };
}

export type S3Helpers = ReturnType<typeof s3Helpers>;

export function s3Helpers(env: S3Env) {
  const { ctx, store } = env;
  /** A verified, decoded body stream (never buffered whole). */
  function bodyOf(call: Call, options: { objectChecksums?: boolean } = {}): { stream: Readable; decoder: BodyDecoder } {
    const plan = planBody(call.request.headers, call.auth);
    // CompleteMultipartUpload's x-amz-checksum-* describe the object, not the XML body.
    if (options.objectChecksums) plan.headerChecksums.clear();
    const decoder = new BodyDecoder(plan);
    decoder.skipSignatures = ctx.faults.has('s3-signature-unchecked');
    pipeline(call.request.raw, decoder, () => undefined);
    return { stream: decoder, decoder };
  }

  async function smallBody(call: Call, options: { objectChecksums?: boolean } = {}): Promise<Buffer> {
    const { stream } = bodyOf(call, options);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_XML_BODY) throw new S3Error('MalformedXML', 'The XML body is too large.');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  function allow(auth: VerifiedAuth, method: string, bucket: string | undefined): void {
    const needed = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
    if (!auth.key.permissions.includes(needed))
      throw new S3Error('AccessDenied', `The access key lacks the ${needed} permission.`);
    const limited = auth.key.bucket_access;
    if (bucket !== undefined && limited && limited.length > 0 && !limited.includes(bucket)) {
      throw new S3Error('AccessDenied', `The access key may not use bucket ${bucket}.`);
    }
  }

  function checksumFault(request: FastifyRequest): void {
    if (!ctx.faults.has('s3-checksum-rejected')) return;
    const names = Object.keys(request.headers);
    const sha = header(request, 'x-amz-content-sha256') ?? '';
    if (names.some((n) => /^x-amz-checksum-(crc|sha)/.test(n) || n === 'x-amz-trailer') || sha.endsWith('-TRAILER')) {
      throw new S3Error('InvalidArgument', 'x-amz-checksum and trailing checksums are not supported.');
    }
  }

  function setObjectHeaders(reply: FastifyReply, object: ObjectRecord, extras: ObjectExtras | undefined): void {
    void reply.header('etag', object.etag);
    void reply.header('last-modified', httpDate(object.last_modified));
    void reply.header('content-type', object.content_type);
    void reply.header('accept-ranges', 'bytes');
    void reply.header('x-amz-storage-class', object.storage_class);
    for (const [name, value] of Object.entries(extras?.metadata ?? {}))
      void reply.header(`x-amz-meta-${name}`, headerValue(value));
    for (const [name, value] of Object.entries(extras?.headers ?? {})) void reply.header(name, value);
  }

  function storedHeaders(request: FastifyRequest): Record<string, string> {
    return ctx.faults.has('s3-standard-headers-dropped') ? {} : standardHeaders(request);
  }

  /**
   * A body of unknown length (neither Content-Length nor Transfer-Encoding) is refused with 411
   * MissingContentLength, as S3 does, rather than stored as an empty object.
   */
  function requireLength(call: Call): void {
    const h = call.request.headers;
    if (
      h['content-length'] === undefined &&
      h['transfer-encoding'] === undefined &&
      !ctx.faults.has('s3-missing-length-stored')
    )
      throw new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');
  }

  /** The object a conditional write is judged against (undefined when the key is free). */
  function currentOf(accountId: string, bucket: string, key: string): Current | undefined {
    const record = store.getBucket(accountId, bucket);
    const object = ctx.faults.has('s3-conditional-write-any-version')
      ? record.versions.get(key)?.find((v): v is ObjectRecord => !isDeleteMarker(v))
      : record.objects.get(key);
    return object && { etag: object.etag, lastModified: object.last_modified };
  }

  function writeConditions(call: Call, bucket: string, key: string): void {
    if (ctx.faults.has('s3-conditional-write-ignored')) return;
    requireWrite(call.request.headers, currentOf(call.accountId, bucket, key));
  }

  function checksumHeaders(
    reply: FastifyReply,
    checksums: Partial<Record<ChecksumAlgorithm, string>> | Map<ChecksumAlgorithm, string>,
    type: ChecksumType = 'FULL_OBJECT',
  ): void {
    const entries = checksums instanceof Map ? [...checksums] : Object.entries(checksums);
    for (const [algorithm, value] of entries) void reply.header(`x-amz-checksum-${algorithm}`, value);
    if (entries.length > 0) void reply.header('x-amz-checksum-type', type);
  }

  /**
   * The object (version) a request names: `?versionId=`, else the current one, which its ACL
   * (or the bucket's ownership) must let the principal use with `permission`. Where a delete
   * marker stands, S3's answer (NoSuchKey, or 405 for a marker named by id) carries its headers.
   * Whoever may not list the bucket learns nothing of what is missing (AccessDenied).
   */
  function objectFor(call: Call, bucketName: string, key: string, permission: Permission): ObjectRecord {
    return versionOf(call, store.getBucket(call.accountId, bucketName), key, call.query.get('versionId'), permission);
  }

  function versionOf(
    call: Call,
    bucket: BucketRecord,
    key: string,
    versionId: string | undefined,
    permission: Permission,
  ): ObjectRecord {
    const stack = bucket.versions.get(key);
    if (versionId === '') throw new S3Error('InvalidArgument', 'Version id cannot be the empty string');
    const version = versionId === undefined ? stack?.[0] : stack?.find((v) => v.version_id === versionId);
    const mayList = (): boolean => permitted(bucket.acl, call.principal, 'READ', bucket.owner);
    if (!version || isDeleteMarker(version)) {
      if (!mayList()) throw accessDenied();
      void call.reply.header('x-amz-delete-marker', String(version !== undefined));
      if (version) {
        void call.reply.header('x-amz-delete-marker', 'true').header('x-amz-version-id', version.version_id);
        if (versionId !== undefined) {
          void call.reply.header('last-modified', httpDate(version.last_modified));
          throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
        }
      }
      if (versionId !== undefined && !version)
        throw new S3Error('NoSuchVersion', 'The specified version does not exist.', { Key: key, VersionId: versionId });
      throw new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key });
    }
    if (!permitted(version.acl, call.principal, permission, bucket.owner)) throw accessDenied();
    if (call.principal === null && ctx.faults.has('s3-public-read-refused')) throw accessDenied();
    return version;
  }

  /** `x-amz-version-id` of an object: S3 shows it once the bucket has a versioning state. */
  function versionHeader(call: Call, bucket: BucketRecord, versionId: string): void {
    if (bucket.versioning !== 'off' || versionId !== NULL_VERSION)
      void call.reply.header('x-amz-version-id', versionId);
  }

  /**
   * `x-amz-copy-source` (`bucket/key`, optionally with a leading slash and `?versionId=`): the
   * source object, which the principal must be allowed to read.
   */
  function copySourceOf(call: Call, sourceText: string): { bucket: string; key: string; object: ObjectRecord } {
    const at = sourceText.indexOf('?');
    const source = decode(at < 0 ? sourceText : sourceText.slice(0, at)).replace(/^\//, '');
    const versionId =
      at < 0 ? undefined : (new URLSearchParams(sourceText.slice(at + 1)).get('versionId') ?? undefined);
    const slash = source.indexOf('/');
    if (slash <= 0 || slash === source.length - 1)
      throw new S3Error('InvalidArgument', 'x-amz-copy-source must be bucket/key.');
    const from = { bucket: source.slice(0, slash), key: source.slice(slash + 1) };
    if (call.auth) allow(call.auth, 'GET', from.bucket);
    const owner = store.ownerOf(from.bucket);
    if (owner === undefined) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist.');
    const object = versionOf(call, store.getBucket(owner, from.bucket), from.key, versionId, 'READ');
    if (versionId !== undefined) void call.reply.header('x-amz-copy-source-version-id', object.version_id);
    return { ...from, object };
  }

  return {
    bodyOf,
    smallBody,
    allow,
    copySourceOf,
    checksumFault,
    setObjectHeaders,
    storedHeaders,
    currentOf,
    writeConditions,
    checksumHeaders,
    objectFor,
    versionHeader,
    requireLength,
  };
}
