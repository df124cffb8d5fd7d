import { randomBytes } from 'node:crypto';

/**
 * Resource ids: a type prefix and 16 random hex characters (docs/conventions.md, "Ids").
 * Random rather than sequential so one account cannot guess another's ids.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** A secret token (API keys, storage secret keys, signing keys). */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
