/**
 * SigV4 requests made by hand, for what S3 SDKs will not send: a request dated by the HTTP
 * `Date` header, a path that is not UTF-8, a PUT with no framing at all. A leaf (node only), so
 * the project's own tests of the reference server sign with it too. Not a spec file.
 */
import { createHash, createHmac } from 'node:crypto';
import { connect } from 'node:net';

export interface SigningKey {
  accessKeyId: string;
  secretAccessKey: string;
}

const hmac = (key: Buffer | string, text: string): Buffer => createHmac('sha256', key).update(text, 'utf8').digest();
const hex = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');
/** RFC 3986 encoding, as SigV4's canonical query wants it. */
const rfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The headers of a SigV4 header signature, made here rather than by an SDK because the checks
 * need what SDKs do not send: a request dated by the HTTP `Date` header (SigV4 allows it; no JS
 * SDK does it), or a path that is not UTF-8. `path` is signed as sent (S3 does not re-encode it).
 */
export function signedHeaders(
  pair: SigningKey,
  region: string,
  request: { method: string; url: URL; headers?: Record<string, string>; payloadHash?: string },
  dateIn: 'x-amz-date' | 'date' = 'x-amz-date',
): Record<string, string> {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const longDate = now.toISOString().replace(/[-:]|\.\d{3}/g, '');
  const payloadHash = request.payloadHash ?? 'UNSIGNED-PAYLOAD';
  const headers: Record<string, string> = {
    ...request.headers,
    host: request.url.host,
    'x-amz-content-sha256': payloadHash,
    [dateIn]: dateIn === 'date' ? now.toUTCString() : longDate,
  };
  const names = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  const query = [...request.url.searchParams]
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join('&');
  const canonical = [
    request.method,
    request.url.pathname,
    query,
    names.map((n) => `${n}:${lower[n]}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${longDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const key = hmac(hmac(hmac(hmac(`AWS4${pair.secretAccessKey}`, longDate.slice(0, 8)), region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', key)
    .update(['AWS4-HMAC-SHA256', longDate, scope, hex(canonical)].join('\n'))
    .digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${pair.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}

/**
 * One HTTP/1.1 request written by hand on a socket, for what HTTP clients will not send (a PUT
 * with neither Content-Length nor Transfer-Encoding); the status of the answer and its text.
 */
export function rawRequest(
  url: URL,
  head: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port || 80), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error('no answer within 30 s')));
    socket.on('connect', () => {
      const lines = [head, ...Object.entries({ ...headers, connection: 'close' }).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}
