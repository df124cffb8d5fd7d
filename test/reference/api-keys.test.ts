import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { SHORT_DELAYS, api, expectError, json, newAccount } from './billing-fixtures.ts';

type Created = {
  api_key: {
    id: string;
    name: string;
    key: string;
    prefix: string;
    permissions: string[];
    expires_at: string | null;
    created_at: string;
    last_used: null;
  };
};
type Listed = { api_keys: Array<Record<string, unknown> & { id: string; prefix: string; last_used: string | null }> };

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: SHORT_DELAYS });
});
test.afterAll(async () => {
  await server.close();
});

const fresh = () => api(server, newAccount(server).key);

test('the full key appears only in the creation response, and works at once', async () => {
  const a = fresh();
  const res = await a.call('POST', '/account/api-keys', { name: 'ci', permissions: ['read', 'write'] });
  expect(res.status).toBe(201);
  const created = json<Created>(res).api_key;
  expect(created.id).toMatch(/^key_/);
  expect(created).toMatchObject({ name: 'ci', permissions: ['read', 'write'], expires_at: null, last_used: null });
  expect(created.prefix).toBe(created.key.slice(0, 12));
  const listing = await a.call('GET', '/account/api-keys');
  expect(listing.text).not.toContain(created.key);
  const entry = json<Listed>(listing).api_keys.find((k) => k.id === created.id);
  expect(entry).toBeDefined();
  expect(entry).not.toHaveProperty('key');
  expect(Object.keys(entry ?? {})).toEqual(
    expect.arrayContaining(['id', 'name', 'prefix', 'permissions', 'last_used', 'created_at', 'expires_at']),
  );
  expect(entry?.last_used).toBeNull();
  const withNew = api(server, created.key);
  expect((await withNew.call('GET', '/account')).status).toBe(200);
  const after = json<Listed>(await a.call('GET', '/account/api-keys')).api_keys.find((k) => k.id === created.id);
  expect(Date.parse(after?.last_used ?? '')).toBeGreaterThan(Date.now() - 10_000);
});

test('a revoked key is refused with 401 and leaves the listing', async () => {
  const a = fresh();
  const created = json<Created>(
    await a.call('POST', '/account/api-keys', { name: 'temp', permissions: ['read'] }),
  ).api_key;
  const del = await a.call('DELETE', `/account/api-keys/${created.id}`);
  expect(del.status).toBe(204);
  expect(del.text).toBe('');
  expectError(await api(server, created.key).call('GET', '/account'), 401, 'unauthorized');
  expect(json<Listed>(await a.call('GET', '/account/api-keys')).api_keys.map((k) => k.id)).not.toContain(created.id);
  const again = await a.call('DELETE', `/account/api-keys/${created.id}`);
  expectError(again, 404, 'not_found');
  expect(json<{ error: { resource: string } }>(again).error.resource).toBe('api_key');
});

test('a key past expires_at is refused with 401', async () => {
  const a = fresh();
  const expiresAtMs = Date.now() + 2000;
  const expiresAt = new Date(expiresAtMs).toISOString();
  const created = json<Created>(
    await a.call('POST', '/account/api-keys', { name: 'short', permissions: ['read'], expires_at: expiresAt }),
  ).api_key;
  expect(created.expires_at).toBe(expiresAt);
  const key = api(server, created.key);
  const before = (await key.call('GET', '/account')).status;
  // An answer received before expires_at was given before it: 200. On a machine loaded enough to
  // take two seconds for the calls above, the read came too late to say anything.
  if (Date.now() < expiresAtMs) expect(before).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAtMs - Date.now()) + 200));
  expectError(await key.call('GET', '/account'), 401, 'unauthorized');
  // Still listed (expired is not revoked), with its expiry.
  expect(
    json<Listed>(await a.call('GET', '/account/api-keys')).api_keys.find((k) => k.id === created.id)?.expires_at,
  ).toBe(expiresAt);
});

test('ip_whitelist: another address is refused with 403, the loopback address is served', async () => {
  const a = fresh();
  const elsewhere = json<Created>(
    await a.call('POST', '/account/api-keys', {
      name: 'office',
      permissions: ['read'],
      ip_whitelist: ['203.0.113.0/24', '2001:db8::/32'],
    }),
  ).api_key;
  expectError(await api(server, elsewhere.key).call('GET', '/account'), 403, 'forbidden');
  const local = json<Created>(
    await a.call('POST', '/account/api-keys', {
      name: 'local',
      permissions: ['read'],
      ip_whitelist: ['127.0.0.0/8', '::1'],
    }),
  ).api_key;
  expect((await api(server, local.key).call('GET', '/account')).status).toBe(200);
});

test('a read-only key can GET but not POST, PUT or DELETE', async () => {
  const a = fresh();
  const readOnly = api(
    server,
    json<Created>(await a.call('POST', '/account/api-keys', { name: 'ro', permissions: ['read'] })).api_key.key,
  );
  expect((await readOnly.call('GET', '/account/wallets')).status).toBe(200);
  expectError(await readOnly.call('POST', '/projects', { name: 'nope' }), 403, 'forbidden');
  expectError(await readOnly.call('PUT', '/account', { name: 'nope' }), 403, 'forbidden');
  expectError(
    await readOnly.call('POST', '/account/api-keys', { name: 'escalate', permissions: ['write'] }),
    403,
    'forbidden',
  );
  expect(json<{ projects: unknown[] }>(await a.call('GET', '/projects')).projects).toEqual([]);
  const writeOnly = api(
    server,
    json<Created>(await a.call('POST', '/account/api-keys', { name: 'wo', permissions: ['write'] })).api_key.key,
  );
  expectError(await writeOnly.call('GET', '/account'), 403, 'forbidden');
  expect((await writeOnly.call('POST', '/projects', { name: 'ok' })).status).toBe(201);
});

test('validation of the creation request', async () => {
  const a = fresh();
  const valid = { name: 'k', permissions: ['read'] };
  for (const [patch, field] of [
    [{ name: undefined }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 5 }, 'name'],
    [{ permissions: undefined }, 'permissions'],
    [{ permissions: [] }, 'permissions'],
    [{ permissions: ['admin'] }, 'permissions'],
    [{ permissions: 'read' }, 'permissions'],
    [{ expires_at: 'tomorrow' }, 'expires_at'],
    [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ expires_at: 1893456000 }, 'expires_at'],
    [{ ip_whitelist: ['10.0.0.0/33'] }, 'ip_whitelist'],
    [{ ip_whitelist: ['not-an-ip'] }, 'ip_whitelist'],
    [{ ip_whitelist: ['::1/129'] }, 'ip_whitelist'],
    [{ ip_whitelist: ['10.0.0.1/8/8'] }, 'ip_whitelist'],
    [{ ip_whitelist: '10.0.0.1' }, 'ip_whitelist'],
  ] as const) {
    const res = await a.call('POST', '/account/api-keys', { ...valid, ...patch });
    expectError(res, 422, 'validation_error');
    expect(json<{ error: { details: { field: string } } }>(res).error.details.field, JSON.stringify(patch)).toBe(field);
  }
  expect(json<Listed>(await a.call('GET', '/account/api-keys')).api_keys).toHaveLength(1);
});

test("keys are per account: another account's key is neither listed nor revocable", async () => {
  const mine = fresh();
  const theirs = fresh();
  const theirKey = json<Created>(
    await theirs.call('POST', '/account/api-keys', { name: 'theirs', permissions: ['read'] }),
  ).api_key;
  expect(json<Listed>(await mine.call('GET', '/account/api-keys')).api_keys.map((k) => k.id)).not.toContain(
    theirKey.id,
  );
  expectError(await mine.call('DELETE', `/account/api-keys/${theirKey.id}`), 404, 'not_found');
  expect((await api(server, theirKey.key).call('GET', '/account')).status).toBe(200);
});
