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
import { createRequire } from 'node:module';
import { rootCertificates } from 'node:tls';
import type { Agent, Dispatcher } from 'undici';
import type * as Undici from 'undici';
import { loadDependency } from './errors.ts';

/**
 * undici, loaded with the first request (CommonJS, so synchronously): about 0.1 s of CPU in every
 * process that loads it, and the CLI of a run against the embedded server sends nothing itself.
 */
const requireLazily = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;
export function undici(): typeof Undici {
  return (loaded ??= loadDependency('undici', () => requireLazily('undici') as typeof Undici));
}

export interface TransportOptions {
  /** PEM file of an extra CA to trust. */
  caCertFile?: string | null;
  /** Ignore proxy variables (the embedded server). */
  direct?: boolean;
  /** Where the proxy variables are read: the process's environment, passed down (none: no proxy). */
  env?: NodeJS.ProcessEnv;
}

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;

export function proxyConfigured(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARIABLES.some((name) => !!env[name]);
}

/** The certificates of a PEM file; throws a one-line Error when there is none. */
export function readCaCert(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {
      cause: error,
    });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * The CAs a connection trusts with `--ca-cert`: Node's bundled roots and the file's (a `ca`
 * option replaces Node's trust store for a connection); undefined without it: the usual ones.
 */
export function trustedCas(caCertFile: string | null | undefined): string[] | undefined {
  return caCertFile ? [...rootCertificates, readCaCert(caCertFile)] : undefined;
}

/** A dispatcher for the options: an Agent, or an EnvHttpProxyAgent when a proxy variable is set. */
export function createDispatcher(options: TransportOptions & { agent?: Agent.Options } = {}): Dispatcher {
  const env = options.env ?? {};
  const ca = trustedCas(options.caCertFile);
  const agentConnect = (options.agent?.connect ?? {}) as Record<string, unknown>;
  const base: Agent.Options = { ...options.agent, ...(ca ? { connect: { ...agentConnect, ca } } : {}) };
  const { Agent, EnvHttpProxyAgent } = undici();
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
