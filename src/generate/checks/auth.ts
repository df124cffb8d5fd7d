/**
 * `auth-no-key`, `auth-bad-key` (MUST): a request without a valid bearer key is refused (4xx) with
 * the error envelope; `auth-401` (SHOULD): exactly 401 `unauthorized` (another scheme than
 * Bearer: suites/auth/schemes.spec.ts). Every operation has them.
 */
import type { ApiResponse, CheckContext } from '../../harness/check.ts';
import type { RequestOptions } from '../../harness/client.ts';
import { expectErrorCode, expectErrorEnvelope, expectRefused, expectStatusExactly } from '../../harness/assert.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import { generateValue } from '../data.ts';
import type { ContractModel, ContractOperation } from '../model.ts';
import { dataContext } from '../prerequisites.ts';
import { AUTH } from '../requirement-map.ts';
import { fillPath, movesMoney, pathParams } from '../requests.ts';
import type { BuiltRequest } from '../requests.ts';
import { contractCheck, send, unknownValue } from './common.ts';
import type { Env } from './common.ts';
import type { ContractCheckKind } from './registry.ts';

/** A request that would be valid but for its key: made-up path ids, a generated body. */
async function authRequest(env: Env, op: ContractOperation): Promise<BuiltRequest> {
  if (movesMoney(op)) env.ctx.requireCharges();
  const params: Record<string, string> = {};
  for (const name of pathParams(op)) params[name] = unknownValue(name, env.ctx);
  const built: BuiltRequest = { method: op.method, path: fillPath(op.path, params), query: {}, headers: {}, params };
  const data = await dataContext(env);
  for (const p of op.parameters)
    if (p.in === 'query' && p.required) built.query[p.name] = generateValue(p.schema, data, p.name) as string;
  const json = op.requestBody?.content.find((c) => /json/.test(c.contentType));
  if (json?.schema) built.json = generateValue(json.schema, data);
  else if (op.requestBody) {
    built.body = 'cloudcheck';
    built.headers['content-type'] = op.requestBody.content[0]?.contentType.replace('*/*', 'text/plain') ?? 'text/plain';
  }
  if (op.variants.length) {
    const first = op.variants[0]!;
    for (const q of first.query) built.query[q] = q === 'partNumber' ? 1 : q === 'uploads' ? true : 'cc-unknown-upload';
  }
  return built;
}

function fakeKey(ctx: CheckContext): string {
  const main = ctx.keys.main;
  const cut = main.lastIndexOf('_');
  const prefix = cut > 0 && cut < 16 ? main.slice(0, cut + 1) : '';
  const length = Math.max(24, main.length - prefix.length);
  return `${prefix}${ctx.faker.string.alphanumeric({ length, casing: 'lower' })}`;
}

function defineAuth(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  const head = op.method === 'HEAD';
  const verify = (res: ApiResponse, what: string) => {
    expectRefused(res, what);
    if (!head) expectErrorEnvelope(res, undefined, what);
  };
  contractCheck(
    model,
    {
      id: `${idBase}.auth-no-key`,
      requirement: AUTH.noKey,
      level: 'MUST',
      cls,
      op,
      title: `${op.key} without an Authorization header is refused${head ? '' : ' with the error envelope'}`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      const res = await send(env, op, built, { key: null });
      verify(res, 'no Authorization header');
    },
  );
  contractCheck(
    model,
    {
      id: `${idBase}.auth-bad-key`,
      requirement: AUTH.badKey,
      level: 'MUST',
      cls,
      op,
      title: `${op.key} with a bearer value that is no API key is refused${head ? '' : ' with the error envelope'}`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      for (const [what, value] of [
        ['malformed bearer value', 'Bearer !!not-a-key!!'],
        ['well-formed but unknown key', `Bearer ${fakeKey(env.ctx)}`],
      ] as const) {
        const res = await send(env, op, built, { authorization: value });
        verify(res, what);
      }
    },
  );
  contractCheck(
    model,
    {
      id: `${idBase}.auth-401`,
      requirement: AUTH.status,
      level: 'SHOULD',
      cls,
      op,
      title: `${op.key} answers 401 unauthorized without a valid bearer key (none, malformed, unknown)`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      const variants: Array<[string, Partial<RequestOptions>]> = [
        ['no Authorization header', { key: null }],
        ['malformed bearer value', { authorization: 'Bearer !!not-a-key!!' }],
        ['well-formed but unknown key', { authorization: `Bearer ${fakeKey(env.ctx)}` }],
      ];
      for (const [what, extra] of variants) {
        const res = await send(env, op, built, extra);
        expectStatusExactly(res, 401, what);
        if (!head) expectErrorCode(res, 'unauthorized', what);
      }
    },
  );
}

export const auth: ContractCheckKind = {
  kind: 'auth',
  appliesTo: () => true,
  define: (op, { model, cls, idBase }) => defineAuth(model, op, cls, idBase),
};
