/**
 * The one redaction function of cloudcheck. Every exchange is redacted when it is recorded
 * (client.ts) and every writer redacts the whole report again before serialising it
 * (report/writers.ts), so a secret that slipped past one layer is caught by the other.
 *
 * Two kinds of rules:
 * - by value: secrets the process knows (the run's keys, keys the budget created, `key`/`secret`
 *   values seen in responses of the key-creating operations) are replaced wherever they appear;
 * - by shape: sensitive header names and JSON field names, sensitive query parameters, and
 *   `Bearer <token>` anywhere in text. These work in a process that never saw the secret
 *   (the reporter) and on bodies truncated mid-JSON (so they are regular expressions on text,
 *   not a JSON walk).
 */

export const REDACTED = '[REDACTED]';

/** Header names and JSON field names whose value is always a secret. Compared lowercased. */
const SENSITIVE_NAMES = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api_key',
  'apikey',
  'cookie',
  'set-cookie',
  'x-webhook-signature',
  'x-amz-security-token',
  'secret',
  'secret_key',
  'secret_access_key',
  'access_key_secret',
  'webhook_secret',
  'signature',
  'token',
  'password',
  'private_key',
  'client_secret',
]);

/** Query parameters that carry a secret (presigned URLs, S3 query auth, keys in URLs). */
const SENSITIVE_QUERY = [
  'signature',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'api_key',
  'apikey',
  'key',
  'secret',
  'token',
  'access_token',
];

/**
 * The labels cloudcheck gives the keys of a load profile in its results (`main`, `alt`,
 * `fresh-0`, …): names of keys, never their values.
 */
const KEY_LABEL = /^(?:main|alt|fresh-\d+)$/;

/**
 * `key` is both a secret (the API key creation response: `{"api_key": {"key": "..."}}`) and a
 * harmless name (object keys in storage listings, key labels of load results). A `key` value is
 * treated as a secret unless it looks like an object path (contains `/`, `.` or a space) or is one
 * of cloudcheck's key labels.
 */
function keyValueIsSecret(value: string): boolean {
  return value.length > 0 && !/[/. ]/.test(value) && !KEY_LABEL.test(value);
}

const knownSecrets = new Set<string>();

/** Registers a value that must never appear in output (API keys, secrets). Short values are ignored to avoid mangling text. */
export function addSecret(value: string | null | undefined): void {
  if (typeof value === 'string' && value.length >= 8) knownSecrets.add(value);
}

export function knownSecretCount(): number {
  return knownSecrets.size;
}

/** For tests only: forget every registered secret. */
export function clearSecrets(): void {
  knownSecrets.clear();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const JSON_FIELD_RE = /"([A-Za-z0-9_-]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
const QUERY_RE = new RegExp(`([?&](?:${SENSITIVE_QUERY.map(escapeRegExp).join('|')})=)[^&#\\s"'<>]*`, 'gi');
const BEARER_RE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
// YAML/`key=value` style lines, as they appear in logs and `serve` output captured by tests.
const ASSIGN_RE =
  /\b(api_key|alt_api_key|secret|secret_access_key|signature|token|password)(\s*[=:]\s*)(?!\[REDACTED\])([^\s"',&]+)/gi;

/** Redacts secrets in a piece of text (a body, a URL, a curl line, a message). */
export function redactString(text: string): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  out = out.replace(JSON_FIELD_RE, (match, name: string, sep: string, value: string) => {
    const lower = name.toLowerCase();
    if (value === REDACTED) return match;
    if (SENSITIVE_NAMES.has(lower) || (lower === 'key' && keyValueIsSecret(value)))
      return `"${name}"${sep}"${REDACTED}"`;
    return match;
  });
  out = out.replace(QUERY_RE, `$1${REDACTED}`);
  out = out.replace(BEARER_RE, `$1 ${REDACTED}`);
  out = out.replace(ASSIGN_RE, `$1$2${REDACTED}`);
  return out;
}

/**
 * Redacts any JSON-like value: strings through redactString, object fields with sensitive names
 * replaced whole. Returns a copy; the input is not changed. This is the function every writer
 * and the recorder call.
 */
export function redact<T>(value: T): T {
  return walk(value, 0) as T;
}

function walk(value: unknown, depth: number): unknown {
  if (depth > 64) return REDACTED;
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
      const lower = name.toLowerCase();
      if (typeof inner === 'string' && (SENSITIVE_NAMES.has(lower) || (lower === 'key' && keyValueIsSecret(inner)))) {
        out[name] = lower === 'authorization' ? redactAuthorization(inner) : REDACTED;
      } else {
        out[name] = walk(inner, depth + 1);
      }
    }
    return out;
  }
  return value;
}

/** Keeps the scheme so a reader sees which kind of credential was sent (or that the header was malformed). */
function redactAuthorization(value: string): string {
  const match = /^(\S+)\s+\S/.exec(value);
  if (match?.[1] && /^[A-Za-z]+$/.test(match[1])) return `${match[1]} ${REDACTED}`;
  return REDACTED;
}
