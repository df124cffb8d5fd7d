/**
 * /account/api-keys. The core's AccountStore keeps the keys and the request pipeline enforces
 * them (revoked, expired, ip_whitelist, permissions); this file is only the HTTP face.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiKeyRecord } from '../../core/accounts.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { Fields } from '../../core/validation.ts';
import { KEY_FAULTS, NEW_KEY_DELAY_MS } from './faults.ts';
import { isIpOrCidr } from './ip-list.ts';

const PERMISSIONS = ['read', 'write'] as const;
/** Enough for any office network list; bounds the work of every authenticated request. */
const MAX_WHITELIST = 50;

function listingView(key: ApiKeyRecord, withSecret: boolean, prefix = key.prefix): Record<string, unknown> {
  return {
    id: key.id,
    name: key.name,
    prefix,
    permissions: [...key.permissions],
    last_used: key.last_used,
    created_at: key.created_at,
    expires_at: key.expires_at,
    ip_whitelist: [...key.ip_whitelist],
    // Fault: the full secret in the listing.
    ...(withSecret && { key: key.key }),
  };
}

export function registerApiKeyRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  /** The listed prefix: the first 12 characters (the convention), 8 (variant `key-prefix-8`) or none of them (a fault). */
  const listedPrefix = (key: ApiKeyRecord): string => {
    if (ctx.faults.has(KEY_FAULTS.prefixUnrelated)) return key.id.slice(-12);
    return ctx.variants.has('key-prefix-8') ? key.key.slice(0, 8) : key.prefix;
  };

  /**
   * Keys revoked while `key-revoke-ignored` is on: gone for auth, still shown in the listing. The
   * sequence-only faults keep the keys revoked since the last creation (`revokedSinceCreate`) and
   * those a later creation brought back into the listing (`relisted`).
   */
  const ghosts = (accountId: string) =>
    ctx.accountState(accountId, 'api-keys', () => ({
      revokedButListed: [] as ApiKeyRecord[],
      revokedSinceCreate: [] as ApiKeyRecord[],
      relisted: [] as ApiKeyRecord[],
    }));

  /** A creation after revocations: under the sequence-only faults, the keys revoked before it come back (listed, or served). */
  function afterCreate(accountId: string): void {
    const state = ghosts(accountId);
    for (const revoked of state.revokedSinceCreate) {
      if (ctx.faults.has(KEY_FAULTS.revokedListedAfterNewKey)) state.relisted.push(revoked);
      if (ctx.faults.has(KEY_FAULTS.revokedServedAfterNewKey)) revoked.servedWhileRevoked = true;
    }
    state.revokedSinceCreate = [];
  }

  app.get('/account/api-keys', async (request) => {
    const { account } = authOf(request);
    const keys = [
      ...ctx.accounts.keysOf(account.id),
      ...ghosts(account.id).revokedButListed,
      ...ghosts(account.id).relisted,
    ];
    const withSecret = ctx.faults.has(KEY_FAULTS.secretInListing);
    const listed = keys.map((key) => listingView(key, withSecret, listedPrefix(key)));
    // Fault: one expiry, the newest key's, for every key that expires.
    const newestExpiry = ctx.faults.has(KEY_FAULTS.listExpiryOfNewest)
      ? ctx.accounts.keysOf(account.id).find((k) => k.expires_at !== null)?.expires_at
      : undefined;
    for (const view of listed) {
      if (ctx.faults.has(KEY_FAULTS.permissionsAsText)) view.permissions = (view.permissions as string[]).join(',');
      if (ctx.faults.has(KEY_FAULTS.lastUsedNeverSet)) view.last_used = null;
      if (newestExpiry !== undefined && view.expires_at !== null) view.expires_at = newestExpiry;
    }
    return { api_keys: listed };
  });

  app.post('/account/api-keys', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('billing', request.body);
    const name = fields.string('name', { required: true, max: 100 });
    const permissions = fields.stringArray('permissions', {
      required: true,
      minItems: 1,
      maxItems: 10,
      oneOf: PERMISSIONS,
    });
    const expiresAt = fields.timestamp('expires_at');
    if (expiresAt !== undefined && Date.parse(expiresAt) <= ctx.clock.now())
      fields.fail('expires_at', 'expires_at must be in the future.', { value: expiresAt });
    const whitelist = fields.stringArray('ip_whitelist', { maxItems: MAX_WHITELIST });
    const badIp = whitelist?.find((entry) => !isIpOrCidr(entry));
    if (badIp !== undefined)
      fields.fail('ip_whitelist', 'ip_whitelist entries must be IP addresses or CIDR ranges.', { value: badIp });
    // Fault: the optional whitelist is not supported at all.
    if (ctx.faults.has(KEY_FAULTS.ipWhitelistRefused) && whitelist !== undefined && whitelist.length > 0)
      fields.fail('ip_whitelist', 'ip_whitelist is not supported.');
    const record = ctx.accounts.createKey(account.id, {
      name,
      permissions: [...new Set(permissions)],
      // Stored normalised (UTC, milliseconds) so it compares and prints the same everywhere.
      expires_at: expiresAt === undefined ? null : new Date(Date.parse(expiresAt)).toISOString(),
      ip_whitelist: whitelist ?? [],
    });
    // Fault: a never-expiring key only starts working a few seconds after it was handed out
    // (keys with an expiry, such as the harness's own run keys, are served at once).
    if (ctx.faults.has(KEY_FAULTS.newKeyRefusedBriefly) && record.expires_at === null)
      record.notBeforeMs = ctx.clock.now() + NEW_KEY_DELAY_MS;
    afterCreate(account.id);
    const dropExpiry = ctx.faults.has(KEY_FAULTS.expiresAtDropped);
    return reply.status(201).send({
      api_key: {
        id: record.id,
        name: record.name,
        key: record.key,
        prefix: record.prefix,
        permissions: [...record.permissions],
        // Faults: the expiry is enforced but reported as null, or not reported at all.
        ...(ctx.faults.has(KEY_FAULTS.createdWithoutExpiry)
          ? {}
          : { expires_at: dropExpiry ? null : record.expires_at }),
        created_at: record.created_at,
        last_used: record.last_used,
        ip_whitelist: [...record.ip_whitelist],
      },
    });
  });

  app.delete<{ Params: { key_id: string } }>('/account/api-keys/:key_id', async (request, reply) => {
    const { account } = authOf(request);
    const record = ctx.accounts.keyById(account.id, request.params.key_id);
    if (!record || !ctx.accounts.revokeKey(account.id, record.id)) throw notFound('api_key');
    if (ctx.faults.has(KEY_FAULTS.revokeIgnored)) ghosts(account.id).revokedButListed.push(record);
    if (ctx.faults.has(KEY_FAULTS.revokedListedAfterNewKey) || ctx.faults.has(KEY_FAULTS.revokedServedAfterNewKey))
      ghosts(account.id).revokedSinceCreate.push(record);
    return reply.status(204).send();
  });
}
