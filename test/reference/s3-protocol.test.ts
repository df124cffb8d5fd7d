/**
 * The wire formats of the S3 endpoint, driven by hand: aws-chunked bodies with chunk signatures
 * (STREAMING-AWS4-HMAC-SHA256-PAYLOAD, with and without a signed trailer), unsigned trailers,
 * payload hash and checksum mismatches, clock skew, presigned expiry, every checksum algorithm.
 * Requests are signed with @smithy/signature-v4; chunk signatures with an independent HMAC
 * chain written here, so the server's verification is checked against a second implementation.
 */
import {
  ChecksumAlgorithm,
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { expect, test } from '../base.ts';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { checksumOf } from '../../reference/s3/checksums.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { type KeyPair, accessKey, s3Client, uniqueBucket } from './s3-support.ts';

let server: RunningReference;
let key: KeyPair;
let bucket: string;
test.beforeAll(async () => {
  server = await startReferenceServer();
  key = await accessKey(server);
  bucket = uniqueBucket('wire');
  await s3Client(server, key).send(new CreateBucketCommand({ Bucket: bucket }));
});
test.afterAll(async () => {
  await server.close();
});

const sha256hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const EMPTY = sha256hex('');

class Sha256 {
  private readonly h;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.h =
      secret === undefined
        ? createHash('sha256')
        : createHmac('sha256', typeof secret === 'string' ? secret : Buffer.from(secret as Uint8Array));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.h.update(typeof data === 'string' ? data : Buffer.from(data as Uint8Array));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

function signingKey(secret: string, shortDate: string, region: string): Buffer {
  const step = (k: string | Buffer, data: string): Buffer => createHmac('sha256', k).update(data).digest();
  return step(step(step(step(`AWS4${secret}`, shortDate), region), 's3'), 'aws4_request');
}

interface Raw {
  status: number;
  text: string;
}

/** Sends a PUT of `body` (already framed) with the given content-sha256 mode and extra headers, signed by header. */
async function signedPut(
  path: string,
  sha: string,
  body: Buffer,
  headers: Record<string, string>,
  options: {
    date?: Date;
    pair?: KeyPair;
    frame?: (seed: string, longDate: string, scope: string, secret: string) => Buffer;
  } = {},
): Promise<Raw> {
  const pair = options.pair ?? key;
  const url = new URL(`${server.s3Url}${path}`);
  const signer = new SignatureV4({
    credentials: pair,
    region: 'nyc1',
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
  });
  const date = options.date ?? new Date();
  const signed = await signer.sign(
    {
      method: 'PUT',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'x-amz-content-sha256': sha, ...headers },
    },
    { signingDate: date },
  );
  const auth = String(signed.headers.authorization);
  const seed = /Signature=([0-9a-f]+)/.exec(auth)![1]!;
  const longDate = String(signed.headers['x-amz-date']);
  const scope = `${longDate.slice(0, 8)}/nyc1/s3/aws4_request`;
  const payload = options.frame ? options.frame(seed, longDate, scope, pair.secretAccessKey) : body;
  const res = await fetch(url, {
    method: 'PUT',
    headers: { ...(signed.headers as Record<string, string>), 'content-length': String(payload.length) },
    body: payload,
  });
  return { status: res.status, text: await res.text() };
}

/** aws-chunked with chunk signatures, optionally with a signed trailer. */
function signedChunks(data: Buffer, chunkSize: number, trailer?: { name: string; value: string }, tamper = false) {
  return (seed: string, longDate: string, scope: string, secret: string): Buffer => {
    const k = signingKey(secret, longDate.slice(0, 8), 'nyc1');
    let previous = seed;
    const out: Buffer[] = [];
    const chunks: Buffer[] = [];
    for (let i = 0; i < data.length; i += chunkSize) chunks.push(data.subarray(i, i + chunkSize));
    chunks.push(Buffer.alloc(0));
    for (const chunk of chunks) {
      const sts = ['AWS4-HMAC-SHA256-PAYLOAD', longDate, scope, previous, EMPTY, sha256hex(chunk)].join('\n');
      const sig = createHmac('sha256', k).update(sts).digest('hex');
      previous = sig;
      const sent = tamper && chunk.length > 0 ? Buffer.from(chunk.map((b, i) => (i === 0 ? b ^ 1 : b))) : chunk;
      out.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${sig}\r\n`), sent, Buffer.from('\r\n'));
    }
    if (trailer) {
      out.pop();
      const text = `${trailer.name}:${trailer.value}\n`;
      const sts = ['AWS4-HMAC-SHA256-TRAILER', longDate, scope, previous, sha256hex(text)].join('\n');
      const sig = createHmac('sha256', k).update(sts).digest('hex');
      out.push(Buffer.from(`${trailer.name}:${trailer.value}\r\nx-amz-trailer-signature:${sig}\r\n\r\n`));
    }
    return Buffer.concat(out);
  };
}

function unsignedTrailer(data: Buffer, chunkSize: number, trailer: { name: string; value: string }): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunkSize) {
    const chunk = data.subarray(i, i + chunkSize);
    out.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`0\r\n${trailer.name}:${trailer.value}\r\n\r\n`));
  return Buffer.concat(out);
}

async function read(k: string): Promise<Buffer> {
  const got = await s3Client(server, key).send(new GetObjectCommand({ Bucket: bucket, Key: k }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

test('STREAMING-AWS4-HMAC-SHA256-PAYLOAD: chunk signature chain verified', async () => {
  const data = randomBytes(200_000);
  const headers = { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(data.length) };
  const ok = await signedPut(`/${bucket}/signed-chunks`, 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', data, headers, {
    frame: signedChunks(data, 65536),
  });
  expect(ok.status, ok.text).toBe(200);
  expect((await read('signed-chunks')).equals(data)).toBe(true);
  const bad = await signedPut(`/${bucket}/tampered`, 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', data, headers, {
    frame: signedChunks(data, 65536, undefined, true),
  });
  expect(bad.status).toBe(403);
  expect(bad.text).toContain('SignatureDoesNotMatch');
});

test('STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: signed trailer with a CRC32C checksum', async () => {
  const data = randomBytes(70_000);
  const trailer = { name: 'x-amz-checksum-crc32c', value: checksumOf('crc32c', data) };
  const headers = {
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(data.length),
    'x-amz-trailer': trailer.name,
  };
  const ok = await signedPut(`/${bucket}/signed-trailer`, 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', data, headers, {
    frame: signedChunks(data, 30_000, trailer),
  });
  expect(ok.status, ok.text).toBe(200);
  expect((await read('signed-trailer')).equals(data)).toBe(true);
  const wrong = { ...trailer, value: checksumOf('crc32c', Buffer.from('other')) };
  const bad = await signedPut(
    `/${bucket}/signed-trailer-bad`,
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
    data,
    headers,
    { frame: signedChunks(data, 30_000, wrong) },
  );
  expect(bad.text).toContain('BadDigest');
});

test('STREAMING-UNSIGNED-PAYLOAD-TRAILER: trailing CRC32 verified (BadDigest) and nothing stored on mismatch', async () => {
  const data = randomBytes(100_000);
  const headers = {
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(data.length),
    'x-amz-trailer': 'x-amz-checksum-crc32',
  };
  const ok = await signedPut(
    `/${bucket}/unsigned-trailer`,
    'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    unsignedTrailer(data, 8192, { name: 'x-amz-checksum-crc32', value: checksumOf('crc32', data) }),
    headers,
  );
  expect(ok.status, ok.text).toBe(200);
  expect((await read('unsigned-trailer')).equals(data)).toBe(true);
  const bad = await signedPut(
    `/${bucket}/unsigned-trailer-bad`,
    'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    unsignedTrailer(data, 8192, { name: 'x-amz-checksum-crc32', value: 'AAAAAA==' }),
    headers,
  );
  expect(bad.status).toBe(400);
  expect(bad.text).toContain('BadDigest');
  const head = await s3Client(server, key)
    .send(new HeadObjectCommand({ Bucket: bucket, Key: 'unsigned-trailer-bad' }))
    .catch((e: { name: string }) => e.name);
  expect(head).toBe('NotFound');
});

test('hex payload hash verified; UNSIGNED-PAYLOAD accepted; clock skew refused', async () => {
  const data = Buffer.from('payload');
  expect((await signedPut(`/${bucket}/hex`, sha256hex(data), data, {})).status).toBe(200);
  const mismatch = await signedPut(`/${bucket}/hex-bad`, sha256hex('other'), data, {});
  expect(mismatch.text).toContain('XAmzContentSHA256Mismatch');
  expect((await signedPut(`/${bucket}/unsigned`, 'UNSIGNED-PAYLOAD', data, {})).status).toBe(200);
  const skewed = await signedPut(
    `/${bucket}/skewed`,
    'UNSIGNED-PAYLOAD',
    data,
    {},
    { date: new Date(Date.now() - 20 * 60_000) },
  );
  expect(skewed.status).toBe(403);
  expect(skewed.text).toContain('RequestTimeTooSkewed');
});

test('every checksum algorithm through the SDK, returned on GET with ChecksumMode ENABLED', async () => {
  const s3 = s3Client(server, key);
  const data = randomBytes(5000);
  for (const algorithm of [
    ChecksumAlgorithm.CRC32,
    ChecksumAlgorithm.CRC32C,
    ChecksumAlgorithm.SHA1,
    ChecksumAlgorithm.SHA256,
    ChecksumAlgorithm.CRC64NVME,
  ]) {
    const k = `sum-${algorithm}`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: k, Body: data, ChecksumAlgorithm: algorithm }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: k, ChecksumMode: 'ENABLED' }));
    const field = `Checksum${algorithm}` as 'ChecksumCRC32';
    expect(got[field], algorithm).toBe(checksumOf(algorithm.toLowerCase() as 'crc32', data));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(data)).toBe(true);
  }
  // CRC-64/NVME check value of "123456789".
  expect(Buffer.from(checksumOf('crc64nvme', Buffer.from('123456789')), 'base64').toString('hex')).toBe(
    'ae8b14860a799888',
  );
});

test('presigned URLs: expiry and tampering refused', async () => {
  const s3 = s3Client(server, key);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'pre', Body: 'p' }));
  const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'pre' }), { expiresIn: 60 });
  expect(await (await fetch(url)).text()).toBe('p');
  const old = await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'pre' }), {
    expiresIn: 60,
    signingDate: new Date(Date.now() - 120_000),
  });
  const expired = await fetch(old);
  expect(expired.status).toBe(403);
  expect(await expired.text()).toContain('expired');
  const other = await fetch(url.replace('/pre?', '/other?'));
  expect(other.status).toBe(403);
  // X-Amz-Expires outside 1..604800 s: refused as access denied (as Ceph RGW; AWS says 400).
  for (const expires of ['0', '604801'])
    expect((await fetch(url.replace(/X-Amz-Expires=\d+/, `X-Amz-Expires=${expires}`))).status).toBe(403);
  // A CORS preflight on a presigned URL: never 501. Incomplete: 400; complete: refused (no CORS configuration).
  const bare = await fetch(url, { method: 'OPTIONS' });
  expect(bare.status).toBe(400);
  expect(await bare.text()).toContain('<Code>BadRequest</Code>');
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: { origin: 'http://example.test', 'access-control-request-method': 'PUT' },
  });
  expect(preflight.status).toBe(403);
});
