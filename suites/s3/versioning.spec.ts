/**
 * Versioning through the S3 endpoint, which the specification makes the API's own (a bucket's
 * `versioning`): the REST field and the S3 state are one; a versioning bucket keeps every
 * version of every write, REST uploads included, reads them by id and hides a deleted key
 * behind a delete marker; S3's details (marker headers, suspension) and conditional writes
 * against the current version. Versioning buckets are emptied version by version at the end:
 * the REST API, which the ledger's teardown uses, sees only current objects.
 */
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';
import { objectPath } from '../flows/_storage.ts';
import {
  bytesOf,
  createRestBucket,
  deleteAllVersions,
  restBucket,
  s3Bucket,
  s3ErrorCode,
  s3Setup,
  trackObject,
} from './_s3.ts';

async function enableVersioning(s3: S3Client, bucket: string, status: 'Enabled' | 'Suspended' = 'Enabled') {
  await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: status } }));
}

async function textOf(s3: S3Client, bucket: string, key: string, versionId?: string): Promise<string> {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
  return (await bytesOf(got.Body)).toString('utf8');
}

defineCheck(
  {
    id: 's3.versioning.rest-field',
    requirement: 'S3-VER-002',
    level: 'MUST',
    class: 's3',
    operation: 'POST /storage/buckets',
    title:
      'A bucket created with versioning true is Enabled for GetBucketVersioning, and PutBucketVersioning Enabled shows as versioning true',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const versioned = await createRestBucket(api, ledger, ctx, 'vrest', { versioning: true });
    const plain = await createRestBucket(api, ledger, ctx, 'vplain', { versioning: false });
    const status = async (bucket: string) => (await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }))).Status;
    expect(await status(versioned), 'GetBucketVersioning of a bucket created with versioning true').toBe('Enabled');
    expect(await status(plain), 'GetBucketVersioning of a bucket created with versioning false').not.toBe('Enabled');
    const viaS3 = await s3Bucket(s3, ledger, ctx, 'vs3');
    expect((await restBucket(api, viaS3)).versioning, 'a bucket made through S3, before versioning').toBe(false);
    await enableVersioning(s3, viaS3);
    expect(await status(viaS3), 'GetBucketVersioning after PutBucketVersioning Enabled').toBe('Enabled');
    expect((await restBucket(api, viaS3)).versioning, 'the REST field after PutBucketVersioning Enabled').toBe(true);
  },
);

defineCheck(
  {
    id: 's3.versioning.versions',
    requirement: 'S3-VER-003',
    level: 'MUST',
    class: 's3',
    operation: 'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
    title:
      'A versioning bucket keeps a version of every write (REST upload, PutObject, CopyObject, multipart), reads each by id, and a delete hides the key but keeps them',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await createRestBucket(api, ledger, ctx, 'vers', { versioning: true });
    const key = 'doc.txt';
    trackObject(ledger, bucket, key);
    trackObject(ledger, bucket, 'source.txt');
    try {
      const put = await api.request({
        method: 'PUT',
        path: objectPath(bucket, key),
        body: Buffer.from('one (REST)'),
        headers: { 'content-type': 'text/plain' },
      });
      expectStatus(put, [200, 201], 'REST upload into the versioning bucket');
      const written: Array<string | undefined> = [];
      const second = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'two (PutObject)' }));
      written.push(second.VersionId);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'source.txt', Body: 'three (CopyObject)' }));
      const copied = await s3.send(
        new CopyObjectCommand({ Bucket: bucket, Key: key, CopySource: `${bucket}/source.txt` }),
      );
      written.push(copied.VersionId);
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      const part = await s3.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: 'four (multipart)' }),
      );
      const completed = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
      written.push(completed.VersionId);
      for (const [i, id] of written.entries())
        expect(id, `write ${i + 2} (PutObject, CopyObject, multipart) answers a version id`).toBeTruthy();

      const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
      const versions = (listed.Versions ?? []).filter((v) => v.Key === key);
      expect(versions.length, 'ListObjectVersions: one version per write').toBe(4);
      expect(new Set(versions.map((v) => v.VersionId)).size, 'version ids are distinct').toBe(4);
      expect(
        versions.filter((v) => v.IsLatest).map((v) => v.VersionId),
        'the newest write is the latest version',
      ).toEqual([written[2]]);
      for (const id of written)
        expect(
          versions.map((v) => v.VersionId),
          'every answered version id is listed',
        ).toContain(id);
      const texts = [];
      for (const v of versions) texts.push(await textOf(s3, bucket, key, v.VersionId));
      expect(texts.sort(), 'GetObject by version id returns each write').toEqual([
        'four (multipart)',
        'one (REST)',
        'three (CopyObject)',
        'two (PutObject)',
      ]);
      expect(await textOf(s3, bucket, key), 'GetObject without a version id: the newest').toBe('four (multipart)');

      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      expect(
        await s3ErrorCode(s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))),
        'GetObject after DeleteObject without a version id',
      ).toEqual({ code: 'NoSuchKey', status: 404 });
      expect(await textOf(s3, bucket, key, written[0]), 'an older version after the delete').toBe('two (PutObject)');
      const afterDelete = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
      expect(
        (afterDelete.Versions ?? []).filter((v) => v.Key === key).length,
        'the versions stay after the delete',
      ).toBe(4);
      expect(
        (afterDelete.DeleteMarkers ?? []).filter((m) => m.Key === key && m.IsLatest).length,
        'a delete marker is the latest',
      ).toBe(1);

      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: written[0] }));
      const afterRemove = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
      const left = (afterRemove.Versions ?? []).filter((v) => v.Key === key).map((v) => v.VersionId);
      expect(left, 'DeleteObject with a version id removes that version').not.toContain(written[0]);
      expect(left.length, 'and that version alone').toBe(3);
    } finally {
      await deleteAllVersions(s3, bucket);
    }
  },
);

defineCheck(
  {
    id: 's3.versioning.markers-and-suspension',
    requirement: 'S3-VER-004',
    level: 'SHOULD',
    class: 's3',
    title:
      'DeleteObject answers the delete marker and its version id, GET of the marker by id is 405; suspended, writes replace the null version',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'vsus');
    const key = 'k.txt';
    trackObject(ledger, bucket, key);
    try {
      await enableVersioning(s3, bucket);
      const first = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'kept' }));
      const deleted = await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      expect(deleted.DeleteMarker, 'DeleteObject in a versioning bucket: x-amz-delete-marker').toBe(true);
      expect(deleted.VersionId, "DeleteObject: the marker's version id").toBeTruthy();
      const markerRead = await s3ErrorCode(
        s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: deleted.VersionId })),
      );
      expect(markerRead.status, 'GetObject of a delete marker by its version id').toBe(405);

      await enableVersioning(s3, bucket, 'Suspended');
      const status = await s3.send(new GetBucketVersioningCommand({ Bucket: bucket }));
      expect(status.Status, 'GetBucketVersioning after suspending').toBe('Suspended');
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'null one' }));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'null two' }));
      const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: key }));
      const ids = (listed.Versions ?? []).filter((v) => v.Key === key).map((v) => v.VersionId);
      expect(ids.filter((id) => id === 'null').length, 'one null version while suspended').toBe(1);
      expect(ids, 'the version written before suspending stays').toContain(first.VersionId);
      expect(ids.length, 'two versions: the older one and the null one').toBe(2);
      expect(await textOf(s3, bucket, key, 'null'), 'the null version is the last write').toBe('null two');
    } finally {
      await deleteAllVersions(s3, bucket);
    }
  },
);

defineCheck(
  {
    id: 's3.conditional.versioning',
    requirement: 'S3-COND-003',
    level: 'SHOULD',
    class: 's3',
    title:
      'In a versioning bucket, If-None-Match: * and If-Match are judged against the current version: after a delete, the key is free',
  },
  async ({ api, ledger, ctx }) => {
    const { s3 } = await s3Setup(api, ledger, ctx);
    const bucket = await s3Bucket(s3, ledger, ctx, 'vcond');
    const key = 'lock';
    trackObject(ledger, bucket, key);
    try {
      await enableVersioning(s3, bucket);
      const first = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'held', IfNoneMatch: '*' }));
      expect(
        await s3ErrorCode(s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x', IfNoneMatch: '*' }))),
        'If-None-Match: * while the key has a current version',
      ).toEqual({ code: 'PreconditionFailed', status: 412 });
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      expect(
        await s3ErrorCode(s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'x', IfMatch: first.ETag }))),
        'If-Match with the hidden version\u2019s ETag once a delete marker is current',
      ).toEqual({ code: 'NoSuchKey', status: 404 });
      const again = await s3ErrorCode(
        s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'taken again', IfNoneMatch: '*' })),
      );
      expect(again.code, 'If-None-Match: * once a delete marker is current stores the object').toBe('no error');
      expect(await textOf(s3, bucket, key), 'the object stored after the delete').toBe('taken again');
    } finally {
      await deleteAllVersions(s3, bucket);
    }
  },
);
