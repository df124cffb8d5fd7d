/**
 * Support for the compute and volume tests of the reference server (compute*.test.ts,
 * volumes*.test.ts): a client that names each call by its operation (`POST /vps/{vps_id}/actions`)
 * and checks every response against the OpenAPI document, fresh API keys so a test never meets
 * the 100-per-minute compute burst of another, and a real OpenSSH key generator.
 */
import { expect } from '../base.ts';
import { generateKeyPairSync } from 'node:crypto';
import type { RunningReference } from '../../reference/server.ts';
import { type ApiResponse, client, expectDocumented } from './helpers.ts';

export interface OpClient {
  /**
   * Calls `operation` ("METHOD /path/{param}") with `params` filled into the path, `query`
   * appended, and `body` sent as JSON (a string is sent raw). Unless `validate` is false, the
   * response must match the OpenAPI document.
   */
  op(
    operation: string,
    options?: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown; validate?: boolean },
  ): Promise<ApiResponse>;
  key: string;
}

export type Which = 'primary' | 'alt';

/** A new full-permission key of the primary (or the alternate) account: its own rate-limit windows. */
export function freshKey(server: RunningReference, which: Which = 'primary'): string {
  const bootstrap = server.context.accounts.keyBySecret(which === 'primary' ? server.apiKey : server.altApiKey);
  if (!bootstrap) throw new Error('bootstrap key not found');
  return server.context.accounts.createKey(bootstrap.accountId, { name: 'test', permissions: ['read', 'write'] }).key;
}

export function opClient(
  server: RunningReference,
  which: Which = 'primary',
  defaults: { validate?: boolean } = {},
): OpClient {
  return clientForKey(server, freshKey(server, which), defaults);
}

/** A client of a brand-new account, so list totals and filters see only what the test made. */
export function freshAccountClient(server: RunningReference, defaults: { validate?: boolean } = {}): OpClient {
  const account = server.context.accounts.createAccount({
    email: `t${Math.random().toString(36).slice(2)}@example.com`,
    name: 'Test account',
  });
  return clientForKey(
    server,
    server.context.accounts.createKey(account.id, { name: 'test', permissions: ['read', 'write'] }).key,
    defaults,
  );
}

function clientForKey(server: RunningReference, key: string, defaults: { validate?: boolean }): OpClient {
  const api = client(server.baseUrl, key);
  return {
    key,
    async op(operation, options = {}) {
      const [method = 'GET', template = '/'] = operation.split(' ');
      let path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = options.params?.[name];
        if (value === undefined) throw new Error(`missing path parameter ${name}`);
        return encodeURIComponent(value);
      });
      if (options.query) path += `?${new URLSearchParams(options.query).toString()}`;
      const response = await api.call(method, path, options.body);
      if (options.validate ?? defaults.validate ?? true) await expectDocumented(operation, response);
      return response;
    },
  };
}

/** Polls `read` until `done` holds (or fails after `timeoutMs`). */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function sshString(data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
}

/** A fresh ed25519 public key in OpenSSH text form (`ssh-ed25519 AAAA... comment`). */
export function newEd25519Key(comment = 'test@cloudcheck'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}

/** Reads a JSON body as a record (tests assert on its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are explored field by field; the OpenAPI check guards their shape
export function json(response: ApiResponse): Record<string, any> {
  return (response.body ?? {}) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- see above
}

export const VPS_BODY = { name: 'web-1', region: 'nyc1', image: 'ubuntu-22-04', size: 's-1vcpu-1gb' } as const;

/** Creates a VPS and waits until it is running. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see json()
export async function runningVps(api: OpClient, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const created = await api.op('POST /vps', { body: { ...VPS_BODY, ...overrides } });
  if (created.status !== 201) throw new Error(`POST /vps answered ${created.status}: ${created.text}`);
  const id = json(created).vps.id as string;
  const done = await waitFor(
    () => api.op('GET /vps/{vps_id}', { params: { vps_id: id } }),
    (r) => json(r).vps?.status === 'running',
  );
  return json(done).vps;
}

/** A client that moves to a fresh key before the 100-per-minute compute burst runs out (fuzz passes send many requests). */
export function rotatingClient(server: RunningReference): {
  call(method: string, path: string, body?: unknown): Promise<ApiResponse>;
} {
  let used = 0;
  let api = client(server.baseUrl, freshKey(server));
  return {
    call(method, path, body) {
      if (++used % 90 === 0) api = client(server.baseUrl, freshKey(server));
      return api.call(method, path, body);
    },
  };
}

/** Never a 5xx; an error comes in the envelope. */
export function expectEnvelopeOrSuccess(label: string, res: ApiResponse): void {
  expect(res.status, `${label} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const error = json(res).error;
    expect(typeof error?.code, label).toBe('string');
    expect(typeof error?.message, label).toBe('string');
  }
}

/** A 4xx in the envelope. */
export function expectRefused(label: string, res: ApiResponse): void {
  expectEnvelopeOrSuccess(label, res);
  expect(res.status, `${label} must be refused, got ${res.status} ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(
    400,
  );
  expect(res.status).toBeLessThan(500);
}
