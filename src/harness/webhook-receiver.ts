/**
 * The webhook receiver: a small HTTP server the target calls back (webhooks, `callback_url`).
 * One per worker process, started on first use, closed by the worker's teardown.
 *
 * - Listens on `--webhook-listen HOST:PORT` (default `127.0.0.1:0` when the target is loopback,
 *   settings.ts); the target calls `--webhook-url URL` when given (a tunnel or proxy in front of
 *   the listener), otherwise the URL derived from the bound address.
 * - Records every request with its raw body and headers (the signature covers the raw bytes, so
 *   the body is never re-serialised), and answers 200; an endpoint handed out to refuse answers
 *   503 to the first delivery of each event (so that a retry can be seen), 200 to the next ones.
 * - `endpoint(label)` hands out a fresh path per use, so a flow sees only what was meant for it
 *   even though every subscription of the account delivers to the same listener.
 * - `waitFor` waits for deliveries matching a predicate, with a timeout scaled like every wait.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunSettings } from './settings.ts';

export interface WebhookDelivery {
  /** Order of arrival in this receiver, from 1. */
  seq: number;
  receivedAt: Date;
  method: string;
  /** Path and query as requested (`/cc/hooks-ab12/`). */
  path: string;
  /** Lowercased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** Bodies above this are cut (and recorded as such): a webhook is a small JSON document. */
const MAX_BODY = 1024 * 1024;

/** `HOST:PORT`, `[v6]:PORT`. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen.trim());
  if (!m) throw new Error(`webhook listen address "${listen}" is not HOST:PORT`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`webhook listen port ${port} is out of range`);
  return { host: (m[1] ?? m[2])!, port };
}

export class WebhookReceiver {
  private readonly received: WebhookDelivery[] = [];
  private readonly waiters = new Set<() => void>();
  private seq = 0;
  /** Paths that refuse the first delivery of each event, and the events they refused. */
  private readonly refusing = new Set<string>();
  private readonly refused = new Set<string>();

  private constructor(
    private readonly server: Server,
    /** Base URL the target calls, ending in `/`. */
    readonly url: string,
    private readonly timeoutScale: number,
  ) {}

  /** Starts a receiver on `listen`; `publicUrl` is what the target calls when it is not the listen address itself. */
  static async start(options: {
    listen: string;
    publicUrl?: string | null;
    timeoutScale?: number;
  }): Promise<WebhookReceiver> {
    const { host, port } = parseListen(options.listen);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Never what keeps a worker alive.
    server.unref();
    const bound = server.address() as AddressInfo;
    const callHost = bound.address === '0.0.0.0' || bound.address === '::' ? '127.0.0.1' : bound.address;
    const derived = `http://${callHost.includes(':') ? `[${callHost}]` : callHost}:${bound.port}/`;
    const base = options.publicUrl
      ? options.publicUrl.endsWith('/')
        ? options.publicUrl
        : `${options.publicUrl}/`
      : derived;
    const receiver = new WebhookReceiver(server, base, options.timeoutScale ?? 1);
    // Attached once the URL is known: nothing can call it before it is handed out.
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    return receiver;
  }

  /**
   * A fresh URL under the receiver, unique to one use (`<url>cc/<label>-<random>`). With
   * `refuseFirst`, the first delivery of each event to it (its `event` and `data`) is answered 503.
   */
  endpoint(label = 'hook', options: { refuseFirst?: boolean } = {}): string {
    const safe = label
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .slice(0, 40);
    const url = new URL(`cc/${safe}-${randomBytes(6).toString('hex')}`, this.url);
    if (options.refuseFirst) this.refusing.add(url.pathname);
    return url.toString();
  }

  /** Deliveries so far (optionally those to one endpoint URL or matching a predicate), in order of arrival. */
  deliveries(filter?: string | ((d: WebhookDelivery) => boolean)): WebhookDelivery[] {
    return this.received.filter(toPredicate(filter));
  }

  /**
   * Waits until at least `count` (default 1) deliveries match, for at most `timeoutMs` (scaled by
   * the run's timeout scale). Returns the matching ones; throws naming `what` on timeout.
   */
  async waitFor(
    what: string,
    filter: string | ((d: WebhookDelivery) => boolean),
    options: { timeoutMs?: number; count?: number } = {},
  ): Promise<WebhookDelivery[]> {
    const predicate = toPredicate(filter);
    const count = options.count ?? 1;
    const timeoutMs = Math.round((options.timeoutMs ?? 15_000) * this.timeoutScale);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.received.filter(predicate);
      if (matching.length >= count) return matching;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what} at the webhook receiver (${matching.length} of ${count} matching, ${this.received.length} deliveries in all)`,
        );
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.waiters.add(wake);
      });
    }
  }

  async close(): Promise<void> {
    for (const wake of [...this.waiters]) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Whether this is the first delivery of its event to an endpoint that refuses first deliveries. */
  private refuses(url: string, json: unknown): boolean {
    const path = url.split('?')[0]!;
    if (!this.refusing.has(path)) return false;
    const { event, data } = (json ?? {}) as { event?: unknown; data?: unknown };
    const identity = `${path}\n${String(event)}\n${JSON.stringify(data ?? null)}`;
    if (this.refused.has(identity)) return false;
    this.refused.add(identity);
    return true;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        json = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      this.received.push({
        seq: ++this.seq,
        receivedAt: new Date(),
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        rawBody,
        json,
      });
      for (const wake of [...this.waiters]) wake();
      const status = size > MAX_BODY ? 413 : this.refuses(req.url ?? '/', json) ? 503 : 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"ok":true}' : '{"ok":false}');
    });
    req.on('error', () => res.destroy());
  }
}

function toPredicate(filter?: string | ((d: WebhookDelivery) => boolean)): (d: WebhookDelivery) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  const path = new URL(filter).pathname;
  return (d) => d.path === path || d.path.startsWith(`${path}?`);
}

let shared: Promise<WebhookReceiver> | null = null;

/**
 * This worker's receiver, started on first use. Null when the run has no way for the target to
 * reach it (a remote target and neither --webhook-listen nor --webhook-url): checks skip then.
 */
export function webhookReceiver(
  settings: Pick<RunSettings, 'webhook' | 'timeoutScale'>,
): Promise<WebhookReceiver> | null {
  const { listen, url } = settings.webhook;
  if (!listen && !url) return null;
  // Only a URL given: listen on every interface at the URL's port (a port forward in front of us).
  const address = listen ?? `0.0.0.0:${new URL(url!).port || (new URL(url!).protocol === 'https:' ? 443 : 80)}`;
  shared ??= WebhookReceiver.start({ listen: address, publicUrl: url, timeoutScale: settings.timeoutScale });
  return shared;
}

/** Closes this worker's receiver (worker teardown). */
export async function closeWebhookReceiver(): Promise<void> {
  const pending = shared;
  shared = null;
  if (pending) await (await pending.catch(() => null))?.close();
}
