/**
 * Valid, realistic request data generated from the JSON schemas of the OpenAPI document.
 *
 * Generic rules follow the schema (enum, const, format, pattern, length, range, minItems,
 * required and a few optional properties). Domain rules, by field name, make the data safe and
 * meaningful against a live target:
 * - recipients (`to`, `recipients`) are the run's succeed test number: nothing real is texted;
 *   numbers that are stored but never texted (`phone`: opt-outs, contacts) are spare numbers of
 *   the same test range, so opting one out never blocks the test numbers;
 * - `region`, `image`, `size` come from the live catalogue (passed in `catalogue`);
 * - names carry the run prefix (`ctx.name`), valid as S3 bucket names;
 * - `public_key` is an OpenSSH ed25519 key derived from the seed and the run (see `unique`);
 * - URLs point at loopback (`http://127.0.0.1:9/...`, the discard port), never a real host;
 * - `expires_at` lies in the future, `ip_whitelist` is loopback;
 * - references to other resources (`payment_method`, `template_id`, `vps_id`...) come from
 *   `refs` (prerequisites.ts creates them).
 *
 * Everything random comes from the `faker` passed in (seeded per check from the run seed), so the
 * same seed gives the same data. Except values the target keeps unique per account and that the
 * API cannot delete: a second run against the same account (every hour on staging) would be
 * refused ("key already added") or would re-register the earlier run's record. Those (`public_key`,
 * `sender_id`) also depend on `unique` (the run id): same seed and same run, same data. Names need
 * nothing of the kind: they carry the run prefix (`name`).
 */
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import type { JsonSchema } from './model.ts';

export interface Catalogue {
  regions: string[];
  images: string[];
  sizes: string[];
}

export interface DataContext {
  faker: Faker;
  testNumbers: { succeed: string };
  /** Unique run-prefixed name (`ctx.name`). */
  name(label?: string): string;
  catalogue?: Catalogue;
  /** Existing resource ids by field name (`payment_method`, `template_id`, `vps_id`, `bucket_name`...). */
  refs?: Record<string, string>;
  /** Fixed "now" for timestamps (tests); defaults to the clock. */
  now?: Date;
  /**
   * Makes the values the target keeps unique and never forgets (SSH public keys, sender ids)
   * differ between runs: the run id (and attempt). Absent: those values depend on the seed alone.
   */
  unique?: string;
}

/** Discard port on loopback: a delivery attempt goes nowhere and leaves the machine never. */
export const LOOPBACK_HOOK_URL = 'http://127.0.0.1:9/hook';

/** Fallback catalogue values when none is known (offline unit tests). */
const FALLBACK_CATALOGUE: Catalogue = { regions: ['nyc1'], images: ['ubuntu-22-04'], sizes: ['s-1vcpu-1gb'] };

type Dict = Record<string, unknown>;
function isDict(value: unknown): value is Dict {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Domain values

export const E164 = /^\+[1-9][0-9]{7,14}$/;
/** S3 bucket naming rules (the DNS-compatible subset): 3..63 lowercase letters, digits, '-' and '.', alphanumeric at both ends. */
export const BUCKET_NAME = /^(?=.{3,63}$)[a-z0-9][a-z0-9.-]*[a-z0-9]$/;

/** A number of the test range that is not one of the three test numbers (for stored, never texted numbers). */
export function spareNumber(faker: Faker): string {
  return `+15005550${faker.number.int({ min: 100, max: 999 })}`;
}

function sshString(data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

/**
 * An OpenSSH ed25519 public key line. The private key is derived from 32 seeded bytes (PKCS#8
 * wrapping of the raw seed), so the same seed gives the same key.
 */
export function sshEd25519PublicKey(faker: Faker, comment = 'cloudcheck', unique?: string): string {
  const drawn = Buffer.from(Array.from({ length: 32 }, () => faker.number.int({ min: 0, max: 255 })));
  // Mixed with `unique` after the draw: the faker advances the same way, so the rest of the data stays the same.
  const seed = unique === undefined ? drawn : createHash('sha256').update(drawn).update(unique).digest();
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { x?: string };
  const raw = Buffer.from(jwk.x ?? '', 'base64url');
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/** An alphanumeric sender id (`CC` + 6 letters or digits, 11 at most), from the seed and `unique`. */
export function senderId(faker: Faker, unique?: string): string {
  const drawn = faker.string.alphanumeric({ length: 6, casing: 'upper' });
  if (unique === undefined) return `CC${drawn}`;
  const digest = BigInt(`0x${createHash('sha256').update(drawn).update(unique).digest('hex').slice(0, 16)}`);
  return `CC${digest.toString(36).toUpperCase().padStart(6, '0').slice(-6)}`;
}

/** Parses an OpenSSH ed25519 public key line; returns the 32 key bytes or null. */
export function parseSshEd25519(line: string): Buffer | null {
  const m = /^ssh-ed25519 ([A-Za-z0-9+/]+={0,2})(?: .*)?$/.exec(line);
  if (!m) return null;
  const blob = Buffer.from(m[1]!, 'base64');
  if (blob.length < 4) return null;
  const typeLen = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + typeLen).toString() !== 'ssh-ed25519') return null;
  const keyLenAt = 4 + typeLen;
  if (blob.length < keyLenAt + 4) return null;
  const keyLen = blob.readUInt32BE(keyLenAt);
  const key = blob.subarray(keyLenAt + 4, keyLenAt + 4 + keyLen);
  return keyLen === 32 && key.length === 32 && blob.length === keyLenAt + 4 + 32 ? key : null;
}

/** Optional fields never generated: they need a resource or a choice the caller makes (sender IDs must be approved, CDN domains are real hosts...). */
const OMIT_OPTIONAL = new Set([
  'from',
  'snapshot_id',
  'ssh_keys',
  'bucket_access',
  'custom_domain',
  'user_data',
  'set_default',
  'expires_in',
  'size',
]);

function catalogueOf(ctx: DataContext): Catalogue {
  return ctx.catalogue ?? FALLBACK_CATALOGUE;
}

function pick<T>(faker: Faker, items: T[]): T {
  return faker.helpers.arrayElement(items);
}

/** A domain value for a field, or undefined to fall back to the schema. */
function domainValue(field: string, schema: JsonSchema, ctx: DataContext, parentField: string | undefined): unknown {
  const type = schema.type;
  const { faker } = ctx;
  const refs = ctx.refs ?? {};
  if (refs[field] !== undefined && type !== 'array') return refs[field];
  const now = ctx.now ?? new Date();
  switch (field) {
    case 'to':
      return ctx.testNumbers.succeed;
    case 'recipients':
      return [ctx.testNumbers.succeed];
    case 'phone':
      return spareNumber(faker);
    case 'name':
      if (parentField === 'contacts' || parentField === 'contact') return faker.person.fullName();
      return ctx.name(refs.$label ?? 'r');
    case 'campaign_name':
      return ctx.name('cmp');
    case 'region':
      return type === 'string' ? pick(faker, catalogueOf(ctx).regions) : undefined;
    case 'image':
      return type === 'string' ? pick(faker, catalogueOf(ctx).images) : undefined;
    case 'size':
      return type === 'string' ? pick(faker, catalogueOf(ctx).sizes) : undefined;
    case 'public_key':
      return sshEd25519PublicKey(faker, 'cloudcheck', ctx.unique);
    case 'url':
    case 'callback_url':
      return LOOPBACK_HOOK_URL;
    case 'expires_at':
      return new Date(now.getTime() + 3 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    case 'ip_whitelist':
      return ['127.0.0.1', '::1'];
    case 'message':
      return `cloudcheck ${faker.lorem.words(3)}`;
    case 'content':
      return 'cloudcheck code {{code}}';
    case 'variables':
      return { code: String(faker.number.int({ min: 100000, max: 999999 })) };
    case 'sender_id':
      return senderId(faker, ctx.unique);
    case 'business_name':
      return `${faker.company.name()} (cloudcheck)`;
    case 'use_case':
      return 'One-time passwords for cloudcheck';
    case 'countries':
      return ['US'];
    case 'currency':
      return 'USD';
    case 'timezone':
      return pick(faker, ['UTC', 'Europe/Berlin', 'America/New_York']);
    case 'permissions':
      return ['read', 'write'];
    case 'notification_methods':
      return ['email'];
    case 'events':
      return ['sms.delivered', 'sms.failed'];
    case 'email':
      return faker.internet.email({ provider: 'example.org' }).toLowerCase();
    case 'token':
      return 'tok_visa';
    case 'public':
      // Never make anything public on a real target.
      return false;
    case 'backups':
      // Backups may be billed on a real target.
      return false;
    case 'tags':
      return ['cloudcheck'];
    case 'paths':
      return ['/index.html'];
    case 'cache_ttl':
      return 3600;
    case 'amount':
      return 10;
    case 'threshold':
      return faker.number.int({ min: 50, max: 500 });
    case 'budget_limit':
      return faker.number.int({ min: 10, max: 1000 });
    case 'secret':
      return faker.string.hexadecimal({ length: 32, casing: 'lower', prefix: '' });
    case 'Version':
      return '2012-10-17';
    case 'Statement':
      return [
        {
          Effect: 'Allow',
          Principal: '*',
          Action: ['s3:GetObject'],
          Resource: [`arn:aws:s3:::${refs.bucket_name ?? 'bucket'}/*`],
        },
      ];
    case 'description':
      return `cloudcheck ${faker.lorem.sentence(4)}`;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Generic generation

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function stringFor(schema: JsonSchema, ctx: DataContext): string {
  const { faker } = ctx;
  const now = ctx.now ?? new Date();
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (schema.const !== undefined) return String(schema.const);
  switch (schema.format) {
    case 'date-time':
      return new Date(now.getTime() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    case 'date':
      return isoDate(now);
    case 'email':
      return faker.internet.email({ provider: 'example.org' }).toLowerCase();
    case 'uri':
    case 'url':
      return LOOPBACK_HOOK_URL;
    default:
      break;
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(min, 12);
  if (typeof schema.pattern === 'string') {
    const re = new RegExp(schema.pattern);
    for (let i = 0; i < 5; i++) {
      const candidate = faker.helpers.fromRegExp(schema.pattern.replace(/^\^/, '').replace(/\$$/, ''));
      if (re.test(candidate) && candidate.length >= min && candidate.length <= max) return candidate;
    }
  }
  const length = Math.min(max, Math.max(min, 8));
  return faker.string.alphanumeric({ length, casing: 'lower' });
}

function numberFor(schema: JsonSchema, ctx: DataContext, integer: boolean): number {
  let min = typeof schema.minimum === 'number' ? schema.minimum : 1;
  let max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 100);
  if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min, schema.exclusiveMinimum + 1);
  if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max, schema.exclusiveMaximum - 1);
  // Small, realistic values near the bottom of the range (whole numbers even where decimals are allowed).
  const top = Math.min(max, min + (integer ? 9 : 99));
  return ctx.faker.number.int({ min: Math.ceil(min), max: Math.floor(top) });
}

function typeOf(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null');
  if (isDict(schema.properties)) return 'object';
  if (isDict(schema.items)) return 'array';
  return undefined;
}

/**
 * A valid value for `schema`. `field` is the property name the value goes into (drives the
 * domain rules); `parentField` the name of the enclosing property (array of contacts...).
 */
export function generateValue(schema: JsonSchema, ctx: DataContext, field?: string, parentField?: string): unknown {
  if (field !== undefined) {
    const domain = domainValue(field, schema, ctx, parentField);
    if (domain !== undefined) return domain;
  }
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    return generateValue({ ...rest, ...branches[0]! }, ctx, field, parentField);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'string':
      return stringFor(schema, ctx);
    case 'integer':
      return numberFor(schema, ctx, true);
    case 'number':
      return numberFor(schema, ctx, false);
    case 'boolean':
      return false;
    case 'array': {
      const items = isDict(schema.items) ? schema.items : {};
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: count }, () => generateValue(items, ctx, undefined, field));
    }
    case 'object':
      return generateObject(schema, ctx, field ?? parentField);
    default:
      return stringFor(schema, ctx);
  }
}

function generateObject(schema: JsonSchema, ctx: DataContext, field?: string): Dict {
  const props = isDict(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Dict = {};
  for (const name of Object.keys(props)) {
    if (required.has(name)) out[name] = generateValue(props[name]!, ctx, name, field);
  }
  // A few optional fields (at most three), chosen by the seeded faker; some are never generated.
  const optional = Object.keys(props).filter((n) => !required.has(n) && !OMIT_OPTIONAL.has(n));
  const chosen = optional.length <= 3 ? optional : ctx.faker.helpers.arrayElements(optional, 3);
  for (const name of optional) {
    if (chosen.includes(name)) out[name] = generateValue(props[name]!, ctx, name, field);
  }
  if (Object.keys(props).length === 0 && isDict(schema.additionalProperties)) {
    out.key = generateValue(schema.additionalProperties, ctx, 'key', field);
  }
  return out;
}
