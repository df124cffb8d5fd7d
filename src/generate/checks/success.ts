/**
 * How a positive check judges a success answer (`positiveMust`), shared by the seeded request and
 * the ones `--examples` draws: 2xx, the documented headers and content type, and the body against
 * the part of the response schema the specification shows.
 */
import type { ApiResponse } from '../../harness/check.ts';
import { expect } from '../../harness/check.ts';
import { listOf, resourceOf } from '../../harness/resource.ts';
import type { ContractModel, ContractOperation, JsonSchema, VariantModel } from '../model.ts';
import { relaxAssumptions, validateAgainst } from '../model.ts';
import { cachedMeta } from '../prerequisites.ts';
import type { BuiltRequest } from '../requests.ts';
import { reqLine, short, successOf } from './common.ts';

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
  expect(
    res.status >= 200 && res.status < 300,
    `${reqLine(res)} with a valid request should succeed (2xx), got ${res.status}: ${short(res.text)}`,
  ).toBe(true);
  for (const h of success.headers.filter((x) => x.required)) {
    // Content-Length of a HEAD is what undici reports; every documented required header must be there.
    expect(res.headers[h.name.toLowerCase()], `${reqLine(res)}: documented header ${h.name} is missing`).toBeDefined();
  }
  const media = success.content.map((c) => c.contentType);
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (op.method === 'HEAD') {
    expect(res.bytes.length, `${reqLine(res)}: HEAD answers without a body`).toBe(0);
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expect(Number(res.headers['content-length']), 'HEAD Content-Length equals the uploaded size').toBe(
        Buffer.byteLength(String(meta.bytes)),
      );
      expect(contentType, 'HEAD Content-Type equals the uploaded one').toBe(meta.contentType);
    }
    return;
  }
  // No documented body (DELETE): what a success carries is not shown, so nothing is asserted
  // here; the convention (204, empty) is the SHOULD `positive-status` check's.
  if (media.length === 0) return;
  if (media.includes('application/pdf')) {
    expect(contentType, 'Content-Type of the invoice PDF').toBe('application/pdf');
    expect(res.bytes.subarray(0, 5).toString('latin1'), 'the PDF body starts with %PDF-').toBe('%PDF-');
    return;
  }
  if (op.key === 'GET /storage/buckets/{bucket_name}/objects/{object_key}') {
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expect(res.text, 'the downloaded bytes equal the uploaded ones').toBe(meta.bytes);
      expect(contentType, 'the object is served with its Content-Type').toBe(meta.contentType);
    }
    return;
  }
  if (media.some((m) => /json/.test(m))) {
    expect(contentType, `${reqLine(res)}: Content-Type`).toBe('application/json');
    const schema = responseSchema(model, op, variant);
    if (schema) {
      const relaxed = relaxAssumptions(schema);
      const errors = validateAgainst(relaxed, res.body);
      // A body the specification does not show may hold the resource flat or under `data`; the
      // convention's wrapper is the SHOULD `positive-body` check's.
      const otherShape =
        errors.length > 0 &&
        bodyNotShown(op, variant) &&
        otherShapes(relaxed, res.body).some((alt) => validateAgainst(relaxed, alt).length === 0);
      if (!otherShape)
        expect(
          errors,
          `${reqLine(res)}: the body does not match the response schema (the specification's part): ${short(res.text)}`,
        ).toEqual([]);
    }
  }
}

/**
 * Whether the specification shows the success body of an operation (or of one of its rows): the
 * document marks the rows it does not ("Response bodies not shown for: ..." in each area of
 * Endpoints) with `x-body-not-shown`. Only for these may a MUST check accept the resource in
 * another shape than the document's convention.
 */
function bodyNotShown(op: ContractOperation, variant: VariantModel | undefined): boolean {
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
