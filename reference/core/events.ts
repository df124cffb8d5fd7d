/**
 * Events and webhook delivery. Handlers call `emit` and move on: delivery happens later on the
 * clock, with retries and backoff, and never blocks a request. Payloads follow the
 * specification ({event, timestamp, data}); the signature header is the convention of
 * docs/conventions.md (the specification does not show one).
 */
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type * as Undici from 'undici';
import type { Clock } from './clock.ts';
import { isoTimestamp } from './clock.ts';
import type { ActiveFaults, FaultDefinition } from './faults.ts';
import { newId } from './ids.ts';

/**
 * undici, loaded with the first delivery (CommonJS, so synchronously): about 0.1 s of CPU, which a
 * server with no subscription (most runs of the embedded server) never needs.
 */
const requireLazily = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;
function undici(): typeof Undici {
  return (loaded ??= requireLazily('undici') as typeof Undici);
}

export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  secret: string | null;
  created_at: string;
}

export interface EventPayload {
  event: string;
  timestamp: string;
  data?: Record<string, unknown>;
}

export interface DeliveryRecord {
  url: string;
  event: string;
  attempt: number;
  status: number | null;
  error?: string;
  at: string;
}

export interface EventOptions {
  retryBaseMs: number;
  maxAttempts: number;
  timeoutMs: number;
  /** Off by default: the reference server only calls back to loopback addresses. */
  allowRemote: boolean;
  /** Fault hook: lets a fault bend the payload just before it is signed and sent. */
  mutatePayload?: (payload: EventPayload) => EventPayload;
  /** Variant `webhook-signature-other`: another signature header (the scheme is not shown). */
  otherSignature?: boolean;
  /** Whether a delivery answered non-2xx is left at that (fault `webhook-no-retry`, variant `webhook-single-attempt`). */
  noRetry?: () => boolean;
}

/** Faults of the event payloads, applied through `mutatePayload` (see eventFaultMutation). */
export const EVENT_FAULTS = [
  {
    name: 'webhook-event-status-stale',
    requirement: 'HOOK-EVT-001',
    description: 'sms.delivered events carry `data.status` sent (the state before) instead of delivered.',
  },
  {
    name: 'webhook-compute-data-flat',
    requirement: 'HOOK-PAY-002',
    description: 'Compute events carry the instance fields directly in `data` instead of in `data.vps`.',
  },
  {
    name: 'webhook-vps-deleted-renamed',
    requirement: 'HOOK-EVT-002',
    description: 'The deletion of a VPS is announced as `vps.destroyed` instead of `vps.deleted`.',
  },
  {
    name: 'webhook-no-retry',
    requirement: 'HOOK-DLV-002',
    description: 'A delivery the receiver answers with a non-2xx status is never retried.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module './faults.ts' {
  interface FaultNames extends Record<(typeof EVENT_FAULTS)[number]['name'], true> {}
}

/**
 * The payload mutation of the event faults switched on; undefined when none is. Each asks at
 * every event whether it bends it: a fault limited to some checks bends only their events.
 */
export function eventFaultMutation(faults: ActiveFaults): ((payload: EventPayload) => EventPayload) | undefined {
  if (!EVENT_FAULTS.some((fault) => faults.switchedOn(fault.name))) return undefined;
  return (payload) => {
    const data = payload.data ?? {};
    const vps = data.vps;
    if (payload.event === 'sms.delivered' && faults.has('webhook-event-status-stale'))
      return { ...payload, data: { ...data, status: 'sent' } };
    if (
      /^(vps|snapshot)\./.test(payload.event) &&
      typeof vps === 'object' &&
      vps !== null &&
      faults.has('webhook-compute-data-flat')
    ) {
      const { vps: _nested, ...rest } = data;
      return { ...payload, data: { ...rest, ...(vps as Record<string, unknown>) } };
    }
    if (payload.event === 'vps.deleted' && faults.has('webhook-vps-deleted-renamed'))
      return { ...payload, event: 'vps.destroyed' };
    return payload;
  };
}

export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost') return true;
    if (isIP(host) === 4) return host.startsWith('127.');
    if (isIP(host) === 6) return host === '::1';
    return false;
  } catch {
    return false;
  }
}

export class EventDispatcher {
  private readonly subscriptions = new Map<string, WebhookSubscription[]>();
  /** Recent delivery attempts, newest last (bounded), for tests and debugging. */
  readonly deliveries: DeliveryRecord[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly options: EventOptions,
  ) {}

  subscribe(accountId: string, fields: { url: string; events: string[]; secret?: string | null }): WebhookSubscription {
    const subscription: WebhookSubscription = {
      id: newId('wh'),
      url: fields.url,
      events: [...fields.events],
      secret: fields.secret ?? null,
      created_at: isoTimestamp(this.clock.now()),
    };
    const list = this.subscriptions.get(accountId) ?? [];
    list.push(subscription);
    this.subscriptions.set(accountId, list);
    return subscription;
  }

  /** Whether the account has any webhook at all (senders skip building payloads nobody receives). */
  hasSubscriptions(accountId: string): boolean {
    return (this.subscriptions.get(accountId)?.length ?? 0) > 0;
  }

  subscriptionsOf(accountId: string): WebhookSubscription[] {
    return this.subscriptions.get(accountId) ?? [];
  }

  /**
   * Sends `event` to every subscription of the account that asked for it, and to `extra`
   * targets (a message's callback_url) regardless of subscriptions.
   */
  emit(
    accountId: string,
    event: string,
    data: Record<string, unknown>,
    extra: Array<{ url: string; secret?: string | null }> = [],
  ): EventPayload {
    const payload: EventPayload = { event, timestamp: isoTimestamp(this.clock.now()), data };
    const targets = this.subscriptionsOf(accountId)
      .filter((s) => s.events.includes(event))
      .map((s) => ({ url: s.url, secret: s.secret }));
    for (const target of [...targets, ...extra]) this.deliver(target.url, target.secret ?? null, payload, 1);
    return payload;
  }

  private deliver(url: string, secret: string | null, original: EventPayload, attempt: number): void {
    if (!this.options.allowRemote && !isLoopbackUrl(url)) {
      this.record({
        url,
        event: original.event,
        attempt,
        status: null,
        error: 'not delivered: only loopback URLs are called',
        at: isoTimestamp(this.clock.now()),
      });
      return;
    }
    const payload = this.options.mutatePayload ? this.options.mutatePayload(original) : original;
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'cloudcheck-reference/1',
    };
    if (secret && this.options.otherSignature)
      headers['x-signature'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    else if (secret)
      headers['x-webhook-signature'] = signatureHeader(secret, Math.floor(this.clock.now() / 1000), body);
    const retry = (status: number | null, error?: string): void => {
      this.record({ url, event: original.event, attempt, status, error, at: isoTimestamp(this.clock.now()) });
      if (attempt < this.options.maxAttempts && !this.options.noRetry?.()) {
        this.clock.schedule(this.options.retryBaseMs * 2 ** (attempt - 1), () =>
          this.deliver(url, secret, original, attempt + 1),
        );
      }
    };
    undici()
      .request(url, {
        method: 'POST',
        headers,
        body,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      })
      .then(async (response) => {
        await response.body.dump();
        if (response.statusCode >= 200 && response.statusCode < 300) {
          this.record({
            url,
            event: original.event,
            attempt,
            status: response.statusCode,
            at: isoTimestamp(this.clock.now()),
          });
        } else {
          retry(response.statusCode);
        }
      })
      .catch((error: unknown) => retry(null, error instanceof Error ? error.message : String(error)));
  }

  private record(entry: DeliveryRecord): void {
    this.deliveries.push(entry);
    if (this.deliveries.length > 1000) this.deliveries.shift();
  }
}
