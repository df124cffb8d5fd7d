/**
 * Deliberate non-conformances of the API-key endpoints; each breaks exactly one requirement (a
 * MUST, or the SHOULD of a convention).
 * The core's `auth-revoked-accepted` makes a revoked key keep working; `key-revoke-ignored` is
 * the other half of KEY-DEL-001: the key stops working but stays in the listing. The last two
 * need a revocation and then another creation, which only a sequence of operations does.
 */
import type { FaultDefinition } from '../../core/faults.ts';

export const KEY_FAULTS = {
  secretInListing: 'key-secret-in-listing',
  revokeIgnored: 'key-revoke-ignored',
  expiresAtDropped: 'key-expires-at-dropped',
  permissionsAsText: 'key-listing-permissions-text',
  lastUsedNeverSet: 'key-last-used-never-set',
  createdWithoutExpiry: 'key-create-expires-at-omitted',
  ipWhitelistRefused: 'api-key-ip-whitelist-refused',
  newKeyRefusedBriefly: 'key-new-refused-briefly',
  revokedListedAfterNewKey: 'key-revoked-listed-after-new-key',
  revokedServedAfterNewKey: 'key-revoked-served-after-new-key',
  listExpiryOfNewest: 'key-list-expiry-of-newest',
  idsUnprefixed: 'ids-unprefixed-api-keys',
  prefixUnrelated: 'key-prefix-unrelated',
} as const;

/** How long a new key is refused under `key-new-refused-briefly` (a slow key propagation). */
export const NEW_KEY_DELAY_MS = 5_000;

export const apiKeyFaults = [
  {
    name: KEY_FAULTS.secretInListing,
    requirement: 'KEY-LIST-002',
    description: 'GET /account/api-keys shows the full secret in `key`.',
  },
  {
    name: KEY_FAULTS.revokeIgnored,
    requirement: 'KEY-DEL-001',
    description: 'A revoked key stops working but is still listed.',
  },
  {
    name: KEY_FAULTS.expiresAtDropped,
    requirement: 'KEY-FLD-002',
    description: 'expires_at given at creation is reported as null.',
  },
  {
    name: KEY_FAULTS.permissionsAsText,
    requirement: 'KEY-FLD-001',
    description: 'GET /account/api-keys lists permissions as one comma-separated string ("read,write").',
  },
  {
    name: KEY_FAULTS.createdWithoutExpiry,
    requirement: 'KEY-CRT-003',
    description: 'POST /account/api-keys answers without the expires_at field.',
  },
  {
    name: KEY_FAULTS.ipWhitelistRefused,
    requirement: 'KEY-CRT-002',
    description: 'POST /account/api-keys refuses a non-empty ip_whitelist as a validation error.',
  },
  {
    name: KEY_FAULTS.newKeyRefusedBriefly,
    requirement: 'KEY-CRT-004',
    description:
      'A key created with POST /account/api-keys without expires_at is refused (401) for its first 5 seconds.',
  },
  {
    name: KEY_FAULTS.lastUsedNeverSet,
    requirement: 'KEY-LIST-003',
    description: 'GET /account/api-keys reports last_used null whether or not the key was used.',
  },
  // Sequence-only faults: each shows only after a revocation followed by another creation (cloudcheck explore finds them).
  {
    name: KEY_FAULTS.revokedListedAfterNewKey,
    requirement: 'KEY-DEL-001',
    description:
      'A revoked key is listed again in GET /account/api-keys once another key has been created after its revocation (it stays refused).',
  },
  {
    name: KEY_FAULTS.revokedServedAfterNewKey,
    requirement: 'KEY-REVOKE-001',
    description:
      'A revoked key is served again once another key has been created after its revocation (a revocation list rebuilt from the live keys forgets it); it stays unlisted.',
  },
  {
    name: KEY_FAULTS.listExpiryOfNewest,
    requirement: 'KEY-FLD-002',
    description:
      'GET /account/api-keys shows every key that expires with the expires_at of the newest such key (the creation answer is right).',
  },
  {
    name: KEY_FAULTS.idsUnprefixed,
    requirement: 'KEY-ID-001',
    description: 'API keys get ids without the `key_` prefix.',
  },
  {
    name: KEY_FAULTS.prefixUnrelated,
    requirement: 'KEY-PFX-001',
    description: "The listed `prefix` is 12 characters of the key's id instead of the first 12 of the key.",
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof apiKeyFaults)[number]['name'], true> {}
}
