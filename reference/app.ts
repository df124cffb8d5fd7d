/**
 * Builds the REST API: the shared pipeline (reference/core/http.ts) plus one plugin per area.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { namedPlugin, type AreaModule } from './areas/area.ts';
import type { ReferenceContext } from './core/context.ts';
import { ApiError } from './core/errors.ts';
import { installPipeline, sendError } from './core/http.ts';

export async function buildRestApp(ctx: ReferenceContext, areas: readonly AreaModule[]): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: ctx.options.bodyLimit,
    // Object keys may be long and contain '/'; ids never are.
    routerOptions: { maxParamLength: 2048 },
    // The peer address is the socket's (ip_whitelist must not trust X-Forwarded-For).
    trustProxy: false,
    return503OnClosing: false,
    // On close, drop every connection: a keep-alive socket whose streamed response was still
    // finishing when close() ran would otherwise hold the server open for its keep-alive timeout.
    forceCloseConnections: true,
    // Fault `api-unversioned`: the API answers at the root; a /v1 path is one no route has.
    ...(ctx.faults.has('api-unversioned') && {
      rewriteUrl: (request: { url?: string }) => unversioned(request.url ?? '/'),
    }),
    // Fault `version-v2-served`: /v2 is another name of /v1.
    ...(ctx.faults.has('version-v2-served') && {
      rewriteUrl: (request: { url?: string }) => (request.url ?? '/').replace(/^\/v2(?=\/|\?|$)/, '/v1'),
    }),
    // The router refuses a path with broken percent-encoding (or an over-long parameter) before
    // any hook runs; answer those in the envelope too, never in Fastify's own body shape.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const apiError = new ApiError('validation_error', 'The request path is not valid.', undefined, undefined, status);
      sendError(ctx, reply, apiError);
    },
  });

  // JSON is the default language of the API: every body that is not claimed by an area's own
  // parser (object uploads, XML completion) is read as JSON whatever its Content-Type says.
  app.removeAllContentTypeParsers();
  const parseJson = (
    _request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, body?: unknown) => void,
  ): void => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new ApiError('invalid_json', 'The request body is not valid JSON.'), undefined);
    }
  };
  const parseOptions = { parseAs: 'string' as const, bodyLimit: ctx.options.bodyLimit };
  app.addContentTypeParser('*', parseOptions, parseJson);
  // The same parser under its usual name: Fastify caches a lookup by content type, but never one
  // that falls through to '*', which would parse the Content-Type header again on every request.
  app.addContentTypeParser('application/json', parseOptions, parseJson);

  installPipeline(app, ctx);
  for (const area of areas) area.setup?.(ctx);
  for (const area of areas) await app.register(namedPlugin(area.name, area.plugin), { prefix: '/v1', ctx });
  return app;
}

/** Routes stay under /v1 inside; outside, the root stands for it and /v1 leads nowhere. */
function unversioned(url: string): string {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')
    ? `/unversioned${url}`
    : `/v1${url === '/' ? '' : url}`;
}
