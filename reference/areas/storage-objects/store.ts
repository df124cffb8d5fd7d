/**
 * Object storage, independent of any transport. The REST routes of this folder and the
 * S3-compatible endpoint (reference/s3) both work on the one store that `objectStoreOf(ctx)`
 * returns, so a bucket created over REST is visible over S3 and the other way round.
 *
 * Errors are `StoreError`s with a transport-neutral kind; each transport maps them to its own
 * error format (REST: the JSON envelope, S3: XML error codes).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { newId } from '../../core/ids.ts';
import { type AccessControl, cannedAcl } from './acl.ts';
import { BlobStore, BlobTooLargeError } from './blobs.ts';
import { CDN_DOMAIN, DEFAULT_CONTENT_TYPE, MAX_KEYS_DEFAULT, MIN_PART_SIZE, STORAGE_CLASS } from './catalog.ts';
import { type PolicyDocument, emptyPolicy } from './policy.ts';
import { NO_BUCKET, UsageLedger } from './usage.ts';

export type StoreErrorKind =
  | 'no_such_bucket'
  | 'no_such_key'
  /** A version id the key does not have. */
  | 'no_such_version'
  | 'no_such_upload'
  | 'bucket_already_exists'
  | 'bucket_not_empty'
  | 'too_large'
  /** Completion: a listed part was never uploaded, or its ETag differs. */
  | 'invalid_part'
  /** Completion: parts not in ascending order, or none. */
  | 'invalid_part_order'
  /** Completion: a part other than the last is under 5 MiB. */
  | 'entity_too_small'
  | 'cdn_not_enabled';

export class StoreError extends Error {
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface ObjectRecord {
  key: string;
  /** UTF-8 bytes of the key: listings sort by byte order, as S3 does. */
  keyBytes: Buffer;
  size: number;
  /** Quoted, as the ETag header carries it: `"<md5hex>"` or `"<md5hex>-<parts>"`. */
  etag: string;
  content_type: string;
  last_modified: string;
  storage_class: string;
  acl: AccessControl;
  blob: string;
  /** `null` for an object written while the bucket was not versioning (S3's null version). */
  version_id: string;
}

/** What a deletion leaves on top of a key in a versioning bucket: the key reads as absent. */
export interface DeleteMarker {
  key: string;
  keyBytes: Buffer;
  version_id: string;
  last_modified: string;
  /** The account that deleted. */
  owner: string;
  delete_marker: true;
}

/** One entry of a key's history: an object or a delete marker. */
export type ObjectVersion = ObjectRecord | DeleteMarker;

export function isDeleteMarker(version: ObjectVersion): version is DeleteMarker {
  return 'delete_marker' in version;
}

/**
 * S3's three states of a bucket: never versioned, versioning, suspended (writes then replace
 * the `null` version and keep the others). The REST field `versioning` is true when enabled.
 */
export type VersioningState = 'off' | 'enabled' | 'suspended';

export const NULL_VERSION = 'null';

export interface PartRecord {
  part_number: number;
  etag: string;
  md5: Buffer;
  size: number;
  blob: string;
  last_modified: string;
  /** Upload order, only used by the `multipart-parts-out-of-order` fault. */
  seq: number;
}

export interface MultipartUpload {
  upload_id: string;
  bucket: string;
  key: string;
  content_type: string;
  /** The ACL the object will get; its owner is the account that started the upload. */
  acl: AccessControl;
  initiated: string;
  parts: Map<number, PartRecord>;
}

export interface CdnConfig {
  enabled: boolean;
  endpoint: string;
  custom_domain: string | null;
  cache_ttl: number;
  created_at: string;
}

export interface CdnPurge {
  id: string;
  bucket: string;
  paths: string[];
  status: 'completed';
  created_at: string;
}

export interface BucketRecord {
  name: string;
  owner: string;
  region: string;
  created_at: string;
  /** The REST API's `public` is whether it lets everyone read (acl.ts). */
  acl: AccessControl;
  versioning: VersioningState;
  encryption: 'AES256' | 'KMS';
  project_id: string | null;
  /** The current object of each key (a key whose newest version is a delete marker has none). */
  objects: Map<string, ObjectRecord>;
  /** Objects in key byte order; rebuilt lazily after a change. */
  sorted: ObjectRecord[] | null;
  /** Every version of each key, newest first (an unversioned bucket keeps one, `null`). */
  versions: Map<string, ObjectVersion[]>;
  /** Keys of `versions` in byte order; rebuilt lazily after a change. */
  versionKeys: Buffer[] | null;
  /** Bytes of every stored version (what the bucket costs). */
  size: number;
  uploads: Map<string, MultipartUpload>;
  policy: PolicyDocument;
  cdn: CdnConfig | null;
  purges: CdnPurge[];
}

export interface AccessKeyRecord {
  id: string;
  accountId: string;
  name: string;
  access_key_id: string;
  /** Kept for SigV4 verification on the S3 endpoint; shown only in the creation response. */
  secret_access_key: string;
  permissions: string[];
  /** Buckets the key may use; null means every bucket of the account. */
  bucket_access: string[] | null;
  created_at: string;
}

export interface ListObjectsQuery {
  prefix?: string;
  delimiter?: string;
  maxKeys?: number;
  /** Start after this key (S3 ListObjects V1 `marker`). */
  marker?: string;
}

export interface ObjectListing {
  objects: ObjectRecord[];
  commonPrefixes: string[];
  isTruncated: boolean;
  nextMarker: string | null;
}

export interface ListVersionsQuery {
  prefix?: string;
  delimiter?: string;
  maxKeys: number;
  /** Start at this key: after it, or after `versionIdMarker` within it. */
  keyMarker?: string;
  versionIdMarker?: string;
}

export interface VersionListing {
  versions: Array<{ version: ObjectVersion; latest: boolean }>;
  commonPrefixes: string[];
  isTruncated: boolean;
  nextKeyMarker: string | null;
  nextVersionIdMarker: string | null;
}

export interface CompletePart {
  partNumber: number;
  etag: string;
}

interface AccountData {
  buckets: Map<string, BucketRecord>;
  accessKeys: AccessKeyRecord[];
  usage: UsageLedger;
}

/** ETags compare without their quotes (clients send both forms). */
function bareEtag(etag: string): string {
  return etag
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();
}

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomUpperAlnum(length: number): string {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b) => UPPER_ALNUM[b % UPPER_ALNUM.length]).join('');
}

export class ObjectStore {
  readonly blobs: BlobStore;
  /** Bucket name → owning account: names are unique across all accounts. */
  private readonly owners = new Map<string, string>();
  private readonly accessKeys = new Map<string, AccessKeyRecord>();
  private partSeq = 0;

  constructor(
    private readonly ctx: ReferenceContext,
    dataDir: string,
  ) {
    this.blobs = new BlobStore(dataDir);
  }

  private now(): number {
    return this.ctx.clock.now();
  }

  private account(accountId: string): AccountData {
    return this.ctx.accountState<AccountData>(accountId, 'storage-objects', () => ({
      buckets: new Map(),
      accessKeys: [],
      usage: new UsageLedger(),
    }));
  }

  // ---- buckets -------------------------------------------------------------------------------

  createBucket(
    accountId: string,
    input: {
      name: string;
      region: string;
      public?: boolean;
      /** The whole ACL (S3's CreateBucket with x-amz-acl); `public` when absent. */
      acl?: AccessControl;
      versioning?: boolean;
      encryption?: 'AES256' | 'KMS';
      project_id?: string | null;
    },
    options: { uniqueNames?: boolean } = {},
  ): BucketRecord {
    const unique = options.uniqueNames ?? true;
    const data = this.account(accountId);
    if (unique && this.owners.has(input.name)) {
      throw new StoreError('bucket_already_exists', `A bucket named ${input.name} already exists.`);
    }
    // Without the uniqueness rule (a fault switch) the same account gets its bucket back.
    const existing = data.buckets.get(input.name);
    if (existing) return existing;
    const bucket: BucketRecord = {
      name: input.name,
      owner: accountId,
      region: input.region,
      created_at: isoTimestamp(this.now()),
      acl: input.acl ?? cannedAcl(input.public ? 'public-read' : 'private', accountId),
      versioning: input.versioning ? 'enabled' : 'off',
      encryption: input.encryption ?? 'AES256',
      project_id: input.project_id ?? null,
      objects: new Map(),
      sorted: null,
      versions: new Map(),
      versionKeys: null,
      size: 0,
      uploads: new Map(),
      policy: emptyPolicy(),
      cdn: null,
      purges: [],
    };
    data.buckets.set(bucket.name, bucket);
    this.owners.set(bucket.name, accountId);
    return bucket;
  }

  /** The account's buckets, oldest first. */
  listBuckets(accountId: string): BucketRecord[] {
    return [...this.account(accountId).buckets.values()];
  }

  /** The account that holds a bucket name, if any (names are global). */
  ownerOf(name: string): string | undefined {
    return this.owners.get(name);
  }

  /** Another account's bucket is as unknown as a missing one. */
  getBucket(accountId: string, name: string): BucketRecord {
    const bucket = this.account(accountId).buckets.get(name);
    if (!bucket) throw new StoreError('no_such_bucket', `No bucket named ${name}.`);
    return bucket;
  }

  /** Whether a bucket name is held by another account than `accountId`. */
  ownedByAnother(accountId: string, name: string): boolean {
    const owner = this.owners.get(name);
    return owner !== undefined && owner !== accountId;
  }

  findBucket(accountId: string, name: string): BucketRecord | undefined {
    return this.account(accountId).buckets.get(name);
  }

  /**
   * Deletes an empty bucket; `force` empties it first (project removal, a fault switch). Older
   * versions and delete markers count as content unless `purgeVersions` (the REST API, which
   * shows none of them, calls a bucket without current objects empty).
   */
  deleteBucket(accountId: string, name: string, options: { force?: boolean; purgeVersions?: boolean } = {}): void {
    const data = this.account(accountId);
    const bucket = this.getBucket(accountId, name);
    if (bucket.objects.size > 0 && !options.force) {
      throw new StoreError('bucket_not_empty', `The bucket ${name} still holds ${bucket.objects.size} object(s).`);
    }
    if (bucket.versions.size > 0 && !options.force && !options.purgeVersions) {
      throw new StoreError(
        'bucket_not_empty',
        `The bucket ${name} still holds versions of ${bucket.versions.size} key(s).`,
      );
    }
    for (const stack of bucket.versions.values())
      for (const version of stack) if (!isDeleteMarker(version)) this.blobs.remove(version.blob);
    for (const upload of bucket.uploads.values())
      for (const part of upload.parts.values()) this.blobs.remove(part.blob);
    data.usage.storage(this.now(), name, -bucket.size);
    data.buckets.delete(name);
    if (this.owners.get(name) === accountId) this.owners.delete(name);
  }

  // ---- versioning ----------------------------------------------------------------------------

  /** PutBucketVersioning: a bucket that has a versioning state never goes back to none. */
  setVersioning(accountId: string, bucketName: string, state: 'enabled' | 'suspended'): BucketRecord {
    const bucket = this.getBucket(accountId, bucketName);
    bucket.versioning = state;
    return bucket;
  }

  private newVersionId(): string {
    // The S3 endpoint's variant `s3-version-ids-uuid` (version ids are opaque to clients).
    return this.ctx.variants.has('s3-version-ids-uuid') ? randomUUID() : randomBytes(24).toString('base64url');
  }

  /**
   * Puts a version on top of its key's history and lets the current view follow. Unless the
   * bucket is versioning, the `null` version it replaces is dropped (an unversioned bucket's
   * history is that one version).
   */
  private pushVersion(
    accountId: string,
    bucket: BucketRecord,
    entry: ObjectVersion,
    versioning: VersioningState = bucket.versioning,
  ): void {
    const stack = bucket.versions.get(entry.key) ?? [];
    if (versioning !== 'enabled') {
      const at = stack.findIndex((v) => v.version_id === NULL_VERSION);
      if (at >= 0) this.dropVersion(accountId, bucket, stack, at);
    }
    if (!bucket.versions.has(entry.key)) bucket.versionKeys = null;
    stack.unshift(entry);
    bucket.versions.set(entry.key, stack);
    if (!isDeleteMarker(entry)) this.resize(accountId, bucket, entry.size);
    this.showCurrent(bucket, entry.key);
  }

  /** Removes one version from a key's history, freeing its bytes. */
  private dropVersion(accountId: string, bucket: BucketRecord, stack: ObjectVersion[], index: number): ObjectVersion {
    const [version] = stack.splice(index, 1);
    if (!isDeleteMarker(version!)) {
      this.blobs.remove(version!.blob);
      this.resize(accountId, bucket, -version!.size);
    }
    if (stack.length === 0) {
      bucket.versions.delete(version!.key);
      bucket.versionKeys = null;
    }
    this.showCurrent(bucket, version!.key);
    return version!;
  }

  private resize(accountId: string, bucket: BucketRecord, delta: number): void {
    bucket.size += delta;
    this.account(accountId).usage.storage(this.now(), bucket.name, delta);
  }

  /** The current object of a key is its newest version, unless that is a delete marker. */
  private showCurrent(bucket: BucketRecord, key: string): void {
    const top = bucket.versions.get(key)?.[0];
    if (top && !isDeleteMarker(top)) bucket.objects.set(key, top);
    else bucket.objects.delete(key);
    bucket.sorted = null;
  }

  /** One version of a key (`null` names the version written while not versioning). */
  getVersion(accountId: string, bucketName: string, key: string, versionId: string): ObjectVersion {
    const stack = this.getBucket(accountId, bucketName).versions.get(key);
    const version = stack?.find((v) => v.version_id === versionId);
    if (!version) throw new StoreError('no_such_version', `Key ${key} has no version ${versionId}.`);
    return version;
  }

  /** Removes one version for good; undefined when the key has no such version (nothing to do). */
  deleteVersion(accountId: string, bucketName: string, key: string, versionId: string): ObjectVersion | undefined {
    const bucket = this.getBucket(accountId, bucketName);
    const stack = bucket.versions.get(key);
    const at = stack?.findIndex((v) => v.version_id === versionId) ?? -1;
    return at < 0 ? undefined : this.dropVersion(accountId, bucket, stack!, at);
  }

  /**
   * S3's DeleteObject without a version: an unversioned bucket drops the object; a versioning
   * (or suspended) one puts a delete marker on top, whether or not the key had an object.
   */
  deleteKey(
    accountId: string,
    bucketName: string,
    key: string,
    deleter: string = accountId,
  ): { removed: boolean; marker?: DeleteMarker } {
    const bucket = this.getBucket(accountId, bucketName);
    const removed = bucket.objects.has(key);
    if (bucket.versioning === 'off') {
      if (removed) this.deleteVersion(accountId, bucketName, key, NULL_VERSION);
      return { removed };
    }
    const marker: DeleteMarker = {
      key,
      keyBytes: Buffer.from(key, 'utf8'),
      version_id: bucket.versioning === 'enabled' ? this.newVersionId() : NULL_VERSION,
      last_modified: isoTimestamp(this.now()),
      owner: deleter,
      delete_marker: true,
    };
    this.pushVersion(accountId, bucket, marker);
    return { removed, marker };
  }

  /**
   * Every version (and delete marker) in key byte order, newest first within a key, S3's
   * ListObjectVersions: a delimiter rolls keys up into common prefixes as listObjects does.
   */
  listVersions(accountId: string, bucketName: string, query: ListVersionsQuery): VersionListing {
    const bucket = this.getBucket(accountId, bucketName);
    bucket.versionKeys ??= [...bucket.versions.keys()]
      .map((k) => Buffer.from(k, 'utf8'))
      .sort((a, b) => Buffer.compare(a, b));
    const prefix = query.prefix ?? '';
    const marker = query.keyMarker ? Buffer.from(query.keyMarker, 'utf8') : undefined;
    const out: VersionListing = {
      versions: [],
      commonPrefixes: [],
      isTruncated: false,
      nextKeyMarker: null,
      nextVersionIdMarker: null,
    };
    const full = (): boolean => out.versions.length + out.commonPrefixes.length >= query.maxKeys;
    for (const keyBytes of bucket.versionKeys) {
      const order = marker ? Buffer.compare(keyBytes, marker) : 1;
      if (order < 0 || (order === 0 && !query.versionIdMarker)) continue;
      const key = keyBytes.toString('utf8');
      if (!key.startsWith(prefix)) continue;
      const at = query.delimiter ? key.indexOf(query.delimiter, prefix.length) : -1;
      if (at >= 0) {
        const common = key.slice(0, at + query.delimiter!.length);
        if (common === out.commonPrefixes.at(-1) || (marker && Buffer.compare(Buffer.from(common), marker) <= 0))
          continue;
        if (full()) return { ...out, isTruncated: true };
        out.commonPrefixes.push(common);
        out.nextKeyMarker = common;
        out.nextVersionIdMarker = null;
        continue;
      }
      const stack = bucket.versions.get(key)!;
      const start = order === 0 ? stack.findIndex((v) => v.version_id === query.versionIdMarker) + 1 : 0;
      for (let i = start; i < stack.length; i++) {
        if (full()) return { ...out, isTruncated: true };
        out.versions.push({ version: stack[i]!, latest: i === 0 });
        out.nextKeyMarker = key;
        out.nextVersionIdMarker = stack[i]!.version_id;
      }
    }
    return { ...out, nextKeyMarker: null, nextVersionIdMarker: null };
  }

  // ---- access control ------------------------------------------------------------------------

  setBucketAcl(accountId: string, bucketName: string, acl: AccessControl): void {
    this.getBucket(accountId, bucketName).acl = acl;
  }

  /** The ACL of the current object, or of one version. */
  setObjectAcl(
    accountId: string,
    bucketName: string,
    key: string,
    versionId: string | undefined,
    acl: AccessControl,
  ): void {
    const version =
      versionId === undefined
        ? this.headObject(accountId, bucketName, key)
        : this.getVersion(accountId, bucketName, key, versionId);
    if (isDeleteMarker(version))
      throw new StoreError('no_such_key', `Version ${versionId ?? ''} of ${key} is a delete marker.`);
    version.acl = acl;
  }

  // ---- objects -------------------------------------------------------------------------------

  /** Makes a written object the newest version of its key (its version id follows the bucket's state). */
  private commit(accountId: string, bucket: BucketRecord, written: Omit<ObjectRecord, 'version_id'>): ObjectRecord {
    // The bucket may have been deleted while the bytes streamed in.
    if (this.findBucket(accountId, bucket.name) !== bucket) {
      this.blobs.remove(written.blob);
      throw new StoreError('no_such_bucket', `No bucket named ${bucket.name}.`);
    }
    // The S3 endpoint's fault `s3-suspended-versions-kept` (a named fault of the shared store).
    const versioning =
      bucket.versioning === 'suspended' && this.ctx.faults.has('s3-suspended-versions-kept')
        ? 'enabled'
        : bucket.versioning;
    const record: ObjectRecord = {
      ...written,
      version_id: versioning === 'enabled' ? this.newVersionId() : NULL_VERSION,
    };
    this.pushVersion(accountId, bucket, record, versioning);
    return record;
  }

  /** Streams the bytes to disk (hashing MD5 for the ETag) and then makes the object visible. */
  async putObjectStream(
    accountId: string,
    bucketName: string,
    key: string,
    source: Readable,
    options: { contentType?: string; acl?: AccessControl; limit: number },
  ): Promise<ObjectRecord> {
    const bucket = this.getBucket(accountId, bucketName);
    const blob = await this.writeBlob(source, options.limit);
    return this.commit(accountId, bucket, {
      key,
      keyBytes: Buffer.from(key, 'utf8'),
      size: blob.size,
      etag: `"${blob.md5.toString('hex')}"`,
      content_type: options.contentType || DEFAULT_CONTENT_TYPE,
      last_modified: isoTimestamp(this.now()),
      storage_class: STORAGE_CLASS,
      acl: options.acl ?? cannedAcl('private', accountId),
      blob: blob.id,
    });
  }

  private async writeBlob(source: Readable, limit: number) {
    try {
      return await this.blobs.write(source, limit);
    } catch (error) {
      if (error instanceof BlobTooLargeError) throw new StoreError('too_large', `The upload exceeds ${limit} bytes.`);
      throw error;
    }
  }

  headObject(accountId: string, bucketName: string, key: string): ObjectRecord {
    const object = this.getBucket(accountId, bucketName).objects.get(key);
    if (!object) throw new StoreError('no_such_key', `No object with key ${key}.`);
    return object;
  }

  /** The object and a stream of its bytes (the bytes stay readable if the object is replaced). */
  getObject(accountId: string, bucketName: string, key: string): { object: ObjectRecord; body: Readable } {
    const object = this.headObject(accountId, bucketName, key);
    return { object, body: this.blobs.read(object.blob) };
  }

  /**
   * Deletes the current object of a key, if it has one (the REST API answers 404 otherwise);
   * in a versioning bucket that puts a delete marker on top, as S3 does.
   */
  deleteObject(accountId: string, bucketName: string, key: string): boolean {
    if (!this.getBucket(accountId, bucketName).objects.has(key)) return false;
    return this.deleteKey(accountId, bucketName, key).removed;
  }

  /**
   * A copy of an object (of any bucket, any version, resolved by the caller) as the newest
   * version of `to`; its ACL is `options.acl`, else private to `accountId` (S3 does not copy ACLs).
   */
  async copyObject(
    accountId: string,
    source: ObjectRecord,
    to: { bucket: string; key: string },
    options: { contentType?: string; acl?: AccessControl } = {},
  ): Promise<ObjectRecord> {
    const target = this.getBucket(accountId, to.bucket);
    const blob = await this.blobs.concat([source.blob]);
    const { version_id: _source, ...rest } = source;
    return this.commit(accountId, target, {
      ...rest,
      key: to.key,
      keyBytes: Buffer.from(to.key, 'utf8'),
      content_type: options.contentType ?? source.content_type,
      acl: options.acl ?? cannedAcl('private', accountId),
      last_modified: isoTimestamp(this.now()),
      blob: blob.id,
    });
  }

  private sortedObjects(bucket: BucketRecord): ObjectRecord[] {
    bucket.sorted ??= [...bucket.objects.values()].sort((a, b) => Buffer.compare(a.keyBytes, b.keyBytes));
    return bucket.sorted;
  }

  /**
   * S3 ListObjects (V1) semantics: keys after `marker` that start with `prefix`, in UTF-8 byte
   * order; with `delimiter`, keys sharing the part up to the next delimiter roll up into one
   * common prefix, which counts as one entry against `maxKeys`.
   */
  listObjects(accountId: string, bucketName: string, query: ListObjectsQuery): ObjectListing {
    const bucket = this.getBucket(accountId, bucketName);
    const prefix = query.prefix ?? '';
    const delimiter = query.delimiter || undefined;
    const maxKeys = query.maxKeys ?? MAX_KEYS_DEFAULT;
    const marker = query.marker ? Buffer.from(query.marker, 'utf8') : undefined;
    const sorted = this.sortedObjects(bucket);
    // Binary search for the first key after the marker.
    let lo = 0;
    let hi = sorted.length;
    while (marker && lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(sorted[mid]!.keyBytes, marker) <= 0) lo = mid + 1;
      else hi = mid;
    }
    const objects: ObjectRecord[] = [];
    const commonPrefixes: string[] = [];
    let last: string | null = null;
    let isTruncated = false;
    for (let i = lo; i < sorted.length; i++) {
      const object = sorted[i]!;
      if (!object.key.startsWith(prefix)) continue;
      let common: string | undefined;
      if (delimiter) {
        const at = object.key.indexOf(delimiter, prefix.length);
        if (at >= 0) common = object.key.slice(0, at + delimiter.length);
      }
      // Keys of a common prefix already returned (or named by the marker) are skipped.
      if (
        common !== undefined &&
        (common === commonPrefixes.at(-1) || (marker && Buffer.compare(Buffer.from(common), marker) <= 0))
      )
        continue;
      if (objects.length + commonPrefixes.length >= maxKeys) {
        isTruncated = true;
        break;
      }
      if (common !== undefined) {
        commonPrefixes.push(common);
        last = common;
      } else {
        objects.push(object);
        last = object.key;
      }
    }
    return { objects, commonPrefixes, isTruncated, nextMarker: isTruncated ? last : null };
  }

  // ---- multipart -----------------------------------------------------------------------------

  initiateMultipart(
    accountId: string,
    bucketName: string,
    key: string,
    options: { contentType?: string; acl?: AccessControl } = {},
  ): MultipartUpload {
    const bucket = this.getBucket(accountId, bucketName);
    const upload: MultipartUpload = {
      upload_id: `mpu_${randomBytes(16).toString('hex')}`,
      bucket: bucket.name,
      key,
      content_type: options.contentType || DEFAULT_CONTENT_TYPE,
      acl: options.acl ?? cannedAcl('private', accountId),
      initiated: isoTimestamp(this.now()),
      parts: new Map(),
    };
    bucket.uploads.set(upload.upload_id, upload);
    return upload;
  }

  /** An upload of this bucket and key; anything else (another key, completed, aborted) is unknown. */
  getUpload(accountId: string, bucketName: string, key: string, uploadId: string): MultipartUpload {
    const upload = this.getBucket(accountId, bucketName).uploads.get(uploadId);
    if (!upload || upload.key !== key)
      throw new StoreError('no_such_upload', `No multipart upload ${uploadId} for this key.`);
    return upload;
  }

  async uploadPart(
    accountId: string,
    bucketName: string,
    key: string,
    uploadId: string,
    partNumber: number,
    source: Readable,
    limit: number,
  ): Promise<PartRecord> {
    const upload = this.getUpload(accountId, bucketName, key, uploadId);
    const blob = await this.writeBlob(source, limit);
    // Completed or aborted while the bytes streamed in.
    if (this.findBucket(accountId, bucketName)?.uploads.get(uploadId) !== upload) {
      this.blobs.remove(blob.id);
      throw new StoreError('no_such_upload', `No multipart upload ${uploadId} for this key.`);
    }
    const part: PartRecord = {
      part_number: partNumber,
      etag: `"${blob.md5.toString('hex')}"`,
      md5: blob.md5,
      size: blob.size,
      blob: blob.id,
      last_modified: isoTimestamp(this.now()),
      seq: this.partSeq++,
    };
    const replaced = upload.parts.get(partNumber);
    if (replaced) this.blobs.remove(replaced.blob);
    upload.parts.set(partNumber, part);
    return part;
  }

  listParts(accountId: string, bucketName: string, key: string, uploadId: string): PartRecord[] {
    const upload = this.getUpload(accountId, bucketName, key, uploadId);
    return [...upload.parts.values()].sort((a, b) => a.part_number - b.part_number);
  }

  listUploads(accountId: string, bucketName: string): MultipartUpload[] {
    return [...this.getBucket(accountId, bucketName).uploads.values()];
  }

  abortMultipart(accountId: string, bucketName: string, key: string, uploadId: string): void {
    const upload = this.getUpload(accountId, bucketName, key, uploadId);
    this.getBucket(accountId, bucketName).uploads.delete(uploadId);
    for (const part of upload.parts.values()) this.blobs.remove(part.blob);
  }

  /**
   * Joins the listed parts into the object. The list must be ascending, name uploaded parts
   * with their ETags, and every part but the last must be at least 5 MiB. The object's ETag is
   * `"<md5 of the binary part MD5s>-<count>"`. Unlisted parts are discarded.
   *
   * `order: 'upload'` exists only for the REST fault switch `multipart-parts-out-of-order`.
   */
  async completeMultipart(
    accountId: string,
    bucketName: string,
    key: string,
    uploadId: string,
    parts: readonly CompletePart[],
    options: { order?: 'part-number' | 'upload'; minPartSize?: number } = {},
  ): Promise<ObjectRecord> {
    const bucket = this.getBucket(accountId, bucketName);
    const upload = this.getUpload(accountId, bucketName, key, uploadId);
    if (parts.length === 0) throw new StoreError('invalid_part_order', 'The completion must list at least one part.');
    const chosen: PartRecord[] = [];
    // A part number listed more than once in a row is one part (a client that re-sent it lists
    // both answers): it is the part as last uploaded, which one of the entries must name.
    const runs: CompletePart[][] = [];
    parts.forEach((listed, index) => {
      const previous = parts[index - 1];
      if (previous && listed.partNumber < previous.partNumber) {
        throw new StoreError('invalid_part_order', 'Parts must be listed in ascending order of PartNumber.');
      }
      if (previous?.partNumber === listed.partNumber) runs.at(-1)!.push(listed);
      else runs.push([listed]);
    });
    for (const run of runs) {
      const number = run[0]!.partNumber;
      const part = upload.parts.get(number);
      if (!part) throw new StoreError('invalid_part', `Part ${number} was not uploaded.`);
      if (!run.some((listed) => bareEtag(listed.etag) === bareEtag(part.etag))) {
        throw new StoreError('invalid_part', `The ETag of part ${number} does not match the uploaded part.`);
      }
      chosen.push(part);
    }
    chosen.forEach((part, index) => {
      if (index < chosen.length - 1 && part.size < (options.minPartSize ?? MIN_PART_SIZE)) {
        throw new StoreError(
          'entity_too_small',
          `Part ${part.part_number} is smaller than 5 MiB and is not the last part.`,
        );
      }
    });
    const joined = options.order === 'upload' ? [...chosen].sort((a, b) => a.seq - b.seq) : chosen;
    // Taken out first so that a second completion of the same upload is refused meanwhile.
    bucket.uploads.delete(uploadId);
    let blob;
    try {
      blob = await this.blobs.concat(joined.map((part) => part.blob));
    } catch (error) {
      bucket.uploads.set(uploadId, upload);
      throw error;
    }
    const digest = createHash('md5');
    for (const part of chosen) digest.update(part.md5);
    for (const part of upload.parts.values()) this.blobs.remove(part.blob);
    return this.commit(accountId, bucket, {
      key,
      keyBytes: Buffer.from(key, 'utf8'),
      size: blob.size,
      etag: `"${digest.digest('hex')}-${chosen.length}"`,
      content_type: upload.content_type,
      last_modified: isoTimestamp(this.now()),
      storage_class: STORAGE_CLASS,
      acl: upload.acl,
      blob: blob.id,
    });
  }

  // ---- bucket configuration ------------------------------------------------------------------

  setPolicy(accountId: string, bucketName: string, policy: PolicyDocument): PolicyDocument {
    const bucket = this.getBucket(accountId, bucketName);
    bucket.policy = structuredClone(policy);
    return structuredClone(bucket.policy);
  }

  getPolicy(accountId: string, bucketName: string): PolicyDocument {
    return structuredClone(this.getBucket(accountId, bucketName).policy);
  }

  enableCdn(accountId: string, bucketName: string, input: { custom_domain?: string; cache_ttl: number }): CdnConfig {
    const bucket = this.getBucket(accountId, bucketName);
    // Enabling again updates the settings; the CDN keeps its creation time.
    bucket.cdn = {
      enabled: true,
      endpoint: `${bucket.name}.${CDN_DOMAIN}`,
      custom_domain: input.custom_domain ?? null,
      cache_ttl: input.cache_ttl,
      created_at: bucket.cdn?.created_at ?? isoTimestamp(this.now()),
    };
    return bucket.cdn;
  }

  /** The in-memory CDN has nothing to wait for: a purge completes at once. */
  purgeCdn(accountId: string, bucketName: string, paths: string[]): CdnPurge {
    const bucket = this.getBucket(accountId, bucketName);
    if (!bucket.cdn?.enabled)
      throw new StoreError('cdn_not_enabled', `The CDN is not enabled for bucket ${bucket.name}.`);
    const purge: CdnPurge = {
      id: newId('purge'),
      bucket: bucket.name,
      paths: [...paths],
      status: 'completed',
      created_at: isoTimestamp(this.now()),
    };
    bucket.purges.push(purge);
    return purge;
  }

  // ---- access keys ---------------------------------------------------------------------------

  createAccessKey(
    accountId: string,
    input: { name: string; permissions: string[]; bucket_access: string[] | null },
  ): AccessKeyRecord {
    let accessKeyId: string;
    do accessKeyId = `CCAK${randomUpperAlnum(16)}`;
    while (this.accessKeys.has(accessKeyId));
    const record: AccessKeyRecord = {
      id: newId('ak'),
      accountId,
      name: input.name,
      access_key_id: accessKeyId,
      // 30 random bytes are 40 base64 characters, the length of an AWS secret access key.
      secret_access_key: randomBytes(30).toString('base64'),
      permissions: [...input.permissions],
      bucket_access: input.bucket_access ? [...input.bucket_access] : null,
      created_at: isoTimestamp(this.now()),
    };
    this.account(accountId).accessKeys.push(record);
    this.accessKeys.set(accessKeyId, record);
    return record;
  }

  listAccessKeys(accountId: string): AccessKeyRecord[] {
    return [...this.account(accountId).accessKeys];
  }

  /** For SigV4 verification on the S3 endpoint. */
  accessKeyById(accessKeyId: string): AccessKeyRecord | undefined {
    return this.accessKeys.get(accessKeyId);
  }

  // ---- usage ---------------------------------------------------------------------------------

  usage(accountId: string): UsageLedger {
    return this.account(accountId).usage;
  }

  /** Counts one request; `bucket` only when it names a bucket of the account (now or before). */
  recordRequest(accountId: string, bucket: string | undefined): void {
    const usage = this.usage(accountId);
    const known = bucket !== undefined && (this.findBucket(accountId, bucket) !== undefined || usage.knows(bucket));
    usage.request(this.now(), known ? bucket : NO_BUCKET);
  }

  recordDownload(accountId: string, bucket: string, bytes: number): void {
    this.usage(accountId).download(this.now(), bucket, bytes);
  }
}

/** The one store of a server (REST routes and the S3 endpoint share it). */
export function objectStoreOf(ctx: ReferenceContext): ObjectStore {
  return ctx.globalState('storage-objects', () => new ObjectStore(ctx, ctx.options.dataDir));
}
