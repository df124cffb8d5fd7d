/**
 * Negative cases derived from an operation's JSON request body and query parameters: each
 * required field missing, each wrong type, each enum violated, each limit violated (length,
 * range, items, pattern, format). One case per (operation, field, violation kind).
 */
import type { QueryValue } from '../harness/client.ts';
import type { ContractOperation, JsonSchema } from './model.ts';
import type { ViolationKind } from './requirement-map.ts';

export interface NegativeCase {
  field: string;
  kind: ViolationKind;
  where: 'body' | 'query';
  /** The constraint is marked `x-assumed` (a convention). */
  assumed: boolean;
  /** What is sent, for the title. */
  describe: string;
  /** Applies the violation to a valid body or query (mutates a copy it returns). */
  apply(
    body: Record<string, unknown>,
    query: Record<string, QueryValue>,
  ): { body: Record<string, unknown>; query: Record<string, QueryValue> };
}

type Dict = Record<string, unknown>;
function isDict(value: unknown): value is Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeOf(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return undefined;
  if (schema.const !== undefined || Array.isArray(schema.enum)) return 'string';
  return undefined;
}

const WRONG: Record<string, { value: unknown; text: string }> = {
  string: { value: 12345, text: 'a number instead of a string' },
  integer: { value: 'not-a-number', text: 'a string instead of an integer' },
  number: { value: 'not-a-number', text: 'a string instead of a number' },
  boolean: { value: 'yes', text: 'a string instead of a boolean' },
  array: { value: { not: 'an array' }, text: 'an object instead of an array' },
  object: { value: ['not', 'an', 'object'], text: 'an array instead of an object' },
};

const BAD_ENUM = 'cc-not-an-allowed-value';

const BAD_FORMAT: Record<string, string> = {
  'date-time': 'not-a-timestamp',
  date: 'not-a-date',
  uri: 'not a uri',
  email: 'not-an-email',
};

function bodyCase(
  field: string,
  kind: ViolationKind,
  assumed: boolean,
  describe: string,
  value: unknown | typeof REMOVE,
): NegativeCase {
  return {
    field,
    kind,
    where: 'body',
    assumed,
    describe,
    apply(body, query) {
      const copy = { ...body };
      if (value === REMOVE) delete copy[field];
      else copy[field] = value;
      return { body: copy, query: { ...query } };
    },
  };
}
const REMOVE = Symbol('remove');

/**
 * A root `oneOf` of objects told apart by a `type` const (VPS actions): the shared `type` field is
 * checked as one enum, and each branch's own fields are checked inside that branch (a `resize`
 * without `size`, a `snapshot` with a numeric `name`...).
 */
function unionCases(branches: JsonSchema[]): NegativeCase[] {
  const values: unknown[] = [];
  for (const b of branches) {
    const t = (b.properties as Record<string, JsonSchema> | undefined)?.type;
    if (t?.const !== undefined) values.push(t.const);
    if (Array.isArray(t?.enum)) values.push(...t.enum);
  }
  const out = bodyCases({ type: 'object', required: ['type'], properties: { type: { type: 'string', enum: values } } });
  for (const b of branches) {
    const props = (b.properties as Record<string, JsonSchema> | undefined) ?? {};
    const typeValue = props.type?.const;
    if (typeValue === undefined) continue;
    const required = new Set((b.required as string[] | undefined) ?? []);
    for (const [field, p] of Object.entries(props)) {
      if (field === 'type') continue;
      const base = { type: typeValue };
      if (required.has(field))
        out.push(
          branchCase(field, 'missing', `with type "${String(typeValue)}" and without its required "${field}"`, base),
        );
      const type = typeOf(p);
      if (type && WRONG[type])
        out.push(
          branchCase(field, 'type', `with type "${String(typeValue)}" and "${field}" as ${WRONG[type].text}`, {
            ...base,
            [field]: WRONG[type].value,
          }),
        );
    }
  }
  return out;
}

function branchCase(field: string, kind: ViolationKind, describe: string, body: Record<string, unknown>): NegativeCase {
  return {
    field,
    kind,
    where: 'body',
    assumed: false,
    describe,
    apply: (_body, query) => ({ body: { ...body }, query: { ...query } }),
  };
}

function isAssumed(schema: JsonSchema | undefined): boolean {
  return !!schema && schema['x-assumed'] === true;
}

/** Negative cases of the JSON body (top-level fields, and the items of top-level arrays). */
export function bodyCases(schema: JsonSchema): NegativeCase[] {
  if (Array.isArray(schema.oneOf) && !schema.properties) return unionCases(schema.oneOf as JsonSchema[]);
  const props = isDict(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: NegativeCase[] = [];
  for (const [field, p] of Object.entries(props)) {
    if (required.has(field)) out.push(bodyCase(field, 'missing', false, `without the required "${field}"`, REMOVE));
    const type = typeOf(p);
    if (type && WRONG[type] && !p.anyOf && !p.oneOf)
      out.push(bodyCase(field, 'type', false, `with "${field}" as ${WRONG[type].text}`, WRONG[type].value));
    if (Array.isArray(p.enum))
      out.push(bodyCase(field, 'enum', isAssumed(p), `with "${field}" not one of ${p.enum.join(', ')}`, BAD_ENUM));
    if (typeof p.minimum === 'number')
      out.push(
        bodyCase(
          field,
          'minimum',
          isAssumed(p),
          `with "${field}" ${p.minimum - 1} (below the minimum ${p.minimum})`,
          p.minimum - 1,
        ),
      );
    if (typeof p.exclusiveMinimum === 'number')
      out.push(
        bodyCase(
          field,
          'minimum',
          isAssumed(p),
          `with "${field}" ${p.exclusiveMinimum} (not above ${p.exclusiveMinimum})`,
          p.exclusiveMinimum,
        ),
      );
    if (typeof p.maximum === 'number')
      out.push(
        bodyCase(
          field,
          'maximum',
          isAssumed(p),
          `with "${field}" ${p.maximum + 1} (above the maximum ${p.maximum})`,
          p.maximum + 1,
        ),
      );
    if (typeof p.maxLength === 'number')
      out.push(
        bodyCase(
          field,
          'maxLength',
          isAssumed(p),
          `with "${field}" of ${p.maxLength + 1} characters (over ${p.maxLength})`,
          'x'.repeat(p.maxLength + 1),
        ),
      );
    if (typeof p.minLength === 'number' && p.minLength > 0)
      out.push(bodyCase(field, 'minLength', isAssumed(p), `with "${field}" empty (minimum length ${p.minLength})`, ''));
    if (typeof p.pattern === 'string')
      out.push(
        bodyCase(field, 'pattern', isAssumed(p), `with "${field}" not matching ${p.pattern}`, patternViolation(field)),
      );
    if (typeof p.format === 'string' && BAD_FORMAT[p.format])
      out.push(bodyCase(field, 'format', isAssumed(p), `with "${field}" not a ${p.format}`, BAD_FORMAT[p.format]));
    if (type === 'array') {
      const items = isDict(p.items) ? p.items : {};
      if (typeof p.minItems === 'number' && p.minItems > 0)
        out.push(bodyCase(field, 'minItems', isAssumed(p), `with "${field}" an empty array`, []));
      if (Array.isArray(items.enum))
        out.push(
          bodyCase(
            field,
            'enum',
            isAssumed(items) || isAssumed(p),
            `with an entry of "${field}" not one of ${items.enum.join(', ')}`,
            [BAD_ENUM],
          ),
        );
      if (typeof items.pattern === 'string')
        out.push(
          bodyCase(field, 'pattern', isAssumed(items), `with an entry of "${field}" not matching ${items.pattern}`, [
            patternViolation(field),
          ]),
        );
    }
  }
  return out;
}

function patternViolation(field: string): string {
  if (/^(to|phone|recipients)$/.test(field)) return '12345';
  if (field === 'countries') return 'usa';
  if (field === 'currency') return 'dollars';
  return '%%% not matching %%%';
}

/** Negative cases of the query parameters (path-independent ones). */
export function queryCases(op: ContractOperation): NegativeCase[] {
  const out: NegativeCase[] = [];
  const make = (
    field: string,
    kind: ViolationKind,
    assumed: boolean,
    describe: string,
    value: QueryValue | typeof REMOVE,
  ): NegativeCase => ({
    field,
    kind,
    where: 'query',
    assumed,
    describe,
    apply(body, query) {
      const copy = { ...query };
      if (value === REMOVE) delete copy[field];
      else copy[field] = value;
      return { body: { ...body }, query: copy };
    },
  });
  for (const p of op.parameters) {
    if (p.in !== 'query') continue;
    const s = p.schema;
    const assumed = p.assumed;
    if (p.required)
      out.push(make(p.name, 'missing', false, `without the required query parameter "${p.name}"`, REMOVE));
    if (Array.isArray(s.enum))
      out.push(make(p.name, 'enum', assumed, `with ?${p.name}= not one of ${s.enum.join(', ')}`, BAD_ENUM));
    if (s.type === 'integer') {
      out.push(make(p.name, 'type', assumed, `with ?${p.name}=abc (not an integer)`, 'abc'));
      if (typeof s.minimum === 'number')
        out.push(
          make(p.name, 'minimum', assumed, `with ?${p.name}=${s.minimum - 1} (below ${s.minimum})`, s.minimum - 1),
        );
      if (typeof s.maximum === 'number')
        out.push(
          make(p.name, 'maximum', assumed, `with ?${p.name}=${s.maximum + 1} (above ${s.maximum})`, s.maximum + 1),
        );
    }
    if (s.type === 'boolean') out.push(make(p.name, 'type', assumed, `with ?${p.name}=maybe (not a boolean)`, 'maybe'));
    if (typeof s.format === 'string' && BAD_FORMAT[s.format])
      out.push(make(p.name, 'format', assumed, `with ?${p.name}= not a ${s.format}`, BAD_FORMAT[s.format]));
  }
  return out;
}

/** Hand-written cases the schema cannot express (the value has the right type but no meaning). */
export function customCases(op: ContractOperation): NegativeCase[] {
  switch (op.key) {
    case 'POST /ssh-keys':
      return [
        bodyCase(
          'public_key',
          'custom',
          false,
          'with "public_key" text that is not a public key',
          'this is not an ssh key',
        ),
      ];
    case 'PUT /account':
      return [bodyCase('timezone', 'custom', false, 'with "timezone" not an IANA zone name', 'Mars/Olympus_Mons')];
    default:
      return [];
  }
}
