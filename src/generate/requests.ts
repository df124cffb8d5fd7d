/**
 * Valid requests for every operation of the document: path ids from prerequisites, required
 * query parameters, generated bodies, and the few operation-specific touches the state of the
 * target needs (an action a running VPS accepts, a resize larger than the current size...).
 */
import type { QueryValue } from '../harness/client.ts';
import type { ContractOperation, VariantModel } from './model.ts';
import { generateValue } from './data.ts';
import { cachedMeta, dataContext, fresh, recipeForParam, resource, validBody } from './prerequisites.ts';
import { expectPrerequisite } from '../harness/assert.ts';
import type { Env } from './prerequisites.ts';

export interface BuiltRequest {
  method: string;
  path: string;
  query: Record<string, QueryValue>;
  headers: Record<string, string>;
  json?: unknown;
  body?: string;
  /** Path parameter values used. */
  params: Record<string, string>;
  /** Called after the request succeeded (bookkeeping: ledger, cached sizes). */
  after?: (status: number, body: unknown) => void;
}

const enc = encodeURIComponent;

export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = params[name] ?? '';
    // The object key may contain '/': encode each segment.
    return name === 'object_key' ? value.split('/').map(enc).join('/') : enc(value);
  });
}

export function pathParams(op: ContractOperation): string[] {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
}

/** Operations that destroy or permanently change their path resource: they get a fresh one. */
function freshRecipe(op: ContractOperation, variant: string | undefined): string | null {
  switch (op.key) {
    case 'DELETE /vps/{vps_id}':
      return 'vps';
    case 'DELETE /snapshots/{snapshot_id}':
      return 'vpsSnapshot';
    case 'DELETE /storage/buckets/{bucket_name}':
      return 'bucket';
    case 'DELETE /storage/buckets/{bucket_name}/objects/{object_key}':
      return 'object';
    case 'DELETE /storage/volumes/{volume_id}':
      return 'volume';
    case 'POST /storage/volumes/{volume_id}/attach':
      return 'volume';
    case 'POST /storage/volumes/{volume_id}/detach':
      return 'attachedVolume';
    case 'DELETE /account/payment-methods/{payment_method_id}':
      return 'paymentMethod';
    case 'DELETE /projects/{project_id}':
      return 'project';
    case 'DELETE /account/api-keys/{key_id}':
      return 'apiKey';
    default:
      return variant === 'upload-part' || variant === 'complete' ? 'upload' : null;
  }
}

/** Operations that move money: only with --allow-charges. */
export function movesMoney(op: ContractOperation): boolean {
  return [
    'POST /account/wallets/topup',
    'POST /account/payment-methods',
    'DELETE /account/payment-methods/{payment_method_id}',
  ].includes(op.key);
}

/**
 * A valid request. `destructive`: the request will really be served (positive checks), so
 * operations that destroy their resource get a fresh one; otherwise cached ones are used
 * (negative and auth checks, whose requests are refused).
 */
export async function buildValid(
  env: Env,
  op: ContractOperation,
  variant: VariantModel | undefined,
  destructive: boolean,
): Promise<BuiltRequest> {
  if (movesMoney(op)) env.ctx.requireCharges();
  const names = pathParams(op);
  let params: Record<string, string> = {};
  const freshName = destructive
    ? freshRecipe(op, variant?.name)
    : variant?.name === 'upload-part' || variant?.name === 'complete'
      ? 'upload'
      : null;
  if (freshName) params = { ...(await fresh(env, freshName)) };
  for (const name of names) {
    if (params[name] !== undefined) continue;
    const recipe = recipeForParam(env.model, op, name);
    Object.assign(params, await resource(env, recipe), params);
  }
  const query: Record<string, QueryValue> = {};
  const headers: Record<string, string> = {};
  const data = await dataContext(env, {});
  for (const p of op.parameters) {
    if (p.in === 'query' && p.required) query[p.name] = generateValue(p.schema, data, p.name) as QueryValue;
  }
  const built: BuiltRequest = { method: op.method, path: fillPath(op.path, params), query, headers, params };

  // Body and operation-specific touches.
  switch (op.key) {
    case 'POST /vps/{vps_id}/actions':
      // restart keeps the shared running VPS running (running → running).
      built.json = { type: 'restart' };
      return built;
    case 'POST /storage/volumes/{volume_id}/resize': {
      const meta = cachedMeta.get(`volume:${params.volume_id}`) ?? {};
      const current = typeof meta.size === 'number' ? meta.size : 100;
      const next = current + 1;
      built.json = { size: next };
      built.after = (status) => {
        if (status >= 200 && status < 300) cachedMeta.set(`volume:${params.volume_id}`, { ...meta, size: next });
      };
      return built;
    }
    case 'POST /storage/volumes/{volume_id}/attach': {
      const { vps_id } = await resource(env, 'runningVps');
      built.json = { vps_id };
      return built;
    }
    case 'POST /storage/snapshots': {
      const { volume_id } = await resource(env, 'volume');
      built.json = await validBody(env, op, { volume_id: volume_id! }, 'vsnap');
      return built;
    }
    case 'POST /storage/volumes/restore': {
      const { snapshot_id } = await resource(env, 'volumeSnapshot');
      built.json = await validBody(env, op, { snapshot_id: snapshot_id! }, 'vol');
      return built;
    }
    case 'POST /storage/volumes':
    case 'POST /projects':
    case 'POST /vps':
    case 'POST /storage/buckets':
      built.json = await validBody(
        env,
        op,
        {},
        op.key === 'POST /vps'
          ? 'vps'
          : op.key === 'POST /projects'
            ? 'proj'
            : op.key === 'POST /storage/buckets'
              ? 'bkt'
              : 'vol',
      );
      return built;
    case 'POST /sms/send-template': {
      const { template_id } = await resource(env, 'template');
      built.json = await validBody(env, op, { template_id: template_id! });
      return built;
    }
    case 'POST /account/wallets/topup': {
      const { payment_method } = await resource(env, 'paymentMethod');
      built.json = await validBody(env, op, { payment_method: payment_method! });
      return built;
    }
    case 'POST /storage/buckets/{bucket_name}/cdn/purge': {
      // A purge presupposes a CDN in front of the bucket (the reference server refuses it otherwise).
      const cdn = await env.api.post(`/storage/buckets/${encodeURIComponent(params.bucket_name!)}/cdn`, {
        cache_ttl: 3600,
      });
      expectPrerequisite(cdn, 'POST /storage/buckets/{bucket_name}/cdn (before a purge)');
      built.json = await validBody(env, op, { ...params });
      return built;
    }
    case 'PUT /storage/buckets/{bucket_name}/policy':
      built.json = await validBody(env, op, { bucket_name: params.bucket_name! });
      return built;
    case 'PUT /storage/buckets/{bucket_name}/objects/{object_key}': {
      if (variant?.name === 'upload-part') {
        built.query = { partNumber: 1, uploadId: params.uploadId };
        built.headers['content-type'] = 'application/octet-stream';
        built.body = `cloudcheck part ${env.ctx.faker.string.alphanumeric(32)}`;
        return built;
      }
      // A whole-object upload to a new key of the shared bucket.
      const key = destructive ? `${env.ctx.name('up')}/data.txt` : params.object_key!;
      built.params = { ...params, object_key: key };
      built.path = fillPath(op.path, built.params);
      built.headers['content-type'] = 'text/plain';
      built.body = `cloudcheck upload ${env.ctx.faker.lorem.sentence(5)}\n`;
      if (destructive) {
        built.after = (status) => {
          if (status >= 200 && status < 300) env.ledger.track('object', `${params.bucket_name}/${key}`);
        };
      }
      return built;
    }
    case 'POST /storage/buckets/{bucket_name}/objects/{object_key}': {
      if (variant?.name === 'complete') {
        const part = await env.api.request({
          method: 'PUT',
          path: built.path,
          query: { partNumber: 1, uploadId: params.uploadId },
          headers: { 'content-type': 'application/octet-stream' },
          body: 'cloudcheck final part\n',
        });
        const etag =
          part.headers.etag ?? String((part.body as { part?: { etag?: string } } | undefined)?.part?.etag ?? '');
        if (part.status < 200 || part.status >= 300)
          throw new Error(
            `multipart part upload (prerequisite of completion) answered ${part.status}: ${part.text.slice(0, 200)}`,
          );
        built.query = { uploadId: params.uploadId };
        built.headers['content-type'] = 'application/xml';
        built.body = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${etag.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</ETag></Part></CompleteMultipartUpload>`;
        built.after = (status) => {
          if (status >= 200 && status < 300) env.ledger.track('object', `${params.bucket_name}/${params.object_key}`);
        };
        return built;
      }
      // Initiate: a new key in the shared bucket (an upload never completed leaves no object).
      const key = `${env.ctx.name('init')}/big.bin`;
      built.params = { ...params, object_key: key };
      built.path = fillPath(op.path, built.params);
      built.query = { uploads: true };
      built.headers['content-type'] = 'application/octet-stream';
      return built;
    }
    default:
      break;
  }
  if (op.requestBody && op.requestBody.content.some((c) => /json/.test(c.contentType))) {
    built.json = await validBody(env, op, { ...params });
  }
  return built;
}
