/**
 * Which row of the specification a request is: `GET /vps/vps_1?page=2` is `GET /vps/{vps_id}`,
 * `POST .../objects/a/b.txt?uploads` is the row with `?uploads`. Coverage counts the statuses it
 * saw per row by it, and a failure names the operation it judged by it.
 */
import { ENDPOINTS } from './endpoint-inventory.ts';

interface Matcher {
  operation: string;
  method: string;
  re: RegExp;
  /** Literal characters: the most specific template wins (`/vps/{id}/actions` over `/vps/{id}`). */
  weight: number;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function matcherOf(operation: string): Matcher | null {
  const m = /^([A-Z]+) (\/\S*)$/.exec(operation);
  if (!m) return null;
  const [, method, rawPath] = m;
  const [path, query] = rawPath!.split('?');
  const pattern = path!
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (/^\{.+\}$/.test(part)) return part === '{object_key}' ? '(.+)' : '([^/]+)';
      return escape(part);
    })
    .join('');
  const queryKeys = query ? query.split('&').map((kv) => kv.split('=')[0]!) : [];
  const lookahead = queryKeys.map((k) => `(?=.*[?&]${escape(k)}(=|&|$))`).join('');
  const re = new RegExp(`^${pattern}/?(\\?${lookahead}.*)?$`);
  return { operation, method: method!, re, weight: path!.replace(/\{[^}]+\}/g, '').length + queryKeys.length * 100 };
}

/**
 * A function from a request (method, and path with query below the API's base path) to the most
 * specific of `operations` (`METHOD /path[?query]` templates) it matches, or null.
 */
export function operationMatcher(
  operations: Iterable<string>,
): (method: string, pathAndQuery: string) => string | null {
  const matchers = [...operations].map(matcherOf).filter((m): m is Matcher => m !== null);
  return (method, pathAndQuery) => {
    let best: Matcher | null = null;
    for (const m of matchers) {
      if (m.method !== method || !m.re.test(pathAndQuery)) continue;
      if (!best || m.weight > best.weight) best = m;
    }
    return best?.operation ?? null;
  };
}

let rows: ((method: string, pathAndQuery: string) => string | null) | undefined;

/** The specification's row (ENDPOINTS' `operation`) of a request below the API's base path, or null. */
export function rowOfRequest(method: string, pathAndQuery: string): string | null {
  rows ??= operationMatcher(ENDPOINTS.map((row) => row.operation));
  return rows(method.toUpperCase(), pathAndQuery);
}
