/**
 * Malformed input on every compute operation: invalid JSON, non-object bodies, wrong types for
 * every field, huge and odd strings, odd path ids and query values. Each must be answered with
 * a 4xx in the error envelope (or accepted, where the odd value is in fact valid), never a 5xx.
 */
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
import { VPS_BODY, expectEnvelopeOrSuccess, expectRefused, freshKey, json, rotatingClient } from './compute-support.ts';

type Kind = 'string' | 'array' | 'boolean';

const HUGE = 'x'.repeat(200_000);
const ODD_STRINGS = [
  '',
  ' ',
  HUGE,
  '\u0000',
  '\uD800',
  '\uFFFF\uFFFE',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 مرحبا',
  '\u202Eevil',
  '../../etc/passwd',
  '<script>',
  "'; DROP TABLE x;--",
  '__proto__',
  'constructor',
  '9'.repeat(400),
];
const WRONG_FOR: Record<Kind, unknown[]> = {
  string: [42, -1, 1e308, 0.5, true, false, [], ['x'], {}, { a: 1 }],
  array: ['x', 42, true, {}, { 0: 'x' }, [42], [null], [[]], [{}], Array.from({ length: 20_000 }, () => 'x')],
  boolean: ['true', 1, 0, [], {}, [true]],
};
const MALFORMED = [
  '{bad',
  '{"name": }',
  '[1,2',
  '"just a string"',
  '42',
  'true',
  'null',
  '[]',
  '[{"name":"x"}]',
  '\u0000',
  '{"a":1}{"b":2}',
];

let server: RunningReference;
let vpsId = '';

interface BodyOp {
  method: string;
  path: () => string;
  valid: Record<string, unknown>;
  fields: Record<string, Kind>;
}

const OPS: BodyOp[] = [
  {
    method: 'POST',
    path: () => '/vps',
    valid: { ...VPS_BODY },
    fields: {
      name: 'string',
      region: 'string',
      image: 'string',
      size: 'string',
      ssh_keys: 'array',
      private_networking: 'boolean',
      backups: 'boolean',
      monitoring: 'boolean',
      user_data: 'string',
      tags: 'array',
      project_id: 'string',
    },
  },
  { method: 'PUT', path: () => `/vps/${vpsId}`, valid: { name: 'web-2' }, fields: { name: 'string', tags: 'array' } },
  { method: 'POST', path: () => `/vps/${vpsId}/actions`, valid: { type: 'stop' }, fields: { type: 'string' } },
  {
    method: 'POST',
    path: () => `/vps/${vpsId}/actions`,
    valid: { type: 'resize', size: 's-2vcpu-2gb' },
    fields: { size: 'string' },
  },
  {
    method: 'POST',
    path: () => `/vps/${vpsId}/actions`,
    valid: { type: 'snapshot', name: 's' },
    fields: { name: 'string' },
  },
  {
    method: 'POST',
    path: () => `/vps/${vpsId}/actions`,
    valid: { type: 'rebuild', image: 'debian-12' },
    fields: { image: 'string' },
  },
  {
    method: 'POST',
    path: () => '/ssh-keys',
    valid: { name: 'k', public_key: 'ssh-ed25519 AAAA' },
    fields: { name: 'string', public_key: 'string' },
  },
];

test.beforeAll(async () => {
  server = await startReferenceServer({ delays: { vpsBootMs: 10_000 } });
  const res = await client(server.baseUrl, freshKey(server)).call('POST', '/vps', VPS_BODY);
  vpsId = json(res).vps.id;
});
test.afterAll(async () => {
  await server.close();
});

test('malformed bodies on every body operation are 4xx with the envelope', async () => {
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const raw of MALFORMED)
      expectRefused(`${op.method} ${op.path()} body ${JSON.stringify(raw)}`, await api.call(op.method, op.path(), raw));
    const tooBig = await api.call(op.method, op.path(), JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    expectRefused(`${op.method} ${op.path()} 2 MiB body`, tooBig);
    expect(tooBig.status).toBe(413);
  }
  // Operations without a request body still refuse a body that is not JSON.
  for (const [method, path] of [
    ['DELETE', `/vps/${vpsId}`],
    ['DELETE', '/snapshots/snap_x'],
  ]) {
    expectRefused(`${method} ${path} with a broken body`, await api.call(method ?? 'DELETE', path ?? '', '{bad'));
  }
  expect((await api.call('GET', `/vps/${vpsId}`)).status).toBe(200);
});

test('wrong types for every field are refused', async () => {
  test.setTimeout(180_000);
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const [field, kind] of Object.entries(op.fields)) {
      for (const wrong of WRONG_FOR[kind]) {
        const label = `${op.method} ${op.path()} ${field}=${JSON.stringify(wrong).slice(0, 60)}`;
        expectRefused(label, await api.call(op.method, op.path(), { ...op.valid, [field]: wrong }));
      }
    }
  }
});

test('odd strings in every string field never cause a 5xx', async () => {
  test.setTimeout(180_000);
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const [field, kind] of Object.entries(op.fields)) {
      if (kind === 'boolean') continue;
      for (const odd of ODD_STRINGS) {
        const value = kind === 'array' ? [odd] : odd;
        expectEnvelopeOrSuccess(
          `${op.method} ${op.path()} ${field}=${JSON.stringify(value).slice(0, 60)}`,
          await api.call(op.method, op.path(), { ...op.valid, [field]: value }),
        );
      }
    }
  }
});

test('odd path ids and query values are 4xx, never 5xx', async () => {
  test.setTimeout(180_000);
  const api = rotatingClient(server);
  const ids = [
    'x',
    '%00',
    '%E2%80%AE',
    '..%2F..%2Fetc',
    `vps_${'a'.repeat(2000)}`,
    '%F0%9F%98%80',
    '%FF',
    'null',
    '__proto__',
    'constructor',
  ];
  for (const id of ids) {
    for (const [method, path, body] of [
      ['GET', `/vps/${id}`],
      ['PUT', `/vps/${id}`, { name: 'a' }],
      ['DELETE', `/vps/${id}`],
      ['POST', `/vps/${id}/actions`, { type: 'stop' }],
      ['GET', `/vps/${id}/metrics`],
      ['DELETE', `/snapshots/${id}`],
    ] as Array<[string, string, unknown?]>) {
      const res = await api.call(method, path, body);
      expectRefused(`${method} ${path.slice(0, 80)}`, res);
      expect([400, 404], `${method} ${path.slice(0, 40)} → ${res.status} ${res.text.slice(0, 200)}`).toContain(
        res.status,
      );
    }
  }
  const odd = ['%00', '%FF', '-1', '1e3', '99999999999999999999', '%F0%9F%98%80', 'x'.repeat(5000), '[]', '__proto__'];
  for (const value of odd) {
    for (const path of [
      `/vps?page=${value}`,
      `/vps?per_page=${value}`,
      `/vps?status=${value}`,
      `/vps?region=${value}`,
      `/images?type=${value}`,
      `/images?distribution=${value}`,
      `/vps/${vpsId}/metrics?start=${value}`,
      `/vps/${vpsId}/metrics?end=${value}`,
      `/vps/${vpsId}/metrics?interval=${value}`,
    ]) {
      expectEnvelopeOrSuccess(`GET ${path.slice(0, 80)}`, await api.call('GET', path));
    }
  }
  // Repeated parameters arrive as arrays: refused, not crashed on.
  for (const path of [
    '/vps?status=running&status=stopped',
    '/vps?page=1&page=2',
    '/images?type=linux&type=windows',
    `/vps/${vpsId}/metrics?interval=1m&interval=5m`,
  ]) {
    expectRefused(`GET ${path}`, await api.call('GET', path));
  }
});
