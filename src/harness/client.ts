/**
 * The recording HTTP client every check uses (`api` in a check).
 *
 * - Records every exchange as an `Exchange` (src/model/finding.ts), redacted when recorded, with
 *   a curl line in which the key is `$CLOUDCHECK_API_KEY` (or `$CLOUDCHECK_ALT_API_KEY`).
 * - Picks the API key from the budget unless the check names one (`key`), and paces requests.
 *   An unexpected 429 on a budget key is retried with another key, within a bound; after that
 *   the check fails with BudgetExhaustedError (classified `environment`).
 * - Safety: every SMS send carries `X-Test-Mode: true` unless the run has `--live-sms`; money-moving
 *   operations are refused unless the run has `--allow-charges`.
 * - Network failures become NetworkError (classified `environment`).
 *
 * undici rather than global fetch: it gives raw header access (fetch hides `set-cookie` and merges
 * duplicates differently), its own connection pool per worker, and no CORS/forbidden-header rules.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import type { Exchange } from '../model/finding.ts';
import { areaOfPath } from '../../spec/areas.ts';
import type { Budget } from './budget.ts';
import { CloudcheckError, EnvironmentError, NetworkError, PrerequisiteMissingError } from './errors.ts';
import { fail } from './failure.ts';
import { processObserver } from './rate-observer.ts';
import { REDACTED, addSecret, redact, redactString } from './redact.ts';
import type { SentRequest } from './request-stats.ts';
import { createDispatcher, undici } from './transport.ts';

export const BODY_LIMIT = 8 * 1024;

/**
 * Largest response body the client reads (64 MiB: above any object a check downloads). A target
 * that sends more gets its body cut there and the connection dropped, so a runaway answer cannot
 * exhaust a worker's memory; the check then sees a truncated (usually unparsable) body and fails
 * as a defect of the target.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The deadline of one request (connecting, headers and the whole body together) when the request
 * does not set `timeoutMs`: `CLOUDCHECK_REQUEST_TIMEOUT_MS` when set, else 30 s × the run's
 * timeout scale. It is what bounds a run against a target that hangs or trickles bytes.
 */
export function defaultRequestTimeoutMs(settings: { requestTimeoutMs?: number | null; timeoutScale: number }): number {
  return settings.requestTimeoutMs ?? 30_000 * settings.timeoutScale;
}

/** Reads at most `limit` bytes of a body, then destroys the stream (the rest is never downloaded). */
async function readLimited(
  body: Dispatcher.ResponseData['body'],
  limit: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      body.destroy();
      return { bytes: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

/** Query values: arrays repeat the parameter; null/undefined are left out; `true` alone gives `?name`. */
/**
 * How the target's transport has behaved for this process (a worker). A target that answered the
 * probe but then answers nothing (hangs, resets, trickles bytes past every deadline) would make
 * each of a thousand checks wait out its own timeout: after SILENT_AFTER failures in a row with
 * no answer ever, requests fail at once (as environment problems), and the run ends "unusable".
 */
const transport = { answered: 0, consecutiveFailures: 0 };
const SILENT_AFTER = 5;

function targetSilent(): boolean {
  return transport.answered === 0 && transport.consecutiveFailures >= SILENT_AFTER;
}

/** A path segment that is a JavaScript non-value turned into text by a template literal. */
const UNSET_SEGMENT = /\/(undefined|null|NaN|\[object%20Object\]|\[object Object\])(?=\/|$)/;

export type QueryValue = string | number | boolean | null | undefined | Array<string | number>;

export interface RequestOptions {
  method: string;
  /** Path relative to the target (`/vps/vps_1`), or an absolute URL (presigned URLs: no key by default). */
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is (raw uploads, malformed JSON on purpose). */
  body?: string | Uint8Array;
  /**
   * Which key to send. Absent: a key of the run's budget for `account`. `null`: no Authorization
   * header. A string: exactly that key as `Bearer <key>` (no pacing, no retry on 429: the check
   * wants to see what the target does).
   */
  key?: string | null;
  /** Whose budget key to use when `key` is absent. */
  account?: 'main' | 'alt';
  /** Override the whole Authorization header value (malformed schemes on purpose). */
  authorization?: string;
  /** The check expects a 429 here: return it instead of retrying. */
  expectRateLimit?: boolean;
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  /** Lowercased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  text: string;
  bytes: Buffer;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
  /** The parsed body typed as the caller says (throws if the body is not JSON). */
  json<T = unknown>(): T;
  exchange: Exchange;
  durationMs: number;
  /** The request as sent: method, path below the target's base and query (`GET /vps/vps_1?page=2`). */
  requestLine: string;
}

export interface ClientSettings {
  target: string;
  keys: { main: string; alt: string | null };
  liveSms: boolean;
  allowCharges: boolean;
  timeoutScale: number;
  /** A fixed deadline per request (CLOUDCHECK_REQUEST_TIMEOUT_MS), else 30 s × timeoutScale. */
  requestTimeoutMs?: number | null;
  /**
   * The run's temp dir (RunSettings has it): when set, every messaging/compute response is also
   * appended there for the run-wide rate-limit header invariants (rate-observer.ts).
   */
  runTmp?: string | null;
  /**
   * The run's report directory (RunSettings has it): a request body a curl line cannot carry
   * inline (binary, or longer than the recording keeps) is saved under `bodies/` there, and the
   * line reads it with `--data-binary @bodies/<file>` from the report directory.
   */
  reportDir?: string | null;
  /**
   * `--header`: sent on every request (lowercased names), before the check's own headers, which
   * win; never Authorization. Their values are secrets: recorded and printed as [REDACTED].
   */
  headers?: Record<string, string>;
  /** `--retries`: how often a request that got no answer is sent again (sendRetrying). */
  retries?: number;
  /** `--ca-cert` and the embedded server (reached directly): how a client without a dispatcher connects (processAgent). */
  caCertFile?: string | null;
  embedded?: boolean;
}

export interface ClientOptions {
  settings: ClientSettings;
  budgets: { main: Budget; alt?: Budget | null };
  dispatcher?: Dispatcher;
  /** Called with every recorded exchange (already redacted). */
  record?: (exchange: Exchange) => void;
  /** Unexpected 429s retried with another key before giving up. */
  maxRateLimitRetries?: number;
  /** The check whose requests these are, sent as CHECK_HEADER on each (none for setup and teardown). */
  check?: string;
}

/**
 * Names the check a request belongs to (its id, as in every report), so a target's logs can be
 * matched to the report; the reference server also uses it to limit a fault to some checks
 * (reference/core/faults.ts, which names it too). A target may ignore it.
 */
export const CHECK_HEADER = 'x-cloudcheck-check';

const SMS_SENDS = /^\/sms\/(send|bulk|send-template)\/?$/;
const CHARGING = [/^\/account\/wallets\/topup\/?$/, /^\/account\/payment-methods\/?$/];
/** A payment method of the account, which only a run with --allow-charges may delete. */
const PAYMENT_METHOD = /^\/account\/payment-methods\/[^/]+\/?$/;

/** Requests that move money or change how the account pays (README, Safety against a shared target). */
function movesMoney(method: string, relPath: string): boolean {
  return (
    (method === 'POST' && CHARGING.some((re) => re.test(relPath))) ||
    (method === 'DELETE' && PAYMENT_METHOD.test(relPath))
  );
}

export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return /^(text\/|application\/(json|xml|problem\+json|x-www-form-urlencoded|javascript|yaml))|\+json|\+xml/i.test(
    contentType,
  );
}

/** Bytes decoded to record a body: BODY_LIMIT characters take at most four bytes each. */
const RECORD_BYTES = BODY_LIMIT * 4;

export function bodyForRecord(bytes: Uint8Array | undefined, contentType: string | undefined): string | undefined {
  if (!bytes || bytes.byteLength === 0) return undefined;
  // Only what the record keeps is decoded (a 10 MiB object was decoded whole to keep 8 KiB).
  const cut = bytes.byteLength > RECORD_BYTES;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, RECORD_BYTES)).toString('utf8');
  let text: string | undefined;
  if (isTextContentType(contentType)) text = head;
  else {
    // A character split by the cut decodes as U+FFFD: that one is not the body's.
    const decoded = cut ? head.replace(/\uFFFD{1,3}$/, '') : head;
    // No declared type: keep it as text when it decodes cleanly and has no control characters.
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    if (!decoded.includes('\uFFFD') && !/[\x00-\x08\x0E-\x1F]/.test(decoded)) text = decoded;
  }
  if (text === undefined) return `<binary body, ${bytes.byteLength} bytes${contentType ? `, ${contentType}` : ''}>`;
  if (cut || text.length > BODY_LIMIT)
    return `${text.slice(0, BODY_LIMIT)}… <truncated, ${bytes.byteLength} bytes in all>`;
  return text;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A recorded body that stands for bytes it does not hold (binary, or cut at BODY_LIMIT). */
function isPlaceholder(recorded: string): boolean {
  return recorded.startsWith('<binary body') || /… <truncated, \d+ bytes in all>$/.test(recorded);
}

/**
 * A curl line; the key is a shell variable so the line can be pasted and shared. A body the
 * recording could not keep whole is read from `bodyFile` (relative to the report directory), or
 * from a `@FILE` placeholder when it was not saved.
 */
export function curlLine(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  keyVar: string | null,
  bodyFile: string | null = null,
): string {
  // HEAD as `-I`: with `-X HEAD` curl waits for a body that never comes.
  const parts =
    method.toUpperCase() === 'HEAD'
      ? ['curl', '-sS', '-I', shellQuote(url)]
      : ['curl', '-sS', '-i', '-X', method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization') {
      if (keyVar) parts.push('-H', `"Authorization: Bearer $${keyVar}"`);
      else parts.push('-H', shellQuote(`Authorization: ${value}`));
      continue;
    }
    if (name.toLowerCase() === 'content-length') continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (body !== undefined) {
    if (isPlaceholder(body)) parts.push('--data-binary', bodyFile ? shellQuote(`@${bodyFile}`) : '@FILE');
    else parts.push('--data-raw', shellQuote(body));
  }
  return redactString(parts.join(' '));
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** `base`: the target, normalised where it was given (resolution, the run contract): no trailing slash. */
export function buildUrl(base: string, path: string, query?: Record<string, QueryValue>): URL {
  const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(base + (path.startsWith('/') ? path : `/${path}`));
  if (query) {
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null || value === false) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(name, String(v));
      else if (value === true) url.searchParams.append(name, '');
      else url.searchParams.append(name, String(value));
    }
  }
  // `?uploads` rather than `?uploads=` (S3 style, as the specification writes it).
  if (url.search) url.search = url.search.replace(/=(?=&|$)/g, '');
  return url;
}

let sharedAgent: Dispatcher | null = null;
/**
 * One connection pool per process (a worker, the runner), closed by the worker fixture's teardown;
 * through the proxy of the standard variables (never to the embedded server) and with the run's
 * --ca-cert (transport.ts). The settings are the same for every client of a process.
 */
export function processAgent(settings: Pick<ClientSettings, 'caCertFile' | 'embedded'>): Dispatcher {
  sharedAgent ??= createDispatcher({
    caCertFile: settings.caCertFile ?? null,
    direct: settings.embedded ?? false,
    env: process.env,
    agent: { keepAliveTimeout: 4_000, connections: 16 },
  });
  return sharedAgent;
}
export async function closeProcessAgent(): Promise<void> {
  const agent = sharedAgent;
  sharedAgent = null;
  await agent?.close().catch(() => undefined);
}

export class ApiClient {
  readonly settings: ClientSettings;
  private readonly budgets: { main: Budget; alt?: Budget | null };
  private readonly dispatcher: Dispatcher;
  private readonly record?: (exchange: Exchange) => void;
  private readonly maxRetries: number;
  private readonly check?: string;
  /** The requests this check's client sent (request-stats.ts); none kept by the worker's own client. */
  readonly sent: SentRequest[] = [];

  constructor(options: ClientOptions) {
    this.settings = options.settings;
    this.budgets = options.budgets;
    this.dispatcher = options.dispatcher ?? processAgent(options.settings);
    this.record = options.record;
    this.maxRetries = options.maxRateLimitRetries ?? 3;
    this.check = options.check;
    addSecret(options.settings.keys.main);
    addSecret(options.settings.keys.alt);
    for (const value of Object.values(options.settings.headers ?? {})) addSecret(value);
  }

  /** The check header of this client's check, for a request a check sends another way (a presigned URL's). */
  get checkHeaders(): Record<string, string> {
    return this.check === undefined ? {} : { [CHECK_HEADER]: this.check };
  }

  /** The same client for one check: its requests name it and are recorded into its sink. */
  forCheck(check: string, record: (exchange: Exchange) => void): ApiClient {
    return new ApiClient({
      settings: this.settings,
      budgets: this.budgets,
      dispatcher: this.dispatcher,
      record,
      maxRateLimitRetries: this.maxRetries,
      check,
    });
  }

  /**
   * Records exchanges another check sent (a scenario shared by the checks of one case,
   * contract.ts) as this check's own, so the api fixture keeps them by the one rule for every
   * check: whole when it fails (or with --har all), method, URL and status when it passes.
   */
  recordShared(exchanges: readonly Exchange[]): void {
    for (const exchange of exchanges) this.record?.(exchange);
  }

  get(path: string, options: Omit<RequestOptions, 'method' | 'path'> = {}): Promise<ApiResponse> {
    return this.request({ ...options, method: 'GET', path });
  }
  post(
    path: string,
    json?: unknown,
    options: Omit<RequestOptions, 'method' | 'path' | 'json'> = {},
  ): Promise<ApiResponse> {
    return this.request({ ...options, method: 'POST', path, json });
  }
  put(
    path: string,
    json?: unknown,
    options: Omit<RequestOptions, 'method' | 'path' | 'json'> = {},
  ): Promise<ApiResponse> {
    return this.request({ ...options, method: 'PUT', path, json });
  }
  delete(path: string, options: Omit<RequestOptions, 'method' | 'path'> = {}): Promise<ApiResponse> {
    return this.request({ ...options, method: 'DELETE', path });
  }

  async request(options: RequestOptions): Promise<ApiResponse> {
    const method = options.method.toUpperCase();
    const absolute = /^https?:\/\//.test(options.path);
    const relPath = absolute ? new URL(options.path).pathname : options.path.split('?')[0]!;
    const unset = UNSET_SEGMENT.exec(relPath);
    if (unset) {
      // The suite built this path from a value it does not have (an earlier step did not run or
      // did not set it): sending it would blame the target for cloudcheck's own error.
      throw new CloudcheckError(
        `cloudcheck built ${method} ${relPath} from a missing value ("${unset[1]}"): a step that should have produced it did not run or did not set it`,
      );
    }
    if (!absolute && movesMoney(method, relPath) && !this.settings.allowCharges) {
      throw new PrerequisiteMissingError(`${method} ${relPath} moves money and the run does not have --allow-charges`);
    }
    const explicitKey = options.key !== undefined || options.authorization !== undefined || absolute;
    const area = areaOfPath(relPath);
    const budget = options.account === 'alt' ? this.budgets.alt : this.budgets.main;
    if (options.account === 'alt' && !budget)
      throw new PrerequisiteMissingError('this check needs a second account: pass --alt-api-key');

    let attempts = 0;
    for (;;) {
      let key: string | null;
      if (options.key !== undefined) key = options.key;
      else if (absolute) key = null;
      else key = await budget!.acquire(area);
      const response = await this.sendRetrying(options, method, key, () => {
        if (!explicitKey && key) budget!.pool.count(key, area, budget!.now());
      });
      if (!explicitKey && key) budget!.observe(key, area, response.status, response.headers);
      if (response.status !== 429 || explicitKey || options.expectRateLimit) return response;
      attempts++;
      if (attempts > this.maxRetries) {
        throw new EnvironmentError(
          `the target answered 429 to ${method} ${relPath} on ${attempts} keys of the run's own budget; the run exceeded its request budget (not a defect of the target)`,
        );
      }
    }
  }

  /**
   * `--retries N`: a request that got no answer (refused, reset, timed out) is sent again, up to
   * N times, after 250 ms, 500 ms, 1 s, 2 s. Never one that got an answer, whatever it was: the
   * answer is what the check judges, so a check still passes only on a conformant answer. GET,
   * HEAD and OPTIONS only, and any request whose connection was refused (it never reached the
   * target); see RESENDABLE. Every attempt is recorded, the retries numbered (`attempt`), and the
   * check's result counts them. Hand-written rather than undici's RetryAgent: the decision needs
   * the method and the error together, and each attempt must reach the recorder.
   */
  private async sendRetrying(
    options: RequestOptions,
    method: string,
    key: string | null,
    countAgain: () => void,
  ): Promise<ApiResponse> {
    const retries = this.settings.retries ?? 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(options, method, key, attempt);
      } catch (error) {
        if (!(error instanceof NetworkError) || attempt > retries || targetSilent() || !mayResend(method, error))
          throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * 2 ** (attempt - 1))));
        countAgain();
      }
    }
  }

  /** `bodies/<sha256>.bin` under the report directory for a body the recording could not keep whole. */
  private bodyFile(payload: Uint8Array | undefined, recorded: string | undefined): string | null {
    const reportDir = this.settings.reportDir;
    if (!payload || recorded === undefined || !reportDir || !isPlaceholder(recorded)) return null;
    const name = `bodies/${createHash('sha256').update(payload).digest('hex').slice(0, 32)}.bin`;
    try {
      mkdirSync(join(reportDir, 'bodies'), { recursive: true });
      if (!existsSync(join(reportDir, name))) writeFileSync(join(reportDir, name), payload);
      return name;
    } catch {
      // The line then says @FILE, as without a report directory: the exchange itself is not lost.
      return null;
    }
  }

  /** Whether a path is under the target's base path. */
  private insideBase(pathname: string): boolean {
    const base = new URL(this.settings.target).pathname.replace(/\/+$/, '');
    return !base || pathname === base || pathname.startsWith(`${base}/`);
  }

  /** The path below the target's base path (`/v1/sms/send` → `/sms/send`). */
  private relative(pathname: string): string {
    const base = new URL(this.settings.target).pathname.replace(/\/+$/, '');
    return base && pathname.startsWith(base) ? pathname.slice(base.length) || '/' : pathname;
  }

  private async send(options: RequestOptions, method: string, key: string | null, attempt = 1): Promise<ApiResponse> {
    const url = buildUrl(this.settings.target, options.path, options.query);
    // JSON first, anything else after it: object and PDF downloads must not be refused (406) by a
    // target that honours Accept.
    // Never Authorization: the key sent (or left out on purpose) is the check's to decide.
    const extra = Object.fromEntries(
      Object.entries(this.settings.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'authorization'),
    );
    const headers: Record<string, string> = {
      accept: 'application/json, */*;q=0.5',
      'user-agent': 'cloudcheck',
      ...(this.check !== undefined && { [CHECK_HEADER]: this.check }),
      ...extra,
      ...lowerKeys(options.headers ?? {}),
    };
    let payload: Uint8Array | undefined;
    if (options.json !== undefined) {
      payload = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
    }
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (key) headers.authorization = `Bearer ${key}`;
    if (method === 'POST' && SMS_SENDS.test(this.relative(url.pathname)) && !this.settings.liveSms) {
      // Safety (README, Safety against a shared target): never a real SMS unless the run says --live-sms.
      headers['x-test-mode'] = 'true';
    }
    const startedAt = new Date();
    const t0 = performance.now();
    const keyVar =
      key === null ? null : key === this.settings.keys.alt ? 'CLOUDCHECK_ALT_API_KEY' : 'CLOUDCHECK_API_KEY';
    const requestBodyText = bodyForRecord(payload, headers['content-type']);
    // --header values are secrets whatever their length (redact.ts only knows values of 8+ characters).
    const recorded = { ...headers };
    for (const [name, value] of Object.entries(extra)) if (recorded[name] === value) recorded[name] = REDACTED;
    const exchangeBase = {
      request: {
        method,
        url: url.toString(),
        headers: recorded,
        ...(requestBodyText !== undefined ? { body: requestBodyText } : {}),
      },
      started_at: startedAt.toISOString(),
      ...(attempt > 1 ? { attempt } : {}),
      curl: curlLine(
        method,
        url.toString(),
        recorded,
        requestBodyText,
        options.authorization !== undefined ? null : keyVar,
        this.bodyFile(payload, requestBodyText),
      ),
    };
    const timeoutMs = options.timeoutMs ?? defaultRequestTimeoutMs(this.settings);
    if (targetSilent()) {
      const message = `not sent: the target answered none of this worker's last ${transport.consecutiveFailures} requests (connection failures or timeouts) and never answered one before; the rest fails fast`;
      this.record?.(redact<Exchange>({ ...exchangeBase, error: message, duration_ms: 0 }));
      throw new NetworkError(`${method} ${url.pathname}: ${message}`);
    }
    let status: number;
    let resHeaders: Record<string, string>;
    let bytes: Buffer;
    try {
      const res = await undici().request(url, {
        method,
        headers,
        body: payload,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.statusCode;
      resHeaders = flattenHeaders(res.headers);
      ({ bytes } = await readLimited(res.body, MAX_RESPONSE_BYTES));
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}${causeText(error)}` : String(error);
      const exchange = redact<Exchange>({
        ...exchangeBase,
        error: message,
        duration_ms: Math.round(performance.now() - t0),
      });
      this.record?.(exchange);
      if (this.record) this.sent.push({ start: startedAt.getTime(), end: Date.now() });
      transport.consecutiveFailures++;
      throw new NetworkError(`${method} ${url.pathname} failed without a response: ${redactString(message)}`, {
        cause: error,
      });
    }
    transport.answered++;
    transport.consecutiveFailures = 0;
    const durationMs = Math.round(performance.now() - t0);
    if (this.record) this.sent.push({ start: startedAt.getTime(), end: startedAt.getTime() + durationMs });
    const parsed = parsedBody(bytes, resHeaders);
    const { body } = parsed;
    learnSecrets(url.pathname, body);
    // Run-wide rate-limit invariants: a compact line per messaging/compute response (key hashed,
    // a few headers), read back by the reporter. A no-op without a run temp dir; a request outside
    // the base URL (another version) is no response of the API.
    if (this.insideBase(url.pathname))
      processObserver(this.settings.runTmp)?.record({
        method,
        path: this.relative(url.pathname),
        authorization: headers.authorization,
        status,
        headers: resHeaders,
        body,
        sentAt: startedAt.getTime(),
        receivedAt: Date.now(),
      });
    const exchange = redact<Exchange>({
      ...exchangeBase,
      response: {
        status,
        headers: resHeaders,
        ...(bytes.byteLength ? { body: bodyForRecord(bytes, resHeaders['content-type']) } : {}),
      },
      duration_ms: durationMs,
    });
    this.record?.(exchange);
    const requestLine = `${method} ${this.relative(url.pathname)}${url.search}`;
    return apiResponse({ status, headers: resHeaders, bytes, exchange, durationMs, requestLine }, parsed);
  }
}

/** A body's text and, when it is JSON (or the type is not said), its parsed value. */
function parsedBody(bytes: Buffer, headers: Record<string, string>): { text: string; body: unknown } {
  const text = bytes.toString('utf8');
  let body: unknown;
  if (text.length > 0 && /json/i.test(headers['content-type'] ?? 'json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { text, body };
}

/**
 * The response a check gets, from what came back (also one sent in another process: provision.ts);
 * `parsed`: its body, when the caller parsed it already.
 */
export function apiResponse(
  parts: {
    status: number;
    headers: Record<string, string>;
    bytes: Buffer;
    exchange: Exchange;
    durationMs: number;
    requestLine: string;
  },
  parsed = parsedBody(parts.bytes, parts.headers),
): ApiResponse {
  const { text, body } = parsed;
  const { exchange, status, requestLine } = parts;
  return {
    ...parts,
    text,
    body,
    json<T>(): T {
      if (body === undefined)
        fail({
          kind: 'body',
          subject: 'json',
          expected: 'a JSON body',
          actual: text.length ? 'not JSON' : 'empty',
          judged: { requestLine, exchange, status },
          says: `expected a JSON body, got ${text.length ? `"${redactString(text.slice(0, 200))}"` : 'an empty body'}`,
        });
      return body as T;
    },
  };
}

/**
 * Methods whose request may be sent again when it got no answer: the safe ones (RFC 9110, 9.2.1),
 * whose second answer says what the first would have. PUT and DELETE are idempotent in effect but
 * not in answer: a DELETE that reached the target before the connection broke answers 404 the
 * second time, an upload 200 where it would have answered 201, and the check would judge an
 * exchange the target never meant as the answer to its request. Checks that send those are run
 * again whole instead (--rerun-unanswered), under new names.
 */
const RESENDABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The first `code` along an error's cause chain (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...). */
function errorCode(error: unknown): string | undefined {
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Whether a request that got no answer may be sent again (sendRetrying). */
export function mayResend(method: string, error: unknown): boolean {
  return RESENDABLE.has(method.toUpperCase()) || errorCode(error) === 'ECONNREFUSED';
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

function causeText(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return ` (${cause.message})`;
  return '';
}

/** Secrets the API hands out (API keys, storage secret keys, webhook secrets) are registered for redaction as soon as they are seen. */
function learnSecrets(path: string, body: unknown): void {
  if (!body || typeof body !== 'object') return;
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || !value || typeof value !== 'object') return;
    for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
      if (
        typeof inner === 'string' &&
        /secret|^key$|token|password/i.test(name) &&
        /api-keys|access-keys|webhooks/.test(path)
      )
        addSecret(inner);
      else if (typeof inner === 'object') visit(inner, depth + 1);
    }
  };
  visit(body, 0);
}
