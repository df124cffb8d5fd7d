import { expect, test } from '../base.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, RULES, nearestExhaustion } from '../../reference/core/rate-limit.ts';
import { type RunningReference, listFaults, startReferenceServer } from '../../reference/server.ts';
import { VPS_BODY } from './compute-support.ts';
import { startReceiver } from './messaging-helpers.ts';

test.describe('fixed-window limiter', () => {
  test('counts exactly up to the limit and resets on the window boundary', () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const limiter = new FixedWindowLimiter(() => now);
    const results = Array.from({ length: 101 }, () => limiter.take('k', [RULES.burst]).ok);
    expect(results.filter(Boolean)).toHaveLength(100);
    expect(results[100]).toBe(false);
    now = Date.UTC(2026, 0, 1, 12, 1, 0);
    expect(limiter.take('k', [RULES.burst]).ok).toBe(true);
  });

  test('all or nothing: a request blocked by one window is not counted in the others', () => {
    const limiter = new FixedWindowLimiter(() => Date.UTC(2026, 0, 1));
    for (let i = 0; i < 100; i++) limiter.take('k', [RULES.hour, RULES.burst]);
    const blocked = limiter.take('k', [RULES.hour, RULES.burst]);
    expect(blocked.ok).toBe(false);
    expect(limiter.peek('k', RULES.hour).used).toBe(100);
  });

  test('refund gives back what a rejected request took', () => {
    const limiter = new FixedWindowLimiter(() => Date.UTC(2026, 0, 1));
    const taken = limiter.take('k', [RULES.hour]);
    if (!taken.ok) throw new Error('expected ok');
    limiter.refund('k', taken.states);
    expect(limiter.peek('k', RULES.hour).used).toBe(0);
  });

  test('headers describe the window nearest exhaustion', () => {
    const limiter = new FixedWindowLimiter(() => Date.UTC(2026, 0, 1, 0, 0, 10));
    const result = limiter.take('k', [RULES.hour, RULES.burst]);
    expect(nearestExhaustion(result.states)?.rule).toBe(RULES.burst);
  });
});

test.describe('shared pipeline over HTTP', () => {
  let server: RunningReference;
  test.beforeAll(async () => {
    server = await startReferenceServer();
  });
  test.afterAll(async () => {
    await server.close();
  });

  for (const [label, headers] of [
    ['no key', {}],
    ['malformed header', { authorization: 'Token abc' }],
    ['unknown key', { authorization: 'Bearer not-a-key' }],
  ] as const) {
    test(`rejects ${label} with 401 and the envelope`, async () => {
      const response = await fetch(`${server.baseUrl}/regions`, { headers });
      expect(response.status).toBe(401);
      const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
      expect(body.error?.code).toBe('unauthorized');
      expect(typeof body.error?.message).toBe('string');
    });
  }

  test('unknown routes answer 404 with the envelope', async () => {
    const response = await fetch(`${server.baseUrl}/no-such-thing`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  test('malformed JSON is a 400 invalid_json, never a 5xx', async () => {
    const response = await fetch(`${server.baseUrl}/vps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  test('a body over the limit is a 413 with the envelope', async () => {
    const response = await fetch(`${server.baseUrl}/vps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });
});

/** Fires 2L requests at once on a fresh key and counts the ones that were not limited. */
async function concurrentBurst(
  server: RunningReference,
): Promise<{ passed: number; limited: number; resets: Set<string> }> {
  const statuses = await Promise.all(
    Array.from({ length: 200 }, async () => {
      const response = await fetch(`${server.baseUrl}/regions`, {
        headers: { authorization: `Bearer ${server.altApiKey}` },
      });
      await response.arrayBuffer();
      return { status: response.status, reset: response.headers.get('x-ratelimit-reset') ?? '' };
    }),
  );
  return {
    passed: statuses.filter((s) => s.status !== 429).length,
    limited: statuses.filter((s) => s.status === 429).length,
    resets: new Set(statuses.map((s) => s.reset)),
  };
}

test('2L simultaneous requests on a fresh key: exactly L pass', async () => {
  const server = await startReferenceServer();
  try {
    const { passed, limited, resets } = await concurrentBurst(server);
    // The burst may straddle a minute boundary: then the second window admits more.
    if (resets.size === 1) {
      expect(passed).toBe(100);
      expect(limited).toBe(100);
    } else {
      expect(passed).toBeGreaterThanOrEqual(100);
    }
  } finally {
    await server.close();
  }
});

test('fault ratelimit-non-atomic lets more than L through', async () => {
  const server = await startReferenceServer({ faults: ['ratelimit-non-atomic'] });
  try {
    const { passed } = await concurrentBurst(server);
    expect(passed).toBeGreaterThan(100);
  } finally {
    await server.close();
  }
});

test('unknown fault names are refused with the list command named', async () => {
  await expect(startReferenceServer({ faults: ['no-such-fault'] })).rejects.toThrow(/--list-faults/);
});

/** Core faults of issue 15, each observed through plain HTTP; the same steps pass on a server without faults. */
const coreObservations: Record<string, (server: RunningReference) => Promise<void>> = {
  async 'api-unversioned'(server) {
    expect(server.baseUrl.endsWith('/v1')).toBe(false);
    expect((await authed(server, '/regions')).status).toBe(200);
  },
  async 'auth-missing-header-served'(server) {
    expect((await fetch(`${server.baseUrl}/account`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/account`, { headers: { authorization: 'Bearer not-a-key' } })).status).toBe(
      401,
    );
  },
  async 'auth-volumes-forbidden'(server) {
    expect((await authed(server, '/storage/volumes')).status).toBe(403);
  },
  async 'errors-details-array'(server) {
    const res = await authed(server, '/sms/send', {
      method: 'POST',
      body: JSON.stringify({ to: 'nope', message: 'x' }),
    });
    expect(Array.isArray(((await res.json()) as { error: { details?: unknown } }).error.details)).toBe(true);
  },
  async 'errors-compute-details-object'(server) {
    const res = await authed(server, '/vps', { method: 'POST', body: JSON.stringify({ region: 'nyc1' }) });
    const details = ((await res.json()) as { error: { details?: unknown } }).error.details;
    expect(Array.isArray(details)).toBe(false);
    expect(details).toHaveProperty('field');
  },
  async 'success-status-202'(server) {
    const created = (await (
      await authed(server, '/projects', { method: 'POST', body: JSON.stringify({ name: 'cc-202' }) })
    ).json()) as { project: { id: string } };
    expect((await authed(server, `/projects/${created.project.id}`, { method: 'DELETE' })).status).toBe(202);
  },
  async 'errors-409-outside-storage'(server) {
    expect((await authed(server, '/vps/no-such-vps', { method: 'DELETE' })).status).toBe(409);
  },
  async 'per-page-unbounded'(server) {
    expect(
      ((await (await authed(server, '/vps?per_page=1000')).json()) as { meta: { per_page: number } }).meta.per_page,
    ).toBe(1000);
  },
  async 'page-zero-based-default'(server) {
    expect(((await (await authed(server, '/vps')).json()) as { meta: { page: number } }).meta.page).toBe(0);
  },
  async 'page-walk-overlap'(server) {
    for (let i = 0; i < 3; i++)
      await authed(server, '/sms/send', {
        method: 'POST',
        headers: { 'x-test-mode': 'true' },
        body: JSON.stringify({ to: '+15005550006', message: `m${i}` }),
      });
    const ids: string[] = [];
    for (const page of [1, 2, 3]) {
      const body = (await (await authed(server, `/sms/messages?per_page=1&page=${page}`)).json()) as {
        messages: Array<{ message_id: string }>;
      };
      ids.push(...body.messages.map((m) => m.message_id));
    }
    expect(new Set(ids).size).toBeLessThan(3);
  },
  async 'page-meta-total-string'(server) {
    expect(typeof ((await (await authed(server, '/vps')).json()) as { meta: { total: unknown } }).meta.total).toBe(
      'string',
    );
  },
  async 'webhook-event-status-stale'(server) {
    await withReceiver(async (receiver) => {
      await authed(server, '/messaging/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['sms.delivered'] }),
      });
      await authed(server, '/sms/send', {
        method: 'POST',
        headers: { 'x-test-mode': 'true' },
        body: JSON.stringify({ to: '+15005550006', message: 'x' }),
      });
      await expect.poll(() => receiver.deliveries.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(receiver.deliveries[0]!.body.data?.status).toBe('sent');
    });
  },
  async 'webhook-compute-data-flat'(server) {
    await withReceiver(async (receiver) => {
      await authed(server, '/messaging/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['vps.created'] }),
      });
      await authed(server, '/vps', { method: 'POST', body: JSON.stringify({ ...VPS_BODY, name: 'flat' }) });
      await expect.poll(() => receiver.deliveries.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(receiver.deliveries[0]!.body.data).not.toHaveProperty('vps');
      expect(receiver.deliveries[0]!.body.data).toHaveProperty('id');
    });
  },
  async 'webhook-vps-deleted-renamed'(server) {
    await withReceiver(async (receiver) => {
      await authed(server, '/messaging/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['vps.deleted'] }),
      });
      const created = (await (
        await authed(server, '/vps', { method: 'POST', body: JSON.stringify({ ...VPS_BODY, name: 'gone' }) })
      ).json()) as { vps: { id: string } };
      await expect
        .poll(
          async () =>
            ((await (await authed(server, `/vps/${created.vps.id}`)).json()) as { vps: { status: string } }).vps.status,
          { timeout: 5000 },
        )
        .toBe('running');
      await authed(server, `/vps/${created.vps.id}`, { method: 'DELETE' });
      await expect.poll(() => receiver.deliveries.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(receiver.deliveries[0]!.body.event).toBe('vps.destroyed');
    });
  },
  async 'page-meta-per-page-default'(server) {
    expect(
      ((await (await authed(server, '/vps?per_page=2')).json()) as { meta: { per_page: number } }).meta.per_page,
    ).toBe(25);
  },
  async 'ratelimit-429-wrong-code'(server) {
    // More than two burst windows' worth: at least one 429 even if the burst straddles a minute.
    const codes = await Promise.all(
      Array.from({ length: 205 }, async () => {
        const response = await fetch(`${server.baseUrl}/regions`, {
          headers: { authorization: `Bearer ${server.altApiKey}` },
        });
        const body = (await response.json()) as { error?: { code?: string } };
        return response.status === 429 ? body.error?.code : undefined;
      }),
    );
    const refused = codes.filter((c) => c !== undefined);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['too_many_requests']));
  },
  async 'version-v2-served'(server) {
    const response = await fetch(`${server.baseUrl.replace(/\/v1$/, '/v2')}/regions`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    expect(response.status).toBe(200);
  },
  async 'auth-basic-scheme-accepted'(server) {
    const basic = Buffer.from(`${server.apiKey}:`).toString('base64');
    expect((await fetch(`${server.baseUrl}/account`, { headers: { authorization: `Basic ${basic}` } })).status).toBe(
      200,
    );
  },
  async 'errors-invalid-json-422'(server) {
    const response = await authed(server, '/projects', { method: 'POST', body: '{"name": ' });
    expect([response.status, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([
      422,
      'validation_error',
    ]);
  },
  async 'errors-body-too-large-400'(server) {
    const response = await authed(server, '/projects', {
      method: 'POST',
      body: JSON.stringify({ description: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(response.status).toBe(400);
  },
  async 'errors-storage-details-object'(server) {
    const response = await authed(server, '/storage/buckets', { method: 'POST', body: '{}' });
    expect(((await response.json()) as { error: { details: unknown } }).error.details).toHaveProperty('field');
  },
  async 'page-order-oldest-first'(server) {
    for (const name of ['first', 'second'])
      await authed(server, '/vps', { method: 'POST', body: JSON.stringify({ ...VPS_BODY, name }) });
    const listed = (await (await authed(server, '/vps')).json()) as { vps_instances: Array<{ name: string }> };
    expect(listed.vps_instances.map((v) => v.name).slice(-2)).toEqual(['first', 'second']);
  },
  async 'webhook-no-retry'(server) {
    const attempts: number[] = [];
    const refusing = createServer((_request, response) => {
      attempts.push(Date.now());
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = refusing.address() as AddressInfo;
      await authed(server, '/messaging/webhooks', {
        method: 'POST',
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['sms.sent'] }),
      });
      await authed(server, '/sms/send', {
        method: 'POST',
        headers: { 'x-test-mode': 'true' },
        body: JSON.stringify({ to: '+15005550006', message: 'x' }),
      });
      await expect.poll(() => attempts.length, { timeout: 5000 }).toBeGreaterThan(0);
      // The first retry of a server without the fault comes 200 ms after (delays.webhookRetryMs).
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(attempts).toHaveLength(1);
    } finally {
      refusing.closeAllConnections();
      await new Promise((resolve) => refusing.close(resolve));
    }
  },
  async 'ratelimit-window-from-first-request'(server) {
    const response = await authed(server, '/regions');
    const date = Math.floor(Date.parse(response.headers.get('date')!) / 1000);
    // The window opened with this request: it ends a minute after it, not on the minute.
    expect(Number(response.headers.get('x-ratelimit-reset'))).not.toBe((Math.floor(date / 60) + 1) * 60);
  },
  async 'ratelimit-429-side-effect'(server) {
    const key = await exhaustedKey(server);
    const refused = await fetch(`${server.baseUrl}/messaging/templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'refused', content: 'x' }),
    });
    expect(refused.status).toBe(429);
    const list = (await (await authed(server, '/messaging/templates')).json()) as {
      templates: Array<{ name: string }>;
    };
    expect(list.templates.map((t) => t.name)).toContain('refused');
  },
  async 'ratelimit-429-details-missing'(server) {
    const key = await exhaustedKey(server);
    const refused = await fetch(`${server.baseUrl}/sms/campaigns`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { details?: unknown } }).error.details).toBeUndefined();
  },
  async 'ratelimit-headers-elsewhere-millis'(server) {
    const response = await authed(server, '/projects');
    expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(1e11);
  },
  async 'ratelimit-sms-per-request'(server) {
    const response = await authed(server, '/sms/bulk', {
      method: 'POST',
      headers: { 'x-test-mode': 'true' },
      body: JSON.stringify({ recipients: ['+15005550006', '+15005550001', '+15005550009'], message: 'x' }),
    });
    expect(response.headers.get('x-sms-remaining')).toBe('9999');
  },
  async 'ratelimit-sms-headers-missing'(server) {
    const response = await authed(server, '/sms/campaigns');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(response.headers.get('x-sms-limit')).toBeNull();
    expect(response.headers.get('x-sms-remaining')).toBeNull();
  },
};

/** A fresh key of the first account that has used up its messaging burst for this minute. */
async function exhaustedKey(server: RunningReference): Promise<string> {
  const created = (await (
    await authed(server, '/account/api-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'burst', permissions: ['read', 'write'] }),
    })
  ).json()) as { api_key: { key: string } };
  const key = created.api_key.key;
  // A minute about to end would open a fresh window halfway: start in the next one.
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 100));
  for (let i = 0; i < 100; i++)
    await fetch(`${server.baseUrl}/sms/campaigns`, { headers: { authorization: `Bearer ${key}` } });
  return key;
}

async function withReceiver(
  work: (receiver: Awaited<ReturnType<typeof startReceiver>>) => Promise<void>,
): Promise<void> {
  const receiver = await startReceiver();
  try {
    await work(receiver);
  } finally {
    await receiver.close();
  }
}

function authed(server: RunningReference, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = {
    authorization: `Bearer ${server.apiKey}`,
    'content-type': 'application/json',
    ...(init.headers as Record<string, string> | undefined),
  };
  return fetch(`${server.baseUrl}${path}`, { ...init, headers });
}

test.describe('core faults of issue 15', () => {
  test('each names a known fault', () => {
    const known = new Set(listFaults().map((f) => f.name));
    for (const name of Object.keys(coreObservations)) expect(known.has(name), name).toBe(true);
  });

  for (const [name, observe] of Object.entries(coreObservations)) {
    test(`fault ${name} is observable`, async () => {
      const server = await startReferenceServer({ faults: [name] });
      try {
        await observe(server);
      } finally {
        await server.close();
      }
    });
  }

  test('the same observations fail on a server without faults', async () => {
    const server = await startReferenceServer();
    try {
      for (const [name, observe] of Object.entries(coreObservations)) {
        let held = true;
        try {
          await observe(server);
        } catch {
          held = false;
        }
        expect(held, `${name} must not be observable without the fault`).toBe(false);
      }
    } finally {
      await server.close();
    }
  });
});
