/**
 * JSON Schema validators for the OpenAPI document: ajv's 2020-12 dialect (the one OpenAPI 3.1
 * uses), strict mode, ajv-formats. Every component schema and every request and response schema
 * is compiled once, when the validators are built; validation afterwards is a lookup.
 *
 * Schemas reference each other through `#/components/schemas/<Name>` in the bundled document.
 * ajv cannot resolve that path inside a bare schema, so the component schemas are registered as
 * `$defs` of one root schema with a fixed `$id`, and every `$ref` is rewritten to point there.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadOpenApi, responseFor } from './model.ts';
import type { ApiModel, JsonSchema } from './model.ts';

/** `$id` of the root that holds the component schemas as `$defs` (never fetched). */
export const SCHEMA_ROOT_ID = 'https://cloudcheck.invalid/openapi/components.json';

/**
 * OpenAPI-only keywords that may appear inside schemas. They are annotations: ajv strict mode
 * rejects unknown keywords, so each is declared here, and any other `x-` keyword in a schema
 * fails compilation until it is added (keeping the document's extensions deliberate).
 */
const ANNOTATION_KEYWORDS = [
  { keyword: 'x-assumed', schemaType: 'boolean' },
  { keyword: 'x-assumed-reason', schemaType: 'string' },
  { keyword: 'xml', schemaType: 'object' },
  { keyword: 'externalDocs', schemaType: 'object' },
] as const;

export interface ValidationResult {
  ok: boolean;
  errors: string[];
}

export interface Validators {
  /**
   * Validates a response body against the schema the document gives the operation
   * (`METHOD /path`, the path as the specification writes it) for that status. JSON bodies are
   * validated; binary bodies only against the documented media type; a response documented
   * without content must have no body.
   */
  validateResponse(
    operationKey: string,
    status: number | string,
    body: unknown,
    contentType?: string,
  ): ValidationResult;
  /** Validates a request body against the operation's request schema for a media type (JSON by default). */
  validateRequest(operationKey: string, body: unknown, contentType?: string): ValidationResult;
  /** Validates a value against a component schema by name (`Vps`, `Error`, ...). */
  validateSchema(name: string, value: unknown): ValidationResult;
  /** Validates the error envelope. */
  validateError(body: unknown): ValidationResult;
  /** The compiled function of a component schema, for callers that want ajv's own shape. */
  schemaValidator(name: string): ValidateFunction | undefined;
}

export interface BuiltValidators {
  validators: Validators;
  /** Schemas that did not compile, as `where: message` (empty when all compiled). */
  compileErrors: string[];
  /** Compiles (memoised) an arbitrary schema from the bundled document, refs rewritten. */
  compile(schema: JsonSchema): ValidateFunction;
}

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A fresh ajv instance with the options and keywords the document needs. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    // `type: [string, "null"]` and `type: [object, array]` (error details) are union types.
    allowUnionTypes: true,
    // Lets a future `discriminator` be checked by ajv instead of rejected as unknown.
    discriminator: true,
  });
  addFormats(ajv);
  for (const def of ANNOTATION_KEYWORDS) ajv.addKeyword({ keyword: def.keyword, schemaType: def.schemaType });
  return ajv;
}

/** Deep copy with `#/components/schemas/X` refs pointed at the `$defs` root. */
export function rewriteRefs<T>(node: T): T {
  if (Array.isArray(node)) return node.map((n: unknown) => rewriteRefs(n)) as T;
  if (!isDict(node)) return node;
  const out: Dict = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
      out[k] = `${SCHEMA_ROOT_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`;
    } else {
      out[k] = rewriteRefs(v);
    }
  }
  return out as T;
}

/** Follows a `$ref` to a component (response, parameter, request body...) in the bundled document. */
export function resolveComponent(document: unknown, node: unknown): unknown {
  let current = node;
  for (let depth = 0; isDict(current) && typeof current.$ref === 'string' && depth < 10; depth++) {
    const ref = current.$ref;
    let target: unknown = document;
    for (const raw of ref.replace(/^#\//, '').split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isDict(target) ? target[key] : undefined;
    }
    current = target;
  }
  return current;
}

export function formatErrors(errors: ErrorObject[] | null | undefined, prefix = ''): string[] {
  return (errors ?? []).map((e) => {
    const where = `${prefix}${e.instancePath || '/'}`;
    const params = e.params as Dict;
    const extra = Array.isArray(params.allowedValues)
      ? ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
      : typeof params.additionalProperty === 'string'
        ? ` (${params.additionalProperty})`
        : '';
    return `${where} ${e.message ?? e.keyword}${extra}`;
  });
}

function run(validate: ValidateFunction | undefined, value: unknown, missing: string): ValidationResult {
  if (!validate) return { ok: false, errors: [missing] };
  const ok = validate(value);
  return { ok, errors: ok ? [] : formatErrors(validate.errors) };
}

function isJson(contentType: string): boolean {
  return /^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType);
}

function bareType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** Picks the documented media entry for a content type (exact, then `type/*`, then `*\/*`, then JSON). */
function pickMedia(content: Dict, contentType: string | undefined): [string, Dict] | undefined {
  const keys = Object.keys(content);
  if (contentType !== undefined) {
    const want = bareType(contentType);
    const key =
      keys.find((k) => k.toLowerCase() === want) ??
      keys.find((k) => k.endsWith('/*') && want.startsWith(k.slice(0, -1))) ??
      keys.find((k) => k === '*/*');
    return key === undefined ? undefined : [key, content[key] as Dict];
  }
  const key = keys.find(isJson) ?? keys[0];
  return key === undefined ? undefined : [key, content[key] as Dict];
}

const builtCache = new WeakMap<ApiModel, BuiltValidators>();

/** Compiles every schema of the document; collects compile failures instead of throwing. */
export function buildValidators(model: ApiModel): BuiltValidators {
  const hit = builtCache.get(model);
  if (hit) return hit;

  const ajv = createAjv();
  const compileErrors: string[] = [];
  const defs = rewriteRefs(model.schemas);
  ajv.addSchema({ $id: SCHEMA_ROOT_ID, $defs: defs });

  const memo = new Map<string, ValidateFunction>();
  const compile = (schema: JsonSchema): ValidateFunction => {
    const rewritten = rewriteRefs(schema);
    const key = JSON.stringify(rewritten);
    let fn = memo.get(key);
    if (!fn) {
      fn = ajv.compile(rewritten);
      memo.set(key, fn);
    }
    return fn;
  };
  const tryCompile = (schema: JsonSchema, where: string): ValidateFunction | undefined => {
    try {
      return compile(schema);
    } catch (err) {
      compileErrors.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };

  const schemaFns = new Map<string, ValidateFunction>();
  for (const name of Object.keys(model.schemas)) {
    const fn = tryCompile({ $ref: `#/components/schemas/${name}` }, `components.schemas.${name}`);
    if (fn) schemaFns.set(name, fn);
  }

  // Response and request validators, keyed `METHOD /path|status|media` and `METHOD /path|media`.
  const responseFns = new Map<string, ValidateFunction>();
  const requestFns = new Map<string, ValidateFunction>();
  const doc = model.document as unknown as Dict;
  const paths = isDict(doc.paths) ? doc.paths : {};
  for (const op of model.operations) {
    const item = paths[op.path];
    const rawOp = isDict(item) ? item[op.method.toLowerCase()] : undefined;
    if (!isDict(rawOp)) continue;
    for (const [status, rawResponse] of Object.entries(isDict(rawOp.responses) ? rawOp.responses : {})) {
      const response = resolveComponent(doc, rawResponse);
      const content = isDict(response) && isDict(response.content) ? response.content : {};
      for (const [media, rawMedia] of Object.entries(content)) {
        if (!isDict(rawMedia) || !isDict(rawMedia.schema)) continue;
        const fn = tryCompile(rawMedia.schema, `${op.key} response ${status} ${media}`);
        if (fn) responseFns.set(`${op.key}|${status}|${media}`, fn);
      }
    }
    const body = resolveComponent(doc, rawOp.requestBody);
    const content = isDict(body) && isDict(body.content) ? body.content : {};
    for (const [media, rawMedia] of Object.entries(content)) {
      if (!isDict(rawMedia) || !isDict(rawMedia.schema)) continue;
      const fn = tryCompile(rawMedia.schema, `${op.key} request ${media}`);
      if (fn) requestFns.set(`${op.key}|${media}`, fn);
    }
  }

  const validators: Validators = {
    validateResponse(operationKey, status, body, contentType) {
      const [method = '', path = ''] = operationKey.split(' ');
      const op = model.operation(method, path);
      if (!op) return { ok: false, errors: [`${operationKey} is not an operation of the document`] };
      const response = responseFor(op, status);
      if (!response) return { ok: false, errors: [`${operationKey} does not document status ${status}`] };
      const content: Dict = {};
      for (const m of response.content) content[m.contentType] = m;
      const noBody = body === undefined || body === null || body === '';
      if (response.content.length === 0) {
        return noBody
          ? { ok: true, errors: [] }
          : { ok: false, errors: [`${operationKey} ${response.status} documents no body, but one came`] };
      }
      const picked = pickMedia(content, contentType);
      if (!picked) {
        return {
          ok: false,
          errors: [`${operationKey} ${response.status} does not document media type ${contentType}`],
        };
      }
      const [media] = picked;
      if (!isJson(media)) return { ok: true, errors: [] };
      return run(
        responseFns.get(`${operationKey}|${response.status}|${media}`),
        body,
        `${operationKey} ${response.status} ${media}: no schema`,
      );
    },
    validateRequest(operationKey, body, contentType) {
      const [method = '', path = ''] = operationKey.split(' ');
      const op = model.operation(method, path);
      if (!op) return { ok: false, errors: [`${operationKey} is not an operation of the document`] };
      if (!op.requestBody) return { ok: false, errors: [`${operationKey} documents no request body`] };
      const content: Dict = {};
      for (const m of op.requestBody.content) content[m.contentType] = m;
      const picked = pickMedia(content, contentType);
      if (!picked) return { ok: false, errors: [`${operationKey} does not accept ${contentType}`] };
      return run(
        requestFns.get(`${operationKey}|${picked[0]}`),
        body,
        `${operationKey} request ${picked[0]}: no schema`,
      );
    },
    validateSchema(name, value) {
      return run(schemaFns.get(name), value, `no component schema named ${name}`);
    },
    validateError(body) {
      return run(schemaFns.get('Error'), body, 'no component schema named Error');
    },
    schemaValidator(name) {
      return schemaFns.get(name);
    },
  };

  const built: BuiltValidators = { validators, compileErrors, compile };
  builtCache.set(model, built);
  return built;
}

/**
 * The validators of the document, compiled once per model. Throws when a schema does not
 * compile (the document's own tests list every such schema).
 */
export async function compileValidators(model?: ApiModel): Promise<Validators> {
  const built = buildValidators(model ?? (await loadOpenApi()));
  if (built.compileErrors.length > 0) {
    throw new Error(`OpenAPI schemas do not compile:\n  ${built.compileErrors.join('\n  ')}`);
  }
  return built.validators;
}

// ---------------------------------------------------------------------------------------------
// Examples: every `examples` entry of a schema, and every media-type example, must validate.

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'] as const;
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const SUBSCHEMA_SINGLE = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;

/** Calls `visit` for a schema and each subschema in it (not following `$ref`). */
export function walkSchema(schema: unknown, where: string, visit: (node: Dict, where: string) => void): void {
  if (!isDict(schema)) return;
  visit(schema, where);
  for (const k of SUBSCHEMA_MAPS) {
    const map = schema[k];
    if (isDict(map)) for (const [name, sub] of Object.entries(map)) walkSchema(sub, `${where}/${k}/${name}`, visit);
  }
  for (const k of SUBSCHEMA_LISTS) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((sub, i) => walkSchema(sub, `${where}/${k}/${i}`, visit));
  }
  for (const k of SUBSCHEMA_SINGLE) walkSchema(schema[k], `${where}/${k}`, visit);
}

/** Every example of the document that does not validate against its schema, as readable lines. */
export function exampleProblems(model: ApiModel): string[] {
  const { compile } = buildValidators(model);
  const problems: string[] = [];
  const checkValue = (schema: JsonSchema, value: unknown, where: string): void => {
    let fn: ValidateFunction;
    try {
      fn = compile(schema);
    } catch (err) {
      problems.push(`${where}: schema does not compile: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (!fn(value)) problems.push(...formatErrors(fn.errors, `${where} example `));
  };
  const checkSchemaExamples = (schema: unknown, where: string): void => {
    walkSchema(schema, where, (node, at) => {
      if (!Array.isArray(node.examples)) return;
      node.examples.forEach((example, i) => checkValue(node, example, `${at}/examples/${i}`));
    });
  };
  const checkMedia = (content: unknown, where: string): void => {
    if (!isDict(content)) return;
    for (const [media, rawMedia] of Object.entries(content)) {
      if (!isDict(rawMedia)) continue;
      checkSchemaExamples(rawMedia.schema, `${where}/${media}/schema`);
      if (!isDict(rawMedia.schema)) continue;
      const schema = rawMedia.schema;
      if (isDict(rawMedia.examples)) {
        for (const [name, ex] of Object.entries(rawMedia.examples)) {
          if (isDict(ex) && 'value' in ex) checkValue(schema, ex.value, `${where}/${media}/examples/${name}`);
        }
      }
      if ('example' in rawMedia) checkValue(schema, rawMedia.example, `${where}/${media}/example`);
    }
  };

  const doc = model.document as unknown as Dict;
  const components = isDict(doc.components) ? doc.components : {};
  for (const [name, schema] of Object.entries(isDict(components.schemas) ? components.schemas : {})) {
    checkSchemaExamples(schema, `#/components/schemas/${name}`);
  }
  for (const [name, p] of Object.entries(isDict(components.parameters) ? components.parameters : {})) {
    if (isDict(p)) checkSchemaExamples(p.schema, `#/components/parameters/${name}/schema`);
  }
  for (const [name, h] of Object.entries(isDict(components.headers) ? components.headers : {})) {
    if (isDict(h)) checkSchemaExamples(h.schema, `#/components/headers/${name}/schema`);
  }
  for (const [name, r] of Object.entries(isDict(components.responses) ? components.responses : {})) {
    if (isDict(r)) checkMedia(r.content, `#/components/responses/${name}/content`);
  }
  const visitOperation = (op: unknown, where: string): void => {
    if (!isDict(op)) return;
    for (const [i, p] of (Array.isArray(op.parameters) ? op.parameters : []).entries()) {
      if (isDict(p) && isDict(p.schema)) checkSchemaExamples(p.schema, `${where}/parameters/${i}/schema`);
    }
    if (isDict(op.requestBody)) checkMedia(op.requestBody.content, `${where}/requestBody/content`);
    for (const [status, r] of Object.entries(isDict(op.responses) ? op.responses : {})) {
      if (isDict(r)) checkMedia(r.content, `${where}/responses/${status}/content`);
    }
  };
  for (const [root, items] of [
    ['paths', doc.paths],
    ['webhooks', doc.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries(isDict(items) ? items : {})) {
      if (!isDict(item)) continue;
      for (const [i, p] of (Array.isArray(item.parameters) ? item.parameters : []).entries()) {
        if (isDict(p) && isDict(p.schema)) checkSchemaExamples(p.schema, `#/${root}/${path}/parameters/${i}/schema`);
      }
      for (const method of ['get', 'put', 'post', 'delete', 'head', 'patch', 'options']) {
        visitOperation(item[method], `#/${root}/${path}/${method}`);
      }
    }
  }
  return problems;
}
