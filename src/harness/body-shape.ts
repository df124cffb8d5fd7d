/**
 * Where a resource or a list sits in a JSON body, the way a client of an unknown server must read
 * it. Pure and free of the test runner, so the CLI's probe can use it too.
 *
 * Where the specification shows a response body (`object vps`, `vps_instances` plus `meta`, the
 * flat message of POST /sms/send) a check reads exactly that shape. Where it says "Response bodies
 * not shown", a conformant target may answer the resource flat, wrapped in its singular name (the
 * convention of docs/conventions.md, a SHOULD), or under a generic envelope key such as `data`.
 * MUST checks and flow steps read such bodies through these helpers (and `expectResource`,
 * assert.ts), so a target's legal choice never turns into a TypeError or a MUST failure; the
 * exact wrapper is checked by SHOULD checks.
 */
export type Json = Record<string, unknown>;

/** Envelope keys generic APIs put a single resource or a list under. */
const ENVELOPES = ['data', 'result', 'item', 'items'] as const;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The places a resource may sit in a body, most specific first. */
function candidates(body: unknown, name: string): Json[] {
  if (!isObject(body)) return [];
  const found: Json[] = [];
  const push = (value: unknown): void => {
    if (isObject(value) && !found.includes(value)) found.push(value);
  };
  push(body[name]);
  for (const envelope of ENVELOPES) {
    const inner = body[envelope];
    if (isObject(inner)) push(inner[name]);
  }
  for (const envelope of ENVELOPES) push(body[envelope]);
  push(body);
  return found;
}

/**
 * The single resource of a body: `{name: {...}}`, `{data: {name: {...}}}`, `{data: {...}}` or the
 * body itself, whichever first holds `key` (default `id`). Without such a candidate, the most
 * specific object is returned (its fields are then checked by the caller's assertions).
 * `undefined` when the body is not a JSON object at all.
 */
export function resourceOf<T = Json>(body: unknown, name: string, key = 'id'): T | undefined {
  const all = candidates(body, name);
  return (all.find((c) => key in c) ?? all[0]) as T | undefined;
}

/**
 * The list of a body: `{plural: [...]}`, `{data: {plural: [...]}}`, `{data: [...]}` or a bare
 * array. `undefined` when none is there.
 */
export function listOf<T = Json>(body: unknown, plural: string): T[] | undefined {
  if (Array.isArray(body)) return body as T[];
  if (!isObject(body)) return undefined;
  if (Array.isArray(body[plural])) return body[plural] as T[];
  for (const envelope of ENVELOPES) {
    const inner = body[envelope];
    if (Array.isArray(inner)) return inner as T[];
    if (isObject(inner) && Array.isArray(inner[plural])) return inner[plural] as T[];
  }
  return undefined;
}

/** A text cut to `max` characters (code points: never half a surrogate pair) with an ellipsis, for messages. */
export function shortText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Only the head is split into code points: messages are built from bodies of any size (a
  // target's 64 MiB answer took 40 ms a message when the whole text was split). A code point is
  // one or two UTF-16 units, so 2 × max + 1 units hold max whole code points, and a text longer
  // than that has more than max of them.
  const head = [...text.slice(0, 2 * max + 1)];
  return head.length > max ? `${head.slice(0, max).join('')}…` : text;
}
