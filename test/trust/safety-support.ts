/**
 * Helpers of the safety trust tests (safety.test.ts): run the `cloudcheck` binary as a child
 * process, seed an account through the REST API, and snapshot every collection of an account so
 * that "before" and "after" can be compared item by item.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The environment of this process without any CLOUDCHECK_* variable (the run must get its settings from its flags). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('CLOUDCHECK_') && value !== undefined) env[name] = value;
  return { ...env, FORCE_COLOR: '0', ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process exited; kills it with SIGKILL after `killAfterMs` (a bounded wait). */
  done: Promise<CliResult>;
  stderrSoFar(): string;
}

/** `detached`: in a process group of its own (whose id is the child's pid), to be signalled as a group. */
export function startCloudcheck(
  args: string[],
  options: { env?: Record<string, string>; killAfterMs: number; detached?: boolean },
): CliRun {
  const t0 = Date.now();
  const child = spawn(process.execPath, ['bin/cloudcheck.mjs', ...args], {
    cwd: ROOT,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<CliResult>((resolve) => {
    const killer = setTimeout(() => {
      try {
        if (options.detached && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // Gone already.
      }
    }, options.killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      // Let the pipes drain.
      setTimeout(() => resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 }), 50);
    });
  });
  return { child, done, stderrSoFar: () => stderr };
}

/** A stack trace line (`    at fn (file:1:2)`) in output means something crashed instead of reporting. */
export const STACK_TRACE = /^\s+at .*(\(.*:\d+:\d+\)|:\d+:\d+)$/m;

export interface RestResponse {
  status: number;
  body: unknown;
  bytes: Buffer;
}

export async function rest(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RestResponse> {
  const raw = typeof body === 'string' || body instanceof Uint8Array;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && !raw ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  let parsed: unknown;
  try {
    parsed = bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, bytes };
}

export async function restOk(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await rest(base, key, method, path, body, headers);
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${path} answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 300)}`);
  return (res.body ?? {}) as Record<string, unknown>;
}

type Item = Record<string, unknown>;

/** Every list endpoint of an account, and how its items are identified. */
export const COLLECTIONS = [
  '/vps',
  '/ssh-keys',
  '/snapshots',
  '/storage/buckets',
  '/storage/volumes',
  '/storage/snapshots',
  '/storage/access-keys',
  '/account/payment-methods',
  '/account/invoices',
  '/account/api-keys',
  '/account/alerts',
  '/account/wallets',
  '/projects',
  '/messaging/templates',
  '/messaging/contacts/lists',
  '/messaging/opt-outs',
  '/messaging/sender-ids',
  '/sms/messages',
  '/sms/campaigns',
] as const;

export function idOf(item: Item): string {
  for (const field of [
    'id',
    'message_id',
    'campaign_id',
    'key_id',
    'list_id',
    'template_id',
    'key',
    'sender_id',
    'phone',
    'phone_number',
    'currency',
    'name',
  ])
    if (typeof item[field] === 'string') return item[field];
  return JSON.stringify(item);
}

/** The first array of objects in a list response (`{ vps_instances: [...], meta }` → the array). */
function itemsOf(body: unknown): Item[] {
  if (!body || typeof body !== 'object') return [];
  for (const value of Object.values(body as Record<string, unknown>))
    if (Array.isArray(value)) return value.filter((x): x is Item => !!x && typeof x === 'object');
  return [];
}

/** collection → id → item. Objects of each bucket are a collection `/storage/buckets/<name>/objects`, with a `sha256` of their bytes. */
export type AccountSnapshot = Map<string, Map<string, Item>>;

export async function snapshotAccount(base: string, key: string): Promise<AccountSnapshot> {
  const snap: AccountSnapshot = new Map();
  for (const path of COLLECTIONS) {
    const items = new Map<string, Item>();
    // Bounded paging: at most 50 pages of 100.
    for (let page = 1; page <= 50; page++) {
      const res = await rest(base, key, 'GET', `${path}?page=${page}&per_page=100`);
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
      for (const item of itemsOf(res.body)) items.set(idOf(item), item);
      const meta = (res.body as { meta?: { pages?: number } }).meta;
      if (!meta?.pages || page >= meta.pages) break;
    }
    snap.set(path, items);
  }
  snap.set('/account', new Map([['account', await restOk(base, key, 'GET', '/account')]]));
  for (const bucket of snap.get('/storage/buckets')!.values()) {
    const name = String(bucket.name);
    const objects = new Map<string, Item>();
    const list = await restOk(base, key, 'GET', `/storage/buckets/${encodeURIComponent(name)}/objects?max_keys=1000`);
    for (const object of itemsOf(list)) {
      const objectKey = String(object.key);
      const bytes = await rest(
        base,
        key,
        'GET',
        `/storage/buckets/${encodeURIComponent(name)}/objects/${objectKey.split('/').map(encodeURIComponent).join('/')}`,
      );
      objects.set(objectKey, { ...object, sha256: createHash('sha256').update(bytes.bytes).digest('hex') });
    }
    snap.set(`/storage/buckets/${name}/objects`, objects);
  }
  return snap;
}

/**
 * Kinds the API has no DELETE for: a run may leave them behind. They must carry the run prefix
 * `cc-` where they have a name. Keyed by collection; `named` is the field holding the name, null
 * when the kind has no name (messages, opt-outs).
 */
export const ACCEPTED_LEFTOVERS: Record<string, { named: string | null; reason: string }> = {
  '/messaging/templates': { named: 'name', reason: 'the API has no DELETE for it' },
  '/messaging/contacts/lists': { named: 'name', reason: 'the API has no DELETE for it' },
  '/messaging/sender-ids': {
    named: null,
    reason: 'the API has no DELETE for it (sender ids are short alphanumeric codes, no room for the prefix)',
  },
  '/messaging/opt-outs': { named: null, reason: 'the API has no DELETE for it' },
  '/sms/messages': { named: null, reason: 'the API has no DELETE for it (test-mode messages)' },
  '/sms/campaigns': { named: null, reason: 'the API has no DELETE for it (campaigns have no name field)' },
  '/ssh-keys': { named: 'name', reason: 'the API has no DELETE for it' },
  '/storage/access-keys': { named: 'name', reason: 'the API has no DELETE for it' },
  '/storage/snapshots': { named: 'name', reason: 'the API has no DELETE for it (volume snapshots)' },
  '/account/alerts': { named: null, reason: 'the API has no DELETE for it' },
  // Invoices are the account's billing records, created by the server (not by the run).
  '/account/invoices': { named: null, reason: 'created by the server as usage accrues, not a resource of the run' },
};

/**
 * Fields that change on their own and are ignored when a seeded item is compared, per collection.
 * - `last_used` of API keys: the server stamps it whenever a key is used (the run uses the main key).
 * - `/account/wallets` `updated_at`: none known; listed for completeness if a target has it.
 */
export const IGNORED_FIELDS: Record<string, string[]> = {
  '/account/api-keys': ['last_used'],
};

export function withoutIgnored(collection: string, item: Item): Item {
  const ignored = IGNORED_FIELDS[collection] ?? [];
  return Object.fromEntries(Object.entries(item).filter(([name]) => !ignored.includes(name)));
}
