/**
 * The spec model: loads the hand-written, multi-file OpenAPI 3.1 document (spec/openapi.yaml and
 * spec/openapi/**), and exposes its operations as typed data for the harness, the generated checks
 * and the reference tests. Validators (ajv) live in validators.ts and are re-exported here.
 */
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';
import { AREAS } from './classes.ts';
import type { Area } from './classes.ts';
import { cachedJson, contentKey, packageVersion } from '../src/util/disk-cache.ts';
import type { HttpMethod } from './endpoint-inventory.ts';

export type { HttpMethod } from './endpoint-inventory.ts';

/** A JSON Schema object (2020-12 dialect, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParameterModel {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description?: string;
  schema: JsonSchema;
  /** `x-assumed` on the parameter or its schema: the constraint is a convention (SHOULD). */
  assumed: boolean;
  /** `x-greedy`: a path parameter that may contain `/` (the object key). */
  greedy: boolean;
}

export interface MediaModel {
  contentType: string;
  /** Dereferenced schema (no `$ref` left); undefined when the media type declares none. */
  schema?: JsonSchema;
  /** Named examples of the media type (`examples.<name>.value`). */
  examples: Record<string, unknown>;
}

export interface RequestBodyModel {
  required: boolean;
  content: MediaModel[];
}

export interface HeaderModel {
  name: string;
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface LinkModel {
  /** Name of the link in the response's `links`. */
  name: string;
  /** Operation the link leads to. */
  operationId: string;
  /** Target parameter name to runtime expression (`$response.body#/vps/id`) or literal. */
  parameters: Record<string, string>;
  /** `x-body-fields`: JSON Pointer into the target's request body to runtime expression. */
  bodyFields: Record<string, string>;
  /** `x-variant`: variant of the source operation whose response the expressions read. */
  sourceVariant?: string;
  /** `x-target-variant`: variant of the target operation to call. */
  targetVariant?: string;
  description?: string;
}

export interface ResponseModel {
  /** Status code as the document writes it: `200`, `404`, or a range such as `4XX`. */
  status: string;
  description: string;
  /** `x-assumed` on the response object: the status code is a convention (SHOULD). */
  assumed: boolean;
  assumedReason?: string;
  content: MediaModel[];
  headers: HeaderModel[];
  links: LinkModel[];
}

/** One specification row folded into an operation that several rows share (`x-variants`). */
export interface VariantModel {
  name: string;
  /** The row exactly as the specification writes it, `METHOD /path?query`. */
  row: string;
  /** Query keys whose presence selects this variant ([] for the plain one). */
  query: string[];
  request: string;
  /** Component schema name of the variant's success body. */
  response: string;
  /** `x-body-not-shown` on the entry: the specification does not show this row's success body. */
  bodyNotShown: boolean;
}

export interface OperationModel {
  /** `METHOD /path`, the path exactly as the specification writes it (without query). */
  key: string;
  method: HttpMethod;
  path: string;
  operationId: string;
  area: Area;
  summary: string;
  description?: string;
  /** Path-item and operation parameters merged (operation wins on the same name and location). */
  parameters: ParameterModel[];
  requestBody: RequestBodyModel | null;
  responses: ResponseModel[];
  variants: VariantModel[];
  /**
   * `x-body-not-shown` on the operation: the specification does not show its success body
   * ("Response bodies not shown for: ..."), so a target may answer the resource in another legal
   * shape. For an operation with `x-variants`, each entry carries its own mark.
   */
  bodyNotShown: boolean;
  /** The operation's own dereferenced OpenAPI object, for anything this model does not lift. */
  raw: OpenAPIV3_1.OperationObject;
}

export interface WebhookModel {
  /** Event name (`sms.delivered`). */
  event: string;
  operationId: string;
  area: Area;
  payloadSchema?: JsonSchema;
  headers: ParameterModel[];
}

export interface ApiModel {
  /** The bundled document: one file, `$ref`s only to `#/components/...`. */
  document: OpenAPIV3_1.Document;
  /** The same document with every `$ref` replaced by its target (shared objects, no cycles here). */
  dereferenced: OpenAPIV3_1.Document;
  operations: OperationModel[];
  /** The operation for a method and a path (the path as the specification writes it; a query is ignored). */
  operation(method: string, path: string): OperationModel | undefined;
  operationById(operationId: string): OperationModel | undefined;
  /** Component schemas of the bundled document (with `$ref`s to `#/components/schemas/...`). */
  schemas: Record<string, JsonSchema>;
  webhooks: WebhookModel[];
}

const METHODS: readonly HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];

/** The entry file of the document, resolved from this module (never from the working directory). */
export const OPENAPI_ENTRY = fileURLToPath(new URL('./openapi.yaml', import.meta.url));
/** The files openapi.yaml refers to. */
const OPENAPI_DIR = fileURLToPath(new URL('./openapi', import.meta.url));

let cached: Promise<ApiModel> | undefined;

/** Loads, bundles and dereferences the document once per process. */
export function loadOpenApi(): Promise<ApiModel> {
  cached ??= buildModel().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/**
 * The two functions of @redocly/openapi-core used here, loaded by a name the type checker does not
 * follow: its own types (the module's, or a `typeof` of them) cost 2.3 of the project's 10 s of
 * type checking, on every `npm test`. What bundling returns is checked by the tests of the
 * document (test/spec/openapi.test.ts) whatever the types say.
 */
interface RedoclyBundler {
  createConfig(raw: object): Promise<unknown>;
  bundle(options: { ref: string; config: unknown; dereference: boolean }): Promise<{
    problems: { severity: string; message: string }[];
    bundle: { parsed: unknown };
  }>;
}
const REDOCLY: string = '@redocly/openapi-core';

/**
 * Bundles the split document into one. Redocly's bundler is used (rather than a generic JSON
 * Schema $ref resolver) because it knows the OpenAPI node types: it turns every external $ref into
 * a named entry under `components` (schemas, responses, parameters, headers) with the same name as
 * the entry document gives it, instead of inlining copies, so validators and reports can say
 * "Message" or "NotFound", and it resolves refs the same way the linter does.
 */
export async function bundleOpenApi(entry: string = OPENAPI_ENTRY): Promise<OpenAPIV3_1.Document> {
  // Imported here, not at the top: with the bundle cached (cache.ts), most processes never need it.
  const { bundle, createConfig } = (await import(REDOCLY)) as RedoclyBundler;
  const config = await createConfig({});
  const result = await bundle({ ref: entry, config, dereference: false });
  const unresolved = result.problems.filter((p) => p.severity === 'error');
  if (unresolved.length > 0) {
    throw new Error(`cannot bundle ${entry}: ${unresolved.map((p) => p.message).join('; ')}`);
  }
  return result.bundle.parsed as OpenAPIV3_1.Document;
}

async function buildModel(): Promise<ApiModel> {
  // The bundled document is the same for every process of a run until a spec file changes.
  const key = contentKey([OPENAPI_ENTRY, OPENAPI_DIR], `redocly ${packageVersion('@redocly/openapi-core')}`);
  const document = await cachedJson('openapi-bundle', key, () => bundleOpenApi());
  const dereferenced = dereference(document);
  const operations = collectOperations(dereferenced);
  const byKey = new Map(operations.map((op) => [op.key, op]));
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
  return {
    document,
    dereferenced,
    operations,
    operation: (method, path) => byKey.get(`${method.toUpperCase()} ${path.split('?')[0]}`),
    operationById: (id) => byId.get(id),
    schemas,
    webhooks: collectWebhooks(dereferenced),
  };
}

// ---------------------------------------------------------------------------------------------
// Dereferencing: local `#/...` refs only (the bundle has no other kind).

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`non-local $ref after bundling: ${ref}`);
  let node: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s !== '')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable $ref ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A copy of the document with every `$ref` replaced by its (dereferenced) target. */
export function dereference<T>(document: T): T {
  const done = new Map<string, unknown>();
  const inProgress = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string') {
      const ref = obj.$ref;
      if (done.has(ref)) return done.get(ref);
      // The document has no recursive schemas; a cycle would be a mistake worth hearing about.
      if (inProgress.has(ref)) throw new Error(`recursive $ref ${ref} cannot be dereferenced`);
      inProgress.add(ref);
      const value = walk(resolvePointer(document, ref));
      inProgress.delete(ref);
      done.set(ref, value);
      return value;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) out[k] = walk(v);
    return out;
  };
  return walk(document) as T;
}

// ---------------------------------------------------------------------------------------------
// Lifting the OpenAPI objects into the model.

type Dict = Record<string, unknown>;

function asDict(value: unknown): Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Dict) : {};
}

function optString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(asDict(value))) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

function toParameter(raw: unknown): ParameterModel {
  const p = asDict(raw);
  const schema = asDict(p.schema);
  return {
    name: String(p.name),
    in: p.in as ParameterLocation,
    required: p.required === true,
    description: optString(p.description),
    schema,
    assumed: p['x-assumed'] === true || schema['x-assumed'] === true,
    greedy: p['x-greedy'] === true,
  };
}

function toMedia(content: unknown): MediaModel[] {
  return Object.entries(asDict(content)).map(([contentType, rawMedia]) => {
    const media = asDict(rawMedia);
    const examples: Record<string, unknown> = {};
    for (const [name, ex] of Object.entries(asDict(media.examples))) examples[name] = asDict(ex).value;
    const schema = media.schema === undefined ? undefined : asDict(media.schema);
    return { contentType, schema, examples };
  });
}

function toResponse(status: string, raw: unknown): ResponseModel {
  const r = asDict(raw);
  const headers = Object.entries(asDict(r.headers)).map(([name, h]) => {
    const header = asDict(h);
    return {
      name,
      required: header.required === true,
      schema: asDict(header.schema),
      description: optString(header.description),
    };
  });
  const links = Object.entries(asDict(r.links)).map(([name, l]) => {
    const link = asDict(l);
    return {
      name,
      operationId: String(link.operationId),
      parameters: stringMap(link.parameters),
      bodyFields: stringMap(link['x-body-fields']),
      sourceVariant: optString(link['x-variant']),
      targetVariant: optString(link['x-target-variant']),
      description: optString(link.description),
    };
  });
  return {
    status,
    description: String(r.description ?? ''),
    assumed: r['x-assumed'] === true,
    assumedReason: optString(r['x-assumed-reason']),
    content: toMedia(r.content),
    headers,
    links,
  };
}

function toVariants(raw: unknown): VariantModel[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((v) => {
    const d = asDict(v);
    return {
      name: String(d.name),
      row: String(d.row),
      query: Array.isArray(d.query) ? d.query.map(String) : [],
      request: String(d.request ?? ''),
      response: String(d.response ?? ''),
      bodyNotShown: d['x-body-not-shown'] === true,
    };
  });
}

function areaOf(tags: unknown, where: string): Area {
  const list = Array.isArray(tags) ? tags : [];
  const area = AREAS.find((a) => list.length === 1 && list[0] === a);
  if (!area)
    throw new Error(`${where}: expected exactly one area tag (${AREAS.join(', ')}), got ${JSON.stringify(list)}`);
  return area;
}

function mergeParameters(pathLevel: unknown, opLevel: unknown): ParameterModel[] {
  const merged = new Map<string, ParameterModel>();
  for (const raw of [...(Array.isArray(pathLevel) ? pathLevel : []), ...(Array.isArray(opLevel) ? opLevel : [])]) {
    const p = toParameter(raw);
    merged.set(`${p.in}:${p.name}`, p);
  }
  return [...merged.values()];
}

function collectOperations(doc: OpenAPIV3_1.Document): OperationModel[] {
  const operations: OperationModel[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = asDict(rawItem);
    for (const method of METHODS) {
      const raw = item[method.toLowerCase()];
      if (raw === undefined) continue;
      const op = asDict(raw);
      const key = `${method} ${path}`;
      const body = op.requestBody === undefined ? null : asDict(op.requestBody);
      operations.push({
        key,
        method,
        path,
        operationId: String(op.operationId),
        area: areaOf(op.tags, key),
        summary: String(op.summary ?? ''),
        description: optString(op.description),
        parameters: mergeParameters(item.parameters, op.parameters),
        requestBody: body === null ? null : { required: body.required === true, content: toMedia(body.content) },
        responses: Object.entries(asDict(op.responses)).map(([status, r]) => toResponse(status, r)),
        variants: toVariants(op['x-variants']),
        bodyNotShown: op['x-body-not-shown'] === true,
        raw: raw as OpenAPIV3_1.OperationObject,
      });
    }
  }
  return operations;
}

function collectWebhooks(doc: OpenAPIV3_1.Document): WebhookModel[] {
  return Object.entries(asDict(doc.webhooks)).map(([event, rawItem]) => {
    const post = asDict(asDict(rawItem).post);
    const json = toMedia(asDict(post.requestBody).content).find((m) => m.contentType === 'application/json');
    return {
      event,
      operationId: String(post.operationId),
      area: areaOf(post.tags, `webhook ${event}`),
      payloadSchema: json?.schema,
      headers: (Array.isArray(post.parameters) ? post.parameters : []).map(toParameter),
    };
  });
}

/** The success responses (2xx) of an operation, lowest status first. */
export function successResponses(op: OperationModel): ResponseModel[] {
  return op.responses.filter((r) => /^2/.test(r.status)).sort((a, b) => a.status.localeCompare(b.status));
}

/** The response documented for a status: the exact code, else its range (`4XX`), else `default`. */
export function responseFor(op: OperationModel, status: number | string): ResponseModel | undefined {
  const code = String(status);
  return (
    op.responses.find((r) => r.status === code) ??
    op.responses.find((r) => r.status.toUpperCase() === `${code[0]}XX`) ??
    op.responses.find((r) => r.status === 'default')
  );
}

/** The variant a request selects by its query keys (the most specific match), if the operation has variants. */
export function variantFor(op: OperationModel, queryKeys: Iterable<string>): VariantModel | undefined {
  const present = new Set(queryKeys);
  return op.variants
    .filter((v) => v.query.every((k) => present.has(k)))
    .sort((a, b) => b.query.length - a.query.length)[0];
}

export { compileValidators, buildValidators } from './validators.ts';
export type { Validators, ValidationResult } from './validators.ts';
