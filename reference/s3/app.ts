/**
 * The S3-compatible endpoint: its own Fastify app on its own port, path-style
 * (`/<bucket>/<key...>`), SigV4 (header and presigned), every `x-amz-content-sha256` mode real
 * clients send, flexible checksums, and the operations standard tools use. It works on the same
 * store as the REST API (`objectStoreOf(ctx)`), so both views agree.
 *
 * Operations are chosen by method, by whether the path names a key, and by the query's
 * sub-resource keys, as S3 does; anything else answers `NotImplemented`.
 */
import { randomBytes } from 'node:crypto';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { objectStoreOf } from '../areas/storage-objects/index.ts';
import { REGIONS, bucketNameProblem, objectKeyProblem } from '../areas/storage-objects/catalog.ts';
import type { ObjectRecord } from '../areas/storage-objects/store.ts';
import type { ReferenceContext } from '../core/context.ts';
import type { FaultDefinition } from '../core/faults.ts';
import { BodyDecoder, planBody } from './body.ts';
import { type ChecksumAlgorithm, isChecksumAlgorithm } from './checksums.ts';
import { type ChecksumType, defaultChecksumType, multipartChecksum, sameMultipartChecksum } from './multipart-checksums.ts';
import { type Current, checkRead, requireCopySource, requireWrite } from './conditions.ts';
import { S3Error, s3ErrorOf } from './errors.ts';
import { type RawRequest, type VerifiedAuth, verifyRequest } from './sigv4.ts';
import { errorDocument, parseXml, xmlDocument } from './xml.ts';

export const S3_FAULTS = [
  {
    name: 's3-checksum-rejected',
    requirement: 'S3-OBJ-001',
    description:
      'Requests carrying x-amz-checksum-* headers, an x-amz-trailer or an aws-chunked trailer body are refused with InvalidArgument (the break many S3-compatible servers had when the AWS SDKs turned on default CRC32 checksums in 2025).',
  },
  {
    name: 's3-signature-unchecked',
    requirement: 'S3-AUTH-002',
    description: 'SigV4 signatures are not verified: any secret works for a known access key id.',
  },
  {
    name: 's3-multipart-etag-wrong',
    requirement: 'S3-MPU-001',
    description: 'UploadPart answers an ETag that is not the part\'s MD5, so completing the upload with it fails with InvalidPart.',
  },
  {
    name: 's3-list-continuation-broken',
    requirement: 'S3-LIST-001',
    description: 'ListObjectsV2 continuation tokens resume one entry early, so the last key of every truncated page comes again on the next.',
  },
  { name: 's3-path-style-refused', requirement: 'S3-ADDR-001', description: 'Requests naming a bucket in the path (path-style) are refused with InvalidRequest.' },
  { name: 's3-presigned-refused', requirement: 'S3-AUTH-001', description: 'Requests signed in the query string (SDK presigned URLs) are refused with AccessDenied.' },
  { name: 's3-region-slug-refused', requirement: 'S3-REG-001', description: 'Only us-east-1 is accepted as the signing region; a region slug is refused with AuthorizationHeaderMalformed.' },
  { name: 's3-list-prefix-ignored', requirement: 'S3-OBJ-002', description: 'ListObjects(V2) ignores `prefix` and lists every key.' },
  { name: 's3-list-buckets-empty', requirement: 'S3-BKT-001', description: 'ListBuckets answers no buckets.' },
  { name: 's3-rest-objects-invisible', requirement: 'S3-STORE-001', description: 'GetObject and HeadObject answer NoSuchKey for objects uploaded through the REST API.' },
  {
    name: 's3-list-encoding-type-refused',
    requirement: 'S3-TOOL-001',
    description: 'ListObjects(V2) with `encoding-type=url` (which aws cli, rclone and s3cmd send) is refused with InvalidArgument.',
  },
  {
    name: 's3-conditional-write-ignored',
    requirement: 'S3-COND-001',
    description: 'PutObject and CompleteMultipartUpload ignore If-None-Match and If-Match: `If-None-Match: *` overwrites an existing object instead of answering 412.',
  },
  {
    name: 's3-conditional-read-ignored',
    requirement: 'S3-COND-002',
    description: 'GetObject and HeadObject ignore If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since: never 304 nor 412.',
  },
  {
    name: 's3-standard-headers-dropped',
    requirement: 'S3-HDR-001',
    description: 'Cache-Control, Content-Disposition, Content-Encoding, Content-Language and Expires given at upload are not stored, so downloads do not carry them.',
  },
  {
    name: 's3-upload-part-copy-missing',
    requirement: 'S3-COPY-001',
    description: 'UploadPartCopy answers NotImplemented, so managed copies of large objects between S3 locations fail.',
  },
  {
    name: 's3-complete-checksum-on-body',
    requirement: 'S3-MPU-003',
    description: "CompleteMultipartUpload's x-amz-checksum-* header is checked against the XML body instead of the object, so a correct object checksum answers BadDigest.",
  },
  {
    name: 's3-complete-not-idempotent',
    requirement: 'S3-MPU-003',
    description: 'A retried CompleteMultipartUpload of an upload already completed answers NoSuchUpload instead of the object.',
  },
  {
    name: 's3-empty-content-type-500',
    requirement: 'S3-HDR-002',
    description: 'A PutObject with an empty Content-Type header answers 500 InternalError.',
  },
  {
    name: 's3-part-number-ignored',
    requirement: 'S3-PART-001',
    description: 'GetObject and HeadObject ignore `partNumber`: the whole object comes back, with no parts count.',
  },
  {
    name: 's3-empty-continuation-token-refused',
    requirement: 'S3-LIST-003',
    description: 'ListObjectsV2 with an empty continuation-token answers InvalidArgument instead of the first page.',
  },
  {
    name: 's3-options-not-implemented',
    requirement: 'S3-CORS-001',
    description: 'OPTIONS (a CORS preflight) on an object URL answers 501 NotImplemented.',
  },
  {
    name: 's3-recreate-own-bucket-taken',
    requirement: 'S3-BKT-002',
    description: 'CreateBucket of a bucket the caller owns answers BucketAlreadyExists, as if another account owned it.',
  },
  {
    name: 's3-list-versions-missing',
    requirement: 'S3-VER-001',
    description: 'ListObjectVersions and GetBucketVersioning answer NotImplemented, even for a bucket that was never versioned.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../core/faults.ts' {
  interface FaultNames extends Record<(typeof S3_FAULTS)[number]['name'], true> {}
}


/** The representation headers S3 stores with an object and returns on GET and HEAD. */
const STANDARD_HEADERS = ['cache-control', 'content-disposition', 'content-encoding', 'content-language', 'expires'] as const;

const MAX_XML_BODY = 1024 * 1024;
const MAX_KEYS = 1000;

interface Target {
  bucket?: string;
  key?: string;
}

/** What S3-side features the REST record has no field for, kept per blob (a blob is one object version). */
interface ObjectExtras {
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
  metadata: Record<string, string>;
  /** Cache-Control, Content-Disposition, ... as given at upload (STANDARD_HEADERS). */
  headers?: Record<string, string>;
  /** How the checksums describe the object (multipart uploads may be COMPOSITE). */
  checksumType?: ChecksumType;
  /** The parts of a multipart object, in order (GetObject?partNumber, GetObjectAttributes). */
  parts?: Array<{ size: number; checksum?: string }>;
}

/** A completed upload, so that a retried CompleteMultipartUpload answers the same object (as S3 does). */
interface CompletedUpload {
  bucket: string;
  key: string;
  blob: string;
  body: string;
}

interface UploadExtras {
  metadata: Record<string, string>;
  headers?: Record<string, string>;
  /** The upload's checksum algorithm and type (CreateMultipartUpload's x-amz-checksum-*). */
  checksum?: { algorithm: ChecksumAlgorithm; type: ChecksumType };
}

type Query = Map<string, string>;

interface Call {
  request: FastifyRequest;
  reply: FastifyReply;
  raw: RawRequest;
  query: Query;
  target: Target;
  auth: VerifiedAuth;
  accountId: string;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3Error('InvalidArgument', 'The request URI is not valid percent-encoding.');
  }
}

function parseUrl(url: string): { rawPath: string; query: Array<[string, string]>; target: Target } {
  const at = url.indexOf('?');
  const rawPath = at < 0 ? url : url.slice(0, at);
  const rawQuery = at < 0 ? '' : url.slice(at + 1);
  const query: Array<[string, string]> = [];
  for (const pair of rawQuery.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    query.push(eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))]);
  }
  const rest = rawPath.replace(/^\//, '');
  const slash = rest.indexOf('/');
  const bucketText = slash < 0 ? rest : rest.slice(0, slash);
  const keyText = slash < 0 ? '' : rest.slice(slash + 1);
  const target: Target = {};
  if (bucketText) target.bucket = decode(bucketText);
  if (keyText) target.key = decode(keyText);
  return { rawPath, query, target };
}

const httpDate = (iso: string): string => new Date(iso).toUTCString();

/** Node reads header bytes as latin1: non-ASCII metadata sent as UTF-8 is read back as text here. */
function utf8Of(value: string): string {
  if (!/[^ -~\t]/.test(value)) return value;
  const text = Buffer.from(value, 'latin1').toString('utf8');
  return text.includes('\uFFFD') ? value : text;
}

/** A header value Node can send: text beyond latin1 goes as an RFC 2047 encoded word (as S3 does). */
function headerValue(value: string): string {
  return /[^ -~\t\u00a0-\u00ff]/.test(value) ? `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=` : value;
}

function userMetadata(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith('x-amz-meta-') && value !== undefined) out[name.slice('x-amz-meta-'.length)] = utf8Of(Array.isArray(value) ? value.join(',') : value);
  }
  return out;
}

function standardHeaders(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STANDARD_HEADERS) {
    const value = header(request, name);
    // aws-chunked is the transfer framing of the body, not the object's encoding (S3 drops it).
    const kept = name === 'content-encoding' ? value?.split(',').map((v) => v.trim()).filter((v) => v && v !== 'aws-chunked').join(', ') : value;
    if (kept) out[name] = kept;
  }
  return out;
}

/** Skips `start` bytes and passes `length` bytes (Range reads over the store's whole-blob stream). */
function slice(start: number, length: number): Transform {
  let skip = start;
  let left = length;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      let data = chunk;
      if (skip > 0) {
        const dropped = Math.min(skip, data.length);
        data = data.subarray(dropped);
        skip -= dropped;
      }
      if (left <= 0 || data.length === 0) return callback();
      const taken = data.subarray(0, left);
      left -= taken.length;
      callback(null, taken);
    },
  });
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`; undefined when absent or not a single byte range (served whole, as S3 does). */
function parseRange(text: string | undefined, size: number): { start: number; end: number } | undefined {
  if (!text) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw new S3Error('InvalidRange', 'The requested range is not satisfiable.', { RangeRequested: text, ActualObjectSize: String(size) });
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size) throw new S3Error('InvalidRange', 'The requested range is not satisfiable.', { RangeRequested: text, ActualObjectSize: String(size) });
  return { start, end };
}

function encodeForListing(value: string, encode: boolean): string {
  return encode ? encodeURIComponent(value).replace(/%2F/g, '/') : value;
}

function intParam(query: Query, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new S3Error('InvalidArgument', `${name} must be a non-negative integer.`);
  return Math.min(Number(text), max);
}

export async function buildS3App(ctx: ReferenceContext): Promise<FastifyInstance> {
  const store = objectStoreOf(ctx);
  const objectExtras = ctx.globalState('s3-object-extras', () => new Map<string, ObjectExtras>());
  const uploadExtras = ctx.globalState('s3-upload-extras', () => new Map<string, UploadExtras>());
  const completed = ctx.globalState('s3-completed-uploads', () => new Map<string, CompletedUpload>());
  const accounts = new WeakMap<FastifyRequest, { accountId: string; bucket?: string }>();

  // forceCloseConnections: as the REST app (reference/app.ts), close() must not wait on keep-alive sockets.
  const app = Fastify({ logger: false, routerOptions: { maxParamLength: 10_000 }, exposeHeadRoutes: false, forceCloseConnections: true });
  // `Expect`: Node answers 100 Continue before any handler runs and 417 to other expectations.
  // S3 answers 100 only to an authorised request (a refused one gets its error instead of the
  // body being sent) and ignores other expectations, so both reach the handler here.
  app.server.on('checkContinue', (request, response) => app.server.emit('request', request, response));
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  // Bodies stay unread: objects stream from the socket through the verifier to disk.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  // Fastify refuses an empty Content-Type (415) before any parser runs; S3 takes it as absent.
  // It is hidden from Fastify here and put back for the signature, which may cover it.
  const emptyContentType = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers['content-type'] === '') {
      if (ctx.faults.has('s3-empty-content-type-500')) throw new S3Error('InternalError', 'We encountered an internal error. Please try again.');
      emptyContentType.add(request);
      delete request.headers['content-type'];
    }
    void reply.header('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase());
    void reply.header('server', 'cloudcheck-reference');
  });
  // Counted before the response leaves (as on the REST side), so a usage read right after sees it.
  app.addHook('onSend', async (request, _reply, payload) => {
    const acting = accounts.get(request);
    if (acting) store.recordRequest(acting.accountId, acting.bucket);
    return payload;
  });

  app.setErrorHandler(async (error, request, reply) => {
    const s3 = s3ErrorOf(error) ?? new S3Error('InternalError', 'We encountered an internal error. Please try again.');
    if (s3.code === 'InternalError') request.log.error(error);
    const requestId = String(reply.getHeader('x-amz-request-id') ?? '');
    void reply.status(s3.status).type('application/xml');
    // Refused before the body was read to the end: close the connection rather than leave the
    // rest of the body to be read as the next request (S3 does the same).
    if (!request.raw.complete) void reply.header('connection', 'close');
    if (request.method === 'HEAD' || s3.status === 304) return reply.send();
    return reply.send(errorDocument(s3.code, s3.message, s3.extra, requestId));
  });
  // CORS preflight (browsers before a presigned PUT, and tools probing a URL): the endpoint
  // keeps no CORS configuration, so a complete preflight is refused as S3 refuses one its
  // configuration does not allow, and an incomplete one as malformed. Never 501: OPTIONS is part
  // of the S3 interface.
  app.route({
    method: 'OPTIONS',
    url: '*',
    handler: async (request) => {
      if (ctx.faults.has('s3-options-not-implemented')) throw new S3Error('NotImplemented', 'A header or method you provided implies functionality that is not implemented.');
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.');
      }
      throw new S3Error('AccessForbidden', 'CORSResponse: This CORS request is not allowed. This is usually because the evaluation of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.');
    },
  });
  app.setNotFoundHandler(async () => {
    throw new S3Error('NotImplemented', 'A header or method you provided implies functionality that is not implemented.');
  });

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
    if (!auth.key.permissions.includes(needed)) throw new S3Error('AccessDenied', `The access key lacks the ${needed} permission.`);
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
    for (const [name, value] of Object.entries(extras?.metadata ?? {})) void reply.header(`x-amz-meta-${name}`, headerValue(value));
    for (const [name, value] of Object.entries(extras?.headers ?? {})) void reply.header(name, value);
  }

  function storedHeaders(request: FastifyRequest): Record<string, string> {
    return ctx.faults.has('s3-standard-headers-dropped') ? {} : standardHeaders(request);
  }

  /** The object a conditional write is judged against (undefined when the key is free). */
  function currentOf(accountId: string, bucket: string, key: string): Current | undefined {
    const object = store.getBucket(accountId, bucket).objects.get(key);
    return object && { etag: object.etag, lastModified: object.last_modified };
  }

  function writeConditions(call: Call, bucket: string, key: string): void {
    if (ctx.faults.has('s3-conditional-write-ignored')) return;
    requireWrite(call.request.headers, currentOf(call.accountId, bucket, key));
  }

  function checksumHeaders(reply: FastifyReply, checksums: Partial<Record<ChecksumAlgorithm, string>> | Map<ChecksumAlgorithm, string>, type: ChecksumType = 'FULL_OBJECT'): void {
    const entries = checksums instanceof Map ? [...checksums] : Object.entries(checksums);
    for (const [algorithm, value] of entries) void reply.header(`x-amz-checksum-${algorithm}`, value);
    if (entries.length > 0) void reply.header('x-amz-checksum-type', type);
  }

  // ---- service and bucket operations ----------------------------------------------------------

  async function listBuckets(call: Call) {
    const limited = call.auth.key.bucket_access;
    const buckets = ctx.faults.has('s3-list-buckets-empty')
      ? []
      : store.listBuckets(call.accountId).filter((b) => !limited || limited.length === 0 || limited.includes(b.name));
    // Paged only when asked (max-buckets), as S3: the token is the last name of the page.
    const maxBuckets = call.query.has('max-buckets') ? Math.max(1, intParam(call.query, 'max-buckets', 10_000, 10_000)) : undefined;
    const after = call.query.get('continuation-token') ? Buffer.from(call.query.get('continuation-token')!, 'base64url').toString('utf8') : undefined;
    const sorted = [...buckets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).filter((b) => after === undefined || b.name > after);
    const page = maxBuckets === undefined ? sorted : sorted.slice(0, maxBuckets);
    const body = xmlDocument('ListAllMyBucketsResult', {
      Owner: { ID: call.accountId, DisplayName: call.accountId },
      Buckets: page.length === 0 ? '' : { Bucket: page.map((b) => ({ Name: b.name, CreationDate: b.created_at, BucketRegion: b.region })) },
      ...(page.length < sorted.length ? { ContinuationToken: Buffer.from(page.at(-1)!.name).toString('base64url') } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  async function createBucket(call: Call, bucket: string) {
    const problem = bucketNameProblem(bucket);
    if (problem) throw new S3Error('InvalidBucketName', `The specified bucket is not valid: ${problem}`, { BucketName: bucket });
    const text = (await smallBody(call)).toString('utf8').trim();
    let region: string | undefined;
    if (text) {
      const doc = parseXml(text).CreateBucketConfiguration as { LocationConstraint?: unknown } | undefined;
      if (typeof doc?.LocationConstraint === 'string' && doc.LocationConstraint.trim()) region = doc.LocationConstraint.trim();
    }
    // A region slug of the API (S3-REG-001); the SDK's signing region otherwise, else the first.
    const slugs: readonly string[] = REGIONS;
    const chosen = region && slugs.includes(region) ? region : slugs.includes(call.auth.region) ? call.auth.region : REGIONS[0];
    if (region && !slugs.includes(region)) throw new S3Error('InvalidArgument' as const, `Unknown LocationConstraint ${region}; use a region slug (${REGIONS.join(', ')}).`);
    if (store.findBucket(call.accountId, bucket) && ctx.faults.has('s3-recreate-own-bucket-taken')) throw new S3Error('BucketAlreadyExists', 'The requested bucket name is not available.');
    if (store.findBucket(call.accountId, bucket)) throw new S3Error('BucketAlreadyOwnedByYou', 'Your previous request to create the named bucket succeeded and you already own it.', { BucketName: bucket });
    store.createBucket(call.accountId, { name: bucket, region: chosen });
    return call.reply.header('location', `/${bucket}`).send();
  }

  async function listObjects(call: Call, bucketName: string) {
    const q = call.query;
    const v2 = q.get('list-type') === '2';
    const encode = q.get('encoding-type') === 'url';
    if (q.has('encoding-type') && ctx.faults.has('s3-list-encoding-type-refused')) throw new S3Error('InvalidArgument', 'encoding-type is not supported.');
    if (q.has('encoding-type') && !encode) throw new S3Error('InvalidArgument', 'encoding-type must be url.');
    const prefix = ctx.faults.has('s3-list-prefix-ignored') ? '' : (q.get('prefix') ?? '');
    const delimiter = q.get('delimiter') ?? '';
    const maxKeys = intParam(q, 'max-keys', MAX_KEYS, MAX_KEYS);
    let marker: string | undefined;
    const token = q.get('continuation-token');
    if (v2) {
      // An empty token is no token (S3 starts at the beginning and echoes it).
      if (token === '' && ctx.faults.has('s3-empty-continuation-token-refused')) throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.');
      if (token) {
        const decoded = Buffer.from(token, 'base64url').toString('utf8');
        if (!decoded.startsWith('k:')) throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect.');
        marker = decoded.slice(2);
      } else marker = q.get('start-after') || undefined;
    } else marker = q.get('marker') || undefined;
    const bucket = store.getBucket(call.accountId, bucketName);
    const listing =
      maxKeys === 0
        ? { objects: [], commonPrefixes: [], isTruncated: false, nextMarker: null }
        : store.listObjects(call.accountId, bucket.name, { prefix, delimiter: delimiter || undefined, maxKeys, marker });
    let next = listing.nextMarker;
    if (ctx.faults.has('s3-list-continuation-broken') && listing.isTruncated) {
      // Resume one entry early: the last entry of this page comes again on the next one.
      const entries = [...listing.objects.map((o) => o.key), ...listing.commonPrefixes].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      if (entries.length >= 2) next = entries.at(-2)!;
    }
    const owner = { ID: call.accountId, DisplayName: call.accountId };
    const contents = listing.objects.map((o) => ({
      Key: encodeForListing(o.key, encode),
      LastModified: o.last_modified,
      ETag: o.etag,
      Size: o.size,
      StorageClass: o.storage_class,
      ...(!v2 || q.get('fetch-owner') === 'true' ? { Owner: owner } : {}),
    }));
    const prefixes = listing.commonPrefixes.map((p) => ({ Prefix: encodeForListing(p, encode) }));
    const common = {
      Name: bucket.name,
      Prefix: encodeForListing(prefix, encode),
      ...(delimiter ? { Delimiter: encodeForListing(delimiter, encode) } : {}),
      MaxKeys: maxKeys,
      ...(encode ? { EncodingType: 'url' } : {}),
      IsTruncated: listing.isTruncated,
    };
    const body = v2
      ? xmlDocument('ListBucketResult', {
          ...common,
          ...(token !== undefined ? { ContinuationToken: token } : {}),
          ...(q.get('start-after') ? { StartAfter: encodeForListing(q.get('start-after')!, encode) } : {}),
          KeyCount: contents.length + prefixes.length,
          ...(listing.isTruncated && next !== null ? { NextContinuationToken: Buffer.from(`k:${next}`).toString('base64url') } : {}),
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
      ...(uploads.length ? { Upload: uploads.map((u) => ({ Key: u.key, UploadId: u.upload_id, Initiated: u.initiated, StorageClass: 'STANDARD' })) } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  /**
   * ListObjectVersions on a bucket that was never versioned: S3 lists each object as its only
   * version, with VersionId "null" and IsLatest true, and no delete markers. Tools (and the
   * S3 compatibility suites' own cleanup) call it to empty a bucket whatever its versioning.
   */
  async function listVersions(call: Call, bucketName: string) {
    const q = call.query;
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const encode = q.get('encoding-type') === 'url';
    const maxKeys = intParam(q, 'max-keys', MAX_KEYS, MAX_KEYS);
    const keyMarker = q.get('key-marker') || undefined;
    const bucket = store.getBucket(call.accountId, bucketName);
    const listing =
      maxKeys === 0
        ? { objects: [], commonPrefixes: [], isTruncated: false, nextMarker: null }
        : store.listObjects(call.accountId, bucket.name, { prefix, delimiter: delimiter || undefined, maxKeys, marker: keyMarker });
    const owner = { ID: call.accountId, DisplayName: call.accountId };
    const versions = listing.objects.map((o) => ({
      Key: encodeForListing(o.key, encode),
      VersionId: 'null',
      IsLatest: true,
      LastModified: o.last_modified,
      ETag: o.etag,
      Size: o.size,
      StorageClass: o.storage_class,
      Owner: owner,
    }));
    const prefixes = listing.commonPrefixes.map((p) => ({ Prefix: encodeForListing(p, encode) }));
    const body = xmlDocument('ListVersionsResult', {
      Name: bucket.name,
      Prefix: encodeForListing(prefix, encode),
      KeyMarker: encodeForListing(keyMarker ?? '', encode),
      VersionIdMarker: q.get('version-id-marker') ?? '',
      ...(listing.isTruncated && listing.nextMarker !== null
        ? { NextKeyMarker: encodeForListing(listing.nextMarker, encode), NextVersionIdMarker: 'null' }
        : {}),
      ...(delimiter ? { Delimiter: encodeForListing(delimiter, encode) } : {}),
      MaxKeys: maxKeys,
      ...(encode ? { EncodingType: 'url' } : {}),
      IsTruncated: listing.isTruncated,
      ...(versions.length ? { Version: versions } : {}),
      ...(prefixes.length ? { CommonPrefixes: prefixes } : {}),
    });
    return call.reply.type('application/xml').send(body);
  }

  async function deleteObjects(call: Call, bucketName: string) {
    const h = call.request.headers;
    if (h['content-md5'] === undefined && !Object.keys(h).some((n) => /^x-amz-checksum-(crc|sha)/.test(n)) && !h['x-amz-trailer']) {
      throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5 or x-amz-checksum-*.');
    }
    const doc = parseXml((await smallBody(call)).toString('utf8')).Delete as { Object?: Array<{ Key?: unknown }>; Quiet?: unknown } | undefined;
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
    if ((q.has('versions') || q.has('versioning')) && ctx.faults.has('s3-list-versions-missing')) throw new S3Error('NotImplemented', 'Versioning is not implemented.');
    if (method === 'GET' && q.has('versions')) return listVersions(call, bucket);
    if (method === 'GET' && q.has('versioning')) {
      store.getBucket(call.accountId, bucket);
      // Never versioned: S3 answers an empty configuration (no Status) for such a bucket.
      return call.reply.type('application/xml').send(xmlDocument('VersioningConfiguration', {}));
    }
    if (method === 'POST' && q.has('delete')) return deleteObjects(call, bucket);
    const known = new Set(['list-type', 'prefix', 'delimiter', 'max-keys', 'continuation-token', 'start-after', 'encoding-type', 'fetch-owner', 'marker', 'x-id']);
    const unknown = [...q.keys()].filter((k) => !known.has(k) && !/^x-amz-/i.test(k));
    if (unknown.length > 0) throw new S3Error('NotImplemented', `The bucket sub-resource ${unknown[0]} is not implemented.`);
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

  // ---- object operations ----------------------------------------------------------------------

  async function putObject(call: Call, bucket: string, key: string) {
    store.getBucket(call.accountId, bucket);
    writeConditions(call, bucket, key);
    const { stream, decoder } = bodyOf(call);
    // An empty Content-Type is as good as none (S3 stores its default).
    const contentType = header(call.request, 'content-type') || undefined;
    const record = await store.putObjectStream(call.accountId, bucket, key, stream, { contentType, limit: ctx.options.objectLimit });
    objectExtras.set(record.blob, { checksums: Object.fromEntries(decoder.verified), metadata: userMetadata(call.request), headers: storedHeaders(call.request) });
    checksumHeaders(call.reply, decoder.verified);
    return call.reply.header('etag', record.etag).send();
  }

  /** `x-amz-copy-source` (`bucket/key`, optionally with a leading slash), read-permission checked. */
  function copySourceOf(call: Call, sourceText: string): { bucket: string; key: string } {
    const source = decode(sourceText.split('?')[0]!).replace(/^\//, '');
    const slash = source.indexOf('/');
    if (slash <= 0 || slash === source.length - 1) throw new S3Error('InvalidArgument', 'x-amz-copy-source must be bucket/key.');
    const from = { bucket: source.slice(0, slash), key: source.slice(slash + 1) };
    allow(call.auth, 'GET', from.bucket);
    // Copying out of another account's bucket is refused like any use of it (handle).
    if (store.ownedByAnother(call.accountId, from.bucket)) throw new S3Error('AccessDenied', 'Access Denied');
    return from;
  }

  async function copyObject(call: Call, bucket: string, key: string, sourceText: string) {
    const from = copySourceOf(call, sourceText);
    await smallBody(call);
    const replace = header(call.request, 'x-amz-metadata-directive') === 'REPLACE';
    // S3 refuses a copy onto itself that changes nothing (no REPLACE of metadata).
    if (from.bucket === bucket && from.key === key && !replace) {
      throw new S3Error('InvalidRequest', 'This copy request is illegal because it is trying to copy an object to itself without changing the object\'s metadata, storage class, website redirect location or encryption attributes.');
    }
    const sourceRecord = store.headObject(call.accountId, from.bucket, from.key);
    requireCopySource(call.request.headers, { etag: sourceRecord.etag, lastModified: sourceRecord.last_modified });
    const sourceExtras = objectExtras.get(sourceRecord.blob);
    const record = await store.copyObject(call.accountId, from, { bucket, key }, replace ? { contentType: header(call.request, 'content-type') } : {});
    objectExtras.set(record.blob, {
      checksums: { ...sourceExtras?.checksums },
      metadata: replace ? userMetadata(call.request) : { ...sourceExtras?.metadata },
      headers: replace ? storedHeaders(call.request) : { ...sourceExtras?.headers },
    });
    return call.reply.type('application/xml').send(xmlDocument('CopyObjectResult', { LastModified: record.last_modified, ETag: record.etag }));
  }

  async function getObject(call: Call, bucket: string, key: string, head: boolean) {
    const object = store.headObject(call.accountId, bucket, key);
    const extras = objectExtras.get(object.blob);
    // Objects written through S3 have extras; the REST side writes none.
    if (!extras && ctx.faults.has('s3-rest-objects-invisible')) throw new S3Error('NoSuchKey', 'The specified key does not exist.');
    setObjectHeaders(call.reply, object, extras);
    if (!ctx.faults.has('s3-conditional-read-ignored')) {
      // Evaluated before the Range, as HTTP says: a failed precondition wins over InvalidRange.
      const outcome = checkRead(call.request.headers, { etag: object.etag, lastModified: object.last_modified });
      if (outcome === 'failed') throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { Condition: 'If-Match' });
      if (outcome === 'not-modified') {
        // 304 carries the validators and no body or representation headers.
        for (const name of ['content-type', 'content-length', 'accept-ranges', ...STANDARD_HEADERS]) call.reply.removeHeader(name);
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
    const { body } = store.getObject(call.accountId, bucket, key);
    store.recordDownload(call.accountId, bucket, length);
    return call.reply.send(range ? body.pipe(slice(range.start, length)) : body);
  }

  /**
   * GetObject/HeadObject `?partNumber=`: the byte range of that part of a multipart object.
   * An object uploaded whole has one part (the whole object); a part past the last is InvalidPart.
   */
  function partOf(call: Call, extras: ObjectExtras | undefined): { range?: { start: number; end: number }; count: number; checksum?: string } | undefined {
    const text = call.query.get('partNumber');
    if (text === undefined || ctx.faults.has('s3-part-number-ignored')) return undefined;
    const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (!(n >= 1 && n <= 10_000)) throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
    const layout = extras?.parts;
    if (!layout) {
      if (n !== 1) throw new S3Error('InvalidPart', 'The requested partnumber is not satisfiable');
      return { count: 1 };
    }
    if (n > layout.length) throw new S3Error('InvalidPart', 'The requested partnumber is not satisfiable');
    const start = layout.slice(0, n - 1).reduce((sum, p) => sum + p.size, 0);
    const size = layout[n - 1]!.size;
    return { range: { start, end: start + size - 1 }, count: layout.length, ...(layout[n - 1]!.checksum ? { checksum: layout[n - 1]!.checksum } : {}) };
  }

  /** GetObjectAttributes: the attributes asked for in x-amz-object-attributes. */
  async function objectAttributes(call: Call, bucket: string, key: string) {
    const object = store.headObject(call.accountId, bucket, key);
    const extras = objectExtras.get(object.blob);
    const wanted = new Set((header(call.request, 'x-amz-object-attributes') ?? '').split(',').map((a) => a.trim()).filter(Boolean));
    if (wanted.size === 0) throw new S3Error('InvalidArgument', 'x-amz-object-attributes must name at least one attribute.');
    const checksums = Object.entries(extras?.checksums ?? {}) as Array<[ChecksumAlgorithm, string]>;
    const algorithm = checksums[0]?.[0];
    const body: Record<string, unknown> = {};
    if (wanted.has('ETag')) body.ETag = object.etag.replace(/^"|"$/g, '');
    if (wanted.has('Checksum') && checksums.length > 0) {
      body.Checksum = { ...Object.fromEntries(checksums.map(([a, v]) => [`Checksum${a.toUpperCase()}`, v])), ChecksumType: extras?.checksumType ?? 'FULL_OBJECT' };
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
        ...(page.length ? { Part: page.map((p) => ({ PartNumber: p.n, Size: p.size, ...(p.checksum && algorithm ? { [`Checksum${algorithm.toUpperCase()}`]: p.checksum } : {}) })) } : {}),
      };
    }
    if (wanted.has('StorageClass')) body.StorageClass = object.storage_class;
    if (wanted.has('ObjectSize')) body.ObjectSize = object.size;
    void call.reply.header('last-modified', httpDate(object.last_modified));
    return call.reply.type('application/xml').send(xmlDocument('GetObjectAttributesResponse', body));
  }

  async function createUpload(call: Call, bucket: string, key: string) {
    await smallBody(call);
    const upload = store.initiateMultipart(call.accountId, bucket, key, { contentType: header(call.request, 'content-type') });
    const algorithm = header(call.request, 'x-amz-checksum-algorithm');
    const lower = algorithm?.toLowerCase();
    if (lower !== undefined && !isChecksumAlgorithm(lower)) throw new S3Error('InvalidRequest', `Checksum algorithm ${algorithm} is not supported.`);
    const typeText = header(call.request, 'x-amz-checksum-type')?.toUpperCase();
    if (typeText !== undefined && typeText !== 'COMPOSITE' && typeText !== 'FULL_OBJECT') throw new S3Error('InvalidRequest', 'x-amz-checksum-type must be COMPOSITE or FULL_OBJECT.');
    const checksum = lower ? { algorithm: lower, type: (typeText as ChecksumType | undefined) ?? defaultChecksumType(lower) } : undefined;
    uploadExtras.set(upload.upload_id, { metadata: userMetadata(call.request), headers: storedHeaders(call.request), ...(checksum ? { checksum } : {}) });
    if (algorithm) void call.reply.header('x-amz-checksum-algorithm', algorithm);
    if (checksum) void call.reply.header('x-amz-checksum-type', checksum.type);
    return call.reply.type('application/xml').send(xmlDocument('InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: upload.upload_id }));
  }

  async function uploadPart(call: Call, bucket: string, key: string, uploadId: string) {
    const text = call.query.get('partNumber') ?? '';
    const partNumber = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
    if (!(partNumber >= 1 && partNumber <= 10_000)) throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
    const copySource = header(call.request, 'x-amz-copy-source');
    if (copySource !== undefined && ctx.faults.has('s3-upload-part-copy-missing')) throw new S3Error('NotImplemented', 'UploadPartCopy is not implemented.');
    if (copySource !== undefined) return uploadPartCopy(call, bucket, key, uploadId, partNumber, copySource);
    store.getUpload(call.accountId, bucket, key, uploadId);
    const { stream, decoder } = bodyOf(call);
    const part = await store.uploadPart(call.accountId, bucket, key, uploadId, partNumber, stream, ctx.options.objectLimit);
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
  async function uploadPartCopy(call: Call, bucket: string, key: string, uploadId: string, partNumber: number, sourceText: string) {
    const from = copySourceOf(call, sourceText);
    store.getUpload(call.accountId, bucket, key, uploadId);
    await smallBody(call);
    const source = store.headObject(call.accountId, from.bucket, from.key);
    requireCopySource(call.request.headers, { etag: source.etag, lastModified: source.last_modified });
    const rangeText = header(call.request, 'x-amz-copy-source-range');
    let start = 0;
    let length = source.size;
    if (rangeText !== undefined) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(rangeText.trim());
      if (!m || Number(m[2]) < Number(m[1])) throw new S3Error('InvalidArgument', 'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy');
      start = Number(m[1]);
      const end = Number(m[2]);
      if (end >= source.size) throw new S3Error('InvalidRange', 'The requested range is not satisfiable', { RangeRequested: rangeText, ActualObjectSize: String(source.size) });
      length = end - start + 1;
    }
    const { body } = store.getObject(call.accountId, from.bucket, from.key);
    const part = await store.uploadPart(call.accountId, bucket, key, uploadId, partNumber, body.pipe(slice(start, length)), ctx.options.objectLimit);
    return call.reply.type('application/xml').send(xmlDocument('CopyPartResult', { LastModified: part.last_modified, ETag: part.etag }));
  }

  /**
   * The object checksum of a completion: the upload's algorithm (or the one of an
   * x-amz-checksum-* header of the completion), worked out from the listed parts and compared
   * with the header when there is one (BadDigest when it differs).
   */
  async function completionChecksum(call: Call, upload: { bucket: string; key: string; uploadId: string }, partNumbers: number[]) {
    const given = [...Object.keys(call.request.headers)]
      .map((name) => ({ name, algorithm: /^x-amz-checksum-([a-z0-9]+)$/.exec(name)?.[1] }))
      .find((h): h is { name: string; algorithm: ChecksumAlgorithm } => h.algorithm !== undefined && isChecksumAlgorithm(h.algorithm));
    const chosen = uploadExtras.get(upload.uploadId)?.checksum;
    const algorithm = chosen?.algorithm ?? given?.algorithm;
    if (!algorithm) return undefined;
    const givenValue = given && given.algorithm === algorithm ? header(call.request, given.name) : undefined;
    const typeText = header(call.request, 'x-amz-checksum-type')?.toUpperCase();
    const type: ChecksumType =
      chosen?.type ?? (typeText === 'COMPOSITE' || typeText === 'FULL_OBJECT' ? typeText : /-\d+$/.test(givenValue ?? '') ? 'COMPOSITE' : algorithm.startsWith('crc') ? 'FULL_OBJECT' : 'COMPOSITE');
    const records = new Map(store.listParts(call.accountId, upload.bucket, upload.key, upload.uploadId).map((p) => [p.part_number, p]));
    const streams = partNumbers.flatMap((n) => {
      const part = records.get(n);
      return part ? [store.blobs.read(part.blob)] : [];
    });
    // A listed part that does not exist fails the completion itself (InvalidPart) just after.
    if (streams.length !== partNumbers.length) return undefined;
    const { value, parts } = await multipartChecksum(algorithm, type, streams);
    if (givenValue !== undefined && !sameMultipartChecksum(givenValue, value)) {
      throw new S3Error('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
    }
    return { algorithm, type, value, parts };
  }

  async function completeUpload(call: Call, bucket: string, key: string, uploadId: string) {
    const doc = parseXml((await smallBody(call, { objectChecksums: !ctx.faults.has('s3-complete-checksum-on-body') })).toString('utf8')).CompleteMultipartUpload as { Part?: Array<{ PartNumber?: unknown; ETag?: unknown }> } | undefined;
    if (!doc || !Array.isArray(doc.Part)) throw new S3Error('MalformedXML', 'CompleteMultipartUpload must list its parts.');
    const parts = doc.Part.map((p) => {
      const number = Number(typeof p.PartNumber === 'string' ? p.PartNumber.trim() : NaN);
      if (!Number.isInteger(number) || typeof p.ETag !== 'string') throw new S3Error('MalformedXML', 'Each Part needs PartNumber and ETag.');
      return { partNumber: number, etag: p.ETag };
    });
    const done = completed.get(uploadId);
    if (done && !ctx.faults.has('s3-complete-not-idempotent') && done.bucket === bucket && done.key === key && store.getBucket(call.accountId, bucket).objects.get(key)?.blob === done.blob) {
      return call.reply.type('application/xml').send(done.body);
    }
    writeConditions(call, bucket, key);
    store.getUpload(call.accountId, bucket, key, uploadId);
    const sizes = new Map(store.listParts(call.accountId, bucket, key, uploadId).map((p) => [p.part_number, p.size]));
    const checksum = await completionChecksum(call, { bucket, key, uploadId }, parts.map((p) => p.partNumber));
    const record = await store.completeMultipart(call.accountId, bucket, key, uploadId, parts);
    const extras = uploadExtras.get(uploadId);
    objectExtras.set(record.blob, {
      checksums: checksum ? { [checksum.algorithm]: checksum.value } : {},
      ...(checksum ? { checksumType: checksum.type } : {}),
      metadata: extras?.metadata ?? {},
      headers: extras?.headers ?? {},
      parts: parts.map((p, i) => ({ size: sizes.get(p.partNumber) ?? 0, ...(checksum ? { checksum: checksum.parts[i] } : {}) })),
    });
    uploadExtras.delete(uploadId);
    const host = header(call.request, 'host') ?? '';
    const body = xmlDocument('CompleteMultipartUploadResult', {
      Location: `http://${host}/${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`,
      Bucket: bucket,
      Key: key,
      ETag: record.etag,
      ...(checksum ? { [`Checksum${checksum.algorithm.toUpperCase()}`]: checksum.value, ChecksumType: checksum.type } : {}),
    });
    completed.set(uploadId, { bucket, key, blob: record.blob, body });
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
        ...(page.length ? { Part: page.map((p) => ({ PartNumber: p.part_number, LastModified: p.last_modified, ETag: p.etag, Size: p.size })) } : {}),
      }),
    );
  }

  async function objectOperation(call: Call, bucket: string, key: string) {
    const problem = objectKeyProblem(key);
    if (problem) throw new S3Error('InvalidArgument', problem);
    const { method } = call.request;
    const q = call.query;
    const uploadId = q.get('uploadId');
    // Hoisted headers (`X-Amz-*`, `x-amz-*`) are not sub-resources. The JS SDK's presigner puts
    // `x-amz-checksum-crc32` of an EMPTY body into presigned PUT URLs; AWS ignores checksum query
    // parameters (LocalStack aligned with that in 2025), so they are ignored here too.
    const subresources = [...q.keys()].filter((k) => !/^x-amz-/i.test(k) && !k.startsWith('response-') && !['uploadId', 'partNumber', 'uploads', 'x-id', 'part-number-marker', 'max-parts', 'attributes'].includes(k));
    if (subresources.length > 0) throw new S3Error('NotImplemented', `The object sub-resource ${subresources[0]} is not implemented.`);
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
        store.deleteObject(call.accountId, bucket, key);
        return call.reply.status(204).send();
      default:
        throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  }

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const { rawPath, query, target } = parseUrl(request.raw.url ?? '/');
    if (target.bucket !== undefined && ctx.faults.has('s3-path-style-refused')) throw new S3Error('InvalidRequest', 'Path-style requests are not supported; use virtual-hosted-style addressing.');
    if (emptyContentType.has(request)) request.headers['content-type'] = '';
    const raw: RawRequest = { method: request.method, rawPath, query, headers: request.headers };
    const auth = await verifyRequest(raw, {
      now: ctx.clock.now(),
      lookup: (id) => store.accessKeyById(id),
      skipSignature: ctx.faults.has('s3-signature-unchecked'),
    });
    if (auth.mode === 'presigned' && ctx.faults.has('s3-presigned-refused')) throw new S3Error('AccessDenied', 'Query-string authentication is not supported.');
    if (auth.region !== 'us-east-1' && ctx.faults.has('s3-region-slug-refused')) throw new S3Error('AuthorizationHeaderMalformed', `The region '${auth.region}' is wrong; expecting 'us-east-1'.`);
    const accountId = auth.key.accountId;
    accounts.set(request, { accountId, bucket: target.bucket });
    allow(auth, request.method, target.bucket);
    checksumFault(request);
    if (header(request, 'expect')?.toLowerCase() === '100-continue' && !reply.raw.headersSent) reply.raw.writeContinue();
    const call: Call = { request, reply, raw, query: new Map(query), target, auth, accountId };
    // Bucket names are global: another account's bucket is refused (403 AccessDenied), as S3
    // answers it, except its creation, which says the name is taken (createBucket).
    const creating = request.method === 'PUT' && target.key === undefined && call.query.size === 0;
    if (target.bucket !== undefined && !creating && store.ownedByAnother(accountId, target.bucket)) throw new S3Error('AccessDenied', 'Access Denied');
    const algorithm = header(request, 'x-amz-sdk-checksum-algorithm')?.toLowerCase();
    if (algorithm && !isChecksumAlgorithm(algorithm)) throw new S3Error('InvalidRequest', `Checksum algorithm ${algorithm} is not supported.`);
    if (target.bucket === undefined) {
      if (request.method !== 'GET') throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
      return listBuckets(call);
    }
    if (target.key === undefined) return bucketOperation(call, target.bucket);
    return objectOperation(call, target.bucket, target.key);
  }

  for (const url of ['/', '/*']) app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url, handler: handle });
  return app;
}

