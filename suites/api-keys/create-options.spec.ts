/**
 * POST /account/api-keys accepts its two optional fields together (KEY-CRT-002): an `expires_at`
 * and an `ip_whitelist` mixing a CIDR range and a single address. What the key then does is the
 * api-keys flow's business (expiry and whitelist enforcement); this proves the request is taken.
 */
import { addSecret, defineCheck, expect, expectResource } from '../../src/harness/check.ts';

defineCheck(
  {
    id: 'api-keys.create-options',
    requirement: 'KEY-CRT-002',
    level: 'MUST',
    class: 'api-keys',
    operation: 'POST /account/api-keys',
    title: 'POST /account/api-keys accepts expires_at together with an ip_whitelist of a CIDR range and an address',
  },
  async ({ api, ledger, ctx }) => {
    const expiresAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
    // TEST-NET-1 (RFC 5737) and loopback: nothing outside this machine could ever use the key.
    const ipWhitelist = ['192.0.2.0/24', '127.0.0.1'];
    const res = await api.post('/account/api-keys', {
      name: ctx.name('options-key'),
      permissions: ['read'],
      expires_at: expiresAt,
      ip_whitelist: ipWhitelist,
    });
    const key = expectResource<{ id: string; key?: unknown }>(res, 'api_key');
    if (typeof key.key === 'string') addSecret(key.key);
    ledger.track('api-key', String(key.id));
    expect(typeof key.id, 'the created key has an id').toBe('string');
  },
);
