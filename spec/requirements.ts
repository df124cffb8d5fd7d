/**
 * Loader of the requirement catalogue (spec/requirements.yaml).
 *
 * The YAML is parsed, validated against spec/requirements.schema.json (JSON Schema 2020-12, ajv)
 * and checked for what a schema cannot express (unique ids). Any problem throws one error that
 * names the file, the entry id (or its position when the id itself is broken) and the problem,
 * so a typo in the catalogue fails loudly at start-up instead of producing an odd report.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type Ajv2020Class from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import type * as Yaml from 'yaml';
import type { Requirement } from './requirement.ts';
import { cachedJsonSync, contentKey, packageVersion } from '../src/util/disk-cache.ts';

export type { Requirement } from './requirement.ts';
export type { ConformanceClass, Level } from './classes.ts';

/** One entry of the file as written: a requirement, possibly retired. */
export interface CatalogueEntry extends Requirement {
  /** Kept so its id is never reused; checks must not point at a retired requirement. */
  retired?: boolean;
}

const CATALOGUE_URL = new URL('./requirements.yaml', import.meta.url);
const SCHEMA_URL = new URL('./requirements.schema.json', import.meta.url);
const DISPLAY_NAME = 'spec/requirements.yaml';

/** Thrown for any problem in the catalogue; `problems` lists every one found, not only the first. */
export class RequirementCatalogueError extends Error {
  readonly problems: string[];
  constructor(origin: string, problems: string[]) {
    super(`${origin} is invalid:\n  - ${problems.join('\n  - ')}`);
    this.name = 'RequirementCatalogueError';
    this.problems = problems;
  }
}

/**
 * The YAML parser and ajv load only when the catalogue is parsed: every process of a run loads the
 * catalogue, from the cache (cache.ts) nearly always, and the two cost about 50 ms to load.
 */
const requireLazily = createRequire(import.meta.url);
const parseYaml = (text: string, options: Yaml.ParseOptions & Yaml.DocumentOptions): unknown =>
  (requireLazily('yaml') as typeof Yaml).parse(text, options);

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
let validator: Validator | undefined;

function compileSchema(): Validator {
  if (!validator) {
    const schema = JSON.parse(readFileSync(fileURLToPath(SCHEMA_URL), 'utf8')) as object;
    // allErrors: report every broken entry in one run rather than one per edit-and-retry.
    const Ajv2020 = (requireLazily('ajv/dist/2020.js') as { default: typeof Ajv2020Class }).default;
    const ajv = new Ajv2020({ allErrors: true });
    validator = ajv.compile(schema) as Validator;
  }
  return validator;
}

/** "entry MSG-SEND-001" when the item has a usable id, else "entry #12" (1-based). */
function entryLabel(doc: unknown, index: number): string {
  const item = Array.isArray(doc) ? (doc[index] as unknown) : undefined;
  const id = item && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id.trim() !== '' ? `entry ${id}` : `entry #${index + 1}`;
}

/** Turns one ajv error into a sentence a catalogue editor can act on. */
function describe(doc: unknown, error: ErrorObject): string | undefined {
  // The if/then wrappers only repeat what the inner error already says.
  if (error.keyword === 'if') return undefined;
  const segments = error.instancePath.split('/').slice(1);
  if (segments.length === 0) return `the file must be a YAML list of requirements (${error.message ?? 'invalid'})`;
  const label = entryLabel(doc, Number(segments[0]));
  const field = segments.slice(1).join('.');
  const where = field ? `${label}, field "${field}"` : label;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'not':
      return `${label}: a MUST requirement must not have "assumption" (only SHOULD entries assume a convention)`;
    case 'required':
      if (params.missingProperty === 'assumption') {
        return `${label}: a SHOULD requirement needs "assumption" (which convention of docs/conventions.md, and why)`;
      }
      return `${where}: missing required field "${String(params.missingProperty)}"`;
    case 'additionalProperties':
      return `${where}: unknown field "${String(params.additionalProperty)}"`;
    case 'enum':
      return `${where}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return `${where}: "${String(valueAt(doc, segments))}" does not match ${String(params.pattern)}`;
    default:
      return `${where}: ${error.message ?? error.keyword}`;
  }
}

function valueAt(doc: unknown, segments: string[]): unknown {
  let value: unknown = doc;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/**
 * Parses and validates catalogue text. Exported for tests and tools that validate a changed
 * catalogue before it is written; `origin` only names the source in error messages.
 */
export function parseRequirements(text: string, origin = DISPLAY_NAME): CatalogueEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    throw new RequirementCatalogueError(origin, [`not valid YAML: ${(error as Error).message}`]);
  }
  const validate = compileSchema();
  if (!validate(doc)) {
    const problems = (validate.errors ?? []).map((e) => describe(doc, e)).filter((p): p is string => p !== undefined);
    throw new RequirementCatalogueError(origin, [...new Set(problems)]);
  }
  const entries = doc as CatalogueEntry[];
  const seen = new Map<string, number>();
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const first = seen.get(entry.id);
    if (first !== undefined) problems.push(`entry ${entry.id}: duplicate id (entries #${first + 1} and #${index + 1})`);
    else seen.set(entry.id, index);
  });
  if (problems.length > 0) throw new RequirementCatalogueError(origin, problems);
  return entries;
}

let catalogue: CatalogueEntry[] | undefined;
let active: CatalogueEntry[] | undefined;
let byId: Map<string, CatalogueEntry> | undefined;

/** Every entry of spec/requirements.yaml, retired ones included (parsed once, then cached). */
export function loadCatalogue(): CatalogueEntry[] {
  if (!catalogue) {
    // Validated once per content (cache.ts): every process of a run loads the catalogue.
    const file = fileURLToPath(CATALOGUE_URL);
    const key = contentKey(
      [file, fileURLToPath(SCHEMA_URL)],
      `yaml ${packageVersion('yaml')} ajv ${packageVersion('ajv')}`,
    );
    catalogue = cachedJsonSync('requirements', key, () => parseRequirements(readFileSync(file, 'utf8')));
    // Frozen: the cache is shared by every caller, so no caller may edit it for the others.
    for (const entry of catalogue) {
      Object.freeze(entry.operations);
      Object.freeze(entry);
    }
    Object.freeze(catalogue);
  }
  return catalogue;
}

/** The requirements in force: every entry not marked `retired`. Checks point at these. */
export function loadRequirements(): Requirement[] {
  active ??= Object.freeze(loadCatalogue().filter((entry) => entry.retired !== true)) as CatalogueEntry[];
  return active;
}

/**
 * The entry with this id, retired ones included (a baseline or an old report may name them),
 * or undefined when the catalogue has no such id.
 */
export function requirementById(id: string): CatalogueEntry | undefined {
  byId ??= new Map(loadCatalogue().map((entry) => [entry.id, entry]));
  return byId.get(id);
}
