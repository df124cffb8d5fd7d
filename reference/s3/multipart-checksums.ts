/**
 * Object checksums of a multipart upload, as S3 defines them: COMPOSITE is the checksum of the
 * parts' binary checksums joined in order, shown with `-<part count>`; FULL_OBJECT (CRCs only)
 * is the checksum of the whole object. Both are worked out from the parts' bytes, so that a
 * CompleteMultipartUpload carrying a wrong value fails before the object replaces anything.
 */
import type { Readable } from 'node:stream';
import { type ChecksumAlgorithm, newChecksum } from './checksums.ts';

export type ChecksumType = 'COMPOSITE' | 'FULL_OBJECT';

/** S3's default when the upload did not say: CRC64NVME is full-object only; the others composite. */
export function defaultChecksumType(algorithm: ChecksumAlgorithm): ChecksumType {
  return algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE';
}

/** The object's checksum and each part's own (GetObject?partNumber and GetObjectAttributes show those). */
export async function multipartChecksum(
  algorithm: ChecksumAlgorithm,
  type: ChecksumType,
  parts: readonly Readable[],
): Promise<{ value: string; parts: string[] }> {
  const whole = newChecksum(algorithm);
  const joined = newChecksum(algorithm);
  const each: string[] = [];
  for (const part of parts) {
    const running = newChecksum(algorithm);
    for await (const chunk of part as AsyncIterable<Buffer>) {
      if (type === 'FULL_OBJECT') whole.update(chunk);
      running.update(chunk);
    }
    const digest = running.digest();
    each.push(digest);
    joined.update(Buffer.from(digest, 'base64'));
  }
  return { value: type === 'FULL_OBJECT' ? whole.digest() : `${joined.digest()}-${parts.length}`, parts: each };
}

/** A client's value matches ours with or without the `-<part count>` of composite checksums. */
export function sameMultipartChecksum(given: string, ours: string): boolean {
  const bare = (v: string) => v.trim().replace(/-\d+$/, '');
  return bare(given) === bare(ours);
}
