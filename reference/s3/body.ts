/**
 * Request bodies of the S3 endpoint, as one streaming Transform: it decodes `aws-chunked`
 * (with or without chunk signatures, with or without trailers), verifies the chunk signature
 * chain, the payload SHA-256 when the client signed one, the decoded length, and every
 * `x-amz-checksum-*` the client sent as a header or trailer. Nothing is buffered beyond one
 * chunk header; the verdict comes in `flush`, before the store sees the end of the stream, so
 * a body that fails verification never becomes an object.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { type ChecksumAlgorithm, type RunningChecksum, algorithmOfHeader, newChecksum } from './checksums.ts';
import { S3Error } from './errors.ts';
import { type VerifiedAuth, chunkSignature, sameSignature } from './sigv4.ts';

export const CONTENT_SHA256_MODES = {
  unsigned: 'UNSIGNED-PAYLOAD',
  streamingSigned: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  streamingSignedTrailer: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
  streamingUnsignedTrailer: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
} as const;

export interface BodyPlan {
  /** aws-chunked framing, and whether chunks carry signatures. */
  chunked: false | { signed: boolean; trailer: boolean };
  /** A hex SHA-256 the client signed for the (decoded) payload. */
  sha256?: string;
  /** Checksums given as headers: algorithm → base64 value. */
  headerChecksums: Map<ChecksumAlgorithm, string>;
  /** Checksums announced by `x-amz-trailer`. */
  trailerChecksums: ChecksumAlgorithm[];
  decodedLength?: number;
  /** `Content-MD5` (base64), verified like the checksums. */
  md5?: string;
  /** The request's signature (chunk signatures chain from it); undefined for an anonymous request. */
  auth: VerifiedAuth | undefined;
}

/** Works out how to read a body from the request headers; refuses what it cannot verify. */
export function planBody(
  headers: Record<string, string | string[] | undefined>,
  auth: VerifiedAuth | undefined,
): BodyPlan {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v.join(',') : v;
  };
  const mode = auth?.contentSha256 ?? one('x-amz-content-sha256') ?? CONTENT_SHA256_MODES.unsigned;
  // Signed chunks chain from a request signature an anonymous request does not have.
  if (!auth && mode.startsWith('STREAMING-AWS4-HMAC-SHA256'))
    throw new S3Error('AccessDenied', 'A signed aws-chunked body needs a signed request.');
  let chunked: BodyPlan['chunked'] = false;
  let sha256: string | undefined;
  if (mode === CONTENT_SHA256_MODES.streamingSigned) chunked = { signed: true, trailer: false };
  else if (mode === CONTENT_SHA256_MODES.streamingSignedTrailer) chunked = { signed: true, trailer: true };
  else if (mode === CONTENT_SHA256_MODES.streamingUnsignedTrailer) chunked = { signed: false, trailer: true };
  else if (/^[0-9a-f]{64}$/i.test(mode)) sha256 = mode.toLowerCase();
  else if (mode !== CONTENT_SHA256_MODES.unsigned) {
    if (mode.startsWith('STREAMING-'))
      throw new S3Error('NotImplemented', `x-amz-content-sha256 ${mode} is not supported.`);
    throw new S3Error(
      'InvalidArgument',
      'x-amz-content-sha256 must be a SHA-256 hex digest, UNSIGNED-PAYLOAD or a STREAMING- mode.',
    );
  }
  const headerChecksums = new Map<ChecksumAlgorithm, string>();
  for (const name of Object.keys(headers)) {
    if (
      !name.startsWith('x-amz-checksum-') ||
      name === 'x-amz-checksum-algorithm' ||
      name === 'x-amz-checksum-type' ||
      name === 'x-amz-checksum-mode'
    )
      continue;
    const algorithm = algorithmOfHeader(name);
    if (!algorithm) throw new S3Error('InvalidRequest', `Unknown checksum header ${name}.`);
    headerChecksums.set(algorithm, one(name) ?? '');
  }
  const trailerChecksums: ChecksumAlgorithm[] = [];
  for (const name of (one('x-amz-trailer') ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean)) {
    const algorithm = algorithmOfHeader(name);
    if (!algorithm) throw new S3Error('InvalidRequest', `Unsupported trailer ${name}.`);
    trailerChecksums.push(algorithm);
  }
  if (trailerChecksums.length > 0 && !(chunked && chunked.trailer))
    throw new S3Error('InvalidRequest', 'x-amz-trailer needs an aws-chunked body with a trailer mode.');
  const decodedText = one('x-amz-decoded-content-length');
  let decodedLength: number | undefined;
  if (decodedText !== undefined) {
    decodedLength = /^\d+$/.test(decodedText) ? Number(decodedText) : NaN;
    if (!Number.isSafeInteger(decodedLength))
      throw new S3Error('InvalidArgument', 'x-amz-decoded-content-length is not a number.');
  }
  if (chunked && decodedLength === undefined)
    throw new S3Error('MissingContentLength', 'aws-chunked bodies need x-amz-decoded-content-length.');
  const md5 = one('content-md5');
  if (md5 !== undefined && !/^[A-Za-z0-9+/]{22}==$/.test(md5.trim()))
    throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.');
  return { chunked, sha256, headerChecksums, trailerChecksums, decodedLength, md5: md5?.trim(), auth };
}

const CRLF = Buffer.from('\r\n');
/** A chunk header line longer than this is not aws-chunked. */
const MAX_LINE = 4096;

type State = 'header' | 'data' | 'data-end' | 'trailer' | 'done';

export class BodyDecoder extends Transform {
  private state: State;
  private pending: Buffer = Buffer.alloc(0);
  private remaining = 0;
  private chunkHash: Hash | undefined;
  private chunkSig = '';
  private previousSig: string;
  private readonly payloadHash: Hash | undefined;
  private readonly md5Hash: Hash | undefined;
  private readonly running = new Map<ChecksumAlgorithm, RunningChecksum>();
  private readonly trailers = new Map<string, string>();
  private trailerText = '';
  private length = 0;
  /** Verified checksums (algorithm → base64), for the store to keep and GET to return. */
  readonly verified = new Map<ChecksumAlgorithm, string>();

  constructor(private readonly plan: BodyPlan) {
    super();
    this.state = plan.chunked ? 'header' : 'data';
    this.previousSig = plan.auth?.signature ?? '';
    if (plan.sha256) this.payloadHash = createHash('sha256');
    if (plan.md5) this.md5Hash = createHash('md5');
    for (const algorithm of [...plan.headerChecksums.keys(), ...plan.trailerChecksums])
      this.running.set(algorithm, newChecksum(algorithm));
  }

  private output(data: Buffer): void {
    if (data.length === 0) return;
    this.length += data.length;
    this.payloadHash?.update(data);
    this.md5Hash?.update(data);
    this.chunkHash?.update(data);
    for (const sum of this.running.values()) sum.update(data);
    this.push(data);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.plan.chunked) {
      this.output(chunk);
      callback();
      return;
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    this.drain().then(
      () => callback(),
      (error: unknown) => callback(error as Error),
    );
  }

  /** Consumes as much of `pending` as the framing allows. */
  private async drain(): Promise<void> {
    for (;;) {
      if (this.state === 'data') {
        if (this.pending.length === 0) return;
        const take = Math.min(this.remaining, this.pending.length);
        this.output(this.pending.subarray(0, take));
        this.pending = this.pending.subarray(take);
        this.remaining -= take;
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      if (this.state === 'done') {
        this.pending = Buffer.alloc(0);
        return;
      }
      const eol = this.pending.indexOf(CRLF);
      if (eol < 0) {
        if (this.pending.length > MAX_LINE) throw new S3Error('IncompleteBody', 'The aws-chunked body is malformed.');
        return;
      }
      const line = this.pending.subarray(0, eol).toString('latin1');
      this.pending = this.pending.subarray(eol + 2);
      if (this.state === 'data-end') {
        if (line !== '') throw new S3Error('IncompleteBody', 'An aws-chunked chunk is longer than its declared size.');
        await this.endChunk();
        this.state = 'header';
      } else if (this.state === 'header') {
        await this.startChunk(line);
      } else if (this.state === 'trailer') {
        if (line === '') this.state = 'done';
        else this.addTrailer(line);
      }
    }
  }

  private async startChunk(line: string): Promise<void> {
    const [sizeText, ...extensions] = line.split(';');
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText ?? ''))
      throw new S3Error('IncompleteBody', 'The aws-chunked body is malformed.');
    const size = parseInt(sizeText!, 16);
    const signed = this.plan.chunked && this.plan.chunked.signed;
    if (signed) {
      const sig = extensions
        .map((e) => e.trim())
        .find((e) => e.startsWith('chunk-signature='))
        ?.slice('chunk-signature='.length);
      if (!sig) throw new S3Error('SignatureDoesNotMatch', 'An aws-chunked chunk has no chunk-signature.');
      this.chunkSig = sig;
      this.chunkHash = createHash('sha256');
    }
    if (size > 0) {
      this.remaining = size;
      this.state = 'data';
      return;
    }
    // The final, empty chunk: signed too in signed modes.
    if (signed) await this.endChunk();
    // Trailer lines (if any) follow, then an empty line; without trailers only the empty line.
    this.state = 'trailer';
  }

  private async endChunk(): Promise<void> {
    if (!this.chunkHash) return;
    const digest = this.chunkHash.digest('hex');
    this.chunkHash = undefined;
    if (this.plan.auth?.mode === 'header' && !this.skipSignatures) {
      const expected = await chunkSignature(this.plan.auth, this.previousSig, digest);
      if (!sameSignature(expected, this.chunkSig))
        throw new S3Error('SignatureDoesNotMatch', 'An aws-chunked chunk signature does not match.');
    }
    this.previousSig = this.chunkSig.toLowerCase();
  }

  /** Set by the `s3-signature-unchecked` fault. */
  skipSignatures = false;

  private addTrailer(line: string): void {
    const at = line.indexOf(':');
    if (at <= 0) throw new S3Error('IncompleteBody', 'A trailer line of the aws-chunked body is malformed.');
    const name = line.slice(0, at).trim().toLowerCase();
    const value = line.slice(at + 1).trim();
    this.trailers.set(name, value);
    if (name !== 'x-amz-trailer-signature') this.trailerText += `${name}:${value}\n`;
  }

  override _flush(callback: TransformCallback): void {
    this.finish().then(
      () => callback(),
      (error: unknown) => callback(error as Error),
    );
  }

  private async finish(): Promise<void> {
    const plan = this.plan;
    if (plan.chunked) {
      // Lenient about the very last CRLF (some clients end after the trailers' own line).
      if (this.state === 'trailer' && this.pending.length > 0) {
        const rest = this.pending.toString('latin1').split('\r\n').filter(Boolean);
        for (const line of rest) this.addTrailer(line);
        this.pending = Buffer.alloc(0);
        this.state = 'done';
      }
      if (this.state === 'trailer') this.state = 'done';
      if (this.state !== 'done') throw new S3Error('IncompleteBody', 'The aws-chunked body ended early.');
      if (plan.chunked.signed && plan.chunked.trailer && plan.auth && !this.skipSignatures) {
        const given = this.trailers.get('x-amz-trailer-signature');
        if (!given) throw new S3Error('SignatureDoesNotMatch', 'The trailer signature is missing.');
        const expected = await chunkSignature(
          plan.auth,
          this.previousSig,
          createHash('sha256').update(this.trailerText).digest('hex'),
          true,
        );
        if (!sameSignature(expected, given))
          throw new S3Error('SignatureDoesNotMatch', 'The trailer signature does not match.');
      }
    }
    if (plan.decodedLength !== undefined && plan.decodedLength !== this.length) {
      throw new S3Error(
        'IncompleteBody',
        `The body has ${this.length} bytes; x-amz-decoded-content-length says ${plan.decodedLength}.`,
      );
    }
    if (this.payloadHash && this.payloadHash.digest('hex') !== plan.sha256) {
      throw new S3Error(
        'XAmzContentSHA256Mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
      );
    }
    if (this.md5Hash && this.md5Hash.digest('base64') !== plan.md5) {
      throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
    }
    for (const [algorithm, sum] of this.running) {
      const given = plan.headerChecksums.get(algorithm) ?? this.trailers.get(`x-amz-checksum-${algorithm}`);
      if (given === undefined)
        throw new S3Error('InvalidRequest', `The trailer x-amz-checksum-${algorithm} was announced but not sent.`);
      const actual = sum.digest();
      if (given !== actual)
        throw new S3Error(
          'BadDigest',
          `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
        );
      this.verified.set(algorithm, actual);
    }
  }
}
