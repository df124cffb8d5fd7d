/**
 * How cloudcheck's own HTTP requests reach the target (the harness client and the probe):
 *
 * - through the proxy the standard variables name (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, also in
 *   lowercase), with undici's EnvHttpProxyAgent, as curl and most tools read them;
 * - trusting one more CA (`--ca-cert FILE`) besides Node's bundled roots, for a staging server
 *   with an internal certificate;
 * - with extra request headers (`-H 'Name: value'`), e.g. the key of a gateway in front of staging.
 *
 * The embedded reference server is always reached directly: it listens on this machine's
 * loopback, and a proxy variable set for the rest of the world must not break a run against it.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent } from 'undici';
import type { Dispatcher } from 'undici';

export interface TransportOptions {
  /** PEM file of an extra CA to trust. */
  caCertFile?: string | null;
  /** Ignore proxy variables (the embedded server). */
  direct?: boolean;
}

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => !!env[name]);
}

/** The certificates of a PEM file; throws a one-line Error when there is none. */
export function readCaCert(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * A dispatcher for the options: an Agent, or an EnvHttpProxyAgent when a proxy variable is set.
 * `ca` replaces Node's trust store for a connection, so the extra CA comes with the bundled roots.
 */
export function createDispatcher(options: TransportOptions & { agent?: Agent.Options; env?: NodeJS.ProcessEnv } = {}): Dispatcher {
  const env = options.env ?? process.env;
  const ca = options.caCertFile ? [...rootCertificates, readCaCert(options.caCertFile)] : undefined;
  const agentConnect = (options.agent?.connect ?? {}) as Record<string, unknown>;
  const base: Agent.Options = { ...options.agent, ...(ca ? { connect: { ...agentConnect, ca } } : {}) };
  if (options.direct || !proxyConfigured(env)) return new Agent(base);
  return new EnvHttpProxyAgent({
    ...base,
    httpProxy: env.http_proxy || env.HTTP_PROXY || undefined,
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || undefined,
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
    // Through a proxy, the TLS to the target runs inside the tunnel; the proxy may have an internal certificate too.
    ...(ca ? { requestTls: { ca }, proxyTls: { ca } } : {}),
  });
}

/** Set by `cloudcheck run`/`sweep` in their own process; workers read the variables below. */
let configured: TransportOptions | null = null;

export function configureTransport(options: TransportOptions): void {
  configured = options;
}

/** What `cloudcheck run` hands its workers: CLOUDCHECK_CA_CERT, and CLOUDCHECK_EMBEDDED for a direct connection. */
export function transportOptions(env: NodeJS.ProcessEnv = process.env): TransportOptions {
  if (configured) return configured;
  return { caCertFile: env.CLOUDCHECK_CA_CERT || null, direct: env.CLOUDCHECK_EMBEDDED === '1' };
}

/** A header name as RFC 9110 allows it (a token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name: value` → [lowercased name, value]; throws a one-line Error for anything else. */
export function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  if (!name || !TOKEN.test(name)) throw new Error(`"${line}" is not a header: expected 'Name: value'`);
  const value = line.slice(colon + 1).trim();
  // eslint-disable-next-line no-control-regex -- control characters cannot be sent in a header
  if (/[\x00-\x08\x0A-\x1F\x7F]/.test(value)) throw new Error(`the value of header ${name} holds a control character`);
  const lower = name.toLowerCase();
  if (lower === 'authorization') throw new Error('Authorization cannot be set with --header: cloudcheck sends the run\'s keys itself (--api-key)');
  return [lower, value];
}

/** CLOUDCHECK_HEADER: one `Name: value` per line. */
export function headersFromList(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [name, value] = parseHeaderLine(line);
    headers[name] = value;
  }
  return headers;
}

export function headersFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return headersFromList((env.CLOUDCHECK_HEADER ?? '').split('\n'));
}
