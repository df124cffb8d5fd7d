/**
 * `negative.<field>.<kind>` (MUST where the specification decides, with its error code): a request
 * with one invalid field is refused; `negative.<field>.<kind>.status` (SHOULD): 422 with the code
 * and `error.details` naming the field. The cases come from the request schema (../negative.ts).
 */
import type { ApiResponse } from '../../harness/check.ts';
import {
  expectErrorCode,
  expectErrorEnvelope,
  expectErrorMember,
  expectRefused,
  expectStatusExactly,
} from '../../harness/assert.ts';
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation } from '../model.ts';
import { bodyCases, customCases, queryCases } from '../negative.ts';
import type { NegativeCase } from '../negative.ts';
import { negativeTarget } from '../requirement-map.ts';
import { buildValid } from '../requests.ts';
import { contractCheck, send } from './common.ts';
import type { Env, Share } from './common.ts';
import type { ContractCheckKind } from './registry.ts';

function negativeCasesOf(op: ContractOperation): NegativeCase[] {
  const cases: NegativeCase[] = [];
  const json = op.requestBody?.content.find((c) => /json/.test(c.contentType));
  if (json?.schema) cases.push(...bodyCases(json.schema));
  if (op.variants.length === 0) cases.push(...queryCases(op));
  cases.push(...customCases(op));
  return cases;
}

/** Whether `error.details` names the field, however it is shaped. */
function mentions(details: unknown, field: string): boolean {
  return JSON.stringify(details ?? null).includes(field);
}

function defineNegative(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  for (const c of negativeCasesOf(op)) {
    const target = negativeTarget(op.key, c.field, c.kind, { assumed: c.assumed, query: c.where === 'query' });
    const caseId = `${idBase}.negative.${c.field}.${c.kind}`;
    const run = async (env: Env, share: Share): Promise<ApiResponse> =>
      (
        await share(caseId, async () => {
          const built = await buildValid(env, op, undefined, false);
          const applied = c.apply((built.json as Record<string, unknown> | undefined) ?? {}, built.query);
          const res = await send(env, op, {
            ...built,
            json: c.where === 'body' || built.json !== undefined ? applied.body : undefined,
            query: applied.query,
            after: undefined,
          });
          return { res };
        })
      ).res;
    if (target.must) {
      const must = target.must;
      contractCheck(
        model,
        {
          id: caseId,
          requirement: must.id,
          level: 'MUST',
          cls,
          op,
          title: `${op.key} ${c.describe} is refused${must.code ? ` with ${must.code}` : ''}`,
        },
        async (env, share) => {
          const res = await run(env, share);
          expectRefused(res, c.describe);
          expectErrorEnvelope(res, undefined, c.describe);
          if (must.code) expectErrorCode(res, must.code, c.describe);
          if (must.id === 'ERR-CODE-007')
            expectErrorMember(res, 'details', (details) => details !== undefined, 'present', c.describe);
        },
      );
    }
    contractCheck(
      model,
      {
        id: `${caseId}.status`,
        requirement: target.should.id,
        level: 'SHOULD',
        cls,
        op,
        title: `${op.key} ${c.describe} answers 422 ${target.should.code} naming the field`,
      },
      async (env, share) => {
        const res = await run(env, share);
        expectStatusExactly(res, 422, c.describe);
        expectErrorCode(res, target.should.code, c.describe);
        expectErrorMember(res, 'details', (details) => mentions(details, c.field), `naming "${c.field}"`, c.describe);
      },
    );
  }
}

export const negative: ContractCheckKind = {
  kind: 'negative',
  appliesTo: (op) => negativeCasesOf(op).length > 0,
  define: (op, { model, cls, idBase }) => defineNegative(model, op, cls, idBase),
};
