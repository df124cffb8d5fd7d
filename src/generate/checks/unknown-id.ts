/**
 * `unknown-id` (MUST): a request naming an id no resource has is refused with the error envelope
 * (naming the resource, in storage); `unknown-id-404` (SHOULD): 404 `not_found` with
 * `error.resource`. Every operation with a path parameter has them.
 */
import {
  expectErrorCode,
  expectErrorEnvelope,
  expectErrorMember,
  expectRefused,
  expectStatusExactly,
} from '../../harness/assert.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation } from '../model.ts';
import {
  UNKNOWN_ID_MUST,
  UNKNOWN_ID_MUST_DEFAULT,
  UNKNOWN_ID_MUST_STORAGE,
  UNKNOWN_ID_SHOULD,
} from '../requirement-map.ts';
import { buildValid, fillPath, pathParams } from '../requests.ts';
import type { BuiltRequest } from '../requests.ts';
import { contractCheck, send, unknownValue } from './common.ts';
import type { Env, Share } from './common.ts';
import type { ContractCheckKind } from './registry.ts';

function unknownTarget(op: ContractOperation): string | undefined {
  const names = pathParams(op);
  if (names.length === 0) return undefined;
  // Writing to a new object key is valid (upload, initiate, presign): the unknown id is the bucket.
  if (names.includes('object_key') && op.method !== 'GET' && op.method !== 'HEAD' && op.method !== 'DELETE')
    return 'bucket_name';
  if (op.path.endsWith('/presigned-url')) return 'bucket_name';
  return names[names.length - 1];
}

/** `error.resource` names the kind of resource. */
const namesOne = (resource: unknown): boolean => typeof resource === 'string' && resource.length > 0;

function defineUnknownId(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  const target = unknownTarget(op);
  if (!target) return;
  const storage = op.area === 'storage';
  const build = async (env: Env): Promise<BuiltRequest> => {
    const variant = op.variants.find((v) => v.query.length === 0) ?? op.variants[0];
    const built = await buildValid(env, op, variant, false);
    const params = { ...built.params, [target]: unknownValue(target, env.ctx) };
    return { ...built, path: fillPath(op.path, params), params, after: undefined };
  };
  const unknown = (env: Env, share: Share) =>
    share(`${idBase}.unknown-id`, async () => {
      const res = await send(env, op, await build(env));
      return { res };
    });
  if (op.method !== 'HEAD') {
    const mustId = UNKNOWN_ID_MUST[op.key] ?? (storage ? UNKNOWN_ID_MUST_STORAGE : UNKNOWN_ID_MUST_DEFAULT);
    contractCheck(
      model,
      {
        id: `${idBase}.unknown-id`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `${op.key} with an unknown {${target}} is refused with the error envelope${storage ? ' naming the resource' : ''}`,
      },
      async (env, share) => {
        const { res } = await unknown(env, share);
        expectRefused(res, `unknown ${target}`);
        expectErrorEnvelope(res, undefined, `unknown ${target}`);
        if (storage) expectErrorMember(res, 'resource', namesOne, 'a non-empty string', `unknown ${target}`);
      },
    );
  }
  contractCheck(
    model,
    {
      id: `${idBase}.unknown-id-404`,
      requirement: UNKNOWN_ID_SHOULD,
      level: 'SHOULD',
      cls,
      op,
      title: `${op.key} with an unknown {${target}} answers 404 not_found`,
    },
    async (env, share) => {
      const { res } = await unknown(env, share);
      expectStatusExactly(res, 404, `unknown ${target}`);
      if (op.method !== 'HEAD') {
        expectErrorCode(res, 'not_found', `unknown ${target}`);
        expectErrorMember(res, 'resource', namesOne, 'a non-empty string', `unknown ${target}`);
      }
    },
  );
}

export const unknownId: ContractCheckKind = {
  kind: 'unknown-id',
  appliesTo: (op) => unknownTarget(op) !== undefined,
  define: (op, { model, cls, idBase }) => defineUnknownId(model, op, cls, idBase),
};
