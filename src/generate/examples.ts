/**
 * `cloudcheck run --examples N`: property-based inputs for the generated positive checks.
 *
 * With N = 1 (the default) nothing here runs: each operation's positive check sends its one seeded
 * example (requests.ts `buildValid`) and the run costs what it always did. With N > 1 the positive
 * check of an operation with fields to vary (EXAMPLE_FIELDS, and the query parameters with listed
 * values the document has) sends N − 1 more valid requests: its one example with those fields
 * drawn instead. The boundary examples come first (every field at its maximum in
 * ASCII, at its maximum in other scripts, at its minimum), then inputs drawn at random, all from
 * one seed (the run's `--seed` and the check id). A failure is shrunk to a minimal failing input.
 *
 * Why fast-check rather than more draws of the seeded faker that data.ts uses: fast-check shrinks
 * (a failure at a 1,600-character message becomes the shortest failing message, not a wall of
 * text), runs fixed examples before random ones and shrinks them too, and replays a run from its
 * seed. Hand-written, that is a second property-testing library to maintain; fast-check is already
 * the engine of `cloudcheck explore` (src/explore/).
 *
 * Which fields vary, and within what, is decided here and not read off the schema alone: a value the
 * target must accept has to be valid per the specification, and a check that fails a conformant
 * server is the worst bug this suite can have. So:
 * - `message` varies only for POST /sms/send, up to the 1,600 characters the specification states
 *   for a single send (the document's `maxLength`); the bulk send's text is not given a limit by
 *   the specification, so it keeps its example. Characters come from the Basic Multilingual Plane
 *   only: whether a character outside it counts once (a code point) or twice (UTF-16 units) is not
 *   stated, and at the 1,600 boundary the two readings disagree. No control characters, and a
 *   text never starts with a space (a conformant server may trim and call an all-blank text empty).
 * - names keep the run prefix first (`cc-<run>-...`, so `cloudcheck sweep` finds a leftover) and
 *   end in a drawn suffix of letters of several scripts, digits and `-`, 63 characters in all at
 *   most (the specification gives names no length; 63 is what every name of a run keeps to).
 *   Only names of resources the run deletes again (projects, API keys) vary: templates, contact
 *   lists, SSH keys and access keys have no DELETE, and 20 of each per run would pile up on a
 *   shared target. VPS and volumes are not created again: they are billed.
 * - integer query parameters vary within the document's bounds (`per_page` 1..100), and
 *   `max_keys` within 1..1000, S3's own cap (the document states no maximum).
 * - query parameters whose values the specification lists (`group_by`, `interval`, `service`,
 *   `status` of invoices...) take each of them or are left out; found in the document (an `enum`
 *   not marked `x-assumed`), so every operation with one draws.
 * - object keys are the run's prefix and one to five `/`-separated segments of letters, digits,
 *   `-`, `_` and `.`, each starting with a letter (never `.` or `..`, never an empty segment).
 * Everything else (recipients, the catalogue values, references to other resources) keeps the
 * seeded example's value: recipients stay the run's test numbers, so no real phone is texted.
 */
import fc from 'fast-check';
import { CloudcheckError } from '../harness/errors.ts';
import type { ContractOperation, JsonSchema } from './model.ts';
import { shortText } from '../harness/body-shape.ts';

/** A text as drawn: `palette` cycled to `length` characters (see `textOf`). */
export interface DrawnText {
  length: number;
  palette: string;
}
/** A number, a text, an object key's segments, a value of a listed set, or null: the query parameter left out. */
export type DrawnValue = number | boolean | string | null | DrawnText | DrawnText[];
/** One drawn input: a value per varied field, by field id (`query.per_page`, `body.message`, `key`). */
export type DrawnInput = Record<string, DrawnValue>;

/** A field of an operation's request that `--examples` varies (see the module comment for why these). */
export type VariedField =
  /** An integer query parameter, within the document's bounds (`max` where the document has none). */
  | { where: 'query'; name: string; max?: number }
  /** A query parameter whose values the specification lists (`group_by`, `interval`, `type`...): one of them, or left out when optional. */
  | { where: 'query'; name: string; kind: 'choice' }
  /** A free text (`maxLength` from the document, or `max`) or a name (run prefix + drawn suffix). */
  | { where: 'body'; name: string; kind: 'text' | 'label'; max?: number }
  /** The object key of an upload: run prefix + `/`-separated segments. */
  | { where: 'key' };

/**
 * The operations whose positive check draws inputs with `--examples`, keyed like POSITIVE_MUST
 * (`variantKey`: the plain upload is the operation's own key). Every one is an operation the
 * default run already sends a valid request to, whose effects the run removes again (or test-mode
 * messages, which the API cannot delete and which cost nothing).
 */
export const EXAMPLE_FIELDS: Readonly<Record<string, readonly VariedField[]>> = {
  'POST /sms/send': [{ where: 'body', name: 'message', kind: 'text' }],
  'GET /sms/messages': [{ where: 'query', name: 'per_page' }],
  'GET /vps': [{ where: 'query', name: 'per_page' }],
  'GET /account/billing/history': [{ where: 'query', name: 'per_page' }],
  'GET /storage/buckets/{bucket_name}/objects': [{ where: 'query', name: 'max_keys', max: 1000 }],
  'POST /projects': [
    { where: 'body', name: 'name', kind: 'label' },
    { where: 'body', name: 'description', kind: 'text', max: 200 },
  ],
  'PUT /projects/{project_id}': [
    { where: 'body', name: 'name', kind: 'label' },
    { where: 'body', name: 'description', kind: 'text', max: 200 },
  ],
  'POST /account/api-keys': [{ where: 'body', name: 'name', kind: 'label' }],
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}': [{ where: 'key' }],
};

/** Operations that send SMS: with `--live-sms` they would text for real, so they draw nothing then. */
export const SENDS_SMS: ReadonlySet<string> = new Set(['POST /sms/send']);

/** Every name a check gives stays within this many characters (fixtures.ts `name`: bucket-safe). */
export const NAME_MAX = 63;
/**
 * The longest drawn suffix of a name: `ctx.name('ex')` is about 35 characters (`cc-` and a run id
 * of 20, then `-ex-`, the worker, a counter and 3 random characters), so prefix, `-` and suffix
 * stay within NAME_MAX (contract.ts refuses, as cloudcheck's own error, a name that would not).
 */
export const LABEL_SUFFIX_MAX = 20;
/** Segments of a drawn object key, and characters per segment. */
const KEY_SEGMENTS_MAX = 5;
const KEY_SEGMENT_MAX = 16;

// Alphabets. Letters first: a palette starts with one, and fast-check shrinks towards the first
// entry, so a shrunk text is ASCII unless other scripts are what makes it fail.
const ASCII_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Letters of other scripts, all in the Basic Multilingual Plane, all precomposed (NFC-stable). */
const OTHER_LETTERS = 'éüßñøçåÉÖαβγδλΩждяЖЯשאعربक中文字日本한국ก';
const DIGITS = '0123456789';
const TEXT_EXTRA = ' .,;:!?\'"()-+*/=@#%&_€£¥✓';

const TEXT_START = [...ASCII_LETTERS, ...OTHER_LETTERS, ...DIGITS];
const TEXT_CHARS = [...ASCII_LETTERS, ...DIGITS, ...TEXT_EXTRA, ...OTHER_LETTERS];
const LABEL_START = [...ASCII_LETTERS.slice(0, 26), ...OTHER_LETTERS];
const LABEL_CHARS = [...ASCII_LETTERS.slice(0, 26), ...DIGITS, '-', ...OTHER_LETTERS];
const KEY_START = [...ASCII_LETTERS, ...OTHER_LETTERS];
const KEY_CHARS = [...ASCII_LETTERS, ...DIGITS, '-', '_', '.', ...OTHER_LETTERS];

/** The boundary palettes: plain ASCII, and one letter of each other script (plus ASCII to start). */
const ASCII_PALETTE = 'cloudchk';
const UNICODE_PALETTE = 'aé中жαשक€';
const UNICODE_LABEL_PALETTE = 'aé中жαשक';
const UNICODE_KEY_PALETTE = 'aé中ж_α.ש';

/** The characters of a drawn text: its palette cycled to its length. */
export function textOf(text: DrawnText): string {
  const chars = [...text.palette];
  let out = '';
  for (let i = 0; i < text.length; i++) out += chars[i % chars.length];
  return out;
}

/**
 * A text as a palette (up to 8 characters, the first a letter or digit) cycled to a length. Drawn
 * this way rather than as one free string: shrinking then halves the length and simplifies a short
 * palette, a few dozen requests, instead of trying 1,600 characters one at a time (each try is a
 * request to the target).
 */
function textArbitrary(
  start: readonly string[],
  chars: readonly string[],
  minLength: number,
  maxLength: number,
): fc.Arbitrary<DrawnText> {
  return fc
    .record({
      length: fc.integer({ min: minLength, max: maxLength }),
      first: fc.constantFrom(...start),
      rest: fc.array(fc.constantFrom(...chars), { maxLength: 7 }),
    })
    .map(
      ({ length, first, rest }) => ({ length, palette: [first, ...rest].join('') }),
      // Unmapping lets fast-check shrink the boundary examples too (they are given as DrawnText).
      (value) => {
        const text = value as DrawnText;
        const [first = '', ...rest] = [...text.palette];
        return { length: text.length, first, rest };
      },
    );
}

function keyArbitrary(): fc.Arbitrary<DrawnText[]> {
  return fc.array(textArbitrary(KEY_START, KEY_CHARS, 1, KEY_SEGMENT_MAX), {
    minLength: 1,
    maxLength: KEY_SEGMENTS_MAX,
  });
}

function numberOf(schema: JsonSchema | undefined, key: 'minimum' | 'maximum' | 'maxLength'): number | undefined {
  const value = schema?.[key];
  return typeof value === 'number' ? value : undefined;
}

function bodySchema(op: ContractOperation): JsonSchema | undefined {
  return op.requestBody?.content.find((c) => /json/.test(c.contentType))?.schema;
}

function propertySchema(op: ContractOperation, name: string): JsonSchema | undefined {
  const properties = bodySchema(op)?.properties as Record<string, JsonSchema> | undefined;
  return properties?.[name];
}

/** How one field is drawn: its id, its arbitrary and its boundaries (max ASCII, max other scripts, min). */
export interface FieldPlan {
  id: string;
  field: VariedField;
  arbitrary: fc.Arbitrary<DrawnValue>;
  boundaries: DrawnValue[];
}

/**
 * The query parameters of an operation whose values the specification lists: an `enum` (or a
 * boolean) in the document not marked `x-assumed`. Any of them is a valid request.
 */
export function choiceFields(op: ContractOperation): VariedField[] {
  return op.parameters
    .filter((p) => p.in === 'query' && !p.assumed && (Array.isArray(p.schema.enum) || p.schema.type === 'boolean'))
    .map((p) => ({ where: 'query', name: p.name, kind: 'choice' }));
}

/** The fields `--examples` varies for an operation (`key` as in EXAMPLE_FIELDS): the table's, then the listed choices. */
export function variedFields(op: ContractOperation, key: string): VariedField[] {
  const listed = EXAMPLE_FIELDS[key] ?? [];
  // Only the plain request of an operation with variants (the upload, not its part upload).
  const choices =
    key === op.key
      ? choiceFields(op).filter(
          (c) => !listed.some((f) => f.where === 'query' && f.name === (c as { name: string }).name),
        )
      : [];
  return [...listed, ...choices];
}

/**
 * The drawing plan of an operation's varied fields, bounds read from the document; [] when nothing
 * varies. Every boundary must be a value its arbitrary could draw: fast-check shrinks only those.
 */
export function planFields(op: ContractOperation, key: string): FieldPlan[] {
  const plans = variedFields(op, key).map((field) => planField(op, key, field));
  for (const plan of plans) {
    for (const boundary of plan.boundaries) {
      if (!plan.arbitrary.canShrinkWithoutContext(boundary))
        throw new CloudcheckError(
          `--examples: a boundary of ${key} ${plan.id} is not a value its arbitrary draws: ${JSON.stringify(boundary)}`,
        );
    }
  }
  return plans;
}

function planField(op: ContractOperation, key: string, field: VariedField): FieldPlan {
  if (field.where === 'query' && 'kind' in field) {
    const param = op.parameters.find((p) => p.in === 'query' && p.name === field.name);
    const values: Array<string | boolean> =
      param?.schema.type === 'boolean' ? [false, true] : ((param?.schema.enum as string[] | undefined) ?? []);
    if (!param || values.length === 0)
      throw new CloudcheckError(
        `--examples: ${key} has no query parameter ${field.name} with listed values in the document`,
      );
    const one = fc.constantFrom(...values);
    // Left out is a valid request too, when the parameter is optional (fast-check shrinks towards it).
    const arbitrary: fc.Arbitrary<DrawnValue> = param.required ? one : fc.option(one, { nil: null });
    return { id: `query.${field.name}`, field, arbitrary, boundaries: [values[values.length - 1]!, values[0]!] };
  }
  if (field.where === 'query') {
    const schema = op.parameters.find((p) => p.in === 'query' && p.name === field.name)?.schema;
    const min = numberOf(schema, 'minimum') ?? 1;
    const max = numberOf(schema, 'maximum') ?? field.max;
    if (schema === undefined || max === undefined)
      throw new CloudcheckError(
        `--examples: ${key} has no integer query parameter ${field.name} with bounds in the document`,
      );
    return { id: `query.${field.name}`, field, arbitrary: fc.integer({ min, max }), boundaries: [max, min] };
  }
  if (field.where === 'key') {
    const full = (palette: string): DrawnText[] =>
      Array.from({ length: KEY_SEGMENTS_MAX }, () => ({ length: KEY_SEGMENT_MAX, palette }));
    return {
      id: 'key',
      field,
      arbitrary: keyArbitrary(),
      boundaries: [full(ASCII_PALETTE), full(UNICODE_KEY_PALETTE), [{ length: 1, palette: 'a' }]],
    };
  }
  const schema = propertySchema(op, field.name);
  if (schema === undefined)
    throw new CloudcheckError(`--examples: ${key} has no body field ${field.name} in the document`);
  if (field.kind === 'label') return textPlan(field, LABEL_START, LABEL_CHARS, LABEL_SUFFIX_MAX, UNICODE_LABEL_PALETTE);
  const max = numberOf(schema, 'maxLength') ?? field.max;
  if (max === undefined)
    throw new CloudcheckError(`--examples: ${key} ${field.name} has no maxLength in the document and none is given`);
  return textPlan(field, TEXT_START, TEXT_CHARS, max, UNICODE_PALETTE);
}

/** A text field of the body: drawn from its characters, the longest in ASCII and in `unicode` and the shortest first. */
function textPlan(
  field: Extract<VariedField, { where: 'body' }>,
  start: readonly string[],
  chars: readonly string[],
  max: number,
  unicode: string,
): FieldPlan {
  return {
    id: `body.${field.name}`,
    field,
    arbitrary: textArbitrary(start, chars, 1, max),
    boundaries: [
      { length: max, palette: ASCII_PALETTE },
      { length: max, palette: unicode },
      { length: 1, palette: 'a' },
    ],
  };
}

/** The boundary inputs: the i-th boundary of every field together, first all maxima, then the minima; no duplicates. */
export function boundaryInputs(plans: readonly FieldPlan[]): DrawnInput[] {
  const count = Math.max(0, ...plans.map((p) => p.boundaries.length));
  const seen = new Set<string>();
  const out: DrawnInput[] = [];
  for (let i = 0; i < count; i++) {
    const input: DrawnInput = Object.fromEntries(
      plans.map((p) => [p.id, p.boundaries[Math.min(i, p.boundaries.length - 1)]!]),
    );
    const key = JSON.stringify(input);
    if (!seen.has(key)) out.push(input);
    seen.add(key);
  }
  return out;
}

export function inputArbitrary(plans: readonly FieldPlan[]): fc.Arbitrary<DrawnInput> {
  return fc.record(Object.fromEntries(plans.map((p) => [p.id, p.arbitrary])));
}

/** A short, readable account of a drawn input (the failure message names the shrunk one). */
export function describeInput(input: DrawnInput): string {
  return Object.entries(input)
    .map(([id, value]) => {
      if (value === null) return `${id} left out`;
      if (typeof value !== 'object') return `${id}=${value}`;
      if (Array.isArray(value)) {
        const key = value.map(textOf).join('/');
        return `${id}: ${value.length} segment${value.length === 1 ? '' : 's'} (${[...key].length} characters, ${Buffer.byteLength(key)} UTF-8 bytes) ${JSON.stringify(short(key))}`;
      }
      const text = textOf(value);
      return `${id}: ${value.length} character${value.length === 1 ? '' : 's'} (${Buffer.byteLength(text)} UTF-8 bytes), palette ${JSON.stringify(value.palette)}: ${JSON.stringify(short(text))}`;
    })
    .join('; ');
}

const short = (text: string): string => shortText(text, 60);

/** A 32-bit seed for one check: the run's seed and the check id (FNV-1a), so neighbouring checks differ. */
export function seedOf(runSeed: number, checkId: string): number {
  let h = 2166136261;
  for (const c of `${runSeed}:${checkId}`) {
    h ^= c.charCodeAt(0);
    h = Math.imul(h, 16777619);
  }
  return h | 0;
}

/**
 * Requests a check may spend on shrinking one failure. Past it, the shrink candidates not yet
 * tried are taken as passing, without a request: the input reported still failed for real, it is
 * only maybe not the smallest. Shrinking a drawn text takes a few dozen requests, far below this.
 */
export const SHRINK_REQUESTS = 80;

/** What one drawn input did: nothing wrong, or why it failed. */
export type Verdict = { ok: true } | { ok: false; message: string };

export interface ExamplesOutcome {
  /** The inputs sent, in order (boundaries first, then random ones, then shrink candidates). */
  tried: DrawnInput[];
  /** Inputs tried before the first failure (boundaries and random draws). */
  drawn: number;
  failure?: { input: DrawnInput; message: string; firstInput: DrawnInput; shrinks: number; shrinkBudgetSpent: boolean };
  seed: number;
}

/**
 * Sends `count` inputs (boundaries first) through `attempt`, shrinks the first failure, and says
 * what happened. `attempt` sends one request and judges it; an error it throws that is not about
 * the target (`isAbort`: the harness's environment and suite errors) stops everything and is
 * rethrown, never shrunk as if the target had failed.
 */
export async function runExamples(options: {
  plans: readonly FieldPlan[];
  count: number;
  seed: number;
  attempt: (input: DrawnInput) => Promise<Verdict>;
  isAbort: (error: unknown) => boolean;
}): Promise<ExamplesOutcome> {
  const { plans, count, seed } = options;
  const tried: DrawnInput[] = [];
  if (count <= 0 || plans.length === 0) return { tried, drawn: 0, seed };
  let aborted: { error: unknown } | undefined;
  let firstFailure: DrawnInput | undefined;
  let drawn = 0;
  let shrinkRequests = 0;
  let shrinkBudgetSpent = false;
  const lastFailure: { input?: DrawnInput; message?: string } = {};
  const property = fc.asyncProperty(inputArbitrary(plans), async (input) => {
    if (aborted) return true;
    if (firstFailure) {
      if (shrinkRequests >= SHRINK_REQUESTS) {
        shrinkBudgetSpent = true;
        return true;
      }
      shrinkRequests++;
    } else {
      drawn++;
    }
    tried.push(input);
    let verdict: Verdict;
    try {
      verdict = await options.attempt(input);
    } catch (error) {
      if (options.isAbort(error)) {
        aborted = { error };
        return true;
      }
      verdict = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    if (verdict.ok) return true;
    firstFailure ??= input;
    lastFailure.input = input;
    lastFailure.message = verdict.message;
    return false;
  });
  const result = await fc.check(property, {
    seed,
    numRuns: count,
    examples: boundaryInputs(plans).map((input) => [input] as [DrawnInput]),
  });
  if (aborted) throw aborted.error;
  const outcome: ExamplesOutcome = { tried, drawn, seed };
  if (result.failed && lastFailure.input && firstFailure) {
    outcome.failure = {
      input: lastFailure.input,
      message: lastFailure.message ?? '',
      firstInput: firstFailure,
      shrinks: shrinkRequests,
      shrinkBudgetSpent,
    };
  }
  return outcome;
}
