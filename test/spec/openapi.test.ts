/**
 * The OpenAPI document's own tests: valid, lint-clean, compilable, complete against the
 * specification's endpoint tables, and navigable through links.
 *
 *   npx playwright test -c test/playwright.config.ts test/spec
 */
import { expect, test } from '../base.ts';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { ENDPOINTS, operationKey } from '../../spec/endpoint-inventory.ts';
import { loadOpenApi, successResponses } from '../../spec/model.ts';
import type { ApiModel, JsonSchema, OperationModel } from '../../spec/model.ts';
import { REDOCLY_CONFIG, lintOpenApi, validateOpenApiDocument } from '../../spec/lint.ts';
import { buildValidators, createAjv, exampleProblems, resolveComponent } from '../../spec/validators.ts';

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The bundled (not dereferenced) operation object, where `$ref`s still show what is shared. */
function bundledOperation(model: ApiModel, op: OperationModel): Dict {
  const paths = (model.document as unknown as Dict).paths as Dict;
  return (paths[op.path] as Dict)[op.method.toLowerCase()] as Dict;
}

/** Does a JSON Pointer lead somewhere in a (dereferenced) schema? Follows allOf/anyOf/oneOf. */
function schemaHasPointer(schema: unknown, segments: string[]): boolean {
  if (!isDict(schema)) return false;
  if (segments.length === 0) return true;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.some((s) => schemaHasPointer(s, segments))) return true;
  }
  const [head, ...rest] = segments as [string, ...string[]];
  if (/^\d+$/.test(head) && isDict(schema.items)) return schemaHasPointer(schema.items, rest);
  const props = schema.properties;
  return isDict(props) && head in props && schemaHasPointer(props[head], rest);
}

const RUNTIME_EXPRESSION = /^\$response\.body#((\/[^/]+)+)$/;

test.describe('OpenAPI document', () => {
  test('is valid OpenAPI 3.1 for an independent validator (@seriousme/openapi-schema-validator)', async () => {
    const model = await loadOpenApi();
    expect(model.document.openapi).toBe('3.1.0');
    const result = await validateOpenApiDocument(model.document);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('is clean under Redocly recommended (zero errors, no warnings)', async () => {
    const problems = await lintOpenApi();
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.rule}: ${p.message} (${p.where})`);
    expect(errors).toEqual([]);
    const warnings = problems.filter((p) => p.severity === 'warn').map((p) => `${p.rule}: ${p.message} (${p.where})`);
    expect(warnings).toEqual([]);
  });

  test('the Redocly configuration is live: it reports errors on a broken document', async () => {
    const config = await loadConfig({ configPath: REDOCLY_CONFIG });
    const broken = [
      'openapi: 3.1.0',
      'info: {title: t, version: "1"}',
      'paths:',
      '  /things/{id}:',
      '    get:',
      '      responses:',
      "        '200': {description: ok}",
    ].join('\n');
    const problems = await lintFromString({ source: broken, absoluteRef: 'broken.yaml', config });
    const rules = problems.filter((p) => p.severity === 'error').map((p) => p.ruleId);
    expect(rules).toContain('operation-summary');
    expect(rules).toContain('path-parameters-defined');
  });

  test('every schema compiles under ajv 2020 strict mode, and every example validates', async () => {
    const model = await loadOpenApi();
    expect(Object.keys(model.schemas).length).toBeGreaterThan(100);
    const built = buildValidators(model);
    expect(built.compileErrors).toEqual([]);
    expect(exampleProblems(model)).toEqual([]);
    // The strictness is real: an undeclared keyword (for example a new x- extension) is rejected.
    expect(() => createAjv().compile({ type: 'string', 'x-undeclared': true })).toThrow(/unknown keyword/);
  });

  test('validators accept conforming bodies and reject others', async () => {
    const model = await loadOpenApi();
    const { validators } = buildValidators(model);
    const vps = {
      id: 'vps_1',
      name: 'web',
      status: 'creating',
      region: 'nyc1',
      image: 'ubuntu-22-04',
      size: 's-1vcpu-1gb',
      vcpus: 1,
      memory: 1024,
      disk: 25,
      ip_address: null,
      private_ip: null,
      created_at: '2024-05-01T12:00:00Z',
      tags: [],
    };
    expect(validators.validateResponse('POST /vps', 201, { vps })).toEqual({ ok: true, errors: [] });
    const bad = validators.validateResponse('POST /vps', 201, { vps: { ...vps, created_at: 'yesterday' } });
    expect(bad.ok).toBe(false);
    expect(bad.errors.join()).toContain('created_at');
    expect(
      validators.validateResponse('GET /vps/{vps_id}', 404, {
        error: { code: 'not_found', message: 'x', resource: 'vps' },
      }).ok,
    ).toBe(true);
    expect(validators.validateResponse('GET /vps/{vps_id}', 404, { message: 'x' }).ok).toBe(false);
    expect(validators.validateResponse('DELETE /vps/{vps_id}', 204, undefined).ok).toBe(true);
    expect(validators.validateResponse('DELETE /vps/{vps_id}', 418, undefined).ok).toBe(false);
    expect(
      validators.validateError({
        error: { code: 'validation_error', message: 'm', details: [{ field: 'size', message: 'x' }] },
      }).ok,
    ).toBe(true);
    expect(validators.validateRequest('POST /sms/send', { to: '+15005550006', message: 'x'.repeat(1601) }).ok).toBe(
      false,
    );
    expect(validators.validateSchema('Message', {}).ok).toBe(false);
  });

  test('every operation documents a 2xx body (schema, binary or empty) and its errors with the envelope', async () => {
    const model = await loadOpenApi();
    const problems: string[] = [];
    for (const op of model.operations) {
      const ok = successResponses(op);
      if (ok.length === 0) problems.push(`${op.key}: no 2xx response`);
      for (const r of ok) {
        const emptyByDesign = r.status === '204' || op.method === 'HEAD';
        if (emptyByDesign) {
          if (r.content.length > 0) problems.push(`${op.key} ${r.status}: must have no body`);
        } else if (r.content.length === 0 || r.content.some((m) => m.schema === undefined)) {
          problems.push(`${op.key} ${r.status}: no schema`);
        }
      }
      const statuses = new Set(op.responses.map((r) => r.status));
      const required = ['401', '403'];
      if (op.parameters.some((p) => p.in === 'path')) required.push('404');
      if (op.area !== 'storage' && op.method !== 'HEAD') required.push('429');
      if (op.requestBody?.content.some((m) => m.contentType === 'application/json')) required.push('400', '422');
      for (const s of required) if (!statuses.has(s)) problems.push(`${op.key}: does not document ${s}`);

      // Every 4xx (except on HEAD, which has no body) points at the one Error envelope.
      const raw = bundledOperation(model, op);
      for (const [status, rawResponse] of Object.entries(raw.responses as Dict)) {
        if (!status.startsWith('4') || op.method === 'HEAD') continue;
        const response = resolveComponent(model.document, rawResponse) as Dict;
        const json = isDict(response.content) ? (response.content['application/json'] as Dict | undefined) : undefined;
        if (!json || !isDict(json.schema) || json.schema.$ref !== '#/components/schemas/Error') {
          problems.push(`${op.key} ${status}: not the Error envelope`);
        }
      }
    }
    for (const key of [
      'POST /storage/buckets',
      'DELETE /storage/buckets/{bucket_name}',
      'POST /storage/volumes/{volume_id}/attach',
      'POST /storage/volumes/{volume_id}/detach',
      'DELETE /storage/volumes/{volume_id}',
    ]) {
      const op = model.operation(key.split(' ')[0]!, key.split(' ')[1]!);
      if (!op?.responses.some((r) => r.status === '409')) problems.push(`${key}: does not document 409`);
    }
    expect(problems).toEqual([]);
  });

  test('assumed statuses and schemas say why', async () => {
    const model = await loadOpenApi();
    const problems: string[] = [];
    for (const op of model.operations) {
      for (const r of op.responses)
        if (r.assumed && !r.assumedReason) problems.push(`${op.key} ${r.status}: x-assumed without x-assumed-reason`);
    }
    for (const [name, schema] of Object.entries(model.schemas)) {
      if (schema['x-assumed'] === true && typeof schema['x-assumed-reason'] !== 'string')
        problems.push(`${name}: x-assumed without x-assumed-reason`);
    }
    expect(problems).toEqual([]);
  });

  test('operations have a stable camelCase operationId, one area tag and a summary', async () => {
    const model = await loadOpenApi();
    const ids = model.operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of model.operations) {
      expect(op.operationId, op.key).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.raw.tags, op.key).toEqual([op.area]);
      expect(op.summary.length, op.key).toBeGreaterThan(0);
    }
  });

  test('the 88-row inventory matches the operations exactly, both ways', async () => {
    const model = await loadOpenApi();
    expect(ENDPOINTS).toHaveLength(88);
    const perArea = (area: string) => ENDPOINTS.filter((r) => r.area === area).length;
    expect([perArea('messaging'), perArea('compute'), perArea('storage'), perArea('billing')]).toEqual([
      18, 14, 30, 26,
    ]);
    expect(new Set(ENDPOINTS.map((r) => r.operation)).size).toBe(88);

    const documented = new Set(model.operations.map((op) => op.key));
    const inventoried = new Set(ENDPOINTS.map(operationKey));
    expect([...inventoried].filter((k) => !documented.has(k))).toEqual([]);
    expect([...documented].filter((k) => !inventoried.has(k))).toEqual([]);
    expect(model.operations).toHaveLength(86);

    for (const row of ENDPOINTS) {
      const op = model.operation(row.method, row.path)!;
      expect(op.area, row.operation).toBe(row.area);
      if (row.variant === null) {
        expect(op.variants, row.operation).toEqual([]);
      } else {
        const variant = op.variants.find((v) => v.name === row.variant);
        expect(variant?.row, row.operation).toBe(row.operation);
        expect(model.schemas[variant!.response], `${row.operation} variant response`).toBeDefined();
        for (const key of variant!.query)
          expect(
            op.parameters.some((p) => p.in === 'query' && p.name === key),
            `${row.operation} ${key}`,
          ).toBe(true);
      }
    }
  });

  test('every path parameter of every operation is produced by a link from another operation', async () => {
    const model = await loadOpenApi();
    const produced = new Map<string, Set<string>>();
    const problems: string[] = [];
    for (const source of model.operations) {
      for (const response of source.responses) {
        for (const link of response.links) {
          const target = model.operationById(link.operationId);
          if (!target) {
            problems.push(`${source.key} link ${link.name}: unknown operationId ${link.operationId}`);
            continue;
          }
          const json = response.content.find((m) => m.contentType === 'application/json')?.schema;
          for (const expression of [...Object.values(link.parameters), ...Object.values(link.bodyFields)]) {
            const m = RUNTIME_EXPRESSION.exec(expression);
            if (!m) {
              if (expression.startsWith('$'))
                problems.push(`${source.key} link ${link.name}: unsupported expression ${expression}`);
              continue;
            }
            const segments = m[1]!.split('/').slice(1);
            if (!schemaHasPointer(json, segments))
              problems.push(`${source.key} link ${link.name}: ${expression} is not in the response schema`);
          }
          for (const name of Object.keys(link.parameters)) {
            const bare = name.replace(/^(path|query|header)\./, '');
            if (!target.parameters.some((p) => p.name === bare))
              problems.push(`${source.key} link ${link.name}: ${target.key} has no parameter ${bare}`);
          }
          for (const pointer of Object.keys(link.bodyFields)) {
            const body = target.requestBody?.content.find((c) => c.contentType === 'application/json')?.schema;
            if (!schemaHasPointer(body, pointer.split('/').slice(1)))
              problems.push(`${source.key} link ${link.name}: ${pointer} is not in ${target.key}'s body`);
          }
          if (target.operationId === source.operationId && !link.targetVariant) continue;
          const set = produced.get(target.operationId) ?? new Set<string>();
          for (const name of Object.keys(link.parameters)) set.add(name.replace(/^path\./, ''));
          produced.set(target.operationId, set);
        }
      }
    }
    for (const op of model.operations) {
      for (const p of op.parameters.filter((x) => x.in === 'path')) {
        if (!produced.get(op.operationId)?.has(p.name)) problems.push(`${op.key}: no link produces ${p.name}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('messaging and compute operations declare the rate-limit headers on every response', async () => {
    const model = await loadOpenApi();
    const problems: string[] = [];
    for (const op of model.operations.filter((o) => o.area === 'messaging' || o.area === 'compute')) {
      const names = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
      if (op.area === 'messaging') names.push('X-SMS-Limit', 'X-SMS-Remaining');
      for (const r of op.responses) {
        for (const name of names) {
          const h = r.headers.find((x) => x.name === name);
          if (!h) problems.push(`${op.key} ${r.status}: no ${name}`);
          else if (h.schema.type !== 'integer') problems.push(`${op.key} ${r.status}: ${name} is not an integer`);
          // 401 comes before the key is known (conventions.md): there the headers are optional.
          else if (h.required !== (r.status !== '401'))
            problems.push(`${op.key} ${r.status}: ${name} required=${h.required}`);
        }
        if (r.status === '429' && !r.headers.some((x) => x.name === 'Retry-After'))
          problems.push(`${op.key} 429: no Retry-After`);
      }
    }
    for (const op of model.operations) {
      const r429 = op.responses.find((r) => r.status === '429');
      if (r429 && !r429.headers.some((x) => x.name === 'Retry-After')) problems.push(`${op.key} 429: no Retry-After`);
    }
    expect(problems).toEqual([]);
  });

  test('documents the request headers, the webhooks and the S3 endpoint', async () => {
    const model = await loadOpenApi();
    for (const key of ['POST /sms/send', 'POST /sms/bulk', 'POST /sms/send-template']) {
      const op = model.operation(key.split(' ')[0]!, key.split(' ')[1]!)!;
      expect(
        op.parameters.some((p) => p.in === 'header' && p.name === 'X-Test-Mode'),
        key,
      ).toBe(true);
    }
    const put = model.operation('PUT', '/storage/buckets/{bucket_name}/objects/{object_key}')!;
    expect(put.parameters.some((p) => p.in === 'header' && p.name === 'x-cloud-acl')).toBe(true);
    expect(put.requestBody?.content.map((c) => c.contentType).sort()).toEqual(['*/*', 'application/octet-stream']);
    expect(put.parameters.find((p) => p.name === 'object_key')?.greedy).toBe(true);
    const complete = model.operation('POST', '/storage/buckets/{bucket_name}/objects/{object_key}')!;
    expect(complete.requestBody?.content.map((c) => c.contentType)).toEqual(['application/xml']);

    expect(model.webhooks.map((w) => w.event).sort()).toEqual(
      [
        'sms.sent',
        'sms.delivered',
        'sms.failed',
        'sms.expired',
        'sms.rejected',
        'vps.created',
        'vps.started',
        'vps.stopped',
        'vps.deleted',
        'vps.resized',
        'snapshot.created',
        'snapshot.deleted',
      ].sort(),
    );
    const { compile } = buildValidators(model);
    for (const hook of model.webhooks) {
      expect(
        hook.headers.some((h) => h.name === 'X-Webhook-Signature' && h.assumed),
        hook.event,
      ).toBe(true);
      const raw = ((model.document as unknown as Dict).webhooks as Dict)[hook.event] as Dict;
      const schema = (((raw.post as Dict).requestBody as Dict).content as Dict)['application/json'] as Dict;
      const validate = compile(schema.schema as JsonSchema);
      expect(validate({ event: 'wrong.event', timestamp: '2024-05-01T12:00:00Z', data: {} }), hook.event).toBe(false);
    }
    expect(model.document.info.description).toContain('S3-compatible');
    expect(model.document.servers?.[0]?.variables?.base_url?.default).toBe('http://127.0.0.1:8080/v1');
    expect(model.document.security).toEqual([{ bearerAuth: [] }]);
  });
});
