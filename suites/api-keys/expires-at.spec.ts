/**
 * `expires_at` of a new API key is reported as given: the instant sent at creation, or JSON null
 * when none was sent (KEY-FLD-002). The api-keys flow proves an expired key is refused; this proves
 * the creation response says when that will be.
 */
import { addSecret, defineCheck, expect, expectStatus } from '../../src/harness/check.ts';

interface CreatedKey {
  id: string;
  key: string;
  expires_at: string | null;
}

defineCheck(
  {
    id: 'api-keys.expires-at',
    requirement: 'KEY-FLD-002',
    level: 'MUST',
    class: 'api-keys',
    operation: 'POST /account/api-keys',
    title: 'POST /account/api-keys reports the expires_at it was given, and null when none was given',
  },
  async ({ api, ledger, ctx }) => {
    const create = async (body: Record<string, unknown>): Promise<CreatedKey> => {
      const res = await api.post('/account/api-keys', body);
      expectStatus(res, [200, 201]);
      const key = res.json<{ api_key: CreatedKey }>().api_key;
      ledger.track('api-key', key.id);
      addSecret(key.key);
      return key;
    };
    // Whole seconds, an hour ahead: any ISO 8601 rendering of the same instant is accepted.
    const expiresAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
    const expiring = await create({ name: ctx.name('expiring-key'), permissions: ['read'], expires_at: expiresAt });
    expect(typeof expiring.expires_at, `expires_at of a key created with expires_at ${expiresAt}`).toBe('string');
    expect(
      Date.parse(expiring.expires_at!),
      `expires_at ${expiring.expires_at} is the instant sent, ${expiresAt}`,
    ).toBe(Date.parse(expiresAt));
    const lasting = await create({ name: ctx.name('lasting-key'), permissions: ['read'] });
    expect(lasting.expires_at, 'expires_at of a key created without one').toBeNull();
  },
);
