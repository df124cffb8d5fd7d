/**
 * What every REST route of object storage shares: mapping store errors to the JSON envelope,
 * the response views of the store's records, reading small bodies from the raw stream, and
 * telling bucket and key apart in an object path.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, fieldError, notFound } from '../../core/errors.ts';
import { isPublic } from './acl.ts';
import type { AccessKeyRecord, BucketRecord, ObjectRecord, PartRecord } from './store.ts';
import { StoreError } from './store.ts';

/** Store errors in REST terms (docs/conventions.md, Errors); anything else passes through. */
export function restError(error: unknown): unknown {
  if (!(error instanceof StoreError)) return error;
  switch (error.kind) {
    case 'no_such_bucket':
      return notFound('bucket', error.message);
    case 'no_such_key':
      return notFound('object', error.message);
    case 'no_such_upload':
      return notFound('upload', error.message);
    case 'bucket_already_exists':
      return new ApiError('bucket_already_exists', error.message, undefined, 'bucket');
    case 'bucket_not_empty':
      return new ApiError('bucket_not_empty', error.message, undefined, 'bucket');
    case 'too_large':
      return new ApiError('payload_too_large', error.message);
    case 'invalid_part':
    case 'invalid_part_order':
    case 'entity_too_small':
      return fieldError('storage', 'Part', error.message);
    case 'cdn_not_enabled':
      // Purging a CDN that is not enabled conflicts with the bucket's state (409 like the other
      // storage conflicts) rather than being a field problem of the purge request.
      return new ApiError('conflict', error.message, undefined, 'cdn');
  }
}

/** Runs a store operation, turning its errors into API errors. */
export async function rest<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw restError(error);
  }
}

export function bucketView(bucket: BucketRecord) {
  return {
    name: bucket.name,
    region: bucket.region,
    created_at: bucket.created_at,
    size: bucket.size,
    object_count: bucket.objects.size,
    public: isPublic(bucket.acl),
    versioning: bucket.versioning === 'enabled',
    encryption: bucket.encryption,
    project_id: bucket.project_id,
  };
}

/** An object as a listing shows it (specification, "Object (listing entry)"). */
export function listingView(object: ObjectRecord) {
  return {
    key: object.key,
    size: object.size,
    last_modified: object.last_modified,
    etag: object.etag,
    storage_class: object.storage_class,
    content_type: object.content_type,
  };
}

/** Upload and completion result: the listing entry plus the bucket. */
export function objectView(bucket: string, object: ObjectRecord) {
  return { ...listingView(object), bucket };
}

export function partView(part: PartRecord) {
  return { part_number: part.part_number, etag: part.etag, size: part.size };
}

export function accessKeyView(key: AccessKeyRecord, withSecret: boolean) {
  return {
    id: key.id,
    name: key.name,
    access_key_id: key.access_key_id,
    ...(withSecret ? { secret_access_key: key.secret_access_key } : {}),
    permissions: [...key.permissions],
    bucket_access: key.bucket_access ? [...key.bucket_access] : null,
    created_at: key.created_at,
  };
}

/** Bodies up to this size are read to the end even when refused, so the client sees the answer. */
export const DRAIN_LIMIT = 16 * 1024 * 1024;

/**
 * Reads a small body (JSON, XML) from a route whose body was left unread; at most `limit`
 * bytes. A longer body is still drained (up to DRAIN_LIMIT) before the 413, because a server
 * that stops reading and closes makes many clients report a reset instead of the answer.
 */
export function readSmallBody(request: FastifyRequest, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const raw = request.raw;
    const chunks: Buffer[] = [];
    let size = 0;
    raw.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > DRAIN_LIMIT) raw.destroy();
    });
    raw.once('end', () =>
      size > limit ? reject(new ApiError('payload_too_large')) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    raw.once('error', () => reject(new ApiError('payload_too_large')));
    raw.once('close', () => {
      if (!raw.readableEnded) reject(new ApiError('payload_too_large'));
    });
  });
}

/** Parses a JSON object body read by hand, with the same errors as the shared JSON parser. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
}

/**
 * Bucket name and object key of an object path, percent-decoded from the raw URL (not from the
 * router's parameters, so `%2F` and `/` are treated alike and nothing is decoded twice).
 */
export function objectPathOf(
  request: FastifyRequest,
  decodeKey: (text: string) => string = decodeURIComponent,
): { bucket: string; key: string } {
  const path = request.url.split('?')[0] ?? '';
  const match = /^\/v1\/storage\/buckets\/([^/]*)\/objects\/(.*)$/s.exec(path);
  if (!match) throw new ApiError('not_found', 'No such object path.');
  try {
    return { bucket: decodeURIComponent(match[1] ?? ''), key: decodeKey(match[2] ?? '') };
  } catch {
    throw fieldError('storage', 'object_key', 'object_key is not valid percent-encoded UTF-8.');
  }
}
