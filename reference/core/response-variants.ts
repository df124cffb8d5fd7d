/**
 * How the core variants (core-variants.ts) bend responses: status codes, body shapes, extra
 * fields, timestamp form, media type and latency, all at the edge of the pipeline, so no area
 * handler knows about them. Installed only when a variant is on: the default server pays nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReferenceContext } from './context.ts';

/**
 * Operations whose response body the specification does not show ("Response bodies not shown
 * for: ..."), as Fastify route patterns. Only these may change shape under flat/wrapped-bodies:
 * where the specification shows a body (`object vps`, `vps_instances` plus `meta`), it is kept.
 */
export const NOT_SHOWN: ReadonlySet<string> = new Set([
  'GET /v1/sms/campaigns/:campaign_id',
  'POST /v1/messaging/sender-ids',
  'GET /v1/messaging/templates',
  'POST /v1/messaging/templates',
  'POST /v1/sms/send-template',
  'GET /v1/messaging/contacts/lists',
  'POST /v1/messaging/contacts/lists',
  'POST /v1/messaging/contacts/lists/:list_id/contacts',
  'GET /v1/messaging/opt-outs',
  'POST /v1/messaging/opt-outs',
  'POST /v1/messaging/webhooks',
  'GET /v1/vps/:vps_id',
  'PUT /v1/vps/:vps_id',
  'POST /v1/vps/:vps_id/actions',
  'GET /v1/ssh-keys',
  'POST /v1/ssh-keys',
  'GET /v1/snapshots',
  'POST /v1/storage/buckets',
  'GET /v1/storage/buckets/:bucket_name',
  'PUT /v1/storage/buckets/:bucket_name/objects/*',
  'POST /v1/storage/buckets/:bucket_name/objects/*',
  'POST /v1/storage/volumes',
  'GET /v1/storage/volumes/:volume_id',
  'POST /v1/storage/volumes/:volume_id/resize',
  'POST /v1/storage/volumes/:volume_id/attach',
  'POST /v1/storage/volumes/:volume_id/detach',
  'GET /v1/storage/snapshots',
  'POST /v1/storage/snapshots',
  'POST /v1/storage/volumes/restore',
  'POST /v1/storage/buckets/:bucket_name/cdn',
  'POST /v1/storage/buckets/:bucket_name/cdn/purge',
  'GET /v1/storage/buckets/:bucket_name/policy',
  'PUT /v1/storage/buckets/:bucket_name/policy',
  'GET /v1/storage/access-keys',
  'POST /v1/storage/access-keys',
  'PUT /v1/account',
  'POST /v1/account/wallets/topup',
  'POST /v1/account/payment-methods',
  'GET /v1/account/invoices/:invoice_id',
  'POST /v1/projects',
  'GET /v1/projects/:project_id',
  'PUT /v1/projects/:project_id',
  'GET /v1/projects/:project_id/usage',
  'GET /v1/account/analytics/trends',
  'GET /v1/account/alerts',
  'POST /v1/account/alerts',
]);

function bodyNotShown(request: FastifyRequest): boolean {
  const key = `${request.method} ${request.routeOptions.url ?? ''}`;
  if (!NOT_SHOWN.has(key)) return false;
  // On the object path only multipart completion is a POST without a shown body: initiation
  // (`?uploads`) and presigned URLs are shown.
  if (key === 'POST /v1/storage/buckets/:bucket_name/objects/*') return request.url.includes('uploadId=');
  return true;
}

const ISO_Z = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/;

/** Walks a parsed JSON value, adding fields to every object and rewriting timestamps, as asked. */
function rewrite(value: unknown, extraFields: boolean, offsets: boolean): unknown {
  if (typeof value === 'string') {
    if (!offsets) return value;
    const m = ISO_Z.exec(value);
    return m ? `${m[1]}+00:00` : value;
  }
  if (Array.isArray(value)) return value.map((item) => rewrite(item, extraFields, offsets));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = rewrite(inner, extraFields, offsets);
  if (extraFields) {
    out.x_vendor_note = 'extra field';
    out.x_revision = 3;
  }
  return out;
}

/** flat-bodies / wrapped-bodies: the one resource or list of a not-shown body, moved. */
function reshape(body: unknown, flat: boolean): unknown {
  if (!flat) return { data: body };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const keys = Object.keys(body);
  // Several top-level members (top-up's transaction and wallet, trends' list and echo) are
  // already as flat as that answer can be.
  if (keys.length !== 1) return body;
  const inner = (body as Record<string, unknown>)[keys[0]!];
  return typeof inner === 'object' && inner !== null ? inner : body;
}

function lastPathSegment(url: string): string {
  const path = url.split('?')[0]!;
  const segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** New status of a success answer under the status variants, or the same one. */
function successStatus(ctx: ReferenceContext, method: string, status: number): number {
  if (method !== 'POST') return status;
  if (status === 201 && ctx.variants.has('create-200')) return 200;
  if (status === 200 && ctx.variants.has('action-201')) return 201;
  return status;
}

/** Whether an Accept header admits a media type (no header, `*\/*`, `type/*` or the type itself, q > 0). */
function acceptable(accept: string | undefined, contentType: unknown): boolean {
  if (!accept || typeof contentType !== 'string') return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return accept.split(',').some((range) => {
    const [media, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (params.some((p) => /^q=0(\.0*)?$/.test(p))) return false;
    return media === '*/*' || media === type || (media!.endsWith('/*') && type.startsWith(media!.slice(0, -1)));
  });
}

function isJson(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('application/json');
}

export function installResponseVariants(app: FastifyInstance, ctx: ReferenceContext): void {
  const v = ctx.variants;
  if (v.size === 0) return;
  const latency = v.ms('latency', 0);
  if (latency > 0) {
    app.addHook('onRequest', (_request, _reply, done) => {
      setTimeout(done, latency).unref();
    });
  }
  const extraFields = v.has('extra-fields');
  const offsets = v.has('timestamps-offset');
  const flat = v.has('flat-bodies');
  const wrapped = v.has('wrapped-bodies');
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.url.startsWith('/v1')) return done(null, payload);
    const status = reply.statusCode;
    let body = payload;
    if (status >= 200 && status < 300) {
      reply.status(successStatus(ctx, request.method, status));
      if (request.method === 'DELETE' && status === 204 && v.has('delete-200-body')) {
        reply.status(200).type('application/json');
        body = JSON.stringify({ deleted: true, id: lastPathSegment(request.url) });
      }
    }
    if (typeof body === 'string' && body !== '' && isJson(reply)) {
      const reshaping = (flat || wrapped) && status >= 200 && status < 300 && bodyNotShown(request);
      if (reshaping || extraFields || offsets) {
        let parsed = JSON.parse(body) as unknown;
        if (reshaping) parsed = reshape(parsed, flat);
        body = JSON.stringify(rewrite(parsed, extraFields, offsets));
      }
    }
    if (
      v.has('accept-honoured') &&
      status >= 200 &&
      status < 300 &&
      !acceptable(request.headers.accept, reply.getHeader('content-type'))
    ) {
      reply.status(406).type('application/json');
      body = JSON.stringify({
        error: {
          code: 'not_acceptable',
          message: `this answer is ${String(reply.getHeader('content-type'))}, which the Accept header rules out`,
        },
      });
    }
    if (v.has('json-charset') && isJson(reply)) reply.header('content-type', 'application/json;charset=UTF-8');
    done(null, body);
  });
}
