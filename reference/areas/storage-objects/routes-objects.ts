/**
 * Object routes: listing, and the one wildcard path `.../objects/*` whose operation is chosen
 * by method, query keys and a trailing `/presigned-url` (docs/conventions.md, Storage). These
 * routes live in a plugin scope whose content-type parser leaves the body unread, so object
 * bytes stream from the socket to disk whatever their Content-Type, and the small JSON and XML
 * bodies (presign, completion) are read here by hand.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { XMLParser } from 'fast-xml-parser';
import type { ReferenceContext } from '../../core/context.ts';
import { ApiError, fieldError, notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { Fields } from '../../core/validation.ts';
import { isoTimestamp } from '../../core/clock.ts';
import { type AccessControl, cannedAcl, cannedName } from './acl.ts';
import {
  ACLS,
  type Acl,
  DEFAULT_CONTENT_TYPE,
  MAX_KEYS_DEFAULT,
  MAX_PART_NUMBER,
  MIN_PART_NUMBER,
  PRESIGN_DEFAULT_SECONDS,
  PRESIGN_MAX_SECONDS,
  objectKeyProblem,
} from './catalog.ts';
import { PRESIGNED_METHODS, encodeKey, externalBase, readPresignedQuery, sign, signatureMatches } from './presign.ts';
import {
  DRAIN_LIMIT,
  listingView,
  objectPathOf,
  objectView,
  parseJsonBody,
  partView,
  readSmallBody,
  rest,
} from './rest.ts';
import type { CompletePart, ObjectRecord, ObjectStore } from './store.ts';

type BucketParams = { Params: { bucket_name: string } };
type Query = Record<string, string | string[] | undefined>;

const PRESIGN_SUFFIX = '/presigned-url';

/** The account a presigned request acts for, by request (the usage hook reads it). */
export const presignedAccounts = new WeakMap<FastifyRequest, string>();

const xml = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'Part',
});

export function objectRoutes(app: FastifyInstance, ctx: ReferenceContext, store: ObjectStore): void {
  // Fault `object-delete-ghost`: what a deletion left behind, still served by GET.
  const ghosts = new Map<string, { object: ObjectRecord; bytes: Buffer }>();
  /** Variant `multipart-complete-idempotent`: completed uploads, by id, with the object they made. */
  const completed = new Map<string, string>();

  /** The key of a path: percent-decoded once (the convention), twice (a fault), then NFC-normalised (a variant). */
  const decodeKey = (text: string): string => {
    if (ctx.faults.has('object-key-decoded-twice')) return decodeURIComponent(decodeURIComponent(text));
    const key = decodeURIComponent(text);
    return ctx.variants.has('object-keys-nfc') ? key.normalize('NFC') : key;
  };

  /**
   * The multipart upload a request names; an unknown one is 404 `not_found` (422 under the fault
   * `multipart-unknown-upload-422`).
   */
  async function knownUpload(account: string, bucket: string, key: string, uploadId: string): Promise<void> {
    try {
      await rest(() => store.getUpload(account, bucket, key, uploadId));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found' && ctx.faults.has('multipart-unknown-upload-422'))
        throw fieldError('storage', 'uploadId', `No multipart upload ${uploadId} for this key.`);
      throw error;
    }
  }
  const ghostId = (account: string, bucket: string, key: string): string => `${account}\n${bucket}\n${key}`;
  // Faults `object-*-stale-after-overwrite`: the record a key had before its first overwrite, until it is deleted.
  const beforeOverwrite = new Map<string, ObjectRecord>();
  const staleAfterOverwrite = (): boolean =>
    ctx.faults.has('object-listing-stale-after-overwrite') ||
    ctx.faults.has('object-head-stale-after-overwrite') ||
    ctx.faults.has('object-get-type-stale-after-overwrite');

  // Leave every body unread: object routes stream it themselves (any Content-Type, or none).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.get<BucketParams>('/storage/buckets/:bucket_name/objects', async (request) => {
    const { account } = authOf(request);
    const query = new Fields('storage', request.query);
    const prefix = query.string('prefix', { max: 1024 });
    const delimiter = query.string('delimiter', { max: 1024 });
    if (delimiter !== undefined && ctx.faults.has('object-listing-delimiter-refused'))
      query.fail('delimiter', 'delimiter is not supported.');
    const maxKeysText = query.string('max_keys');
    let maxKeys = MAX_KEYS_DEFAULT;
    if (maxKeysText !== undefined && maxKeysText !== '') {
      maxKeys = /^\d{1,4}$/.test(maxKeysText) ? Number(maxKeysText) : NaN;
      if (!(maxKeys >= 1 && maxKeys <= 1000)) query.fail('max_keys', 'max_keys must be an integer from 1 to 1000.');
    }
    const marker = query.string('marker', { max: 1024 });
    // Faults: prefix ignored always, or only on the pages after the first (those with a marker).
    const prefixIgnored =
      ctx.faults.has('object-listing-prefix-ignored') ||
      (ctx.faults.has('object-listing-prefix-first-page-only') && !!marker);
    // Fault: max_keys dropped when a prefix comes with it.
    const pageSize = ctx.faults.has('object-listing-max-keys-ignored-with-prefix') && prefix ? 1000 : maxKeys;
    const listQuery = {
      prefix: prefixIgnored ? undefined : prefix,
      delimiter,
      maxKeys: pageSize,
      marker: ctx.faults.has('object-listing-marker-ignored') ? undefined : marker,
    };
    const listing = await rest(() => store.listObjects(account.id, request.params.bucket_name, listQuery));
    if (ctx.faults.has('object-listing-marker-skips-extension') && marker) {
      // Fault: the key right after the marker is dropped when it extends the marker.
      const first = listing.objects[0];
      if (first && first.key !== marker && first.key.startsWith(marker)) listing.objects.shift();
    }
    if (ctx.faults.has('object-listing-truncated-off-by-one') && listing.isTruncated) {
      // Fault: "more remain" computed as "more than one remains" (an off-by-one in the count).
      const last = listing.nextMarker ?? listing.objects.at(-1)?.key;
      const rest1 = store.listObjects(account.id, request.params.bucket_name, {
        ...listQuery,
        maxKeys: 2,
        ...(last ? { marker: last } : {}),
      });
      if (rest1.objects.length + rest1.commonPrefixes.length === 1) listing.isTruncated = false;
    }
    const stale = ctx.faults.has('object-listing-stale-after-overwrite');
    return {
      objects: listing.objects.map((object) => {
        const old = stale
          ? beforeOverwrite.get(ghostId(account.id, request.params.bucket_name, object.key))
          : undefined;
        const entry = listingView(old ?? object);
        if (ctx.faults.has('object-listing-content-type-default')) entry.content_type = DEFAULT_CONTENT_TYPE;
        if (!ctx.faults.has('object-listing-storage-class-missing')) return entry;
        const { storage_class: _dropped, ...withoutClass } = entry;
        return withoutClass;
      }),
      is_truncated: listing.isTruncated && !ctx.faults.has('object-listing-never-truncated'),
      next_marker: listing.nextMarker,
      common_prefixes: listing.commonPrefixes,
    };
  });

  const WILDCARD = '/storage/buckets/:bucket_name/objects/*';

  app.route({
    method: 'GET',
    url: WILDCARD,
    exposeHeadRoute: false,
    config: { presignable: true },
    handler: (request, reply) => run(request, reply, () => getObject(request, reply)),
  });
  app.route({
    method: 'HEAD',
    url: WILDCARD,
    handler: (request, reply) => run(request, reply, () => headObject(request, reply)),
  });
  app.route({
    method: 'PUT',
    url: WILDCARD,
    config: { presignable: true },
    handler: (request, reply) => run(request, reply, () => putDispatch(request, reply)),
  });
  app.route({
    method: 'DELETE',
    url: WILDCARD,
    config: { presignable: true },
    handler: (request, reply) => run(request, reply, () => deleteDispatch(request, reply)),
  });
  app.route({
    method: 'POST',
    url: WILDCARD,
    handler: (request, reply) => run(request, reply, () => postDispatch(request, reply)),
  });

  /**
   * Runs an object operation. When it fails before reading the request body, the body is
   * drained (small) or the connection closed (large), so the client always gets the error.
   */
  async function run(request: FastifyRequest, reply: FastifyReply, work: () => Promise<unknown>): Promise<unknown> {
    try {
      return await work();
    } catch (error) {
      const raw = request.raw;
      if (!raw.readableEnded && !raw.destroyed) {
        const length = Number(request.headers['content-length'] ?? NaN);
        if (Number.isFinite(length) && length <= DRAIN_LIMIT) raw.resume();
        else void reply.header('connection', 'close');
      }
      throw error;
    }
  }

  /** Bucket, key and the account acting: the bearer key's, or a verified presigned URL's. */
  function target(request: FastifyRequest, expectedPresign?: string): { account: string; bucket: string; key: string } {
    const { bucket, key } = objectPathOf(request, decodeKey);
    const problem = objectKeyProblem(key);
    if (problem) throw fieldError('storage', 'object_key', problem);
    if (request.auth) return { account: request.auth.account.id, bucket, key };
    return { account: verifyPresigned(request, bucket, key, expectedPresign ?? request.method), bucket, key };
  }

  function verifyPresigned(request: FastifyRequest, bucket: string, key: string, method: string): string {
    if (ctx.faults.has('presigned-url-refused')) throw new ApiError('unauthorized', 'An API key is required.');
    const query = request.query as Query;
    const presigned = readPresignedQuery(
      ctx.faults.has('presigned-signature-param-renamed') ? { ...query, signature: query.sig } : query,
    );
    if (!presigned) throw new ApiError('forbidden', 'The presigned URL is incomplete.');
    if (presigned.method !== method)
      throw new ApiError('forbidden', `This presigned URL allows ${presigned.method}, not ${method}.`);
    if (
      !ctx.faults.has('presigned-signature-unchecked') &&
      !signatureMatches(ctx.options.signingSecret, bucket, key, presigned)
    ) {
      throw new ApiError('forbidden', 'The presigned URL signature does not match.');
    }
    if (!ctx.faults.has('presigned-expiry-unchecked') && presigned.expires * 1000 <= ctx.clock.now()) {
      throw new ApiError('forbidden', 'The presigned URL has expired.');
    }
    if (!ctx.accounts.account(presigned.account))
      throw new ApiError('forbidden', 'The presigned URL names no account.');
    presignedAccounts.set(request, presigned.account);
    return presigned.account;
  }

  /** `x-cloud-acl`, the canned ACL of the upload, owned by the uploading account. */
  function readAcl(request: FastifyRequest, account: string): AccessControl | undefined {
    const value = request.headers['x-cloud-acl'];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(ACLS as readonly string[]).includes(value)) {
      throw fieldError('storage', 'x-cloud-acl', `x-cloud-acl must be one of ${ACLS.join(', ')}.`);
    }
    return cannedAcl(value as Acl, account);
  }

  function contentTypeOf(request: FastifyRequest): string {
    const value = request.headers['content-type'];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : DEFAULT_CONTENT_TYPE;
  }

  /** Refuses an announced body over the object limit before reading any of it. */
  function checkAnnouncedLength(request: FastifyRequest): void {
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > ctx.options.objectLimit)
      throw new ApiError('payload_too_large', `Objects and parts may be at most ${ctx.options.objectLimit} bytes.`);
  }

  function sendObjectHeaders(
    reply: FastifyReply,
    object: { size: number; etag: string; content_type: string; last_modified: string; acl: AccessControl },
    head: boolean,
  ): void {
    void reply.header(
      'content-type',
      !head && ctx.faults.has('object-get-content-type-default') ? DEFAULT_CONTENT_TYPE : object.content_type,
    );
    if (!(head && ctx.faults.has('object-head-no-length'))) void reply.header('content-length', String(object.size));
    void reply.header('etag', object.etag);
    void reply.header('last-modified', new Date(object.last_modified).toUTCString());
    void reply.header('x-cloud-acl', cannedName(object.acl));
  }

  async function getObject(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const ghost =
      ctx.faults.has('object-delete-ghost') || ctx.faults.has('object-get-stale-after-reupload')
        ? ghosts.get(ghostId(account, bucket, key))
        : undefined;
    // Faults: a deleted object still served; or, once uploaded again, the bytes from before the delete (a cache keyed by name).
    const exists = store.findBucket(account, bucket)?.objects.has(key) ?? false;
    if (ghost && (ctx.faults.has('object-delete-ghost') ? !exists : exists)) {
      sendObjectHeaders(reply, ghost.object, false);
      return reply.status(200).send(ghost.bytes);
    }
    const { object, body } = await rest(() => store.getObject(account, bucket, key));
    store.recordDownload(account, bucket, object.size);
    const old = ctx.faults.has('object-get-type-stale-after-overwrite')
      ? beforeOverwrite.get(ghostId(account, bucket, key))
      : undefined;
    sendObjectHeaders(reply, old ? { ...object, content_type: old.content_type } : object, false);
    return reply.status(200).send(body);
  }

  async function headObject(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const object = await rest(() => store.headObject(account, bucket, key));
    const old = ctx.faults.has('object-head-stale-after-overwrite')
      ? beforeOverwrite.get(ghostId(account, bucket, key))
      : undefined;
    sendObjectHeaders(reply, old ?? object, true);
    return reply.status(200).send();
  }

  async function putDispatch(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const query = request.query as Query;
    if (query.partNumber !== undefined || query.uploadId !== undefined) return uploadPart(request, reply, query);
    const { account, bucket, key } = target(request);
    if (key.endsWith(PRESIGN_SUFFIX)) {
      if (ctx.faults.has('object-presigned-suffix-refused'))
        throw new ApiError('not_found', `No operation PUT on ${PRESIGN_SUFFIX} (bucket ${bucket}).`);
      if (ctx.variants.has('object-presigned-suffix-reserved'))
        throw fieldError('storage', 'object_key', `Object keys may not end in ${PRESIGN_SUFFIX}.`);
    }
    if (ctx.faults.has('object-acl-refused') && request.headers['x-cloud-acl'] !== undefined) {
      throw fieldError('storage', 'x-cloud-acl', 'x-cloud-acl is not accepted.');
    }
    const acl = readAcl(request, account);
    const existing = ctx.faults.has('object-overwrite-ignored')
      ? store.findBucket(account, bucket)?.objects.get(key)
      : undefined;
    if (existing) {
      // Reads the new bytes and throws them away: the old object stays.
      await readSmallBody(request, DRAIN_LIMIT);
      void reply.header('etag', existing.etag);
      return reply.status(200).send({ object: objectView(bucket, existing) });
    }
    await rest(() => store.getBucket(account, bucket));
    checkAnnouncedLength(request);
    const overwritten = staleAfterOverwrite() ? store.findBucket(account, bucket)?.objects.get(key) : undefined;
    if (overwritten && !beforeOverwrite.has(ghostId(account, bucket, key)))
      beforeOverwrite.set(ghostId(account, bucket, key), overwritten);
    const object = await rest(() =>
      store.putObjectStream(account, bucket, key, request.raw, {
        contentType: contentTypeOf(request),
        acl,
        limit: ctx.options.objectLimit,
      }),
    );
    void reply.header('etag', object.etag);
    return reply.status(200).send({ object: objectView(bucket, object) });
  }

  async function uploadPart(request: FastifyRequest, reply: FastifyReply, query: Query): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const fields = new Fields('storage', query);
    const uploadId = fields.string('uploadId', { required: true, max: 128 });
    const partText = fields.string('partNumber', { required: true });
    const partNumber = /^\d{1,5}$/.test(partText) ? Number(partText) : NaN;
    const maxPart = ctx.faults.has('multipart-part-number-unbounded') ? 99_999 : MAX_PART_NUMBER;
    if (!(partNumber >= MIN_PART_NUMBER && partNumber <= maxPart)) {
      fields.fail('partNumber', `partNumber must be an integer from ${MIN_PART_NUMBER} to ${MAX_PART_NUMBER}.`);
    }
    await knownUpload(account, bucket, key, uploadId);
    checkAnnouncedLength(request);
    const part = await rest(() =>
      store.uploadPart(account, bucket, key, uploadId, partNumber, request.raw, ctx.options.objectLimit),
    );
    if (ctx.faults.has('multipart-part-etag-missing')) {
      const { etag: _dropped, ...withoutEtag } = partView(part);
      return reply.status(200).send({ part: withoutEtag });
    }
    void reply.header('etag', part.etag);
    return reply.status(200).send({ part: partView(part) });
  }

  async function deleteDispatch(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const uploadId = (request.query as Query).uploadId;
    if (uploadId !== undefined) {
      // Abort a multipart upload (S3's AbortMultipartUpload on the same path).
      if (typeof uploadId !== 'string') throw fieldError('storage', 'uploadId', 'uploadId must be a string.');
      await rest(() => store.abortMultipart(account, bucket, key, uploadId));
      return reply.status(204).send();
    }
    if (ctx.faults.has('object-delete-ghost') || ctx.faults.has('object-get-stale-after-reupload')) {
      const existing = store.findBucket(account, bucket)?.objects.get(key);
      if (existing) {
        const { body } = store.getObject(account, bucket, key);
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        ghosts.set(ghostId(account, bucket, key), { object: existing, bytes: Buffer.concat(chunks) });
      }
    }
    const removed = await rest(() => store.deleteObject(account, bucket, key));
    if (!removed) throw notFound('object', `No object with key ${key}.`);
    beforeOverwrite.delete(ghostId(account, bucket, key));
    return reply.status(204).send();
  }

  async function postDispatch(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { bucket, key: rawKey } = objectPathOf(request, decodeKey);
    if (rawKey.endsWith(PRESIGN_SUFFIX)) return presign(request, reply);
    const query = request.query as Query;
    if (query.uploads !== undefined) return initiate(request, reply);
    if (query.uploadId !== undefined) return complete(request, reply, query);
    throw new ApiError('not_found', `No operation POST on an object without ?uploads or ?uploadId (bucket ${bucket}).`);
  }

  async function initiate(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const acl = readAcl(request, account);
    const contentType = ctx.faults.has('multipart-content-type-lost') ? undefined : contentTypeOf(request);
    const upload = await rest(() => store.initiateMultipart(account, bucket, key, { contentType, acl }));
    const handle = { upload_id: upload.upload_id, bucket: upload.bucket, key: upload.key };
    return reply.status(200).send(ctx.faults.has('multipart-initiate-wrapped') ? { upload: handle } : handle);
  }

  async function complete(request: FastifyRequest, reply: FastifyReply, query: Query): Promise<unknown> {
    const { account, bucket, key } = target(request);
    const uploadId = new Fields('storage', query).string('uploadId', { required: true, max: 128 });
    const made = `${account}\n${bucket}\n${key}`;
    if (ctx.variants.has('multipart-complete-idempotent') && completed.get(uploadId) === made) {
      // Completed before: the same answer again, as S3 gives it for a while.
      await readSmallBody(request, ctx.options.bodyLimit);
      const object = await rest(() => store.headObject(account, bucket, key));
      void reply.header('etag', object.etag);
      return reply.status(200).send({ object: objectView(bucket, object) });
    }
    await knownUpload(account, bucket, key, uploadId);
    const text = await readSmallBody(request, ctx.options.bodyLimit);
    if (ctx.faults.has('multipart-complete-xml-refused'))
      throw fieldError('storage', 'parts', 'The completion body must be JSON.');
    const parts = parseCompletion(text);
    const object = await rest(() =>
      store.completeMultipart(account, bucket, key, uploadId, parts, {
        order: ctx.faults.has('multipart-parts-out-of-order') ? 'upload' : 'part-number',
        // Variant `multipart-min-part-none`: parts of any size, as a block list takes them.
        ...(ctx.variants.has('multipart-min-part-none') && { minPartSize: 0 }),
      }),
    );
    if (ctx.variants.has('multipart-complete-idempotent')) completed.set(uploadId, made);
    void reply.header('etag', object.etag);
    return reply.status(200).send({ object: objectView(bucket, object) });
  }

  async function presign(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const { account } = authOf(request);
    const { bucket, key: rawKey } = objectPathOf(request, decodeKey);
    const key = rawKey.slice(0, -PRESIGN_SUFFIX.length);
    const problem = objectKeyProblem(key);
    if (problem) throw fieldError('storage', 'object_key', problem);
    const fields = new Fields('storage', parseJsonBody(await readSmallBody(request, ctx.options.bodyLimit)));
    const method = fields.string('method', { required: true, oneOf: PRESIGNED_METHODS });
    const defaultSeconds = ctx.faults.has('presigned-default-expiry-short') ? 900 : PRESIGN_DEFAULT_SECONDS;
    const expiresIn = fields.integer('expires_in', { min: 1, max: PRESIGN_MAX_SECONDS }) ?? defaultSeconds;
    // The bucket must be the caller's; the object need not exist yet (a PUT URL creates it).
    await rest(() => store.getBucket(account.id, bucket));
    const expires = Math.floor(ctx.clock.now() / 1000) + expiresIn;
    const signature = sign(ctx.options.signingSecret, method, bucket, key, expires, account.id);
    const query = new URLSearchParams({
      method,
      expires: String(expires),
      account: account.id,
      [ctx.faults.has('presigned-signature-param-renamed') ? 'sig' : 'signature']: signature,
    });
    const reached = externalBase(request.headers, request.host);
    // Fault `presign-url-localhost`, variant `absolute-urls-configured-host`: another name of the host.
    const base =
      ctx.faults.has('presign-url-localhost') || ctx.variants.has('absolute-urls-configured-host')
        ? reached.replace(/\/\/127\.0\.0\.1(?=[:/]|$)/, '//localhost')
        : reached;
    const url = `${base}/v1/storage/buckets/${encodeURIComponent(bucket)}/objects/${encodeKey(key)}?${query.toString()}`;
    return reply.status(200).send({
      url,
      expires_at: isoTimestamp(expires * 1000),
      ...(!ctx.faults.has('presigned-method-missing') && { method }),
    });
  }
}

/** The parts of a CompleteMultipartUpload XML body, in the order listed. */
function parseCompletion(text: string): CompletePart[] {
  const fail = (field: string, message: string): never => {
    throw fieldError('storage', field, message);
  };
  // No DTDs: entity declarations are the classic way to make an XML parser do unbounded work.
  if (/<!DOCTYPE|<!ENTITY/i.test(text))
    fail('CompleteMultipartUpload', 'The completion body must not contain a DOCTYPE.');
  let parsed: unknown;
  try {
    parsed = xml.parse(text, true);
  } catch {
    fail('CompleteMultipartUpload', 'The body is not well-formed XML.');
  }
  const root = (parsed as Record<string, unknown> | undefined)?.CompleteMultipartUpload;
  if (root === undefined)
    fail('CompleteMultipartUpload', 'The body must be an XML document with root CompleteMultipartUpload.');
  const list = typeof root === 'object' && root !== null ? (root as Record<string, unknown>).Part : undefined;
  if (!Array.isArray(list) || list.length === 0) fail('Part', 'CompleteMultipartUpload must hold at least one Part.');
  return (list as unknown[]).map((item, index) => {
    const part = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const numberText = part.PartNumber;
    const etag = part.ETag;
    const partNumber = typeof numberText === 'string' && /^\d{1,5}$/.test(numberText) ? Number(numberText) : NaN;
    if (!(partNumber >= MIN_PART_NUMBER && partNumber <= MAX_PART_NUMBER)) {
      fail(`Part[${index}].PartNumber`, `PartNumber must be an integer from ${MIN_PART_NUMBER} to ${MAX_PART_NUMBER}.`);
    }
    if (typeof etag !== 'string' || etag === '') fail(`Part[${index}].ETag`, 'ETag is required.');
    return { partNumber, etag: etag as string };
  });
}
