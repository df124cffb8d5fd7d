/**
 * How every command reaches a target (`run`, `explore`, `load`, `sweep`): one session checks the
 * keys, registers the secrets, configures the transport (extra CA, extra headers, proxy
 * variables), then probes a target a person named (probe.ts) or starts the embedded reference
 * server, and hands out what the command needs: the target, its S3 endpoint, the keys, a client
 * over the same transport, and `close()`. Signals reach the command through `onInterrupt`, the
 * one place that listens to SIGINT and SIGTERM.
 */
import type { Dispatcher } from 'undici';
import { Budget } from './budget.ts';
import { ApiClient } from './client.ts';
import type { ClientSettings } from './client.ts';
import { faultScopesFromEnv, faultsFromEnv, startEmbedded, variantsFromEnv } from './embedded.ts';
import type { EmbeddedOptions, EmbeddedTarget } from './embedded.ts';
import { TargetError, probeTarget, probeTimeoutMs } from './probe.ts';
import { addSecret } from './redact.ts';
import { createDispatcher } from './transport.ts';
import type { TransportOptions } from './transport.ts';

/** What every command that reaches a target takes, whatever else it does (the connection options). */
export interface ConnectionOptions {
  /** `--target`, normalised at resolution; undefined: the embedded reference server. */
  target: string | undefined;
  /** `--api-key`, in the order given: the first is the session's key, the rest more keys of the same account. */
  apiKeys: readonly string[];
  /** `--alt-api-key`: a key of a second account (run's isolation checks). */
  altApiKey: string | null;
  /** `--s3-url`. */
  s3Url: string | null;
  /** `-H/--header`, parsed. */
  headers: Record<string, string>;
  /** `--ca-cert`, resolved. */
  caCertFile: string | null;
  /** `--retries`: resends of a request that got no answer. */
  retries: number;
  /** CLOUDCHECK_REQUEST_TIMEOUT_MS: a fixed deadline per request (else 30 s × the timeout scale). */
  requestTimeoutMs: number | null;
  /** CLOUDCHECK_TIMEOUT_SCALE. */
  timeoutScale: number;
}

export interface SessionOptions {
  connection: ConnectionOptions;
  /** The command's name in messages (`cloudcheck load`). */
  command: string;
  /**
   * How to start the embedded reference server when there is no target (null: a target is
   * required). Its faults, unless given here (the project's own tests), come from the environment's
   * test switches (embedded.ts).
   */
  embedded: Pick<EmbeddedOptions, 'seed' | 'testNumbers' | 'apiKey' | 'faults'> | null;
  /** What to say when there is no target and the command needs one. */
  targetRequired?: string;
  /** The process's environment: proxy variables, and the embedded server's test switches. */
  env: NodeJS.ProcessEnv;
  /** Where the session says what it did (the embedded server's address). */
  log: (line: string) => void;
  /** Also measure the round trip a target's run is sized for (probe.ts; `cloudcheck run`). */
  roundTrip?: boolean;
}

export interface Session {
  /** Base URL including `/v1`, without a trailing slash. */
  readonly target: string;
  readonly s3Url: string | null;
  readonly keys: { main: string; alt: string | null; extra: string[] };
  /** The embedded reference server this session started, or null against a target. */
  readonly server: EmbeddedTarget | null;
  readonly connection: ConnectionOptions;
  /** How the session's requests connect (the embedded server: directly). */
  readonly transport: TransportOptions;
  /**
   * Milliseconds of the probe's GET /account (connect, request, whole answer) with the session's
   * key: the target's round trip as the command will see it. Null for the embedded server (not probed).
   */
  readonly probeRttMs: number | null;
  /**
   * With `roundTrip`, the part of a target's round trip other requests can overlap (ms; the run's
   * workers follow it, concurrency.ts). Null for the embedded server (the run's global setup times it).
   */
  readonly roundTripMs: number | null;
  /** What a client of the session's target is built with (client.ts). */
  readonly clientSettings: ClientSettings;
  /** One connection pool for the session's own requests, closed by `close()`. */
  dispatcher(): Dispatcher;
  /** A client of the session's target over its transport, pacing with `budget` (default: every key given). */
  client(budget?: Budget): ApiClient;
  /** Stops the embedded server and closes the connection pool. Idempotent. */
  close(): Promise<void>;
}

/**
 * The keys the person gave, checked: a target needs one; each is a secret of every output. A key
 * is never split here: `--api-key` repeats, and its variable takes a comma list (resolution).
 */
function checkedKeys(options: SessionOptions): string[] {
  const { connection } = options;
  if (connection.target && connection.apiKeys.length === 0)
    throw new TargetError('--api-key (or CLOUDCHECK_API_KEY) is required with --target');
  for (const key of connection.apiKeys) addSecret(key);
  addSecret(connection.altApiKey);
  for (const value of Object.values(connection.headers)) addSecret(value);
  return [...connection.apiKeys];
}

/** Each key a person gave, probed: the first gives the round trip; a wrong extra key stops the command too. */
async function probeKeys(target: string, keys: readonly string[], alt: string | null, options: SessionOptions) {
  const { connection } = options;
  const probe = {
    caCertFile: connection.caCertFile,
    direct: false,
    env: options.env,
    headers: connection.headers,
    timeoutMs: probeTimeoutMs(connection.requestTimeoutMs),
  };
  const [main, ...extra] = keys;
  const first = await probeTarget(target, main!, { ...probe, what: 'the API key', roundTrip: options.roundTrip });
  for (const [i, key] of extra.entries()) await probeTarget(target, key, { ...probe, what: `API key ${i + 2}` });
  if (alt) await probeTarget(target, alt, { ...probe, what: 'the alt API key' });
  return first;
}

export async function openSession(options: SessionOptions): Promise<Session> {
  const { connection } = options;
  const given = checkedKeys(options);
  let target: string;
  let s3Url = connection.s3Url;
  let keys: Session['keys'];
  let server: EmbeddedTarget | null = null;
  let probeRttMs: number | null = null;
  let roundTripMs: number | null = null;
  // Until the command listens itself (once the session is open), a signal ends the process at
  // once with the signal's exit code, saying that nothing ran: nothing was created yet.
  const stopListening = onInterrupt((signal) => {
    options.log(`${options.command}: ${signal} while opening the target: nothing ran, no report written`);
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  });
  try {
    if (connection.target) {
      target = connection.target;
      keys = { main: given[0]!, alt: connection.altApiKey, extra: given.slice(1) };
      ({ rttMs: probeRttMs, roundTripMs } = await probeKeys(target, given, connection.altApiKey, options));
    } else {
      if (!options.embedded)
        throw new TargetError(options.targetRequired ?? '--target (or CLOUDCHECK_TARGET) is required');
      // Not probed: this process starts it with the keys it answers to (the probe is for a base URL
      // or key a person typed).
      const { faults } = options.embedded;
      server = await startEmbedded({
        ...options.embedded,
        faults: faults ?? faultsFromEnv(options.env),
        faultScopes: faults ? undefined : faultScopesFromEnv(options.env),
        variants: variantsFromEnv(options.env),
      });
      addSecret(server.apiKey);
      addSecret(server.altApiKey);
      target = server.target;
      s3Url = server.s3Url;
      keys = { main: server.apiKey, alt: server.altApiKey, extra: [] };
      options.log(`${options.command}: no --target: started the embedded reference server at ${target}`);
    }
  } finally {
    stopListening();
  }
  return sessionOf({ target, s3Url, keys, server, probeRttMs, roundTripMs }, options);
}

function sessionOf(
  opened: Pick<Session, 'target' | 's3Url' | 'keys' | 'server' | 'probeRttMs' | 'roundTripMs'>,
  options: SessionOptions,
): Session {
  const { connection } = options;
  // The embedded server listens on this machine's loopback: reached directly whatever proxy is set.
  const transport: TransportOptions = {
    caCertFile: connection.caCertFile,
    direct: opened.server !== null,
    env: options.env,
  };
  const clientSettings: ClientSettings = {
    target: opened.target,
    keys: { main: opened.keys.main, alt: opened.keys.alt },
    liveSms: false,
    allowCharges: false,
    timeoutScale: connection.timeoutScale,
    requestTimeoutMs: connection.requestTimeoutMs,
    headers: connection.headers,
    retries: connection.retries,
    caCertFile: connection.caCertFile,
    embedded: opened.server !== null,
  };
  let pool: Dispatcher | null = null;
  let closed: Promise<void> | null = null;
  const dispatcher = (): Dispatcher =>
    (pool ??= createDispatcher({ ...transport, agent: { keepAliveTimeout: 4_000, connections: 16 } }));
  return {
    ...opened,
    connection,
    transport,
    clientSettings,
    dispatcher,
    client: (budget) =>
      new ApiClient({
        settings: clientSettings,
        budgets: { main: budget ?? new Budget([opened.keys.main, ...opened.keys.extra], { maxWaitMs: 60_000 }) },
        dispatcher: dispatcher(),
      }),
    close: () =>
      (closed ??= (async () => {
        await pool?.close().catch(() => undefined);
        await opened.server?.close().catch(() => undefined);
      })()),
  };
}

/** What a command does when SIGINT or SIGTERM arrives: its own reaction, called for every signal. */
export type InterruptHandler = (signal: NodeJS.Signals) => void;

const handlers = new Set<InterruptHandler>();
const dispatch = (signal: NodeJS.Signals): void => {
  for (const handler of [...handlers]) handler(signal);
};

/**
 * The one place that listens to SIGINT and SIGTERM. While a handler is registered the process does
 * not die of a signal: the command decides (stop the suite, finish the running sequence, exit);
 * with none registered, Node's default applies. Returns the function that unregisters it.
 */
export function onInterrupt(handler: InterruptHandler): () => void {
  if (handlers.size === 0) {
    process.on('SIGINT', dispatch);
    process.on('SIGTERM', dispatch);
  }
  handlers.add(handler);
  return () => {
    if (!handlers.delete(handler) || handlers.size > 0) return;
    process.off('SIGINT', dispatch);
    process.off('SIGTERM', dispatch);
  };
}
