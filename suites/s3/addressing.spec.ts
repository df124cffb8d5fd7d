/**
 * Path-style addressing: the bucket is the first path segment after the endpoint URL, the host
 * is the endpoint's own. The requests the SDK sends are recorded, so the check proves they were
 * path-style (not a virtual-hosted fallback) as well as that the endpoint served them.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { defineCheck, expect } from '../../src/harness/check.ts';
import { deterministicBytes, sha256 } from '../flows/_storage.ts';
import { bytesOf, s3Bucket, s3Setup, trackObject } from './_s3.ts';

interface Sent {
  hostname: string;
  path: string;
}

defineCheck(
  {
    id: 's3.addressing.path-style',
    requirement: 'S3-ADDR-001',
    level: 'MUST',
    class: 's3',
    title: 'Path-style requests (bucket as the first path segment) create a bucket, put, list and get an object',
  },
  async ({ api, ledger, ctx }) => {
    const { s3, endpoint } = await s3Setup(api, ledger, ctx);
    const sent: Sent[] = [];
    s3.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { hostname?: string; path?: string };
        sent.push({ hostname: request.hostname ?? '', path: request.path ?? '' });
        return next(args);
      },
      { step: 'finalizeRequest', name: 'cloudcheckRecordAddress' },
    );
    const bucket = await s3Bucket(s3, ledger, ctx, 'addr');
    const bytes = deterministicBytes(3000, ctx.seed + 31);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'path/style.bin', Body: bytes }));
    trackObject(ledger, bucket, 'path/style.bin');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(
      (listed.Contents ?? []).map((c) => c.Key),
      'ListObjectsV2 of the path-style bucket',
    ).toEqual(['path/style.bin']);
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'path/style.bin' }));
    expect(sha256(await bytesOf(got.Body)), 'GetObject returns the bytes of PutObject').toBe(sha256(bytes));

    const base = new URL(endpoint);
    const prefix = `${base.pathname.replace(/\/$/, '')}/${bucket}`;
    expect(sent.length, 'requests recorded').toBeGreaterThanOrEqual(4);
    for (const request of sent) {
      expect(request.hostname, 'the host of a path-style request is the endpoint host').toBe(base.hostname);
      expect(
        request.path === prefix || request.path.startsWith(`${prefix}/`),
        `${request.path} starts with ${prefix}`,
      ).toBe(true);
    }
  },
);
