/**
 * `positive` (MUST): a valid request answers 2xx with the documented content type, the documented
 * required headers, and a body valid against the part of the response schema the specification
 * shows (`x-assumed` parts relaxed; another legal shape where the body is not shown);
 * `positive-status` (SHOULD): exactly the documented status; `positive-body` (SHOULD): the whole
 * schema, conventions included. One set per row of an operation with `x-variants`.
 */
import { expectSchema, expectStatusExactly, expectSuccess } from '../../harness/assert.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation, VariantModel } from '../model.ts';
import { compileSchema, hasAssumption } from '../model.ts';
import { POSITIVE_BODY_SHOULD, POSITIVE_MUST, statusRequirement } from '../requirement-map.ts';
import { buildValid } from '../requests.ts';
import type { BuiltRequest } from '../requests.ts';
import { contractCheck, send, successOf } from './common.ts';
import type { Env, Share } from './common.ts';
import { drawnExamples } from './drawn-examples.ts';
import type { ContractCheckKind } from './registry.ts';
import { positiveMust, responseSchema, variantKey } from './success.ts';

function definePositive(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
  cls: ConformanceClass,
  idBase: string,
): void {
  const key = variantKey(op, variant);
  const label = variant && variant.name !== 'upload' ? variant.row : op.key;
  const success = successOf(op);
  if (!success) return;
  const mustId = POSITIVE_MUST[key];
  let built: BuiltRequest | undefined;
  const positive = (env: Env, share: Share) =>
    share(`${idBase}.positive`, async () => {
      built = await buildValid(env, op, variant, true);
      return { res: await send(env, op, built) };
    });
  if (mustId) {
    contractCheck(
      model,
      {
        id: `${idBase}.positive`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `${label}: a valid request succeeds with the documented content type, headers and body`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        positiveMust(model, op, variant, res, built!);
        // After the one example every run sends (and the SHOULD checks below share): with
        // --examples N > 1, N - 1 more drawn from the schema.
        await drawnExamples(model, op, variant, env, `${idBase}.positive`);
      },
    );
  }
  const statusId = statusRequirement(op.key);
  if (statusId) {
    contractCheck(
      model,
      {
        id: `${idBase}.positive-status`,
        requirement: statusId,
        level: 'SHOULD',
        cls,
        op,
        title: `${label}: a valid request answers exactly ${success.status}`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        expectStatusExactly(res, Number(success.status));
      },
    );
  }
  const schema = responseSchema(model, op, variant);
  const bodyId = POSITIVE_BODY_SHOULD[key];
  if (schema && bodyId && hasAssumption(schema)) {
    contractCheck(
      model,
      {
        id: `${idBase}.positive-body`,
        requirement: bodyId,
        level: 'SHOULD',
        cls,
        op,
        title: `${label}: the success body follows the assumed conventions of the document (wrapper, fields)`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        expectSuccess(res);
        expectSchema(res.body, compileSchema(schema), { res, what: 'the full response schema' });
      },
    );
  }
}

export const positive: ContractCheckKind = {
  kind: 'positive',
  appliesTo: (op) => successOf(op) !== undefined,
  define(op, { model, cls, idBase }) {
    const variants = op.variants.length ? op.variants : [undefined];
    for (const variant of variants)
      definePositive(model, op, variant, cls, variant && op.variants.length > 1 ? `${idBase}.${variant.name}` : idBase);
  },
};
