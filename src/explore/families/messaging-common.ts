/**
 * What the messaging and templates families share (families never import each other): the test
 * numbers they send to, test mode, the listing bound of a sequence, and reading a list's `meta`.
 */
import { isObject } from '../../harness/body-shape.ts';

/**
 * The test numbers by what the specification promises of them. The random one is left out: its
 * outcome is random by design, so a shrunk sequence holding it would not fail the same way again
 * on replay, and it promises nothing else a sequence could check.
 */
export type Role = 'succeed' | 'fail';
export const ROLES: readonly Role[] = ['succeed', 'fail'];
/** Test mode, said explicitly (the client adds it to every send too). */
export const TEST_MODE = { 'x-test-mode': 'true' };

/**
 * The listing bound of a sequence (`from_date` of its walks): its first send's `created_at`
 * (server clock; a range includes its ends, as the fixed page walk reads MSG-LIST-004), or null
 * when there is none yet or the answer carried none.
 */
export function boundOf(since: string | null, createdAt: unknown): string | null {
  if (since !== null) return since;
  const ms = typeof createdAt === 'string' ? Date.parse(createdAt) : Number.NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** `meta` of a list body (beside the items, or inside a `data` envelope). */
export function metaOf(body: unknown): Record<string, unknown> | undefined {
  if (!isObject(body)) return undefined;
  if (isObject(body.meta)) return body.meta;
  return isObject(body.data) && isObject(body.data.meta) ? body.data.meta : undefined;
}

export const roleOf = (v: string | number | undefined): Role | null =>
  ROLES.includes(String(v ?? '') as Role) ? (String(v) as Role) : null;
