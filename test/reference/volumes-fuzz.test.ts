/**
 * Malformed input on every block storage operation: invalid JSON, non-object bodies, wrong types
 * for every field, huge and odd strings, odd path ids and query values. Each must be answered
 * with a 4xx in the error envelope (or accepted, where the odd value is in fact valid), never 5xx.
 */
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { client } from './helpers.ts';
import { VPS_BODY, expectEnvelopeOrSuccess, expectRefused, freshKey, json, rotatingClient } from './compute-support.ts';

type Kind = 'string' | 'integer' | 'array';

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
  '__proto__',
  'constructor',
];
const WRONG_FOR: Record<Kind, unknown[]> = {
  string: [42, -1, 1e308, true, [], ['x'], {}, { a: 1 }],
  integer: ['10', '', 1.5, -1, 0, 1e308, 2 ** 53, true, null, [], [10], {}, { size: 10 }],
  array: ['x', 42, true, {}, [42], [null], [[]], [{}], Array.from({ length: 20_000 }, () => 'x')],
};
const MALFORMED = [
  '{bad',
  '{"size": }',
  '[1,2',
  '"just a string"',
  '42',
  'true',
  'null',
  '[]',
  '[{"size":10}]',
  '\u0000',
  '{"a":1}{"b":2}',
];

let server: RunningReference;
let volumeId = '';
let snapshotId = '';
let vpsId = '';

interface BodyOp {
  path: () => string;
  valid: () => Record<string, unknown>;
  fields: Record<string, Kind>;
}

const OPS: BodyOp[] = [
  {
    path: () => '/storage/volumes',
    valid: () => ({ name: 'v', size: 10, region: 'nyc1' }),
    fields: {
      name: 'string',
      size: 'integer',
      region: 'string',
      filesystem: 'string',
      snapshot_id: 'string',
      tags: 'array',
      project_id: 'string',
    },
  },
  { path: () => `/storage/volumes/${volumeId}/resize`, valid: () => ({ size: 1000 }), fields: { size: 'integer' } },
  { path: () => `/storage/volumes/${volumeId}/attach`, valid: () => ({ vps_id: vpsId }), fields: { vps_id: 'string' } },
  {
    path: () => '/storage/snapshots',
    valid: () => ({ volume_id: volumeId, name: 's' }),
    fields: { volume_id: 'string', name: 'string', description: 'string' },
  },
  {
    path: () => '/storage/volumes/restore',
    valid: () => ({ snapshot_id: snapshotId, name: 'r' }),
    fields: { snapshot_id: 'string', name: 'string', size: 'integer', tags: 'array' },
  },
];

test.beforeAll(async () => {
  server = await startReferenceServer();
  const api = client(server.baseUrl, freshKey(server));
  volumeId = json(await api.call('POST', '/storage/volumes', { name: 'fuzz', size: 10, region: 'nyc1' })).volume.id;
  snapshotId = json(await api.call('POST', '/storage/snapshots', { volume_id: volumeId, name: 'fuzz' })).snapshot.id;
  vpsId = json(await api.call('POST', '/vps', VPS_BODY)).vps.id;
});
test.afterAll(async () => {
  await server.close();
});

test('malformed bodies on every body operation are 4xx with the envelope', async () => {
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const raw of MALFORMED)
      expectRefused(`POST ${op.path()} body ${JSON.stringify(raw)}`, await api.call('POST', op.path(), raw));
    const tooBig = await api.call('POST', op.path(), JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(tooBig.status).toBe(413);
  }
  for (const [method, path] of [
    ['POST', `/storage/volumes/${volumeId}/detach`],
    ['DELETE', `/storage/volumes/${volumeId}`],
  ] as const) {
    expectRefused(`${method} ${path} with a broken body`, await api.call(method, path, '{bad'));
  }
  expect((await api.call('GET', `/storage/volumes/${volumeId}`)).status).toBe(200);
});

test('wrong types for every field are refused', async () => {
  test.setTimeout(180_000);
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const [field, kind] of Object.entries(op.fields)) {
      for (const wrong of WRONG_FOR[kind]) {
        if (wrong === null) continue; // null reads as "not given", which is valid for optional fields
        const label = `POST ${op.path()} ${field}=${JSON.stringify(wrong).slice(0, 60)}`;
        expectRefused(label, await api.call('POST', op.path(), { ...op.valid(), [field]: wrong }));
      }
    }
  }
  // Nothing above attached the volume or changed its size.
  expect(json(await api.call('GET', `/storage/volumes/${volumeId}`)).volume).toMatchObject({
    size: 10,
    attached_to: null,
  });
});

test('odd strings in every string field never cause a 5xx', async () => {
  test.setTimeout(180_000);
  const api = rotatingClient(server);
  for (const op of OPS) {
    for (const [field, kind] of Object.entries(op.fields)) {
      if (kind === 'integer') continue;
      for (const odd of ODD_STRINGS) {
        const value = kind === 'array' ? [odd] : odd;
        const res = await api.call('POST', op.path(), { ...op.valid(), [field]: value });
        expectEnvelopeOrSuccess(`POST ${op.path()} ${field}=${JSON.stringify(value).slice(0, 60)}`, res);
        // An attach that went through is undone, so the next attach attempts meet a free volume.
        if (op.path().endsWith('/attach') && res.status === 200)
          await api.call('POST', `/storage/volumes/${volumeId}/detach`);
      }
    }
  }
});

test('odd path ids and query values are 4xx, never 5xx', async () => {
  const api = rotatingClient(server);
  const ids = [
    'x',
    '%00',
    '%E2%80%AE',
    `vol_${'a'.repeat(2000)}`,
    '%F0%9F%98%80',
    '%FF',
    'null',
    '__proto__',
    'constructor',
  ];
  for (const id of ids) {
    for (const [method, path, body] of [
      ['GET', `/storage/volumes/${id}`],
      ['DELETE', `/storage/volumes/${id}`],
      ['POST', `/storage/volumes/${id}/resize`, { size: 20 }],
      ['POST', `/storage/volumes/${id}/attach`, { vps_id: vpsId }],
      ['POST', `/storage/volumes/${id}/detach`],
    ] as Array<[string, string, unknown?]>) {
      const res = await api.call(method, path, body);
      expectRefused(`${method} ${path.slice(0, 80)}`, res);
      expect([400, 404]).toContain(res.status);
    }
  }
  for (const value of ['%00', '%FF', '-1', 'TRUE', '1', 'x'.repeat(5000), '__proto__']) {
    for (const path of [
      `/storage/volumes?region=${value}`,
      `/storage/volumes?status=${value}`,
      `/storage/volumes?attached=${value}`,
      `/storage/snapshots?volume_id=${value}`,
      `/storage/snapshots?region=${value}`,
    ]) {
      expectEnvelopeOrSuccess(`GET ${path.slice(0, 80)}`, await api.call('GET', path));
    }
  }
  expectRefused('repeated attached', await api.call('GET', '/storage/volumes?attached=true&attached=false'));
});
