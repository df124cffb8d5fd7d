/**
 * The request pipeline every area shares: bearer auth, permissions, rate limits with their
 * headers, the error envelope and the 404 for unknown routes. Areas only write handlers.
 */
import { BlockList, isIP } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account, ApiKeyRecord } from './accounts.ts';
import { type Area, areaOf, hasRateLimitHeaders } from './areas.ts';
import { isoTimestamp } from './clock.ts';
import type { ReferenceContext } from './context.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { CHECK_HEADER, type FaultDefinition, type FaultName } from './faults.ts';
import { installResponseVariants } from './response-variants.ts';
import {
  type TakeResult,
  type WindowRule,
  type WindowState,
  RULES,
  nearestExhaustion,
  requestRules,
} from './rate-limit.ts';

export interface AuthContext {
  account: Account;
  key: ApiKeyRecord;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    area?: Area;
    /** Windows this request counted against, so a later rejection can refund them. */
    rateStates?: WindowState[];
    /** A 429 answered after the handler ran (fault `ratelimit-429-side-effect`, variant `ratelimit-after-handler`). */
    lateRefusal?: ApiError;
  }
  interface FastifyContextConfig {
    /** Route accepts a presigned `signature` query instead of a bearer key (objects). */
    presignable?: boolean;
  }
}

/** Faults of the shared pipeline. Requirement ids refer to spec/requirements.yaml. */
export const CORE_FAULTS = [
  {
    name: 'auth-ignored',
    requirement: 'AUTH-KEY-002',
    description: 'Requests without a valid key are served as the first account.',
  },
  { name: 'auth-revoked-accepted', requirement: 'KEY-REVOKE-001', description: 'Revoked API keys keep working.' },
  {
    name: 'auth-expired-accepted',
    requirement: 'KEY-EXPIRE-001',
    description: 'API keys past expires_at keep working.',
  },
  { name: 'auth-ip-whitelist-ignored', requirement: 'KEY-IP-001', description: 'ip_whitelist is not enforced.' },
  {
    name: 'errors-envelope-renamed',
    requirement: 'ERR-ENVELOPE-001',
    description: 'Errors come as {"err": {...}} instead of {"error": {...}}.',
  },
  {
    name: 'ratelimit-no-429',
    requirement: 'RATE-BURST-001',
    description: 'Limits are counted but never enforced: no 429.',
  },
  {
    name: 'ratelimit-headers-missing-compute',
    requirement: 'RATE-HEADERS-001',
    description: 'Compute responses carry no X-RateLimit-* headers.',
  },
  {
    name: 'ratelimit-remaining-frozen',
    requirement: 'RATE-HEADERS-002',
    description: 'X-RateLimit-Remaining always equals the limit.',
  },
  {
    name: 'ratelimit-non-atomic',
    requirement: 'RATE-BURST-001',
    description: 'The limiter reads and writes its count in two steps, so concurrent requests slip through.',
  },
  {
    name: 'ratelimit-reset-millis',
    requirement: 'RATE-HEADERS-003',
    description: 'X-RateLimit-Reset is given in milliseconds.',
  },
  {
    name: 'ratelimit-sms-volume-ignored',
    requirement: 'RATE-SMS-001',
    description: 'The 10000 SMS per hour limit is not enforced.',
  },
  {
    name: 'ratelimit-hourly-ignored',
    requirement: 'RATE-HOUR-001',
    description: 'The 1000 requests per hour limit of a key is not enforced.',
  },
  {
    name: 'ratelimit-billing-ignored',
    requirement: 'RATE-BILL-001',
    description: 'The 100 billing requests per hour limit is not enforced.',
  },
  {
    name: 'ratelimit-projects-ignored',
    requirement: 'RATE-PROJ-001',
    description: 'The 500 project requests per hour limit is not enforced.',
  },
  {
    name: 'api-unversioned',
    requirement: 'VER-PATH-001',
    description: 'The API is served at the root of the server, without the /v1 segment.',
    serverWide: true,
  },
  {
    name: 'auth-missing-header-served',
    requirement: 'AUTH-KEY-001',
    description:
      'Requests without any Authorization header are served as the first account (a wrong key is still refused).',
  },
  {
    name: 'auth-volumes-forbidden',
    requirement: 'AUTH-KEY-003',
    description: 'Valid read+write keys are refused with 403 on the block-storage volume operations.',
  },
  {
    name: 'errors-details-array',
    requirement: 'ERR-ENVELOPE-002',
    description: 'Messaging and billing errors carry `details` as an array of {field, message} instead of an object.',
  },
  {
    name: 'success-status-202',
    requirement: 'ERR-STAT-001',
    description: 'Successful responses without a body answer 202 instead of 204.',
  },
  {
    name: 'errors-compute-details-object',
    requirement: 'ERR-ENVELOPE-003',
    description: 'Compute validation errors carry `details` as one {field, message} object instead of an array.',
  },
  {
    name: 'errors-409-outside-storage',
    requirement: 'ERR-STAT-003',
    description:
      'A DELETE outside storage of something that does not exist (any more) answers 409 `conflict` instead of 404.',
  },
  {
    name: 'ratelimit-429-wrong-code',
    requirement: 'ERR-CODE-005',
    description: 'A 429 carries the code `too_many_requests` instead of `rate_limit_exceeded`.',
  },
  {
    name: 'ratelimit-sms-headers-missing',
    requirement: 'RATE-HEADERS-004',
    description: 'Messaging responses carry no X-SMS-Limit and X-SMS-Remaining.',
  },
  {
    name: 'version-v2-served',
    requirement: 'VER-PATH-002',
    description: 'Paths under /v2 are served as the same paths under /v1 instead of being unknown routes.',
    serverWide: true,
  },
  {
    name: 'auth-basic-scheme-accepted',
    requirement: 'AUTH-KEY-005',
    description: 'An Authorization header `Basic base64(<key>:)` is served as that key, as a Bearer one is.',
  },
  {
    name: 'errors-invalid-json-422',
    requirement: 'ERR-MAP-001',
    description: 'A body that is not valid JSON is answered 422 `validation_error` instead of 400 `invalid_json`.',
  },
  {
    name: 'errors-body-too-large-400',
    requirement: 'ERR-MAP-002',
    description:
      'A body larger than the server accepts is answered 400 `invalid_json` instead of 413 `payload_too_large`.',
  },
  {
    name: 'errors-storage-details-object',
    requirement: 'ERR-ENVELOPE-006',
    description: 'Storage validation errors carry `details` as one {field, message} object instead of an array.',
  },
  {
    name: 'ratelimit-window-from-first-request',
    requirement: 'RATE-WIN-001',
    description: "A key's rate-limit windows open with its first request instead of on the minute and the hour.",
  },
  {
    name: 'ratelimit-429-side-effect',
    requirement: 'RATE-CNT-001',
    description: 'A request over the limit is carried out, then answered 429: the limiter answers after the handler.',
  },
  {
    name: 'ratelimit-429-details-missing',
    requirement: 'ERR-MAP-015',
    description: 'A 429 `rate_limit_exceeded` carries no `details`.',
  },
  {
    name: 'ratelimit-headers-elsewhere-millis',
    requirement: 'RATE-HEADERS-007',
    description: 'Storage, billing and project responses carry the X-RateLimit-* headers, with Reset in milliseconds.',
  },
  {
    name: 'ratelimit-sms-per-request',
    requirement: 'RATE-CNT-002',
    description: 'A bulk send counts one SMS against the 10000 per hour, whatever the number of its recipients.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module './faults.ts' {
  interface FaultNames extends Record<(typeof CORE_FAULTS)[number]['name'], true> {}
}

/** The hourly windows each fault above switches off. */
const IGNORED_RULES: ReadonlyArray<[fault: FaultName, rule: WindowRule]> = [
  ['ratelimit-hourly-ignored', RULES.hour],
  ['ratelimit-billing-ignored', RULES.billing],
  ['ratelimit-projects-ignored', RULES.projects],
];

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const TOKEN = /^Token\s+(\S+)\s*$/i;
const BASIC = /^Basic\s+(\S+)\s*$/i;

/**
 * The key of an Authorization header: the Bearer scheme's, and besides it `token <key>` under
 * the variant `auth-token-scheme` (GitHub's form) or `Basic base64(<key>:)` under the fault
 * `auth-basic-scheme-accepted`.
 */
function parseKey(ctx: ReferenceContext, header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bearer = BEARER.exec(header)?.[1];
  if (bearer !== undefined) return bearer;
  if (ctx.variants.has('auth-token-scheme')) {
    const token = TOKEN.exec(header)?.[1];
    if (token !== undefined) return token;
  }
  const basic = ctx.faults.has('auth-basic-scheme-accepted') ? BASIC.exec(header)?.[1] : undefined;
  return basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
}

/**
 * One BlockList per whitelist, built on first use: a key's whitelist array is fixed when the key
 * is created (never edited in place), so building it again for every request was wasted work.
 */
const blockLists = new WeakMap<readonly string[], BlockList>();

function blockListOf(whitelist: readonly string[]): BlockList {
  let list = blockLists.get(whitelist);
  if (list) return list;
  list = new BlockList();
  for (const entry of whitelist) {
    const [base = '', bits] = entry.split('/');
    const type = isIP(base) === 6 ? 'ipv6' : 'ipv4';
    if (bits !== undefined) list.addSubnet(base, Number(bits), type);
    else list.addAddress(base, type);
  }
  blockLists.set(whitelist, list);
  return list;
}

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

function ipAllowed(whitelist: readonly string[], address: string): boolean {
  if (whitelist.length === 0) return true;
  const list = blockListOf(whitelist);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  // An IPv4 peer may arrive as an IPv4-mapped IPv6 address.
  const mapped = IPV4_MAPPED.exec(address)?.[1];
  return list.check(address, family) || (mapped !== undefined && list.check(mapped, 'ipv4'));
}

export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new ApiError('unauthorized');
  return request.auth;
}

function authenticate(ctx: ReferenceContext, request: FastifyRequest): void {
  const secret = parseKey(ctx, request.headers.authorization);
  const key = secret ? ctx.accounts.keyBySecret(secret) : undefined;
  const now = ctx.clock.now();
  let usable = key !== undefined;
  if (key?.revoked && !ctx.faults.has('auth-revoked-accepted') && key.servedWhileRevoked !== true) usable = false;
  if (key?.expires_at && Date.parse(key.expires_at) <= now && !ctx.faults.has('auth-expired-accepted')) usable = false;
  if (key?.notBeforeMs !== undefined && now < key.notBeforeMs) usable = false;
  if (!key || !usable) {
    if (
      ctx.faults.has('auth-ignored') ||
      (ctx.faults.has('auth-missing-header-served') && request.headers.authorization === undefined)
    ) {
      const first = ctx.accounts.allAccounts()[0];
      const fallback = first ? ctx.accounts.keysOf(first.id).at(-1) : undefined;
      if (first && fallback) {
        request.auth = { account: first, key: fallback };
        return;
      }
    }
    throw new ApiError('unauthorized');
  }
  if (
    !ctx.faults.has('auth-ip-whitelist-ignored') &&
    !ipAllowed(key.ip_whitelist, request.socket.remoteAddress ?? '')
  ) {
    throw new ApiError('forbidden', 'This API key may not be used from this address.');
  }
  if (ctx.faults.has('auth-volumes-forbidden') && request.url.startsWith('/v1/storage/volumes'))
    throw new ApiError('forbidden', 'This API key may not use volumes.');
  const needed = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
  if (!key.permissions.includes(needed))
    throw new ApiError('forbidden', `This API key lacks the ${needed} permission.`);
  const account = ctx.accounts.account(key.accountId);
  if (!account) throw new ApiError('unauthorized');
  key.last_used = isoTimestamp(now);
  request.auth = { account, key };
}

/** Per-minute bursts are counted per area: messaging and compute each allow 100. */
function scopeFor(area: Area) {
  return (rule: WindowRule) => (rule === RULES.burst ? area : '');
}

/**
 * Counts the request against its windows. Synchronous (no promise per request) except under the
 * `ratelimit-non-atomic` fault, whose whole point is a gap between read and write.
 */
function countRequest(
  ctx: ReferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  area: Area,
): Promise<void> | undefined {
  const auth = request.auth;
  if (!auth || auth.key.unlimited) return undefined;
  const rules = requestRules(area).filter(
    (rule) => !IGNORED_RULES.some(([fault, ignored]) => ignored === rule && ctx.faults.has(fault)),
  );
  const scope = scopeFor(area);
  if (ctx.faults.has('ratelimit-non-atomic')) {
    // Deliberately broken: read, yield to other requests, then write. Concurrent requests all
    // read the same count, so more than the limit get through.
    const before = rules.map((rule) => ctx.limiter.peek(auth.key.id, rule, scope(rule)));
    // The gap stands for a round trip to a shared store (Redis, a database) between read and write.
    return new Promise((resolve) => setTimeout(resolve, 10)).then(() => {
      const blocking = before.find((s) => s.used + 1 > s.rule.limit);
      if (!blocking) for (const s of before) ctx.limiter.write(auth.key.id, s.rule, s.used + 1, scope(s.rule));
      const states = rules.map((rule) => ctx.limiter.peek(auth.key.id, rule, scope(rule)));
      finishCount(
        ctx,
        request,
        reply,
        area,
        blocking ? { ok: false as const, blocking, states } : { ok: true as const, states },
      );
    });
  }
  const anchored =
    ctx.faults.has('ratelimit-window-from-first-request') || ctx.variants.has('ratelimit-anchored-windows');
  finishCount(ctx, request, reply, area, ctx.limiter.take(auth.key.id, rules, 1, scope, anchored));
  return undefined;
}

/** Whether responses outside messaging and compute carry the X-RateLimit-* headers (variants, a fault). */
function headersElsewhere(ctx: ReferenceContext): boolean {
  return (
    ctx.variants.has('ratelimit-headers-everywhere') ||
    ctx.variants.has('ratelimit-headers-elsewhere-delta') ||
    ctx.faults.has('ratelimit-headers-elsewhere-millis')
  );
}

function finishCount(
  ctx: ReferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  area: Area,
  result: TakeResult,
): void {
  const auth = authOf(request);
  if (hasRateLimitHeaders(area) || headersElsewhere(ctx)) setRateHeaders(ctx, reply, area, result.states);
  if (area === 'messaging') setSmsHeaders(ctx, reply, auth.key.id);
  if (!result.ok && !ctx.faults.has('ratelimit-no-429')) {
    const refusal = rateLimited(ctx, reply, result.blocking);
    // The refusal waits for the handler, which does what it was asked (installLateRefusals).
    if (ctx.faults.has('ratelimit-429-side-effect') || ctx.variants.has('ratelimit-after-handler'))
      request.lateRefusal = refusal;
    else throw refusal;
  }
  request.rateStates = result.ok ? result.states : undefined;
}

export function setRateHeaders(ctx: ReferenceContext, reply: FastifyReply, area: Area, states: WindowState[]): void {
  if (area === 'compute' && ctx.faults.has('ratelimit-headers-missing-compute')) return;
  // Variant `ratelimit-headers-hourly`: the key's hour, whichever window is nearer exhaustion.
  const window =
    (ctx.variants.has('ratelimit-headers-hourly') ? states.find((s) => s.rule === RULES.hour) : undefined) ??
    nearestExhaustion(states);
  if (!window) return;
  const remaining = ctx.faults.has('ratelimit-remaining-frozen') ? window.rule.limit : Math.max(0, window.remaining);
  let reset = ctx.faults.has('ratelimit-reset-millis') ? window.resetAt : Math.ceil(window.resetAt / 1000);
  if (!hasRateLimitHeaders(area)) {
    if (ctx.faults.has('ratelimit-headers-elsewhere-millis')) reset = window.resetAt;
    else if (ctx.variants.has('ratelimit-headers-elsewhere-delta'))
      reset = Math.max(0, Math.ceil((window.resetAt - ctx.clock.now()) / 1000));
  }
  reply.header('x-ratelimit-limit', String(window.rule.limit));
  reply.header('x-ratelimit-remaining', String(remaining));
  reply.header('x-ratelimit-reset', String(reset));
}

export function setSmsHeaders(ctx: ReferenceContext, reply: FastifyReply, keyId: string): void {
  if (ctx.faults.has('ratelimit-sms-headers-missing')) return;
  const window = ctx.limiter.peek(keyId, RULES.sms);
  reply.header('x-sms-limit', String(window.rule.limit));
  reply.header('x-sms-remaining', String(Math.max(0, window.remaining)));
}

export function rateLimited(ctx: ReferenceContext, reply: FastifyReply, blocking: WindowState): ApiError {
  const resetSeconds = Math.ceil(blocking.resetAt / 1000);
  reply.header('retry-after', String(Math.max(1, resetSeconds - Math.floor(ctx.clock.now() / 1000))));
  const details = ctx.faults.has('ratelimit-429-details-missing')
    ? undefined
    : { limit: blocking.rule.limit, window: blocking.rule.name, reset: resetSeconds };
  return new ApiError('rate_limit_exceeded', `Rate limit ${blocking.rule.name} exceeded.`, details);
}

/**
 * Counts SMS volume (one per recipient) for a send that passed validation. On rejection it gives
 * back the request counts taken earlier, because a rejected request is not counted.
 */
export function takeSmsVolume(
  ctx: ReferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  recipients: number,
): void {
  const auth = authOf(request);
  if (auth.key.unlimited) return;
  // Fault `ratelimit-sms-per-request` and variant `sms-volume-per-send`: a send is one, whatever its recipients.
  const perSend = ctx.faults.has('ratelimit-sms-per-request') || ctx.variants.has('sms-volume-per-send');
  const result = ctx.limiter.take(auth.key.id, [RULES.sms], perSend ? 1 : recipients);
  if (!result.ok && !ctx.faults.has('ratelimit-sms-volume-ignored')) {
    if (request.rateStates) ctx.limiter.refund(auth.key.id, request.rateStates, 1, scopeFor('messaging'));
    if (request.rateStates)
      setRateHeaders(
        ctx,
        reply,
        'messaging',
        request.rateStates.map((s) => ctx.limiter.peek(auth.key.id, s.rule, scopeFor('messaging')(s.rule))),
      );
    setSmsHeaders(ctx, reply, auth.key.id);
    throw rateLimited(ctx, reply, result.blocking);
  }
  setSmsHeaders(ctx, reply, auth.key.id);
}

/** Records every answered request in `ctx.requestLog` (bounded), for the project's trust tests. */
function installRequestLog(app: FastifyInstance, ctx: ReferenceContext): void {
  app.addHook('onResponse', (request, reply, done) => {
    ctx.requestLog.push({
      at: isoTimestamp(ctx.clock.now()),
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      keyPrefix: request.auth?.key.prefix ?? null,
      testMode: String(request.headers['x-test-mode'] ?? '').toLowerCase() === 'true',
    });
    if (ctx.requestLog.length > 20_000) ctx.requestLog.splice(0, 5_000);
    done();
  });
}

/** Installs auth, rate limiting, the envelope and the 404 handler on the root instance. */
export function installPipeline(app: FastifyInstance, ctx: ReferenceContext): void {
  // Declared up front so every request object has the same shape from its constructor on:
  // properties added later in a hook change the shape per request and slow every access to it.
  app.decorateRequest('auth', undefined);
  app.decorateRequest('area', undefined);
  app.decorateRequest('rateStates', undefined);
  app.decorateRequest('lateRefusal', undefined);
  // Callback-style hooks: an async hook costs a promise and a microtask hop on every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (ctx.faults.scoped) ctx.faults.enterRequest(request.headers[CHECK_HEADER]);
    let pending: Promise<void> | undefined;
    try {
      const url = request.url;
      request.area = areaOf(
        url.startsWith('/v1') && (url.length === 3 || url.charCodeAt(3) === SLASH) ? url.slice(3) : url,
      );
      // Cheapest test first: `routeOptions` builds a fresh object on every read.
      if (hasSignatureQuery(url) && !request.headers.authorization && request.routeOptions.config?.presignable) {
        done();
        return;
      }
      authenticate(ctx, request);
      if (request.area) pending = countRequest(ctx, request, reply, request.area);
    } catch (error) {
      done(error as FastifyError);
      return;
    }
    if (pending)
      pending.then(
        () => done(),
        (error: unknown) => done(error as FastifyError),
      );
    else done();
  });

  if (ctx.options.recordRequests) installRequestLog(app, ctx);

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    const apiError = bentError(ctx, toApiError(error));
    if (apiError.status >= 500) request.log.error(error);
    sendError(ctx, reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    // Variant `versions-plain-404`: outside the /v1 tree, the plain 404 of a front server.
    if (ctx.variants.has('versions-plain-404') && !isVersioned(request.url)) {
      void reply.status(404).type('text/plain').send('Not Found');
      return;
    }
    sendError(ctx, reply, new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`));
  });
  installLateRefusals(app, ctx);
  installResponseVariants(app, ctx);
  if (ctx.faults.switchedOn('success-status-202')) {
    // Registered last: it bends whatever status the route and the variants chose.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode === 204 && ctx.faults.has('success-status-202')) reply.status(202);
      done(null, payload);
    });
  }
}

/**
 * Codes of the variant `error-codes-other`: the specification lists eight codes and leaves the
 * rest open, so every other code may be spelled any way a target likes.
 */
const OTHER_CODES: Partial<Record<ErrorCode, string>> = {
  invalid_json: 'malformed_request',
  unauthorized: 'authentication_required',
  forbidden: 'permission_denied',
  not_found: 'resource_not_found',
  bucket_not_empty: 'bucket_has_objects',
  volume_in_use: 'volume_attached',
  conflict: 'state_conflict',
  payload_too_large: 'request_too_large',
  recipient_opted_out: 'recipient_unsubscribed',
  invalid_state: 'action_not_allowed',
  internal_error: 'server_error',
};

function isVersioned(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

/**
 * The other shape of `details` where the specification shows none (ERR-ENVELOPE-006): storage's
 * array as its first object (fault `errors-storage-details-object`, variant
 * `details-unshown-swapped`), projects' object as a one-entry array (that variant). Undefined: kept.
 */
function swappedDetails(ctx: ReferenceContext, area: Area | undefined, details: unknown): unknown {
  const swapped = ctx.variants.has('details-unshown-swapped');
  if (area === 'storage' && Array.isArray(details) && details.length > 0)
    return swapped || ctx.faults.has('errors-storage-details-object') ? details[0] : undefined;
  if (area === 'projects' && swapped && details !== undefined && !Array.isArray(details)) return [details];
  return undefined;
}

/** The volume or bucket a storage request names (path first, then a creation's `name`), for the variant `error-resource-names-instance`. */
function instanceNamed(request: FastifyRequest): string | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const named = params.volume_id ?? params.bucket_name ?? (request.body as { name?: unknown } | undefined)?.name;
  return typeof named === 'string' ? named : undefined;
}

/** The faults of ERR-MAP-001 and ERR-MAP-002: a body's problems under other codes. */
function bentError(ctx: ReferenceContext, error: ApiError): ApiError {
  if (error.code === 'invalid_json' && ctx.faults.has('errors-invalid-json-422'))
    return new ApiError('validation_error', error.message, { field: 'body', message: error.message });
  if (error.code === 'payload_too_large' && ctx.faults.has('errors-body-too-large-400'))
    return new ApiError('invalid_json', 'The request body could not be read.');
  return error;
}

/** A refusal the limiter decided before the handler ran, answered once the handler is done. */
function installLateRefusals(app: FastifyInstance, ctx: ReferenceContext): void {
  if (!ctx.faults.switchedOn('ratelimit-429-side-effect') && !ctx.variants.has('ratelimit-after-handler')) return;
  app.addHook('onSend', (request, reply, payload, done) => {
    const refusal = request.lateRefusal;
    if (!refusal) return done(null, payload);
    const { status, body } = errorAnswer(ctx, reply, refusal);
    reply.status(status).type('application/json');
    done(null, JSON.stringify(body));
  });
}

/** Answers an error in the envelope, as the active faults and variants shape it. */
export function sendError(ctx: ReferenceContext, reply: FastifyReply, given: ApiError): void {
  const { status, body } = errorAnswer(ctx, reply, given);
  void reply.status(status).type('application/json').send(body);
}

/** The status and envelope of an error, as the active faults and variants shape them. */
function errorAnswer(
  ctx: ReferenceContext,
  reply: FastifyReply,
  given: ApiError,
): { status: number; body: Record<string, unknown> } {
  const request = reply.request;
  // Fault `errors-409-outside-storage`: a DELETE of something gone answers 409 outside storage too.
  const conflict =
    ctx.faults.has('errors-409-outside-storage') &&
    given.status === 404 &&
    request.method === 'DELETE' &&
    request.area !== undefined &&
    request.area !== 'storage';
  const apiError = conflict ? new ApiError('conflict', 'The resource is already gone.') : given;
  let status = apiError.status;
  const detailsShape = swappedDetails(ctx, request.area, apiError.details);
  if (apiError.code === 'unauthorized' && ctx.variants.has('unauth-403')) status = 403;
  if (status === 422 && ctx.variants.has('validation-400')) status = 400;
  const body = apiError.toBody(ctx.faults.has('errors-envelope-renamed'));
  if (detailsShape !== undefined) (body.error as Record<string, unknown>).details = detailsShape;
  const instance = ctx.variants.has('error-resource-names-instance') ? instanceNamed(request) : undefined;
  if (instance !== undefined && apiError.resource !== undefined && request.area === 'storage')
    (body.error as Record<string, unknown>).resource = instance;
  const details = apiError.details;
  // Fault `errors-details-array`: messaging and billing details in the compute shape.
  if (ctx.faults.has('errors-details-array') && details !== undefined && !Array.isArray(details)) {
    (body.error as Record<string, unknown>).details = [
      { field: String(details.field), message: String(details.message) },
    ];
  }
  // Fault `errors-compute-details-object`: compute details in the messaging and billing shape.
  if (ctx.faults.has('errors-compute-details-object') && Array.isArray(details) && details.length > 0) {
    (body.error as Record<string, unknown>).details = details[0];
  }
  // Fault `ratelimit-429-wrong-code`: the 429 keeps its status but names another code.
  const renamed =
    ctx.faults.has('ratelimit-429-wrong-code') && apiError.code === 'rate_limit_exceeded'
      ? 'too_many_requests'
      : ctx.variants.has('error-codes-other')
        ? OTHER_CODES[apiError.code]
        : undefined;
  if (renamed) {
    const envelope = (body.error ?? body.err) as Record<string, unknown>;
    envelope.code = renamed;
  }
  return { status, body };
}

const SLASH = 0x2f;
const SIGNATURE_QUERY = /[?&]signature=/;

function hasSignatureQuery(url: string): boolean {
  return url.includes('signature=') && SIGNATURE_QUERY.test(url);
}

/** Maps Fastify's own errors (bad JSON, body too large, ...) into the catalogue: never a 5xx for bad input. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  const code = fastifyError.code ?? '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fastifyError.statusCode === 413)
    return new ApiError('payload_too_large');
  if (code.startsWith('FST_ERR_CTP_') || fastifyError instanceof SyntaxError || fastifyError.statusCode === 400) {
    return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError(
      'validation_error',
      fastifyError.message ?? 'Bad request.',
      undefined,
      undefined,
      fastifyError.statusCode,
    );
  }
  return new ApiError('internal_error');
}
