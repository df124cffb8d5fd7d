/**
 * Malformed input for every operation of billing, projects and API keys: the server answers a
 * 4xx with the error envelope, never a 5xx, whatever arrives.
 */
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { SHORT_DELAYS, api, json, newAccount } from './billing-fixtures.ts';

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: SHORT_DELAYS });
});
test.afterAll(async () => {
  await server.close();
});

const BODY_FIELDS: Record<string, string[]> = {
  'PUT /account': ['name', 'company', 'timezone'],
  'POST /account/wallets/topup': ['amount', 'currency', 'payment_method'],
  'POST /account/payment-methods': ['type', 'token', 'set_default'],
  'POST /projects': ['name', 'description', 'region', 'budget_limit'],
  'PUT /projects/{id}': ['name', 'description', 'budget_limit'],
  'POST /account/api-keys': ['name', 'permissions', 'expires_at', 'ip_whitelist'],
  'POST /account/alerts': ['type', 'threshold', 'condition', 'notification_methods'],
};
const QUERY_FIELDS: Record<string, string[]> = {
  '/account/billing/history': ['from_date', 'to_date', 'type', 'page', 'per_page'],
  '/account/usage': ['service', 'detailed'],
  '/account/invoices': ['status', 'from_date', 'to_date'],
  '/account/analytics/costs': ['from_date', 'to_date', 'group_by'],
  '/account/analytics/trends': ['metric', 'from_date', 'to_date', 'interval'],
  '/projects/{id}/resources': ['service', 'status'],
  '/projects/{id}/usage': ['from_date', 'to_date'],
};

const HUGE = 'x'.repeat(200_000);
const ODD = [
  '',
  ' ',
  '\u0000',
  '💥🚀',
  '\u202e\u0301',
  'Ω'.repeat(5000),
  '../../etc/passwd',
  '<script>',
  "'; DROP TABLE--",
];
const WRONG_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  -1e308,
  1.5,
  'text',
  HUGE,
  ...ODD,
  [],
  [1, 'a', null],
  {},
  { nested: { deep: [] } },
];

function expectClientError(label: string, status: number, body: unknown): void {
  expect(status, label).toBeGreaterThanOrEqual(200);
  expect(status, label).toBeLessThan(500);
  if (status >= 400) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    expect(typeof error?.code, label).toBe('string');
    expect(typeof error?.message, label).toBe('string');
  }
}

test('malformed bodies: invalid JSON, arrays, wrong types, huge and odd strings', async () => {
  test.setTimeout(120_000);
  const { key } = newAccount(server);
  // Fresh keys as we go: billing allows 100 requests per hour per key.
  let a = api(server, key);
  let used = 0;
  const call = async (method: string, path: string, body?: unknown) => {
    if (++used % 90 === 0)
      a = api(
        server,
        server.context.accounts.createKey(server.context.accounts.keyBySecret(key)!.accountId, {
          name: 'fuzz',
          permissions: ['read', 'write'],
        }).key,
      );
    return a.call(method, path, body);
  };
  const project = json<{ project: { id: string } }>(await call('POST', '/projects', { name: 'fuzz' })).project.id;
  for (const [operation, fields] of Object.entries(BODY_FIELDS)) {
    const [method = 'GET', template = ''] = operation.split(' ');
    const path = template.replace('{id}', project);
    for (const raw of [
      '{"name": ',
      '[]',
      '[{"name": "x"}]',
      '"just a string"',
      '42',
      'null',
      '{"a":1}{"b":2}',
      '\u00ff\u00fe',
      `{"name": "${HUGE}"}`,
    ]) {
      const res = await call(method, path, raw);
      expectClientError(`${operation} raw ${raw.slice(0, 30)}`, res.status, res.body);
      if (raw.startsWith('[') || raw.startsWith('"') || raw === '42' || raw === '{"name": ')
        expect(res.status, `${operation} ${raw}`).toBe(400);
    }
    for (const field of fields) {
      for (const value of WRONG_VALUES) {
        const res = await call(method, path, { [field]: value });
        expectClientError(`${operation} ${field}=${JSON.stringify(value)?.slice(0, 40)}`, res.status, res.body);
      }
    }
  }
});

test('malformed query strings and ids never cause a 5xx', async () => {
  test.setTimeout(120_000);
  const { key, accountId } = newAccount(server);
  let a = api(server, key);
  let used = 0;
  const call = async (method: string, path: string) => {
    if (++used % 90 === 0)
      a = api(
        server,
        server.context.accounts.createKey(accountId, { name: 'fuzz', permissions: ['read', 'write'] }).key,
      );
    return a.call(method, path);
  };
  const project = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'fuzz' })).project.id;
  const values = [
    '',
    '%00',
    '💥',
    '-1',
    '99999999999999999999',
    '2025-02-30',
    '2025-13-01',
    '0001-01-01',
    '9999-12-31T23:59:59Z',
    'true',
    encodeURIComponent(HUGE.slice(0, 4000)),
  ];
  for (const [template, fields] of Object.entries(QUERY_FIELDS)) {
    const path = template.replace('{id}', project);
    for (const field of fields) {
      for (const value of values) {
        const res = await call('GET', `${path}?${field}=${value}`);
        expectClientError(`${path}?${field}=${value.slice(0, 20)}`, res.status, res.body);
      }
      const res = await call('GET', `${path}?${field}=a&${field}=b`);
      expectClientError(`${path} repeated ${field}`, res.status, res.body);
    }
  }
  for (const id of ['%00', '💥', 'x'.repeat(2000), '..%2F..', 'proj_0000000000000000']) {
    for (const [method, path] of [
      ['GET', `/projects/${id}`],
      ['PUT', `/projects/${id}`],
      ['DELETE', `/projects/${id}`],
      ['GET', `/projects/${id}/usage`],
      ['GET', `/account/invoices/${id}`],
      ['GET', `/account/invoices/${id}/pdf`],
      ['DELETE', `/account/payment-methods/${id}`],
      ['DELETE', `/account/api-keys/${id}`],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path.slice(0, 40)}`).toBe(404);
      expectClientError(`${method} ${path.slice(0, 40)}`, res.status, res.body);
    }
  }
});
