/**
 * SigV4 verification for the S3 endpoint: Authorization-header requests and presigned query
 * requests. Each request is verified by RE-SIGNING it with `@smithy/signature-v4`, the signer
 * the AWS SDK for JavaScript itself uses: the canonical request (header folding, query sorting
 * and escaping, the signing-key derivation) is then built by the same code real clients run,
 * rather than by a second hand-written canonicaliser that could agree with our own tests and
 * still disagree with the SDKs. The computed signature is compared in constant time.
 */
import { createHash, createHmac, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { AccessKeyRecord } from '../areas/storage-objects/store.ts';
import { S3Error } from './errors.ts';

/** Loaded with the first signed S3 request, not with every start of the server (see xml.ts). */
let signerClass: typeof SignatureV4 | undefined;
const loadSigner = (): typeof SignatureV4 =>
  (signerClass ??= (createRequire(import.meta.url)('@smithy/signature-v4') as { SignatureV4: typeof SignatureV4 })
    .SignatureV4);

/** The `Checksum` shape the signer wants, backed by node:crypto (SHA-256, or HMAC with a key). */
class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? this.secret
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(
      typeof data === 'string'
        ? data
        : ArrayBuffer.isView(data)
          ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
          : Buffer.from(data),
    );
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Real S3 allows 15 minutes between the request's date and the server's clock. */
export const MAX_SKEW_MS = 15 * 60 * 1000;
/** Seven days, the longest presigned lifetime SigV4 allows. */
const MAX_PRESIGN_SECONDS = 604_800;

export interface RawRequest {
  method: string;
  /** The path as sent (still percent-encoded), without the query. */
  rawPath: string;
  /** Decoded query parameters, in order. */
  query: Array<[string, string]>;
  headers: Record<string, string | string[] | undefined>;
}

export interface VerifiedAuth {
  key: AccessKeyRecord;
  mode: 'header' | 'presigned';
  /** The request's signature: the seed of a signed aws-chunked body. */
  signature: string;
  /** x-amz-date form, `20250101T000000Z`. */
  longDate: string;
  region: string;
  scope: string;
  /** The `x-amz-content-sha256` value (UNSIGNED-PAYLOAD for presigned requests without one). */
  contentSha256: string;
  signer: SignatureV4;
  signingDate: Date;
}

interface Credential {
  accessKeyId: string;
  shortDate: string;
  region: string;
  service: string;
}

function header(headers: RawRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function parseCredential(text: string): Credential {
  const parts = text.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request')
    throw new S3Error('AuthorizationHeaderMalformed', 'The credential is malformed.');
  return { accessKeyId: parts[0]!, shortDate: parts[1]!, region: parts[2]!, service: parts[3]! };
}

function parseAmzDate(text: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  if (!m) return undefined;
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/**
 * The request date of a header-signed request: `x-amz-date`, else the HTTP `Date` header (SigV4
 * takes either; botocore signs with `Date` when the request has one), in x-amz-date form.
 */
function requestDate(headers: RawRequest['headers'], noDateHeader = false): string | undefined {
  const amz = header(headers, 'x-amz-date');
  if (amz || noDateHeader) return amz;
  const ms = Date.parse(header(headers, 'date') ?? '');
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, '');
}

/** AWS URI encoding of a decoded path: everything but unreserved characters and `/`. */
function awsEncodePath(decoded: string): string {
  return decoded
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

function safeDecode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  // timingSafeEqual needs equal lengths; a length difference is not a secret.
  return a.length === b.length && timingSafeEqual(a, b);
}

export interface VerifyOptions {
  now: number;
  lookup(accessKeyId: string): AccessKeyRecord | undefined;
  /** The `s3-signature-unchecked` fault: a key that exists is enough. */
  skipSignature?: boolean;
  /** The `s3-clock-skew-ignored` fault: a header signature of any date is taken. */
  skipSkew?: boolean;
  /** The `s3-date-header-refused` fault: only x-amz-date dates a request. */
  noDateHeader?: boolean;
}

/** Which auth a request carries; undefined for an anonymous request (an empty Authorization is none). */
export function authModeOf(request: RawRequest): 'header' | 'presigned' | 'sigv2' | undefined {
  const authorization = header(request.headers, 'authorization');
  if (authorization?.startsWith('AWS4-HMAC-SHA256 ')) return 'header';
  if (authorization?.startsWith('AWS ')) return 'sigv2';
  if (request.query.some(([k]) => k === 'X-Amz-Algorithm')) return 'presigned';
  return undefined;
}

/** The fields of an `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header. */
function authorizationFields(authorization: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of authorization.slice('AWS4-HMAC-SHA256 '.length).split(',')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return fields;
}

/**
 * The access key a SigV4 request names (in its Authorization header or its presigned URL), read
 * without verifying anything; undefined for an anonymous, SigV2 or malformed request.
 */
export function accessKeyIdOf(request: RawRequest): string | undefined {
  const mode = authModeOf(request);
  const credential =
    mode === 'header'
      ? authorizationFields(header(request.headers, 'authorization')!).get('Credential')
      : mode === 'presigned'
        ? request.query.find(([name]) => name === 'X-Amz-Credential')?.[1]
        : undefined;
  return credential?.split('/')[0] || undefined;
}

/** The request's verified signature; undefined for an anonymous request (what it may do is the ACLs' business). */
export async function verifyRequest(request: RawRequest, options: VerifyOptions): Promise<VerifiedAuth | undefined> {
  const mode = authModeOf(request);
  if (mode === undefined) {
    // An Authorization header that is there but no signature at all is refused, not taken as anonymous.
    const authorization = header(request.headers, 'authorization');
    if (authorization?.trim())
      throw new S3Error('AccessDenied', 'The Authorization header is not an AWS4-HMAC-SHA256 signature.');
    return undefined;
  }
  if (mode === 'sigv2')
    throw new S3Error('InvalidRequest', 'Signature version 2 is not supported; use AWS4-HMAC-SHA256.');
  const q = new Map(request.query);
  let credentialText: string;
  let signedHeaders: string[];
  let signature: string;
  let longDate: string | undefined;
  let contentSha256: string;
  if (mode === 'header') {
    const fields = authorizationFields(header(request.headers, 'authorization')!);
    credentialText = fields.get('Credential') ?? '';
    signedHeaders = (fields.get('SignedHeaders') ?? '').split(';').filter(Boolean);
    signature = fields.get('Signature') ?? '';
    longDate = requestDate(request.headers, options.noDateHeader);
    const sha = header(request.headers, 'x-amz-content-sha256');
    if (sha === undefined)
      throw new S3Error('InvalidRequest', 'Missing required header for this request: x-amz-content-sha256.');
    contentSha256 = sha;
  } else {
    if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
      throw new S3Error('InvalidArgument', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256.');
    credentialText = q.get('X-Amz-Credential') ?? '';
    signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
    signature = q.get('X-Amz-Signature') ?? '';
    longDate = q.get('X-Amz-Date');
    contentSha256 =
      q.get('X-Amz-Content-Sha256') ?? header(request.headers, 'x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD';
  }
  if (!credentialText || !signature || signedHeaders.length === 0)
    throw new S3Error('AccessDenied', 'The request signature is incomplete.');
  let credential: Credential;
  try {
    credential = parseCredential(credentialText);
  } catch {
    throw new S3Error('InvalidArgument', 'The credential of the request is malformed.');
  }
  const key = options.lookup(credential.accessKeyId);
  if (!key)
    throw new S3Error('InvalidAccessKeyId', 'The AWS access key Id you provided does not exist in our records.');
  const signingDate = parseAmzDate(longDate);
  if (!signingDate || longDate!.slice(0, 8) !== credential.shortDate)
    throw new S3Error('AccessDenied', 'The request date is missing or does not match the credential scope.');
  if (mode === 'header') {
    if (!options.skipSkew && Math.abs(options.now - signingDate.getTime()) > MAX_SKEW_MS) {
      throw new S3Error(
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    }
  } else {
    const expires = Number(q.get('X-Amz-Expires'));
    // Out of range (not 1..604800 s) is refused as access denied, as Ceph RGW does (the S3
    // compatibility suites expect 403); AWS says 400 AuthorizationQueryParametersError. Checks
    // accept either: the specification shows neither.
    if (!Number.isInteger(expires) || expires < 1 || expires > MAX_PRESIGN_SECONDS)
      throw new S3Error('AccessDenied', 'X-Amz-Expires must be between 1 and 604800 seconds.');
    if (signingDate.getTime() - options.now > MAX_SKEW_MS)
      throw new S3Error('RequestTimeTooSkewed', 'The presigned URL is dated in the future.');
    if (options.now > signingDate.getTime() + expires * 1000) throw new S3Error('AccessDenied', 'Request has expired.');
  }

  const Signer = loadSigner();
  const signer = new Signer({
    credentials: { accessKeyId: key.access_key_id, secretAccessKey: key.secret_access_key },
    region: credential.region,
    service: credential.service,
    sha256: NodeSha256,
    // S3 signs the path encoded once, as sent; no double encoding, no dot-segment removal.
    uriEscapePath: false,
  });
  const scope = `${credential.shortDate}/${credential.region}/${credential.service}/aws4_request`;
  const auth: VerifiedAuth = {
    key,
    mode,
    signature: signature.toLowerCase(),
    longDate: longDate!,
    region: credential.region,
    scope,
    contentSha256,
    signer,
    signingDate,
  };
  if (options.skipSignature) return auth;

  const signed = new Set(signedHeaders.map((h) => h.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = header(request.headers, name) ?? '';
  // Presigned: the payload hash is not a header of the canonical request; the signer reads it
  // from this header, which is kept out of the signed list unless the client signed it.
  headers['x-amz-content-sha256'] = contentSha256;
  const unsignable = new Set(['x-amz-date', 'x-amz-content-sha256'].filter((name) => !signed.has(name)));
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of request.query) {
    if (mode === 'presigned' && k === 'X-Amz-Signature') continue;
    const existing = query[k];
    query[k] = existing === undefined ? v : Array.isArray(existing) ? [...existing, v] : [existing, v];
  }
  // Clients encode the path by AWS rules; some send characters raw that they signed encoded
  // (or the reverse), so both the path as sent and its AWS-encoded form are tried.
  const decoded = safeDecode(request.rawPath);
  const paths = [...new Set([decoded === undefined ? request.rawPath : awsEncodePath(decoded), request.rawPath])];
  // Node reads header bytes as latin1; a client that sent UTF-8 bytes (non-ASCII metadata)
  // signed them as UTF-8 text, so that reading is tried too.
  const utf8 = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, /[^ -~\t]/.test(v) ? Buffer.from(v, 'latin1').toString('utf8') : v]),
  );
  const headerSets = Object.entries(utf8).some(([k, v]) => v !== headers[k]) ? [headers, utf8] : [headers];
  for (const [path, signedHeaders] of paths.flatMap((p) => headerSets.map((h) => [p, h] as const))) {
    const message = {
      method: request.method,
      protocol: 'http:',
      hostname: signedHeaders.host ?? '',
      path,
      query,
      headers: signedHeaders,
    };
    const computed = signed.has('date')
      ? await signatureWithDate(signer, message, { signed, contentSha256, longDate: longDate!, scope, signingDate })
      : (/Signature=([0-9a-f]+)/.exec(
          String(
            (
              await signer.sign(message, {
                signingDate,
                signableHeaders: signed,
                unsignableHeaders: unsignable,
                signingRegion: credential.region,
                signingService: credential.service,
              })
            ).headers.authorization ?? '',
          ),
        )?.[1] ?? '');
    if (sameSignature(computed, signature)) return auth;
  }
  throw new S3Error(
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );
}

/** The signer's protected steps, which signatureWithDate calls one by one. */
interface SignerSteps {
  createCanonicalRequest(
    request: {
      method: string;
      path: string;
      query: Record<string, string | string[]>;
      headers: Record<string, string>;
    },
    canonicalHeaders: Record<string, string>,
    payloadHash: string,
  ): string;
  createStringToSign(longDate: string, scope: string, canonicalRequest: string, algorithm: string): Promise<string>;
}

/**
 * The signature of a request that signed its HTTP `Date` header (SigV4 dates a request by it
 * when there is no x-amz-date; botocore does so whenever the request has one). The signer's
 * `sign` drops a `date` header (it makes its own), so the same signer's own steps are run with
 * the header kept: its canonical request, its string to sign, its signing key.
 */
async function signatureWithDate(
  signer: SignatureV4,
  message: { method: string; path: string; query: Record<string, string | string[]>; headers: Record<string, string> },
  sig: { signed: Set<string>; contentSha256: string; longDate: string; scope: string; signingDate: Date },
): Promise<string> {
  const canonical: Record<string, string> = {};
  for (const name of [...sig.signed].sort())
    canonical[name] = (message.headers[name] ?? '').trim().replace(/\s+/g, ' ');
  // Protected in the signer's types; they are its own canonicalisation, not a second one.
  const steps = signer as unknown as SignerSteps;
  const canonicalRequest = steps.createCanonicalRequest(message, canonical, sig.contentSha256);
  const stringToSign = await steps.createStringToSign(sig.longDate, sig.scope, canonicalRequest, 'AWS4-HMAC-SHA256');
  const [, region, service] = sig.scope.split('/');
  return signer.sign(stringToSign, { signingDate: sig.signingDate, signingRegion: region, signingService: service });
}

/** HMAC signature of one aws-chunked chunk (or of the trailer), chained from `previous`. */
export async function chunkSignature(
  auth: VerifiedAuth,
  previous: string,
  dataSha256: string,
  trailer = false,
): Promise<string> {
  const stringToSign = trailer
    ? ['AWS4-HMAC-SHA256-TRAILER', auth.longDate, auth.scope, previous, dataSha256].join('\n')
    : ['AWS4-HMAC-SHA256-PAYLOAD', auth.longDate, auth.scope, previous, EMPTY_SHA256, dataSha256].join('\n');
  return auth.signer.sign(stringToSign, {
    signingDate: auth.signingDate,
    signingRegion: auth.region,
    signingService: auth.scope.split('/')[2],
  });
}

export { sameSignature };
