/**
 * `positive` (MUST): a valid request answers 2xx with the documented content type, the documented
 * required headers, and a body valid against the part of the response schema the specification
 * shows (`x-assumed` parts relaxed; another legal shape where the body is not shown);
 * `positive-status` (SHOULD): exactly the documented status; `positive-body` (SHOULD): the whole
 * schema, conventions included. One set per row of an operation with `x-variants`.
 */
import { expectSchema, expectStatusExactly, expectSuccess, failFindings, shapeOf } from '../../harness/assert.ts';
import type { ApiResponse } from '../../harness/check.ts';
import { test } from '../../harness/check.ts';
import { listOf, resourceOf } from '../../harness/body-shape.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation, VariantModel } from '../model.ts';
import { compileSchema, hasAssumption } from '../model.ts';
import { ID_PREFIX_SHOULD, POSITIVE_BODY_SHOULD, POSITIVE_MUST, statusRequirement } from '../requirement-map.ts';
import type { IdLocation } from '../requirement-map.ts';
import { buildValid } from '../requests.ts';
import type { BuiltRequest } from '../requests.ts';
import { contractCheck, send, successOf } from './common.ts';
import type { Env, Share } from './common.ts';
import { drawnExamples } from './drawn-examples.ts';
import type { ContractCheckKind } from './registry.ts';
import { bodyNotShown, positiveMust, responseSchema, variantKey } from './success.ts';

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
  // A body the specification does not show is all convention, its wrapper included.
  if (schema && bodyId && (hasAssumption(schema) || bodyNotShown(op, variant))) {
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
  const ids = ID_PREFIX_SHOULD[key];
  if (ids) {
    contractCheck(
      model,
      {
        id: `${idBase}.positive-ids`,
        requirement: ids.requirement,
        level: 'SHOULD',
        cls,
        op,
        title: `${label}: the ids of the success body carry their type prefix (${ids.ids.map((i) => i.prefix).join(', ')})`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        expectIdPrefixes(res, ids.ids);
      },
    );
  }
}

/** The ids a success body holds where `locations` say, each against its prefix; skipped when it holds none. */
function expectIdPrefixes(res: ApiResponse, locations: readonly IdLocation[]): void {
  expectSuccess(res);
  const found: Array<{ pointer: string; value: unknown; prefix: string }> = [];
  for (const at of locations) {
    const field = at.field ?? 'id';
    const records = at.list
      ? (listOf<Record<string, unknown>>(res.body, at.list) ?? [])
      : [resourceOf<Record<string, unknown>>(res.body, at.name!, field)];
    const pointer = at.list ? `/${at.list}/*/${field}` : `/${at.name}/${field}`;
    for (const record of records)
      if (record && field in record) found.push({ pointer, value: record[field], prefix: at.prefix });
  }
  if (found.length === 0) test.skip(true, `${res.exchange.request.method} answered no id to judge (an empty list)`);
  const wrong = found.filter(({ value, prefix }) => typeof value !== 'string' || !value.startsWith(prefix));
  if (wrong.length === 0) return;
  const findings = wrong.map(({ pointer, value, prefix }) => ({
    subject: pointer,
    keyword: 'prefix',
    expected: prefix,
    actual: shapeOf(value),
  }));
  failFindings(findings, 'the ids of the success body', res, 'ids without their type prefix');
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
