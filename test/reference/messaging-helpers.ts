/**
 * Helpers of the messaging reference tests: a server with short delays, a client that checks
 * every response against the OpenAPI document, and a tiny webhook receiver on a free port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '../base.ts';
import { type ReferenceOptions, type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { type Validators, compileValidators } from '../../spec/model.ts';
import { type ApiResponse, client, expectDocumented } from './helpers.ts';

/** Bench-style key of the first account: never rate limited, so busy tests never meet a 429. */
export const UNLIMITED_KEY = 'cck_test_unlimited_messaging';
export const TEST_MODE = { 'x-test-mode': 'true' };
export const NUMBERS = { succeed: '+15005550006', fail: '+15005550001', random: '+15005550009' };

export function startMessagingServer(options: ReferenceOptions = {}): Promise<RunningReference> {
  return startReferenceServer({
    unlimitedKey: UNLIMITED_KEY,
    delays: { smsDeliveryMs: 60, senderApprovalMs: 60, webhookRetryMs: 50, vpsBootMs: 50 },
    ...options,
  });
}

export interface Api {
  /** `op` is the operation as the specification writes it (`POST /sms/send`); the path is concrete. */
  call(op: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
}

/**
 * Statuses the shared pipeline answers before any route runs (413 body too large, 400/414 for a
 * path the router cannot decode). The OpenAPI document does not list them per operation yet
 * (reported to the lead); `fuzzApi` skips the document check for them, the envelope is still checked.
 */
export const PIPELINE_STATUSES: readonly number[] = [413, 414];

/** Calls and validates the answer against the OpenAPI document (a no-op until spec/model.ts exists). */
export function api(
  server: RunningReference,
  key = UNLIMITED_KEY,
  skipDocumentFor: (response: ApiResponse) => boolean = () => false,
): Api {
  const http = client(server.baseUrl, key);
  return {
    async call(op, path, body, headers) {
      const method = op.split(' ')[0] ?? 'GET';
      const response = await http.call(method, path, body, { headers });
      expect(response.status, `${op} answered ${response.status}: ${response.text.slice(0, 500)}`).toBeLessThan(500);
      if (!skipDocumentFor(response)) await expectDocumented(op, response);
      return response;
    },
  };
}

/** Narrow helper for reading JSON bodies in tests. */
export function obj(value: unknown): Record<string, unknown> {
  expect(
    typeof value === 'object' && value !== null && !Array.isArray(value),
    `expected an object, got ${JSON.stringify(value)}`,
  ).toBe(true);
  return value as Record<string, unknown>;
}

export function errorOf(response: ApiResponse): {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  resource?: string;
} {
  const error = obj(obj(response.body).error);
  expect(typeof error.code).toBe('string');
  expect(typeof error.message).toBe('string');
  return error as { code: string; message: string; details?: Record<string, unknown>; resource?: string };
}

/** Sends one message and returns its id (201 expected). */
export async function send(
  a: Api,
  body: Record<string, unknown>,
  headers: Record<string, string> = TEST_MODE,
): Promise<Record<string, unknown>> {
  const response = await a.call('POST /sms/send', '/sms/send', body, headers);
  expect(response.status, response.text).toBe(201);
  return obj(response.body);
}

/** Waits until the message leaves `sent` and returns its status body. */
export async function finalStatus(a: Api, messageId: string): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        last = obj((await a.call('GET /sms/status/{message_id}', `/sms/status/${messageId}`)).body);
        return last.status;
      },
      { timeout: 5000, intervals: [30, 50, 100] },
    )
    .not.toBe('sent');
  return last;
}

export interface Delivery {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: { event?: string; timestamp?: string; data?: Record<string, unknown> };
}

/** A webhook receiver on 127.0.0.1, port 0; answers 200 and records each POST. */
export async function startReceiver(): Promise<{
  url: string;
  deliveries: Delivery[];
  /** The deliveries to `path` about one message. */
  forMessage(path: string, messageId: unknown): Delivery[];
  close(): Promise<void>;
}> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Delivery['body'];
      try {
        body = JSON.parse(raw) as Delivery['body'];
      } catch {
        body = {};
      }
      deliveries.push({ path: req.url ?? '/', headers: req.headers, raw, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    forMessage: (path, messageId) => deliveries.filter((d) => d.path === path && d.body.data?.message_id === messageId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let validators: Promise<Validators> | undefined;

/** Checks a webhook body against the document's event schema (`SmsEvent`, under `webhooks`). */
export async function expectEventDocumented(body: unknown, schema = 'SmsEvent'): Promise<void> {
  validators ??= compileValidators();
  const result = (await validators).validateSchema(schema, body);
  expect(result.errors, `${schema}: ${JSON.stringify(body)}`).toEqual([]);
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The `data` fields of the specification's messaging event payload. */
export const EVENT_DATA_FIELDS = ['country', 'delivered_at', 'from', 'message_id', 'network', 'status', 'to'];

export interface SharedServer {
  server: RunningReference;
  /** The server's unlimited-key client. */
  a: Api;
  receiver: Receiver;
}

/**
 * One messaging server and one webhook receiver for a whole test file, handed to `use` once
 * started; at the end every payload any test received must match the document's event schema.
 */
export function shareServerAndReceiver(use: (shared: SharedServer) => void): void {
  let shared: SharedServer | undefined;
  test.beforeAll(async () => {
    const server = await startMessagingServer();
    shared = { server, a: api(server), receiver: await startReceiver() };
    use(shared);
  });
  test.afterAll(async () => {
    if (!shared) return;
    for (const delivery of shared.receiver.deliveries) await expectEventDocumented(delivery.body);
    await shared.server.close();
    await shared.receiver.close();
  });
}
