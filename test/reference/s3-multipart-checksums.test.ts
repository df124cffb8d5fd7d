/**
 * Multipart object checksums (reference/s3/multipart-checksums.ts) against values published by
 * the S3 compatibility suite for known bodies: a composite SHA-256 of one part, a full-object
 * CRC64NVME and CRC32 of three parts.
 */
import { expect, test } from '../base.ts';
import { Readable } from 'node:stream';
import {
  defaultChecksumType,
  multipartChecksum,
  sameMultipartChecksum,
} from '../../reference/s3/multipart-checksums.ts';

const MiB = 1024 * 1024;
const body = (size: number, fill: string) => Readable.from([Buffer.alloc(size, fill)]);

test('composite SHA-256 of one part: the part checksum and the checksum of it, with -1', async () => {
  const result = await multipartChecksum('sha256', 'COMPOSITE', [body(1024, 'A')]);
  expect(result.parts).toEqual(['arcu6553sHVAiX4MjW0j7I7vD4w6R+Gz9Ok0Q9lTa+0=']);
  expect(result.value).toBe('Ok6Cs5b96ux6+MWQkJO7UBT5sKPBeXBLwvj/hK89smg=-1');
});

test('full-object CRC64NVME of three parts, with each part checksum', async () => {
  const result = await multipartChecksum('crc64nvme', 'FULL_OBJECT', [
    body(5 * MiB, 'A'),
    body(5 * MiB, 'B'),
    body(5 * MiB, 'C'),
  ]);
  expect(result.parts).toEqual(['L/E4WYn8v98=', 'xW1l19VobYM=', 'cK5MnNaWrW4=']);
  expect(result.value).toBe('i+6LR0y3eFo=');
});

test('defaults and comparison', () => {
  expect(defaultChecksumType('crc64nvme')).toBe('FULL_OBJECT');
  expect(defaultChecksumType('sha1')).toBe('COMPOSITE');
  expect(sameMultipartChecksum('abc=-3', 'abc=-3')).toBe(true);
  expect(sameMultipartChecksum('abc=', 'abc=-3')).toBe(true);
  expect(sameMultipartChecksum('abd=-3', 'abc=-3')).toBe(false);
});
