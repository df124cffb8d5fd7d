/**
 * `after-delete` (MUST: the resource is gone as the delete requirement says: its GET refused, or its
 * list without it) and `after-delete-404` (SHOULD: its GET and a second DELETE answer 404). Every
 * DELETE operation has them.
 */
import type { ApiResponse } from '../../harness/check.ts';
import {
  expectErrorEnvelope,
  expectNotListed,
  expectRefused,
  expectStatusExactly,
  expectSuccess,
} from '../../harness/assert.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation } from '../model.ts';
import { AFTER_DELETE_MUST, AFTER_DELETE_SHOULD } from '../requirement-map.ts';
import { buildValid } from '../requests.ts';
import { contractCheck, send } from './common.ts';
import type { Env, Share } from './common.ts';
import type { ContractCheckKind } from './registry.ts';

/** Where a deleted resource is looked up: its GET (path) or its list (id must be absent). */
function lookupAfterDelete(
  model: ContractModel,
  op: ContractOperation,
): { get?: ContractOperation; list?: ContractOperation } {
  const get = model.operations.find((o) => o.method === 'GET' && o.path === op.path);
  if (get) return { get };
  const parent = op.path.replace(/\/\{[^}]+\}$/, '');
  return { list: model.operations.find((o) => o.method === 'GET' && o.path === parent) };
}

function defineAfterDelete(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  if (op.method !== 'DELETE') return;
  const mustId = AFTER_DELETE_MUST[op.key];
  const { get, list } = lookupAfterDelete(model, op);
  /** Delete, then look it up (GET or list) and delete it again; both checks read the same answers. */
  const scenario = (env: Env, share: Share) =>
    share(
      `${idBase}.after-delete`,
      async (): Promise<Partial<Record<'first' | 'lookup' | 'again' | 'id', ApiResponse>>> => {
        const built = await buildValid(env, op, undefined, true);
        const first = await send(env, op, built);
        if (first.status < 200 || first.status >= 300) return { first };
        const id = Object.values(built.params).pop()!;
        const lookup = get ? await env.api.request({ method: 'GET', path: built.path }) : await env.api.get(list!.path);
        const again = await env.api.request({ method: 'DELETE', path: built.path });
        // The id travels with the answers, for the list check.
        return { first, lookup, again, id: { ...again, text: id } };
      },
    );
  const firstOk = (first: ApiResponse) => expectSuccess(first, 'the first delete');
  if (mustId && (get || list)) {
    contractCheck(
      model,
      {
        id: `${idBase}.after-delete`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `after ${op.key}, the resource is gone (${get ? get.key : `${list!.key} no longer lists it`})`,
      },
      async (env, share) => {
        const { first, lookup, id } = await scenario(env, share);
        firstOk(first!);
        const res = lookup!;
        if (get) {
          expectRefused(res, 'reading a deleted resource');
          expectErrorEnvelope(res, undefined, 'reading a deleted resource');
        } else {
          expectStatusExactly(res, 200, 'the list after the delete');
          expectNotListed(res, res.text.includes(JSON.stringify(id!.text)), id!.text);
        }
      },
    );
  }
  contractCheck(
    model,
    {
      id: `${idBase}.after-delete-404`,
      requirement: AFTER_DELETE_SHOULD,
      level: 'SHOULD',
      cls,
      op,
      title: `after ${op.key}, ${get ? `${get.key} and ` : ''}a second DELETE answer 404`,
    },
    async (env, share) => {
      const { first, lookup, again } = await scenario(env, share);
      firstOk(first!);
      if (get) expectStatusExactly(lookup!, 404, 'reading a deleted resource');
      expectStatusExactly(again!, 404, 'deleting a deleted resource');
    },
  );
}

export const afterDelete: ContractCheckKind = {
  kind: 'after-delete',
  appliesTo: (op) => op.method === 'DELETE',
  define: (op, { model, cls, idBase }) => defineAfterDelete(model, op, cls, idBase),
};
