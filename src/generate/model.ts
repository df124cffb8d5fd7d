/**
 * The slice of the OpenAPI model the generated checks need, loaded fast.
 *
 * spec/model.ts bundles the split document with Redocly (several seconds: the import alone is
 * about two). Playwright loads every contract suite in the runner and again in each worker of
 * each project, so the operations are kept as JSON in the disk cache (src/util/disk-cache.ts), keyed by
 * the contents of the document's files: a changed document is never read from a stale entry.
 *
 * Validators are compiled lazily, one schema at a time, from the dereferenced schemas (only the
 * responses a worker actually checks get compiled).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type addFormatsFn from 'ajv-formats';
import { cachedJson, contentKey } from '../util/disk-cache.ts';
import { loadDependency } from '../harness/errors.ts';
import type { JsonSchema, OperationModel } from '../../spec/model.ts';

export type {
  JsonSchema,
  OperationModel,
  ParameterModel,
  ResponseModel,
  LinkModel,
  VariantModel,
} from '../../spec/model.ts';

/** An operation without the raw OpenAPI object (not needed, and large). */
export type ContractOperation = Omit<OperationModel, 'raw'>;

export interface ContractModel {
  operations: ContractOperation[];
  /** Component schemas, dereferenced (`Error`, `PartUploaded`, ...). */
  schemas: Record<string, JsonSchema>;
}

/** The document's files (the entry and its split parts): the contract model's cache key. */
const DOCUMENT = ['openapi.yaml', 'openapi'].map((part) =>
  fileURLToPath(new URL(`../../spec/${part}`, import.meta.url)),
);
/** Raised when the model's shape changes, so that no process reads an entry of the old one. */
const MODEL_VERSION = 2;

async function buildFromDocument(): Promise<ContractModel> {
  const { loadOpenApi } = await import('../../spec/model.ts');
  const model = await loadOpenApi();
  const operations = model.operations.map(({ raw: _raw, ...rest }) => rest);
  const schemas = (model.dereferenced.components?.schemas ?? {}) as Record<string, JsonSchema>;
  return { operations, schemas };
}

let cached: Promise<ContractModel> | undefined;

/** The contract model, from the disk cache (src/util/disk-cache.ts) when the document has not changed. */
export function loadContractModel(): Promise<ContractModel> {
  cached ??= cachedJson('contract-model', contentKey(DOCUMENT, `contract model v${MODEL_VERSION}`), buildFromDocument);
  return cached;
}

// ---------------------------------------------------------------------------------------------
// Validation

/**
 * ajv and its formats load with the first validation (both CommonJS, so synchronously): the
 * runner loads this module with the suite files but validates nothing, and loading them costs
 * about 50 ms of CPU there in every run.
 */
const requireLazily = createRequire(import.meta.url);

let ajv: Ajv2020 | undefined;
function getAjv(): Ajv2020 {
  if (!ajv) {
    const Ajv = loadDependency('ajv', () => requireLazily('ajv/dist/2020.js') as { default: typeof Ajv2020 }).default;
    const addFormats = loadDependency(
      'ajv-formats',
      () => requireLazily('ajv-formats') as { default: typeof addFormatsFn },
    ).default;
    // The same dialect and options as spec/validators.ts; not strict, and the schemas not held to
    // the draft's meta-schema, because the document's own lint (spec/validators.ts, npm run
    // spec:lint) is where those are caught: compiling the meta-schema cost each worker 40 ms.
    ajv = new Ajv({
      strict: false,
      validateSchema: false,
      allErrors: true,
      allowUnionTypes: true,
      discriminator: true,
    });
    addFormats(ajv);
  }
  return ajv;
}

const compiled = new WeakMap<object, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = getAjv().compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

export function formatAjvErrors(errors: ErrorObject[] | null | undefined, limit = 6): string[] {
  return (errors ?? []).slice(0, limit).map((e) => {
    const params = e.params as Record<string, unknown>;
    const extra = Array.isArray(params.allowedValues)
      ? ` (${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
      : typeof params.additionalProperty === 'string'
        ? ` (${params.additionalProperty})`
        : '';
    return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
  });
}

/** Validates a value; returns the ajv errors as sentences (empty when valid). */
export function validateAgainst(schema: JsonSchema, value: unknown): string[] {
  const fn = compileSchema(schema);
  return fn(value) ? [] : formatAjvErrors(fn.errors);
}

type Dict = Record<string, unknown>;
function isDict(value: unknown): value is Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True when the schema or any subschema is marked `x-assumed` (a convention, not the spec). */
export function hasAssumption(schema: unknown, seen = new Set<unknown>()): boolean {
  if (!isDict(schema) && !Array.isArray(schema)) return false;
  if (seen.has(schema)) return false;
  seen.add(schema);
  if (isDict(schema) && schema['x-assumed'] === true) return true;
  const values = Array.isArray(schema) ? schema : Object.values(schema);
  return values.some((v) => hasAssumption(v, seen));
}

const relaxedCache = new WeakMap<object, JsonSchema>();
/**
 * The schema with every `x-assumed` subschema replaced by `{}` (anything): what remains is what
 * the specification itself shows. A `required` naming an assumed property stays (the property
 * must still be there only when the parent is spec-stated and lists it), except when the
 * property schema is assumed wholesale: then it is dropped from `required`.
 */
export function relaxAssumptions(schema: JsonSchema): JsonSchema {
  const hit = relaxedCache.get(schema);
  if (hit) return hit;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isDict(node)) return node;
    if (node['x-assumed'] === true) return {};
    const out: Dict = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    if (isDict(node.properties) && Array.isArray(node.required)) {
      const props = node.properties;
      out.required = (node.required as string[]).filter(
        (name) => !(isDict(props[name]) && props[name]['x-assumed'] === true),
      );
    }
    return out;
  };
  const relaxed = walk(schema) as JsonSchema;
  relaxedCache.set(schema, relaxed);
  return relaxed;
}
