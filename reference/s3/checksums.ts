/**
 * The flexible checksums of S3 (`x-amz-checksum-<algorithm>`, as headers or aws-chunked
 * trailers): CRC32, CRC32C, CRC64NVME, SHA1, SHA256. Values travel as base64 of the big-endian
 * digest. CRC32 is node:zlib's (native: the pure-JS `@aws-crypto/crc32` was a fifth of the
 * embedded server's CPU in a full run); CRC32C comes from `@aws-crypto` (what the AWS SDK itself
 * uses; Node has none); SHA from node:crypto; CRC64NVME is a small table implementation here, because no pure-JS package of it
 * is a dependency of the project (the SDK's own lives in an internal package).
 */
import type { Crc32c } from '@aws-crypto/crc32c';
import { createHash, type Hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';

/** Loaded with the first CRC32C, not with every start of the server (see xml.ts). */
let crc32cClass: typeof Crc32c | undefined;
const loadCrc32c = (): typeof Crc32c =>
  (crc32cClass ??= (createRequire(import.meta.url)('@aws-crypto/crc32c') as { Crc32c: typeof Crc32c }).Crc32c);

export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

export function isChecksumAlgorithm(name: string): name is ChecksumAlgorithm {
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(name);
}

/** `x-amz-checksum-crc32` → `crc32`; anything else → undefined. */
export function algorithmOfHeader(header: string): ChecksumAlgorithm | undefined {
  const m = /^x-amz-checksum-([a-z0-9]+)$/.exec(header.toLowerCase());
  return m && isChecksumAlgorithm(m[1]!) ? m[1] : undefined;
}

export interface RunningChecksum {
  update(data: Buffer): void;
  /** base64 of the big-endian digest, as the header carries it. */
  digest(): string;
}

function uint32(value: number): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out.toString('base64');
}

// CRC-64/NVME: reflected, polynomial 0x9a6c9329ac4bc9b5, init and xorout all ones. The table is
// kept as two 32-bit halves so that the per-byte loop stays in plain numbers (no BigInt).
const CRC64_LO = new Uint32Array(256);
const CRC64_HI = new Uint32Array(256);
(() => {
  const polyLo = 0xac4bc9b5;
  const polyHi = 0x9a6c9329;
  for (let i = 0; i < 256; i++) {
    let lo = i;
    let hi = 0;
    for (let bit = 0; bit < 8; bit++) {
      const carry = lo & 1;
      lo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
      hi = hi >>> 1;
      if (carry) {
        lo = (lo ^ polyLo) >>> 0;
        hi = (hi ^ polyHi) >>> 0;
      }
    }
    CRC64_LO[i] = lo;
    CRC64_HI[i] = hi;
  }
})();

class Crc64Nvme implements RunningChecksum {
  private lo = 0xffffffff;
  private hi = 0xffffffff;
  update(data: Buffer): void {
    let lo = this.lo;
    let hi = this.hi;
    for (let i = 0; i < data.length; i++) {
      const index = (lo ^ data[i]!) & 0xff;
      lo = ((lo >>> 8) | ((hi & 0xff) << 24)) ^ CRC64_LO[index]!;
      hi = (hi >>> 8) ^ CRC64_HI[index]!;
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }
  digest(): string {
    const out = Buffer.alloc(8);
    out.writeUInt32BE((this.hi ^ 0xffffffff) >>> 0, 0);
    out.writeUInt32BE((this.lo ^ 0xffffffff) >>> 0, 4);
    return out.toString('base64');
  }
}

class HashChecksum implements RunningChecksum {
  private readonly hash: Hash;
  constructor(algorithm: 'sha1' | 'sha256') {
    this.hash = createHash(algorithm);
  }
  update(data: Buffer): void {
    this.hash.update(data);
  }
  digest(): string {
    return this.hash.digest('base64');
  }
}

export function newChecksum(algorithm: ChecksumAlgorithm): RunningChecksum {
  switch (algorithm) {
    case 'crc32': {
      let crc = 0;
      return { update: (data) => void (crc = crc32(data, crc)), digest: () => uint32(crc) };
    }
    case 'crc32c': {
      const crc = new (loadCrc32c())();
      return { update: (data) => void crc.update(data), digest: () => uint32(crc.digest()) };
    }
    case 'crc64nvme':
      return new Crc64Nvme();
    case 'sha1':
    case 'sha256':
      return new HashChecksum(algorithm);
  }
}

export function checksumOf(algorithm: ChecksumAlgorithm, data: Buffer): string {
  const running = newChecksum(algorithm);
  running.update(data);
  return running.digest();
}
