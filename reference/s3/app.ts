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
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ReferenceContext } from '../core/context.ts';
import { CHECK_HEADER } from '../core/faults.ts';
import { isChecksumAlgorithm } from './checksums.ts';
import { S3Error, s3ErrorOf } from './errors.ts';
import { type RawRequest, accessKeyIdOf, verifyRequest } from './sigv4.ts';
import { errorDocument } from './xml.ts';
import { type Call, header, parseUrl } from './shared.ts';
import { type Needed, accessDenied, neededAccess } from './access.ts';
import { allows } from '../areas/storage-objects/acl.ts';
import { s3Env, s3Helpers } from './env.ts';
import { listingOperations } from './listing.ts';
import { bucketOperations } from './buckets.ts';
import { objectOperations } from './objects.ts';
import { multipartOperations } from './multipart.ts';
import { aclOperations } from './acls.ts';

export async function buildS3App(ctx: ReferenceContext): Promise<FastifyInstance> {
  const env = s3Env(ctx);
  const { store } = env;
  const helpers = s3Helpers(env);
  const { allow, checksumFault } = helpers;
  const acls = aclOperations(env, helpers);
  const { listBuckets, bucketOperation } = bucketOperations(env, helpers, listingOperations(env), acls);
  // The object dispatch routes multipart uploads too (they address an object).
  const { objectOperation } = objectOperations(env, helpers, multipartOperations(env, helpers, acls), acls);
  const accounts = new WeakMap<FastifyRequest, { accountId: string; bucket?: string }>();

  // forceCloseConnections: as the REST app (reference/app.ts), close() must not wait on keep-alive sockets.
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 10_000 },
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    // A path whose percent-encoding is not UTF-8 never reaches a route (Fastify cannot decode it):
    // S3 answers 400 InvalidURI, in its XML.
    frameworkErrors: (error, request, reply) => {
      const { rawPath, query } = parseUrl(request.raw.url ?? '/', true);
      ctx.faults.enterRequest(
        request.headers[CHECK_HEADER],
        accessKeyIdOf({ method: request.method, rawPath, query, headers: request.headers }),
      );
      const s3 =
        error.code !== 'FST_ERR_BAD_URL'
          ? new S3Error('InvalidRequest', error.message)
          : ctx.faults.has('s3-invalid-key-404')
            ? new S3Error('NoSuchKey', 'The specified key does not exist.')
            : new S3Error('InvalidURI', "Couldn't parse the specified URI.");
      reply.raw.writeHead(s3.status, { 'content-type': 'application/xml', connection: 'close' });
      reply.raw.end(errorDocument(s3.code, s3.message, s3.extra, ''));
    },
  });
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
    if (ctx.faults.scoped) {
      const { rawPath, query } = parseUrl(request.raw.url ?? '/', true);
      ctx.faults.enterRequest(
        request.headers[CHECK_HEADER],
        accessKeyIdOf({ method: request.method, rawPath, query, headers: request.headers }),
      );
    }
    if (request.headers['content-type'] === '') {
      if (ctx.faults.has('s3-empty-content-type-500'))
        throw new S3Error('InternalError', 'We encountered an internal error. Please try again.');
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
      if (ctx.faults.has('s3-options-not-implemented'))
        throw new S3Error(
          'NotImplemented',
          'A header or method you provided implies functionality that is not implemented.',
        );
      if (!request.headers.origin || !request.headers['access-control-request-method']) {
        throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.');
      }
      throw new S3Error(
        'AccessForbidden',
        "CORSResponse: This CORS request is not allowed. This is usually because the evaluation of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
      );
    },
  });
  app.setNotFoundHandler(async () => {
    throw new S3Error(
      'NotImplemented',
      'A header or method you provided implies functionality that is not implemented.',
    );
  });

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const { rawPath, query, target } = parseUrl(request.raw.url ?? '/', ctx.faults.has('s3-invalid-key-404'));
    if (target.bucket !== undefined && ctx.faults.has('s3-path-style-refused'))
      throw new S3Error(
        'InvalidRequest',
        'Path-style requests are not supported; use virtual-hosted-style addressing.',
      );
    if (emptyContentType.has(request)) request.headers['content-type'] = '';
    const raw: RawRequest = { method: request.method, rawPath, query, headers: request.headers };
    const auth = await verifyRequest(raw, {
      now: ctx.clock.now(),
      lookup: (id) => store.accessKeyById(id),
      skipSignature: ctx.faults.has('s3-signature-unchecked'),
      skipSkew: ctx.faults.has('s3-clock-skew-ignored'),
      noDateHeader: ctx.faults.has('s3-date-header-refused'),
    });
    if (auth?.mode === 'presigned' && ctx.faults.has('s3-presigned-refused'))
      throw new S3Error('AccessDenied', 'Query-string authentication is not supported.');
    if (auth && auth.region !== 'us-east-1' && ctx.faults.has('s3-region-slug-refused'))
      throw new S3Error('AuthorizationHeaderMalformed', `The region '${auth.region}' is wrong; expecting 'us-east-1'.`);
    // Bucket names are global: the store is used as the bucket's owner, whoever asks (the ACLs
    // say what someone else may do there).
    const owner = target.bucket === undefined ? undefined : store.ownerOf(target.bucket);
    // Fault `s3-foreign-bucket-readable`: another account's key is taken for the bucket's owner.
    const foreignAsOwner = auth !== undefined && owner !== undefined && ctx.faults.has('s3-foreign-bucket-readable');
    const principal = foreignAsOwner ? owner : (auth?.key.accountId ?? null);
    const needed = neededAccess(request.method, target, new Map(query));
    const accountId = owner ?? principal;
    if (accountId === null) {
      // An anonymous request for a bucket that does not exist: nothing to grant it anything.
      if (target.bucket !== undefined && needed.on !== 'account')
        throw new S3Error('NoSuchBucket', 'The specified bucket does not exist.');
      throw accessDenied();
    }
    const call: Call = { request, reply, raw, query: new Map(query), target, auth, principal, accountId };
    // Usage is the owner's, except for what one does on one's own account (creating a bucket).
    accounts.set(request, {
      accountId: needed.on === 'account' ? (principal ?? accountId) : accountId,
      bucket: target.bucket,
    });
    if (auth) allow(auth, request.method, target.bucket);
    checksumFault(request);
    authorize(call, needed, owner);
    if (header(request, 'expect')?.toLowerCase() === '100-continue' && !reply.raw.headersSent)
      reply.raw.writeContinue();
    const algorithm = header(request, 'x-amz-sdk-checksum-algorithm')?.toLowerCase();
    if (algorithm && !isChecksumAlgorithm(algorithm))
      throw new S3Error('InvalidRequest', `Checksum algorithm ${algorithm} is not supported.`);
    if (target.bucket === undefined) {
      if (request.method !== 'GET')
        throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.');
      return listBuckets(call);
    }
    if (target.key === undefined) return bucketOperation(call, target.bucket);
    return objectOperation(call, target.bucket, target.key);
  }

  /**
   * What the request may do before it runs (before 100 Continue): a signed request for the
   * account's own operations; on someone else's bucket, what its ACL grants (the object's ACL
   * is checked by the operation that reads it); `x-amz-expected-bucket-owner` must name the owner.
   */
  function authorize(call: Call, needed: Needed, owner: string | undefined): void {
    if (needed.on === 'account' && call.principal === null) throw accessDenied();
    const expected = header(call.request, 'x-amz-expected-bucket-owner');
    if (expected !== undefined && owner !== undefined && expected !== owner) throw accessDenied();
    if (owner === undefined || owner === call.principal || needed.on === 'account' || needed.on === 'object') return;
    if (needed.on === 'owner') throw accessDenied();
    const anonymousWrite = call.principal === null && needed.permission === 'WRITE';
    if (anonymousWrite && ctx.faults.has('s3-anonymous-write-accepted')) return;
    const bucket = store.getBucket(owner, call.target.bucket!);
    if (!allows(bucket.acl, call.principal, needed.permission)) throw accessDenied();
  }

  for (const url of ['/', '/*']) app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url, handler: handle });
  return app;
}
