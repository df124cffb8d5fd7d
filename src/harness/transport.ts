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

/** What cloudcheck uses of undici: the two dispatchers and `request`. */
export interface UndiciParts {
  Agent: typeof Undici.Agent;
  EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent;
  request(
    url: string | URL,
    options: { dispatcher: Dispatcher } & Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
        method?: Dispatcher.HttpMethod;
      },
  ): Promise<Dispatcher.ResponseData>;
}

/**
 * undici, loaded with the first request (CommonJS, so synchronously), and only the parts above:
 * its index loads everything it has (fetch, mock agents, cache stores, interceptors), about 90 ms
 * of CPU against 30 for these modules, in every process of a run that sends a request (the CLI,
 * Playwright's runner and each worker). The paths are undici's own layout (7.x, pinned in
 * package-lock.json), and so is the one thing its index does besides exporting: put the request
 * API (request, connect, ...) on every dispatcher, which the proxy agent relies on. If the layout
 * changes, the package's index is loaded instead.
 */
const requireLazily = createRequire(import.meta.url);
let loaded: UndiciParts | undefined;
export function undici(): UndiciParts {
  return (loaded ??= loadDependency('undici', loadUndiciParts));
}

function loadUndiciParts(): UndiciParts {
  let Agent: typeof Undici.Agent;
  let EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent;
  try {
    const dispatcher = requireLazily('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
    if (!('request' in dispatcher.prototype))
      Object.assign(dispatcher.prototype, requireLazily('undici/lib/api/index.js'));
    Agent = requireLazily('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
    EnvHttpProxyAgent = requireLazily(
      'undici/lib/dispatcher/env-http-proxy-agent.js',
    ) as typeof Undici.EnvHttpProxyAgent;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    const whole = requireLazily('undici') as typeof Undici;
    return { Agent: whole.Agent, EnvHttpProxyAgent: whole.EnvHttpProxyAgent, request: whole.request };
  }
  return {
    Agent,
    EnvHttpProxyAgent,
    // What undici's own `request(url, options)` does with a URL: origin and path apart.
    request(url, { dispatcher, ...options }) {
      const parsed = typeof url === 'string' ? new URL(url) : url;
      return dispatcher.request({
        ...options,
        origin: parsed.origin,
        path: `${parsed.pathname}${parsed.search}`,
        method: options.method ?? 'GET',
      });
    },
  };
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
