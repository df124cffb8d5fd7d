/**
 * How a positive check judges a success answer (`positiveMust`), shared by the seeded request and
 * the ones `--examples` draws: 2xx, the documented headers and content type, and the body against
 * the part of the response schema the specification shows.
 */
import type { ApiResponse } from '../../harness/check.ts';
import {
  expectBody,
  expectContentType,
  expectHeader,
  expectNoBody,
  expectPdf,
  expectSchema,
  expectSuccess,
  judged,
} from '../../harness/assert.ts';
import { listOf, resourceOf } from '../../harness/body-shape.ts';
import type { ContractModel, ContractOperation, JsonSchema, VariantModel } from '../model.ts';
import { compileSchema, relaxAssumptions, validateAgainst } from '../model.ts';
import { cachedMeta } from '../prerequisites.ts';
import type { BuiltRequest } from '../requests.ts';
import { successOf } from './common.ts';

export function responseSchema(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
): JsonSchema | undefined {
  if (variant?.response && model.schemas[variant.response]) return model.schemas[variant.response];
  return successOf(op)?.content.find((c) => /json/.test(c.contentType))?.schema;
}

export function variantKey(op: ContractOperation, variant: VariantModel | undefined): string {
  // The plain object upload shares the operation's own entries; other variants have their own.
  return variant && variant.name !== 'upload' ? `${op.key} ${variant.name}` : op.key;
}

export function positiveMust(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
  res: ApiResponse,
  built: BuiltRequest,
): void {
  const success = successOf(op)!;
  expectSuccess(res, 'a valid request');
  // Content-Length of a HEAD is what undici reports; every documented required header must be there.
  for (const h of success.headers.filter((x) => x.required)) expectHeader(res, h.name);
  const media = success.content.map((c) => c.contentType);
  if (op.method === 'HEAD') {
    expectNoBody(res);
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expectHeader(res, 'Content-Length', String(Buffer.byteLength(String(meta.bytes))), {
        context: 'the uploaded size',
        equal: (value, expected) => Number(value) === Number(expected),
        expectedAs: 'the uploaded size',
      });
      expectContentType(res, String(meta.contentType), 'the uploaded one', 'as uploaded');
    }
    return;
  }
  // No documented body (DELETE): what a success carries is not shown, so nothing is asserted
  // here; the convention (204, empty) is the SHOULD `positive-status` check's.
  if (media.length === 0) return;
  if (media.includes('application/pdf')) {
    expectPdf(res);
    return;
  }
  if (op.key === 'GET /storage/buckets/{bucket_name}/objects/{object_key}') {
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expectBody(res.text === meta.bytes, () => ({
        subject: 'bytes',
        expected: 'the uploaded bytes',
        actual: 'other bytes',
        judged: judged(res),
        says: `the downloaded bytes (${res.bytes.length}) differ from the uploaded ones (${String(meta.bytes).length})`,
      }));
      expectContentType(res, String(meta.contentType), 'the Content-Type of the upload', 'as uploaded');
    }
    return;
  }
  if (media.some((m) => /json/.test(m))) {
    expectContentType(res, 'application/json');
    const schema = responseSchema(model, op, variant);
    if (!schema) return;
    const relaxed = relaxAssumptions(schema);
    const validate = compileSchema(relaxed);
    if (validate(res.body)) return;
    // A body the specification does not show may hold the resource flat or under `data`; the
    // convention's wrapper is the SHOULD `positive-body` check's.
    const otherShape =
      bodyNotShown(op, variant) &&
      otherShapes(relaxed, res.body).some((alt) => validateAgainst(relaxed, alt).length === 0);
    if (!otherShape) expectSchema(res.body, validate, { res, what: "the response schema (the specification's part)" });
  }
}

/**
 * Whether the specification shows the success body of an operation (or of one of its rows): the
 * document marks the rows it does not ("Response bodies not shown for: ..." in each area of
 * Endpoints) with `x-body-not-shown`. Only for these may a MUST check accept the resource in
 * another shape than the document's convention.
 */
export function bodyNotShown(op: ContractOperation, variant: VariantModel | undefined): boolean {
  return variant ? variant.bodyNotShown : op.bodyNotShown;
}

/** The body rebuilt in the document's shape from the other legal shapes: flat, a bare list, or under `data`. */
function otherShapes(schema: JsonSchema, body: unknown): unknown[] {
  const shapes: unknown[] = [];
  const inner = (body as { data?: unknown } | undefined)?.data;
  if (inner !== undefined) shapes.push(inner);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (required.length === 1) {
    const name = required[0]!;
    const value = properties[name]?.type === 'array' ? listOf(body, name) : resourceOf(body, name);
    if (value !== undefined) shapes.push({ [name]: value });
  }
  return shapes;
}
