/**
 * What the S3 operation families share: the request's target and the call, object and upload
 * extras kept beside the store, and pure helpers (headers, ranges, listing encoding).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type ChecksumAlgorithm } from './checksums.ts';
import { type ChecksumType } from './multipart-checksums.ts';
import { S3Error } from './errors.ts';
import { type RawRequest, type VerifiedAuth } from './sigv4.ts';

/** The representation headers S3 stores with an object and returns on GET and HEAD. */
export const STANDARD_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'expires',
] as const;

export const MAX_XML_BODY = 1024 * 1024;
export const MAX_KEYS = 1000;

export interface Target {
  bucket?: string;
  key?: string;
}

/** What S3-side features the REST record has no field for, kept per blob (a blob is one object version). */
export interface ObjectExtras {
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
  metadata: Record<string, string>;
  /** Cache-Control, Content-Disposition, ... as given at upload (STANDARD_HEADERS). */
  headers?: Record<string, string>;
  /** How the checksums describe the object (multipart uploads may be COMPOSITE). */
  checksumType?: ChecksumType;
  /** The parts of a multipart object, in order (GetObject?partNumber, GetObjectAttributes). */
  parts?: Array<{ size: number; checksum?: string }>;
}

/** A completed upload, so that a retried CompleteMultipartUpload answers the same object (as S3 does). */
export interface CompletedUpload {
  bucket: string;
  key: string;
  blob: string;
  body: string;
}

export interface UploadExtras {
  metadata: Record<string, string>;
  headers?: Record<string, string>;
  /** The upload's checksum algorithm and type (CreateMultipartUpload's x-amz-checksum-*). */
  checksum?: { algorithm: ChecksumAlgorithm; type: ChecksumType };
}

export type Query = Map<string, string>;

export interface Call {
  request: FastifyRequest;
  reply: FastifyReply;
  raw: RawRequest;
  query: Query;
  target: Target;
  /** The verified signature; undefined for an anonymous request. */
  auth: VerifiedAuth | undefined;
  /** The account acting (the signer's); null for an anonymous request. */
  principal: string | null;
  /** The account the store is used as: the addressed bucket's owner, else the principal. */
  accountId: string;
}

export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Percent-decoding as UTF-8; a URI whose bytes are not UTF-8 cannot name a bucket or a key
 * (S3: 400 InvalidURI). `lenient` (the `s3-invalid-key-404` fault) takes each byte as a character.
 */
export function decode(text: string, lenient = false): string {
  try {
    return decodeURIComponent(text);
  } catch {
    if (lenient) return text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    throw new S3Error('InvalidURI', "Couldn't parse the specified URI.");
  }
}

export function parseUrl(
  url: string,
  lenient = false,
): { rawPath: string; query: Array<[string, string]>; target: Target } {
  const at = url.indexOf('?');
  const rawPath = at < 0 ? url : url.slice(0, at);
  const rawQuery = at < 0 ? '' : url.slice(at + 1);
  const query: Array<[string, string]> = [];
  for (const pair of rawQuery.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    query.push(eq < 0 ? [decode(pair), ''] : [decode(pair.slice(0, eq)), decode(pair.slice(eq + 1))]);
  }
  const rest = rawPath.replace(/^\//, '');
  const slash = rest.indexOf('/');
  const bucketText = slash < 0 ? rest : rest.slice(0, slash);
  const keyText = slash < 0 ? '' : rest.slice(slash + 1);
  const target: Target = {};
  if (bucketText) target.bucket = decode(bucketText, lenient);
  if (keyText) target.key = decode(keyText, lenient);
  return { rawPath, query, target };
}

export const httpDate = (iso: string): string => new Date(iso).toUTCString();

/** Node reads header bytes as latin1: non-ASCII metadata sent as UTF-8 is read back as text here. */
export function utf8Of(value: string): string {
  if (!/[^ -~\t]/.test(value)) return value;
  const text = Buffer.from(value, 'latin1').toString('utf8');
  return text.includes('\uFFFD') ? value : text;
}

/** A header value Node can send: text beyond latin1 goes as an RFC 2047 encoded word (as S3 does). */
export function headerValue(value: string): string {
  return /[^ -~\t\u00a0-\u00ff]/.test(value) ? `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=` : value;
}

export function userMetadata(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith('x-amz-meta-') && value !== undefined)
      out[name.slice('x-amz-meta-'.length)] = utf8Of(Array.isArray(value) ? value.join(',') : value);
  }
  return out;
}

export function standardHeaders(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STANDARD_HEADERS) {
    const value = header(request, name);
    // aws-chunked is the transfer framing of the body, not the object's encoding (S3 drops it).
    const kept =
      name === 'content-encoding'
        ? value
            ?.split(',')
            .map((v) => v.trim())
            .filter((v) => v && v !== 'aws-chunked')
            .join(', ')
        : value;
    if (kept) out[name] = kept;
  }
  return out;
}

/** Skips `start` bytes and passes `length` bytes (Range reads over the store's whole-blob stream). */
export function slice(start: number, length: number): Transform {
  let skip = start;
  let left = length;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      let data = chunk;
      if (skip > 0) {
        const dropped = Math.min(skip, data.length);
        data = data.subarray(dropped);
        skip -= dropped;
      }
      if (left <= 0 || data.length === 0) return callback();
      const taken = data.subarray(0, left);
      left -= taken.length;
      callback(null, taken);
    },
  });
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n`; undefined when absent or not a single byte range (served whole, as S3 does). */
export function parseRange(text: string | undefined, size: number): { start: number; end: number } | undefined {
  if (!text) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0)
      throw new S3Error('InvalidRange', 'The requested range is not satisfiable.', {
        RangeRequested: text,
        ActualObjectSize: String(size),
      });
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined;
  }
  if (start >= size)
    throw new S3Error('InvalidRange', 'The requested range is not satisfiable.', {
      RangeRequested: text,
      ActualObjectSize: String(size),
    });
  return { start, end };
}

export function encodeForListing(value: string, encode: boolean): string {
  return encode ? encodeURIComponent(value).replace(/%2F/g, '/') : value;
}

export function intParam(query: Query, name: string, fallback: number, max: number): number {
  const text = query.get(name);
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new S3Error('InvalidArgument', `${name} must be a non-negative integer.`);
  return Math.min(Number(text), max);
}
