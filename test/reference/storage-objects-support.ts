/**
 * Helpers for the object-storage reference tests: raw byte requests (uploads, downloads, HEAD),
 * requests whose path is sent exactly as written (path tricks that `fetch` would normalise),
 * and small builders (unique bucket names, multipart completion XML).
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'undici';
import { type ApiResponse, client, expectDocumented } from './helpers.ts';
import type { RunningReference } from '../../reference/server.ts';

export interface RawResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** Parsed JSON body when there is one. */
  json: unknown;
}

/** A bucket name unique to this test run (names are global across accounts). */
export function uniqueBucket(label: string): string {
  return `cc-${label}-${randomBytes(4).toString('hex')}`;
}

export function objectUrl(server: RunningReference, bucket: string, key: string): string {
  return `${server.baseUrl}/storage/buckets/${bucket}/objects/${key.split('/').map(encodeURIComponent).join('/')}`;
}

function parse(bytes: Buffer): unknown {
  try {
    return bytes.length === 0 ? undefined : (JSON.parse(bytes.toString('utf8')) as unknown);
  } catch {
    return undefined;
  }
}

/** A request with a raw body; `apiKey: null` sends no Authorization header. */
export async function rawRequest(
  url: string,
  init: { method: string; apiKey: string | null; headers?: Record<string, string>; body?: Uint8Array | string },
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.apiKey !== null) headers.authorization = `Bearer ${init.apiKey}`;
  const response = await fetch(url, { method: init.method, headers, body: init.body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: parse(bytes) };
}

/** Sends `path` byte for byte (no URL normalisation of `..`, `%2e%2e`, ...). */
export async function exactPathRequest(
  server: RunningReference,
  method: string,
  path: string,
  body?: string,
): Promise<RawResponse> {
  const origin = new URL(server.baseUrl).origin;
  const connection = new Client(origin);
  try {
    const response = await connection.request({
      method,
      path,
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        ...(body !== undefined ? { 'content-type': 'application/octet-stream' } : {}),
      },
      body,
    });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (typeof value === 'string') headers.set(name, value);
    return { status: response.statusCode, headers, bytes, json: parse(bytes) };
  } finally {
    await connection.close();
  }
}

export async function createBucket(
  server: RunningReference,
  name: string,
  apiKey = server.apiKey,
  extra: Record<string, unknown> = {},
): Promise<ApiResponse> {
  const response = await client(server.baseUrl, apiKey).call('POST', '/storage/buckets', {
    name,
    region: 'nyc1',
    ...extra,
  });
  if (response.status !== 201) throw new Error(`bucket ${name}: ${response.status} ${response.text}`);
  await expectDocumented('POST /storage/buckets', response);
  return response;
}

export async function putObject(
  server: RunningReference,
  bucket: string,
  key: string,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const response = await rawRequest(objectUrl(server, bucket, key), {
    method: 'PUT',
    apiKey: server.apiKey,
    headers,
    body,
  });
  if (response.status === 200)
    await expectDocumented('PUT /storage/buckets/{bucket_name}/objects/{object_key}', {
      status: 200,
      body: response.json,
    });
  return response;
}

export function completionXml(parts: Array<{ number: number; etag: string }>): string {
  const items = parts.map((p) => `<Part><PartNumber>${p.number}</PartNumber><ETag>${p.etag}</ETag></Part>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload>${items}</CompleteMultipartUpload>`;
}

/** Deterministic pseudo-random bytes (fast, so multi-MiB bodies cost nothing to build). */
export function bytesOf(size: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

export function errorOf(body: unknown): { code?: string; message?: string; resource?: string; details?: unknown } {
  return (body as { error?: Record<string, unknown> } | undefined)?.error ?? {};
}
