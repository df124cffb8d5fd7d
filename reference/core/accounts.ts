import { isoTimestamp } from './clock.ts';
import { newId, newSecret } from './ids.ts';

/** The account fields of the specification ("Account"). Billing's PUT /account edits them. */
export interface Account {
  id: string;
  email: string;
  name: string;
  company: string | null;
  status: string;
  created_at: string;
  verified: boolean;
  currency: string;
  timezone: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** The full secret; only the creation response shows it. */
  key: string;
  prefix: string;
  permissions: string[];
  created_at: string;
  expires_at: string | null;
  last_used: string | null;
  ip_whitelist: string[];
  revoked: boolean;
  /** Bench-only keys skip rate limiting so a benchmark measures the server, not the limiter. */
  unlimited: boolean;
  /** Refused before this instant (ms): set only by the api-keys fault `key-new-refused-briefly`. */
  notBeforeMs?: number;
  /** Served although revoked: set only by the api-keys fault `key-revoked-served-after-new-key`. */
  servedWhileRevoked?: boolean;
}

/** Listing prefix: the first 12 characters of the key (docs/conventions.md). */
export const KEY_PREFIX_LENGTH = 12;

export class AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly keysBySecret = new Map<string, ApiKeyRecord>();
  private readonly keysById = new Map<string, ApiKeyRecord>();

  constructor(private readonly now: () => number) {}

  createAccount(fields: { email: string; name: string; company?: string | null }): Account {
    const account: Account = {
      id: newId('acct'),
      email: fields.email,
      name: fields.name,
      company: fields.company ?? null,
      status: 'active',
      created_at: isoTimestamp(this.now()),
      verified: true,
      currency: 'USD',
      timezone: 'UTC',
    };
    this.accounts.set(account.id, account);
    return account;
  }

  account(id: string): Account | undefined {
    return this.accounts.get(id);
  }

  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }

  createKey(
    accountId: string,
    fields: {
      name: string;
      permissions: string[];
      expires_at?: string | null;
      ip_whitelist?: string[];
      key?: string;
      unlimited?: boolean;
    },
  ): ApiKeyRecord {
    const key = fields.key ?? `cck_${newSecret(24)}`;
    if (this.keysBySecret.has(key)) throw new Error('duplicate API key');
    const record: ApiKeyRecord = {
      id: newId('key'),
      accountId,
      name: fields.name,
      key,
      prefix: key.slice(0, KEY_PREFIX_LENGTH),
      permissions: [...fields.permissions],
      created_at: isoTimestamp(this.now()),
      expires_at: fields.expires_at ?? null,
      last_used: null,
      ip_whitelist: [...(fields.ip_whitelist ?? [])],
      revoked: false,
      unlimited: fields.unlimited ?? false,
    };
    this.keysBySecret.set(key, record);
    this.keysById.set(record.id, record);
    return record;
  }

  keyBySecret(secret: string): ApiKeyRecord | undefined {
    return this.keysBySecret.get(secret);
  }

  /** Keys of one account that are not revoked, newest first. */
  keysOf(accountId: string): ApiKeyRecord[] {
    return [...this.keysById.values()].filter((k) => k.accountId === accountId && !k.revoked).reverse();
  }

  keyById(accountId: string, id: string): ApiKeyRecord | undefined {
    const record = this.keysById.get(id);
    return record && record.accountId === accountId && !record.revoked ? record : undefined;
  }

  revokeKey(accountId: string, id: string): boolean {
    const record = this.keyById(accountId, id);
    if (!record) return false;
    record.revoked = true;
    return true;
  }
}
