import { expect, test } from '../base.ts';
import { Budget } from '../../src/harness/budget.ts';
import { ApiClient, BODY_LIMIT, CHECK_HEADER, bodyForRecord } from '../../src/harness/client.ts';
import { EnvironmentError, NetworkError, PrerequisiteMissingError } from '../../src/harness/errors.ts';
import type { Exchange } from '../../src/model/finding.ts';
import { json, tinyServer } from './helpers.ts';
import type { TinyServer } from './helpers.ts';

let server: TinyServer;
test.afterEach(async () => server?.close());

function client(target: string, keys: string[] = ['cck_main_key_1234'], extra: { liveSms?: boolean } = {}) {
  const exchanges: Exchange[] = [];
  const api = new ApiClient({
    settings: {
      target,
      keys: { main: keys[0]!, alt: null },
      liveSms: extra.liveSms ?? false,
      allowCharges: false,
      timeoutScale: 1,
    },
    budgets: { main: new Budget(keys, { maxWaitMs: 50, reserve: 0 }) },
    record: (e) => exchanges.push(e),
  });
  return { api, exchanges };
}

test('records the exchange, redacted, with a curl line using $CLOUDCHECK_API_KEY', async () => {
  server = await tinyServer((_req, _body, res) =>
    json(res, 201, { api_key: { id: 'key_1', key: 'cck_new_secret_999' } }),
  );
  const { api, exchanges } = client(`${server.url}/v1`);
  const res = await api.post('/account/api-keys', { name: 'cc-x', permissions: ['read'] });
  expect(res.status).toBe(201);
  expect(res.json<{ api_key: { key: string } }>().api_key.key).toBe('cck_new_secret_999'); // the check sees it…
  expect(server.requests[0]!.headers.authorization).toBe('Bearer cck_main_key_1234');
  const text = JSON.stringify(exchanges);
  expect(exchanges).toHaveLength(1);
  expect(text).not.toContain('cck_main_key_1234'); // …the record does not
  expect(text).not.toContain('cck_new_secret_999');
  expect(exchanges[0]!.curl).toContain('$CLOUDCHECK_API_KEY');
  expect(exchanges[0]!.request.url).toBe(`${server.url}/v1/account/api-keys`);
  expect(exchanges[0]!.response?.status).toBe(201);
});

test("a check that reuses another check's responses records their exchanges as its own (recordShared)", async () => {
  server = await tinyServer((_req, _body, res) => json(res, 200, { ok: true }));
  const { api } = client(`${server.url}/v1`);
  const first: Exchange[] = [];
  const second: Exchange[] = [];
  const res = await api.forCheck('contract.listRegions.positive', (e) => first.push(e)).get('/regions');
  api.forCheck('contract.listRegions.positive-status', (e) => second.push(e)).recordShared([res.exchange]);
  expect(server.requests).toHaveLength(1);
  expect(first).toHaveLength(1);
  expect(second).toEqual(first);
});

test("a check's requests name it in x-cloudcheck-check; setup and teardown requests name none", async () => {
  server = await tinyServer((_req, _body, res) => json(res, 200, { ok: true }));
  const { api } = client(`${server.url}/v1`);
  const recorded: Exchange[] = [];
  await api.forCheck('flow.billing.top-up', (e) => recorded.push(e)).get('/account');
  await api.get('/regions');
  expect(server.requests.map((r) => r.headers[CHECK_HEADER])).toEqual(['flow.billing.top-up', undefined]);
  expect(recorded[0]!.request.headers[CHECK_HEADER]).toBe('flow.billing.top-up');
});

test('every SMS send carries X-Test-Mode: true unless live SMS; key null sends no Authorization', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 201, {}));
  const { api } = client(`${server.url}/v1`);
  await api.post('/sms/send', { to: '+15005550006', message: 'x' }, { headers: { 'X-Test-Mode': 'false' } });
  await api.post('/sms/bulk', { recipients: [], message: 'x' });
  await api.get('/sms/messages', { key: null });
  expect(server.requests.map((r) => r.headers['x-test-mode'])).toEqual(['true', 'true', undefined]);
  expect(server.requests[2]!.headers.authorization).toBeUndefined();
  const live = client(`${server.url}/v1`, undefined, { liveSms: true });
  await live.api.post('/sms/send', { to: '+1', message: 'x' });
  expect(server.requests[3]!.headers['x-test-mode']).toBeUndefined();
});

test('money-moving operations are refused without --allow-charges', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 200, {}));
  const { api } = client(`${server.url}/v1`);
  await expect(api.post('/account/wallets/topup', { amount: 1 })).rejects.toBeInstanceOf(PrerequisiteMissingError);
  expect(server.requests).toHaveLength(0);
});

test('an unexpected 429 is retried with another key; an explicit key gets the 429 back', async () => {
  server = await tinyServer((req, _body, res) => {
    if (req.headers.authorization === 'Bearer key_busy_0001')
      json(res, 429, { error: { code: 'rate_limit_exceeded' } }, { 'retry-after': '30' });
    else json(res, 200, {});
  });
  const { api } = client(`${server.url}/v1`, ['key_busy_0001', 'key_free_0002']);
  const first = await api.get('/vps');
  // Round-robin may pick the free key first; either way the answer is the 200.
  expect(first.status).toBe(200);
  const second = await api.get('/vps');
  expect(second.status).toBe(200);
  expect(server.requests.filter((r) => r.headers.authorization === 'Bearer key_busy_0001')).toHaveLength(1);
  const explicit = await api.get('/vps', { key: 'key_busy_0001' });
  expect(explicit.status).toBe(429);
});

test('429 on every key of the budget becomes an environment error, not a defect', async () => {
  server = await tinyServer((_req, _body, res) =>
    json(res, 429, { error: { code: 'rate_limit_exceeded' } }, { 'retry-after': '60' }),
  );
  const { api } = client(`${server.url}/v1`, ['key_a_00000001', 'key_b_00000002']);
  const error = await api.get('/vps').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EnvironmentError);
});

test('no response becomes a NetworkError and is still recorded', async () => {
  server = await tinyServer((_req, _body, res) => json(res, 200, {}));
  const url = server.url;
  await server.close();
  const { api, exchanges } = client(`${url}/v1`);
  await expect(api.get('/account')).rejects.toBeInstanceOf(NetworkError);
  expect(exchanges[0]!.error).toBeTruthy();
});

test('a binary request body is saved under bodies/ of the report directory and read back by the curl line', async () => {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const reportDir = mkdtempSync(join(tmpdir(), 'cc-bodies-'));
  try {
    server = await tinyServer((_req, _body, res) => json(res, 200, {}));
    const exchanges: Exchange[] = [];
    const api = new ApiClient({
      settings: {
        target: `${server.url}/v1`,
        keys: { main: 'cck_main_key_1234', alt: null },
        liveSms: false,
        allowCharges: false,
        timeoutScale: 1,
        reportDir,
      },
      budgets: { main: new Budget(['cck_main_key_1234'], { maxWaitMs: 50, reserve: 0 }) },
      record: (e) => exchanges.push(e),
    });
    const bytes = Buffer.from([0, 1, 2, 255, 254, 0, 7]);
    await api.request({
      method: 'PUT',
      path: '/storage/buckets/cc-b/objects/blob.bin',
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    // A JSON body stays inline.
    await api.post('/sms/send', { to: '+15005550006', message: 'x' });
    const file = /--data-binary '@(bodies\/[0-9a-f]+\.bin)'/.exec(exchanges[0]!.curl)?.[1];
    expect(file, exchanges[0]!.curl).toBeTruthy();
    expect(readFileSync(join(reportDir, file!))).toEqual(bytes);
    expect(exchanges[1]!.curl).toContain('--data-raw \'{"to"');
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
});

test('a recorded body keeps BODY_LIMIT characters of text, whatever its size; binary stays a placeholder', () => {
  const big = Buffer.alloc(10 * 1024 * 1024, 'a');
  expect(bodyForRecord(big, 'text/plain')).toBe(
    `${'a'.repeat(BODY_LIMIT)}… <truncated, ${big.byteLength} bytes in all>`,
  );
  // Undeclared, multi-byte text cut in the middle of a character is still text.
  const accents = Buffer.from(`x${'é'.repeat(40_000)}`);
  expect(bodyForRecord(accents, undefined)).toBe(
    `x${'é'.repeat(BODY_LIMIT - 1)}… <truncated, ${accents.byteLength} bytes in all>`,
  );
  const binary = Uint8Array.from({ length: 100_000 }, (_, i) => i % 256);
  expect(bodyForRecord(binary, undefined)).toBe('<binary body, 100000 bytes>');
  expect(bodyForRecord(binary.subarray(65, 91), undefined)).toBe('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  expect(bodyForRecord(Buffer.from('{"a":1}'), 'application/json')).toBe('{"a":1}');
});
