/**
 * Presigned object URLs (docs/conventions.md, Storage):
 * `.../objects/<key>?method=M&expires=<unix>&account=<id>&signature=<hex>` where the signature
 * is HMAC-SHA256 over method, canonical path, expiry and account. The account that created the
 * URL is in the signed query, so the URL acts for it without a bearer key; changing any part
 * (method, key, bucket, expiry, account) breaks the signature.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PRESIGNED_METHODS = ['GET', 'PUT', 'DELETE'] as const;
export type PresignedMethod = (typeof PRESIGNED_METHODS)[number];

/** Each key segment percent-encoded, `/` kept: the path a client sends and the one signed. */
export function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export function objectPath(bucket: string, key: string): string {
  return `/v1/storage/buckets/${encodeURIComponent(bucket)}/objects/${encodeKey(key)}`;
}

/**
 * The string signed. The path is rebuilt from the decoded bucket and key, so two spellings
 * of the same key (`%7E` and `~`) verify alike while another key never does.
 */
function stringToSign(method: string, bucket: string, key: string, expires: number, account: string): string {
  return `${method}\n${objectPath(bucket, key)}\n${expires}\n${account}`;
}

export function sign(
  secret: string,
  method: string,
  bucket: string,
  key: string,
  expires: number,
  account: string,
): string {
  return createHmac('sha256', secret)
    .update(stringToSign(method, bucket, key, expires, account))
    .digest('hex');
}

export interface PresignedQuery {
  method: string;
  expires: number;
  account: string;
  signature: string;
}

/** Reads the presigned parameters; undefined when one is missing or malformed. */
export function readPresignedQuery(query: Record<string, unknown>): PresignedQuery | undefined {
  const { method, expires, account, signature } = query;
  if (typeof method !== 'string' || typeof account !== 'string' || typeof signature !== 'string') return undefined;
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return undefined;
  return { method, expires: Number(expires), account, signature };
}

export function signatureMatches(secret: string, bucket: string, key: string, query: PresignedQuery): boolean {
  const expected = Buffer.from(sign(secret, query.method, bucket, key, query.expires, query.account), 'hex');
  const given = /^[0-9a-f]+$/i.test(query.signature) ? Buffer.from(query.signature, 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; a wrong length is simply a wrong signature.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Base of absolute URLs: the scheme and host the client reached, also behind a proxy. */
export function externalBase(headers: Record<string, string | string[] | undefined>, fallbackHost: string): string {
  const first = (value: string | string[] | undefined): string | undefined => {
    const text = Array.isArray(value) ? value[0] : value;
    return text?.split(',')[0]?.trim() || undefined;
  };
  const proto = first(headers['x-forwarded-proto']);
  const scheme = proto === 'https' || proto === 'http' ? proto : 'http';
  const host = first(headers['x-forwarded-host']) ?? first(headers.host) ?? fallbackHost;
  return `${scheme}://${host}`;
}
