/** `--header` lines: parsed once at resolution (resolve.ts) and again from the run contract (settings.ts). */

/** A header name as RFC 9110 allows it (a token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name: value` → [lowercased name, value]; throws a one-line Error for anything else. */
export function parseHeaderLine(line: string): [string, string] {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon).trim() : '';
  if (!name || !TOKEN.test(name)) throw new Error(`"${line}" is not a header: expected 'Name: value'`);
  const value = line.slice(colon + 1).trim();
  // eslint-disable-next-line no-control-regex -- control characters cannot be sent in a header
  if (/[\x00-\x08\x0A-\x1F\x7F]/.test(value)) throw new Error(`the value of header ${name} holds a control character`);
  const lower = name.toLowerCase();
  if (lower === 'authorization')
    throw new Error("Authorization cannot be set with --header: cloudcheck sends the run's keys itself (--api-key)");
  return [lower, value];
}

/** Headers from `Name: value` lines (the flag's values, or CLOUDCHECK_HEADER split at newlines). */
export function headersFromList(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    if (line.trim() === '') continue;
    const [name, value] = parseHeaderLine(line);
    headers[name] = value;
  }
  return headers;
}
