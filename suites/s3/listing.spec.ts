/**
 * Listing semantics through the SDK: continuation tokens cover every key exactly once (MUST:
 * tools list big buckets page by page), delimiter roll-up and StartAfter (SHOULD: S3's rules).
 */
import {
  GetBucketVersioningCommand,
  ListObjectVersionsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { s3Bucket, s3Setup, trackObject } from './_s3.ts';

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

defineCheck(
  {
    id: 's3.list.continuation',
    requirement: 'S3-LIST-001',
    level: 'MUST',
    class: 's3',
    title: 'ListObjectsV2 pages (MaxKeys 4) joined by continuation tokens list every key exactly once, in order',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'page');
    const keys = [...Array.from({ length: 17 }, (_, i) => `k/${String(i).padStart(3, '0')}`), 'a', 'z/ü', 'z/u'];
    for (const key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      trackObject(ledger, bucket, key);
    }
    const seen: string[] = [];
    let pages = 0;
    for await (const page of paginateListObjectsV2({ client: s3, pageSize: 4 }, { Bucket: bucket })) {
      seen.push(...(page.Contents ?? []).map((c) => c.Key!));
      if (++pages > 50) break;
    }
    const duplicates = seen.filter((k, i) => seen.indexOf(k) !== i);
    expect(duplicates, 'keys listed more than once across pages').toEqual([]);
    expect(seen, 'every key once, in UTF-8 byte order').toEqual([...keys].sort(byteOrder));
  },
);

defineCheck(
  {
    id: 's3.list.delimiter',
    requirement: 'S3-LIST-002',
    level: 'SHOULD',
    class: 's3',
    title: 'ListObjectsV2 with Delimiter "/" rolls keys into CommonPrefixes; StartAfter skips up to the key',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'delim');
    for (const key of [
      'photos/2024/a.jpg',
      'photos/2024/b.jpg',
      'photos/2025/c.jpg',
      'photos/index.html',
      'readme.txt',
    ]) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      trackObject(ledger, bucket, key);
    }
    const top = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/' }));
    expect(
      (top.CommonPrefixes ?? []).map((p) => p.Prefix),
      'top-level prefixes',
    ).toEqual(['photos/']);
    expect(
      (top.Contents ?? []).map((c) => c.Key),
      'top-level keys',
    ).toEqual(['readme.txt']);
    const inner = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'photos/', Delimiter: '/' }));
    expect(
      (inner.CommonPrefixes ?? []).map((p) => p.Prefix),
      'prefixes under photos/',
    ).toEqual(['photos/2024/', 'photos/2025/']);
    expect(
      (inner.Contents ?? []).map((c) => c.Key),
      'keys directly under photos/',
    ).toEqual(['photos/index.html']);
    const after = await s3.send(new ListObjectsV2Command({ Bucket: bucket, StartAfter: 'photos/2025/c.jpg' }));
    expect(
      (after.Contents ?? []).map((c) => c.Key),
      'keys after photos/2025/c.jpg',
    ).toEqual(['photos/index.html', 'readme.txt']);
  },
);

defineCheck(
  {
    id: 's3.list.versions-unversioned',
    requirement: 'S3-VER-001',
    level: 'SHOULD',
    class: 's3',
    title:
      'ListObjectVersions of a never-versioned bucket lists each object once with VersionId null; GetBucketVersioning has no Status',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'ver');
    const keys = ['a.txt', 'dir/b.txt', 'dir/c.txt'];
    for (const key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
      trackObject(ledger, bucket, key);
    }
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket }));
    expect((listed.Versions ?? []).map((v) => v.Key).sort(), 'every key, once').toEqual(keys);
    for (const version of listed.Versions ?? []) {
      expect(version.VersionId, `${version.Key}: VersionId`).toBe('null');
      expect(version.IsLatest, `${version.Key}: IsLatest`).toBe(true);
    }
    expect(listed.DeleteMarkers ?? [], 'no delete markers').toEqual([]);
    const prefixed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'dir/', MaxKeys: 1 }));
    expect(
      (prefixed.Versions ?? []).map((v) => v.Key),
      'Prefix and MaxKeys',
    ).toEqual(['dir/b.txt']);
    expect(prefixed.IsTruncated, 'IsTruncated when more versions follow').toBe(true);
    const versioning = await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }));
    expect(versioning.Status, 'GetBucketVersioning of a never-versioned bucket').toBeUndefined();
  },
);
