/**
 * Objects in the exploration's bucket: uploads (of two content types) read back at once,
 * downloads, HEADs, deletes, and listings walked page by page with a prefix and max_keys. Keys
 * live under the sequence's prefix, so the model knows every key a listing with that prefix may
 * give. What the model knows of an object (its bytes, their count, its content type: the last
 * upload's) is compared wherever the specification shows it: the download's bytes and
 * Content-Type, HEAD's Content-Length and Content-Type, and each listing entry's `size` and
 * `content_type`. A listing's freshness is not shown, so a listing that differs is walked again
 * for a moment before it counts. Media types compare without their parameters (a target may add a
 * charset). Not compared: `etag` and `last_modified` (their values are not shown), the bucket's
 * `size` and `object_count` (the exploration's bucket is shared by the sequences running at once).
 */
import fc from 'fast-check';
import { isObject } from '../../harness/body-shape.ts';
import {
  ExploreSetupError,
  argNumber,
  argString,
  compareSettled,
  expectOk,
  mediaType,
  ok,
  short,
  step,
} from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation, compareKeys } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { SequenceTarget } from '../target.ts';

interface StoredObject {
  /** The bytes last uploaded, as text. */
  content: string;
  /** The Content-Type they were uploaded with. */
  type: string;
}

class ObjectsState {
  /** Object key (inside the sequence's prefix) → what was last uploaded there. */
  readonly objects = new Map<string, StoredObject>();
  /** Keys deleted and not uploaded again since. */
  readonly deleted = new Set<string>();

  /** The keys a complete walk of the listing with `prefix` must give, in the order S3-style listings use (byte order). */
  keysWithPrefix(prefix: string): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort(compareKeys);
  }
}

const objectsOf = (model: ExploreModel): ObjectsState => model.part('objects', () => new ObjectsState());

/** The byte count of a text as uploaded (UTF-8). */
const byteLength = (text: string): number => Buffer.byteLength(text);

class PutObject implements ExploreCommand {
  constructor(
    readonly key: string,
    readonly content: string,
    readonly type: string,
  ) {}
  get record(): StepRecord {
    return { op: 'put-object', args: { key: this.key, content: this.content, type: this.type } };
  }
  check(): boolean {
    return true;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const res = await target.send('PUT', target.objectPath(this.key), {
        body: this.content,
        headers: { 'content-type': this.type },
      });
      expectOk(res, 'OBJ-PUT-001', `PUT of ${this.key}`);
      target.trackPath(target.objectPath(this.key));
      const state = objectsOf(model);
      const overwrite = state.objects.has(this.key);
      const stored = { content: this.content, type: this.type };
      state.objects.set(this.key, stored);
      state.deleted.delete(this.key);
      // "Stores the raw request body as the object": read it back at once; an overwrite, by HEAD too.
      await readBack(target, this.key, stored, ' after its PUT');
      if (overwrite) await headBack(target, this.key, stored, ' after its PUT over an existing object');
    });
  }
  toString(): string {
    return `put-object ${this.key} "${this.content}" (${this.type})`;
  }
}

/** GET of a live key: the bytes last uploaded (OBJ-PUT-001), with their Content-Type (OBJ-GET-001). */
async function readBack(target: SequenceTarget, key: string, expected: StoredObject, when: string): Promise<void> {
  const where = `GET of ${key}${when}`;
  const res = await target.send('GET', target.objectPath(key));
  expectOk(res, 'OBJ-PUT-001', where);
  if (res.text !== expected.content)
    throw new ModelViolation(
      'OBJ-PUT-001',
      where,
      `the bytes last uploaded ("${expected.content}")`,
      `"${short(res.text)}"`,
    );
  if (mediaType(res.headers['content-type']) !== expected.type)
    throw new ModelViolation(
      'OBJ-GET-001',
      where,
      `Content-Type ${expected.type} (the last upload's)`,
      JSON.stringify(res.headers['content-type'] ?? null),
    );
}

class GetObject implements ExploreCommand {
  constructor(readonly key: string) {}
  get record(): StepRecord {
    return { op: 'get-object', args: { key: this.key } };
  }
  /** Only keys the sequence uploaded or deleted: the model says nothing of keys it never touched. */
  check(model: ExploreModel): boolean {
    return objectsOf(model).objects.has(this.key) || objectsOf(model).deleted.has(this.key);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const expected = objectsOf(model).objects.get(this.key);
      if (expected !== undefined) return readBack(target, this.key, expected, '');
      const res = await target.send('GET', target.objectPath(this.key));
      if (ok(res))
        throw new ModelViolation(
          'OBJ-DEL-001',
          `GET of ${this.key} after its DELETE`,
          'no success',
          `${res.status} "${short(res.text)}"`,
        );
    });
  }
  toString(): string {
    return `get-object ${this.key}`;
  }
}

/** HEAD of a live key: Content-Length and Content-Type those of the last upload (OBJ-HEAD-001). */
async function headBack(target: SequenceTarget, key: string, expected: StoredObject, when: string): Promise<void> {
  const where = `HEAD of ${key}${when}`;
  const res = await target.send('HEAD', target.objectPath(key));
  expectOk(res, 'OBJ-HEAD-001', where);
  const length = res.headers['content-length'];
  const type = res.headers['content-type'];
  if (length !== String(byteLength(expected.content)) || mediaType(type) !== expected.type)
    throw new ModelViolation(
      'OBJ-HEAD-001',
      where,
      `Content-Length ${byteLength(expected.content)} and Content-Type ${expected.type} (the last upload's)`,
      `Content-Length ${JSON.stringify(length ?? null)}, Content-Type ${JSON.stringify(type ?? null)}`,
    );
}

class HeadObject implements ExploreCommand {
  constructor(readonly key: string) {}
  get record(): StepRecord {
    return { op: 'head-object', args: { key: this.key } };
  }
  check(model: ExploreModel): boolean {
    return objectsOf(model).objects.has(this.key);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(objects, this, target, () => headBack(target, this.key, objectsOf(model).objects.get(this.key)!, ''));
  }
  toString(): string {
    return `head-object ${this.key}`;
  }
}

class DeleteObject implements ExploreCommand {
  constructor(readonly key: string) {}
  get record(): StepRecord {
    return { op: 'delete-object', args: { key: this.key } };
  }
  check(model: ExploreModel): boolean {
    return objectsOf(model).objects.has(this.key);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const res = await target.send('DELETE', target.objectPath(this.key));
      expectOk(res, 'OBJ-DEL-001', `DELETE of ${this.key}`);
      target.untrack(target.objectPath(this.key));
      objectsOf(model).objects.delete(this.key);
      objectsOf(model).deleted.add(this.key);
    });
  }
  toString(): string {
    return `delete-object ${this.key}`;
  }
}

/**
 * Walks the whole listing with a prefix, `maxKeys` at a time, each page starting after the
 * marker the previous one gave (next_marker, or its last key when the target gives none), and
 * holds each entry of a key the model knows to its last upload (`size`, `content_type`). A walk
 * that differs from the model is walked again for a moment first (compareSettled).
 */
class ListObjects implements ExploreCommand {
  constructor(
    readonly prefix: string,
    readonly maxKeys: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-objects', args: { prefix: this.prefix, max_keys: this.maxKeys } };
  }
  check(): boolean {
    return true;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(objects, this, target, () => compareSettled(target, () => this.walk(model, target)));
  }
  private async walk(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const expected = objectsOf(model).keysWithPrefix(this.prefix);
    const entries = new Map<string, Record<string, unknown>>();
    const fullPrefix = target.objectKey(this.prefix);
    const seen: string[] = [];
    let marker: string | null = null;
    let pages = 0;
    // One page more than the model needs: a listing that never ends is a finding, not a hang.
    for (let page = 1; page <= expected.length + 2; page++) {
      const query: Record<string, string | number> = {
        prefix: fullPrefix,
        max_keys: this.maxKeys,
        ...(marker !== null ? { marker } : {}),
      };
      const res = await target.send('GET', target.listingPath, { query });
      pages = page;
      expectOk(res, 'OBJ-LIST-003', `listing page ${page} (prefix "${this.prefix}", max_keys ${this.maxKeys})`);
      const body = isObject(res.body) ? res.body : {};
      const listed = (Array.isArray(body.objects) ? body.objects : []).map((o) => (isObject(o) ? o : {}));
      const keys = listed.map((o) => (typeof o.key === 'string' ? o.key : ''));
      for (const o of listed) if (typeof o.key === 'string') entries.set(o.key.slice(target.keyPrefix.length), o);
      const where = `listing page ${page} (prefix "${this.prefix}", max_keys ${this.maxKeys}${marker !== null ? `, marker "${marker}"` : ''})`;
      const outside = keys.find((k) => !k.startsWith(fullPrefix));
      if (outside !== undefined)
        throw new ModelViolation('OBJ-LIST-003', where, `only keys starting with "${fullPrefix}"`, `"${outside}"`);
      if (keys.length > this.maxKeys)
        throw new ModelViolation('OBJ-LIST-004', where, `at most ${this.maxKeys} objects`, `${keys.length}`);
      const notAfter = marker !== null ? keys.find((k) => compareKeys(k, marker!) <= 0) : undefined;
      if (notAfter !== undefined)
        throw new ModelViolation('OBJ-LIST-005', where, `only keys after "${marker}"`, `"${notAfter}"`);
      // "Starts after that key": the first key the model has after the marker opens the page.
      const firstAfter =
        marker !== null ? expected.map((k) => target.objectKey(k)).find((k) => compareKeys(k, marker!) > 0) : undefined;
      if (firstAfter !== undefined && keys.length > 0 && compareKeys(keys[0]!, firstAfter) > 0)
        throw new ModelViolation(
          'OBJ-LIST-005',
          where,
          `the page to start at "${firstAfter}", the first key after the marker`,
          `"${keys[0]}"`,
        );
      seen.push(...keys.map((k) => k.slice(target.keyPrefix.length)));
      const truncated = body.is_truncated === true;
      const remaining = expected.filter(
        (k) => !seen.includes(k) && (seen.length === 0 || compareKeys(k, seen.at(-1)!) > 0),
      );
      if (!truncated && remaining.length > 0) {
        // An empty last page after a marker skipped what follows the marker; otherwise the page miscounted what remains.
        if (marker !== null && keys.length === 0)
          throw new ModelViolation(
            'OBJ-LIST-005',
            where,
            `the keys after the marker (${remaining.slice(0, 3).join(', ')})`,
            'an empty page, not truncated',
          );
        throw new ModelViolation(
          'OBJ-LIST-004',
          where,
          `is_truncated true: ${remaining.length} more object(s) remain (${remaining.slice(0, 3).join(', ')})`,
          'is_truncated false',
        );
      }
      if (!truncated || keys.length === 0) break;
      marker = typeof body.next_marker === 'string' && body.next_marker !== '' ? body.next_marker : keys.at(-1)!;
    }
    const duplicate = seen.find((k, i) => seen.indexOf(k) !== i);
    if (duplicate !== undefined)
      throw new ModelViolation(
        'OBJ-LIST-005',
        `walking the listing (prefix "${this.prefix}", max_keys ${this.maxKeys})`,
        'each key once',
        `"${duplicate}" twice`,
      );
    const deletedListed = seen.find((k) => objectsOf(model).deleted.has(k));
    if (deletedListed !== undefined)
      throw new ModelViolation(
        'OBJ-DEL-001',
        `walking the listing (prefix "${this.prefix}")`,
        `no deleted key`,
        `"${deletedListed}" listed after its DELETE`,
      );
    const missing = expected.find((k) => !seen.includes(k));
    // Lost between pages, the key is the walk's (each key once across the pages); lost from the only page, the upload's.
    if (missing !== undefined && pages > 1) {
      throw new ModelViolation(
        'OBJ-LIST-005',
        `walking the listing (prefix "${this.prefix}", max_keys ${this.maxKeys}) over ${pages} pages`,
        `every uploaded key once (${expected.join(', ')})`,
        `${seen.join(', ')}: "${missing}" missing`,
      );
    }
    if (missing !== undefined)
      throw new ModelViolation(
        'OBJ-PUT-001',
        `walking the listing (prefix "${this.prefix}", max_keys ${this.maxKeys})`,
        `every uploaded key (${expected.join(', ')})`,
        `${seen.length ? seen.join(', ') : 'none'}: "${missing}" missing`,
      );
    for (const key of expected) checkEntry(key, objectsOf(model).objects.get(key)!, entries.get(key)!, this.prefix);
  }
  toString(): string {
    return `list-objects prefix="${this.prefix}" max_keys=${this.maxKeys}`;
  }
}

/** A listing entry of a key: the byte count and content type of its last upload ("appears in the listing with size equal to the byte count and that content_type"). */
function checkEntry(key: string, expected: StoredObject, entry: Record<string, unknown>, prefix: string): void {
  const size = byteLength(expected.content);
  if (entry.size !== size || mediaType(entry.content_type) !== expected.type)
    throw new ModelViolation(
      'OBJ-PUT-001',
      `the entry of ${key} walking the listing (prefix "${prefix}")`,
      `size ${size} and content_type ${expected.type} (the last upload's, "${expected.content}")`,
      `size ${JSON.stringify(entry.size ?? null)}, content_type ${JSON.stringify(entry.content_type ?? null)}`,
    );
}

/** Content types of uploads: two, so that an overwrite may change it too. */
const TYPES = ['text/plain', 'text/csv'] as const;
/** Few keys sharing prefixes, so that listings by prefix and pages of one or two meet every case. */
const KEYS = ['a', 'a1', 'b'];
// 'a' weighs most: listings by a prefix that other keys follow in order are where page-by-page bugs show.
const PREFIXES = ['', 'a', 'a', 'a', 'a', 'b'];

export const objects: ExploreFamily = {
  name: 'objects',
  summary: 'uploads, downloads and deletes objects; walks the listings page by page',
  rules: {
    'OBJ-PUT-001':
      'an uploaded object is downloaded with the bytes last uploaded, and listed with their byte count as size and their content_type',
    'OBJ-GET-001': 'a download answers the Content-Type of the last upload',
    'OBJ-HEAD-001': 'HEAD answers the Content-Length and Content-Type of the last upload',
    'OBJ-DEL-001': 'a deleted object is no longer downloaded nor listed',
    'OBJ-LIST-003': 'a listing with a prefix holds only keys with that prefix, on every page',
    'OBJ-LIST-004': 'a listing page holds at most max_keys objects, and is_truncated is true while objects remain',
    'OBJ-LIST-005': 'a listing with a marker holds only keys after it: walking the pages gives each key once',
  },
  rulesOf: {
    'put-object': ['OBJ-PUT-001', 'OBJ-GET-001', 'OBJ-HEAD-001'],
    'get-object': ['OBJ-PUT-001', 'OBJ-GET-001', 'OBJ-DEL-001'],
    'head-object': ['OBJ-HEAD-001'],
    'delete-object': ['OBJ-DEL-001'],
    'list-objects': ['OBJ-PUT-001', 'OBJ-DEL-001', 'OBJ-LIST-003', 'OBJ-LIST-004', 'OBJ-LIST-005'],
  },
  arbitraries() {
    const key = fc.constantFrom(...KEYS);
    const content = fc.stringMatching(/^[a-z]{1,6}$/);
    const put = fc
      .tuple(key, content, fc.constantFrom(...TYPES))
      .map(([k, c, t]): ExploreCommand => new PutObject(k, c, t));
    // Pages of one key most often: the most pages, so the most page boundaries, for the keys there are.
    const list = fc
      .tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(1, 1, 1, 2))
      .map(([p, m]): ExploreCommand => new ListObjects(p, m));
    // Uploads, listings and deletes (a key uploaded again after it) weigh more (fc.commands draws its arbitraries evenly): a listing needs
    // three keys or so to have pages worth walking, and with six families taking turns an objects
    // sequence is one in six, so each must reach such a listing often.
    const remove = key.map((k): ExploreCommand => new DeleteObject(k));
    const head = key.map((k): ExploreCommand => new HeadObject(k));
    return [put, put, put, put, key.map((k) => new GetObject(k)), head, remove, remove, list, list, list];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'put-object')
      return new PutObject(argString(a.key), argString(a.content), a.type === undefined ? TYPES[0] : argString(a.type));
    if (s.op === 'get-object') return new GetObject(argString(a.key));
    if (s.op === 'head-object') return new HeadObject(argString(a.key));
    if (s.op === 'delete-object') return new DeleteObject(argString(a.key));
    if (s.op === 'list-objects') return new ListObjects(argString(a.prefix), argNumber(a.max_keys));
    return undefined;
  },
  /** The exploration's own bucket, in the first region offering storage; a refusal is the session's error, not a finding. */
  async setUp(target: SequenceTarget) {
    const regions = await target.send('GET', '/regions');
    const list = isObject(regions.body) && Array.isArray(regions.body.regions) ? regions.body.regions : [];
    const region = list
      .map((r) => (isObject(r) ? r : {}))
      .find((r) => r.available !== false && (!Array.isArray(r.features) || r.features.includes('storage')))?.slug;
    if (typeof region !== 'string')
      throw new ExploreSetupError(
        `GET /regions lists no region offering storage (${regions.status}): explore needs one for its bucket`,
      );
    const res = await target.send('POST', '/storage/buckets', { json: { name: target.bucket, region } });
    if (!ok(res))
      throw new ExploreSetupError(
        `could not create the exploration's bucket ${target.bucket}: ${res.status} ${short(res.text)}`,
      );
  },
  async tearDown(target: SequenceTarget) {
    const res = await target.send('DELETE', `/storage/buckets/${encodeURIComponent(target.bucket)}`).catch(() => null);
    if (!res || !ok(res))
      target.warn(`could not delete the bucket ${target.bucket} (cloudcheck sweep removes cc- leftovers)`);
  },
};
