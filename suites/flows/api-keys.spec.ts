/**
 * Flow: API keys and what they authorise. The full key appears only in the creation response; a
 * new key works; a revoked key does not (and is no longer listed); a key past its `expires_at`
 * does not; a key whitelisted to another address does not; a read-only key can read and cannot
 * write. Every key is in the ledger from the moment it exists, so the flow's teardown revokes what
 * the flow did not revoke itself.
 *
 * This flow is about keys, so it names the key of every request itself (no budget, no retries).
 */
import {
  Provision,
  addSecret,
  defineFlow,
  expect,
  expectEchoed,
  expectErrorEnvelope,
  expectFields,
  expectNotListed,
  expectRefused,
  expectStatus,
  expectSuccess,
  listOf,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, Ledger } from '../../src/harness/check.ts';

interface CreatedKey {
  id: string;
  name: string;
  key: string;
  permissions: string[];
  expires_at: string | null;
  created_at: string;
}

interface State {
  main: CreatedKey;
  readOnly: CreatedKey;
}

const FLOW = 'flow.api-keys';
/** TEST-NET-1 (RFC 5737): an address no test machine has. */
const FOREIGN_IP = '192.0.2.1';

async function createKey(
  api: ApiClient,
  ledger: Ledger,
  body: Record<string, unknown>,
): Promise<{ res: ApiResponse; key: CreatedKey }> {
  const res = await api.post('/account/api-keys', body);
  return { res, key: createdKey(res, ledger) };
}

/** The key a creation response holds (checked), in the ledger from then on. */
function createdKey(res: ApiResponse, ledger: Ledger): CreatedKey {
  expectStatus(res, [200, 201]);
  const created = res.json<{ api_key: CreatedKey }>();
  expectFields(created, { api_key: 'object' }, 'the creation response', res);
  const key = created.api_key;
  expectFields(key, { id: 'string' }, 'the created key', res);
  ledger.track('api-key', key.id);
  // The full secret.
  expectFields(key, { key: 'string' }, 'the created key', res);
  addSecret(key.key);
  return key;
}

/** A request made with exactly `key` (no budget): GET /account, served to any read key. */
const readWith = (api: ApiClient, key: string): Promise<ApiResponse> => api.get('/account', { key });

/** A write made with exactly `key`: creating a project (deleted at teardown if it was created). */
async function writeWith(api: ApiClient, ledger: Ledger, key: string, name: string): Promise<ApiResponse> {
  const res = await api.post('/projects', { name, description: 'cloudcheck api-keys flow' }, { key });
  const id = (res.body as { project?: { id?: unknown } } | undefined)?.project?.id;
  if (res.status < 300 && typeof id === 'string') ledger.track('project', id);
  return res;
}

/** "Refused as unauthenticated" (MUST): not served, an error status with the envelope. */
function expectRefusedWithEnvelope(res: ApiResponse, what: string): void {
  expectRefused(res, what);
  expectErrorEnvelope(res);
}

/** The listing entry of a key (however the list is wrapped). */
async function listedKey(api: ApiClient, id: string): Promise<Record<string, unknown>> {
  const res = await api.get('/account/api-keys');
  expectSuccess(res);
  const entry = (listOf<Record<string, unknown>>(res.body, 'api_keys') ?? []).find((k) => k.id === id);
  expect(entry, `key ${id} is listed`).toBeTruthy();
  return entry!;
}

/**
 * The key that expires, made as the run starts (provision.ts) and used once at once: by the time
 * the step comes, its expires_at has passed, and its wait overlapped the rest of the run. Two
 * seconds ahead: long enough for that first use even if the target keeps whole seconds of
 * expires_at (scaled for slow targets).
 */
const expiringKey = new Provision(`${FLOW}.expiring-key`, async ({ api, ledger, name, settings }) => {
  const expiresAt = new Date(Date.now() + Math.max(2_000, 2_000 * settings.timeoutScale)).toISOString();
  const created = await api.post('/account/api-keys', {
    name: name('key-exp'),
    permissions: ['read'],
    expires_at: expiresAt,
  });
  const record = (created.body as { api_key?: { id?: unknown; key?: unknown } } | undefined)?.api_key;
  if (typeof record?.id === 'string') ledger.track('api-key', record.id);
  const before = typeof record?.key === 'string' ? await readWith(api, record.key) : null;
  return { expiresAt, created, before };
});

defineFlow<State>(
  {
    id: FLOW,
    class: 'api-keys',
    title: 'API keys: secret only at creation, new works, revoked, expired and foreign-IP keys refused, read-only',
  },
  (step) => {
    step(
      {
        id: `${FLOW}.create`,
        requirement: 'KEY-CRT-003',
        level: 'MUST',
        operation: 'POST /account/api-keys',
        title: 'POST /account/api-keys answers api_key with id, name, key, permissions, expires_at and created_at',
      },
      async ({ api, ledger, ctx, state }) => {
        const name = ctx.name('key');
        const { res, key } = await createKey(api, ledger, { name, permissions: ['read', 'write'] });
        state.main = key;
        // `expires_at` is there, null when the key never expires.
        const fields = {
          name: 'string',
          permissions: 'string[]',
          expires_at: 'timestamp|null',
          created_at: 'timestamp',
        } as const;
        expectFields(key, fields, 'the created key', res);
        expectEchoed(res, key, { name }, 'the created key');
        expect([...key.permissions].sort()).toEqual(['read', 'write']);
        expect(key.key.length, 'the secret is a real secret').toBeGreaterThanOrEqual(16);
      },
    );

    step(
      {
        id: `${FLOW}.works`,
        requirement: 'KEY-CRT-004',
        level: 'MUST',
        operation: 'POST /account/api-keys',
        title: 'the new key is served right away',
      },
      async ({ api, ledger, ctx, state }) => {
        expectStatus(await readWith(api, state.main.key), 200);
        // A write too: the key was created with both permissions.
        expectStatus(
          await writeWith(api, ledger, state.main.key, ctx.name('key-proj')),
          [200, 201],
          'a write with the new read+write key',
        );
      },
    );

    step(
      {
        id: `${FLOW}.listing-hides-secret`,
        requirement: 'KEY-LIST-002',
        level: 'MUST',
        operation: 'GET /account/api-keys',
        title: 'GET /account/api-keys lists the key with its prefix and never the secret',
      },
      async ({ api, state }) => {
        const res = await api.get('/account/api-keys');
        expectStatus(res, 200);
        const entry = res
          .json<{ api_keys: Array<Record<string, unknown>> }>()
          .api_keys.find((k) => k.id === state.main.id);
        expect(entry, `key ${state.main.id} is listed`).toBeTruthy();
        expect(typeof entry?.prefix, '`prefix`').toBe('string');
        expect(Object.keys(entry ?? {}), 'no `key` field in the listing').not.toContain('key');
        // Raw text: the secret anywhere in the body (any field, any account) is a leak.
        expect(res.text.includes(state.main.key), 'the secret appears nowhere in the listing body').toBe(false);
      },
    );

    step(
      {
        id: `${FLOW}.prefix`,
        requirement: 'KEY-PFX-001',
        level: 'SHOULD',
        operation: 'GET /account/api-keys',
        title: 'the listed prefix of the key is the first 12 characters of its secret',
      },
      async ({ api, state }) => {
        const entry = await listedKey(api, state.main.id);
        expect(entry.prefix, 'the listed `prefix`').toBe(state.main.key.slice(0, 12));
      },
    );

    step(
      {
        id: `${FLOW}.last-used`,
        requirement: 'KEY-LIST-003',
        level: 'MUST',
        operation: 'GET /account/api-keys',
        title: 'after the key was used, its listing entry reports that use in last_used',
      },
      async ({ api, state }) => {
        const entry = await listedKey(api, state.main.id);
        const used = typeof entry.last_used === 'string' ? Date.parse(entry.last_used) : Number.NaN;
        expect(
          Number.isNaN(used),
          `last_used of a key that served requests is a timestamp, is ${JSON.stringify(entry.last_used)}`,
        ).toBe(false);
        // Not before the key existed (seconds of clock rounding allowed).
        expect(used, 'last_used is not before created_at').toBeGreaterThanOrEqual(
          Date.parse(state.main.created_at) - 2_000,
        );
      },
    );

    step(
      {
        id: `${FLOW}.listing-fields`,
        requirement: 'KEY-FLD-001',
        level: 'MUST',
        operation: 'GET /account/api-keys',
        title:
          'the listing entry carries id, name, prefix, permissions, last_used, created_at and expires_at with their types',
      },
      async ({ api, state }) => {
        const entry = await listedKey(api, state.main.id);
        const types = {
          id: 'string',
          name: 'string',
          prefix: 'string',
          permissions: 'string[]',
          last_used: 'timestamp',
          created_at: 'timestamp',
          expires_at: 'timestamp|null',
        } as const;
        expectFields(entry, types, 'GET /account/api-keys');
      },
    );

    step(
      {
        id: `${FLOW}.revoked-refused`,
        requirement: 'KEY-REVOKE-001',
        level: 'MUST',
        operation: 'DELETE /account/api-keys/{key_id}',
        title: 'a revoked key is refused',
      },
      async ({ api, ledger, ctx, state }) => {
        const res = await api.delete(`/account/api-keys/${encodeURIComponent(state.main.id)}`);
        expectStatus(res, [200, 202, 204]);
        ledger.deleted('api-key', state.main.id);
        expectRefusedWithEnvelope(await readWith(api, state.main.key), 'a read with the revoked key');
        expectRefusedWithEnvelope(
          await writeWith(api, ledger, state.main.key, ctx.name('key-proj')),
          'a write with the revoked key',
        );
      },
    );

    step(
      {
        id: `${FLOW}.revoked-unlisted`,
        requirement: 'KEY-DEL-001',
        level: 'MUST',
        operation: 'GET /account/api-keys',
        title: 'a revoked key is no longer listed',
      },
      async ({ api, state }) => {
        const res = await api.get('/account/api-keys');
        expectStatus(res, 200);
        const ids = res.json<{ api_keys: Array<{ id: string }> }>().api_keys.map((k) => k.id);
        expectNotListed(res, ids.includes(state.main.id), state.main.id, 'GET /account/api-keys after the revocation');
      },
    );

    step(
      {
        id: `${FLOW}.revoked-401`,
        requirement: 'KEY-REVOKE-002',
        level: 'SHOULD',
        operation: 'DELETE /account/api-keys/{key_id}',
        title: 'a request with a revoked key is answered 401 unauthorized',
      },
      async ({ api, state }) => {
        const res = await readWith(api, state.main.key);
        expectStatus(res, 401);
        expectErrorEnvelope(res, 'unauthorized');
      },
    );

    step(
      {
        id: `${FLOW}.expired-refused`,
        requirement: 'KEY-EXPIRE-001',
        level: 'MUST',
        operation: 'POST /account/api-keys',
        title: 'a key works until its expires_at and is refused after it',
        provisions: [expiringKey],
      },
      async ({ api, ledger, ctx }) => {
        const early = await expiringKey.take({ api, ledger, ctx });
        const expiresAt = new Date(early.expiresAt);
        const key = createdKey(early.created, ledger);
        expect(early.before, 'a read with the key right after it was created').toBeTruthy();
        expectStatus(early.before!, 200, 'before expires_at');
        const refused = await ctx.poll(
          `key ${key.id} to be refused after its expires_at ${expiresAt.toISOString()}`,
          async () => {
            const res = await readWith(api, key.key);
            return res.status >= 400 ? res : undefined;
          },
          // From expires_at on, until the run's --async-timeout: clocks of the target and this machine may differ a little.
          { notBefore: expiresAt.getTime() },
        );
        expectRefusedWithEnvelope(refused, 'a read with the expired key');
      },
    );

    step(
      {
        id: `${FLOW}.ip-whitelist`,
        requirement: 'KEY-IP-001',
        level: 'MUST',
        operation: 'POST /account/api-keys',
        title: `a key whitelisted to another address (${FOREIGN_IP}) is refused`,
      },
      async ({ api, ledger, ctx }) => {
        const { key } = await createKey(api, ledger, {
          name: ctx.name('key-ip'),
          permissions: ['read'],
          ip_whitelist: [FOREIGN_IP],
        });
        const res = await readWith(api, key.key);
        expectRefused(res, 'a read from outside the whitelist');
      },
    );

    step(
      {
        id: `${FLOW}.ip-whitelist-403`,
        requirement: 'AUTH-IP-001',
        level: 'SHOULD',
        operation: 'POST /account/api-keys',
        title: 'outside its whitelist a key is answered 403 forbidden, inside it is served',
      },
      async ({ api, ledger, ctx }) => {
        const { key } = await createKey(api, ledger, {
          name: ctx.name('key-ip2'),
          permissions: ['read'],
          ip_whitelist: [`${FOREIGN_IP}/32`],
        });
        const res = await readWith(api, key.key);
        expectStatus(res, 403);
        expectErrorEnvelope(res, 'forbidden');
        // Every address (both families) is inside 0.0.0.0/0 or ::/0, whatever path this machine takes.
        const open = await createKey(api, ledger, {
          name: ctx.name('key-ip3'),
          permissions: ['read'],
          ip_whitelist: ['0.0.0.0/0', '::/0'],
        });
        expectStatus(await readWith(api, open.key.key), 200, 'a key whose whitelist covers every address');
      },
    );

    step(
      {
        id: `${FLOW}.read-only`,
        requirement: 'AUTH-PERM-001',
        level: 'SHOULD',
        operation: 'POST /account/api-keys',
        title: 'a read-only key can read and is refused a write with 403 forbidden, without side effect',
      },
      async ({ api, ledger, ctx, state }) => {
        const { key } = await createKey(api, ledger, { name: ctx.name('key-ro'), permissions: ['read'] });
        state.readOnly = key;
        expectStatus(await api.get('/account/api-keys', { key: key.key }), 200, 'a read with the read-only key');
        const name = ctx.name('ro-proj');
        const res = await writeWith(api, ledger, key.key, name);
        expectStatus(res, 403);
        expectErrorEnvelope(res, 'forbidden');
        const list = await api.get('/projects');
        expectStatus(list, 200);
        expect(
          list.json<{ projects: Array<{ name: string }> }>().projects.map((p) => p.name),
          'the refused write created nothing',
        ).not.toContain(name);
      },
    );
  },
);
