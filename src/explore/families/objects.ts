/**
 * Objects in the exploration's bucket: uploads read back at once, downloads, deletes, and
 * listings walked page by page with a prefix and max_keys. Keys live under the sequence's prefix,
 * so the model knows every key a listing with that prefix may give.
 */
import fc from 'fast-check';
import { isObject } from '../../harness/body-shape.ts';
import { ExploreSetupError, argNumber, argString, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation, compareKeys } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget } from '../target.ts';

class ObjectsState {
  /** Object key (inside the sequence's prefix) → the bytes last uploaded, as text. */
  readonly objects = new Map<string, string>();
  /** Keys deleted and not uploaded again since. */
  readonly deleted = new Set<string>();

  /** The keys a complete walk of the listing with `prefix` must give, in the order S3-style listings use (byte order). */
  keysWithPrefix(prefix: string): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort(compareKeys);
  }
}

const objectsOf = (model: ExploreModel): ObjectsState => model.part('objects', () => new ObjectsState());

class PutObject implements ExploreCommand {
  constructor(
    readonly key: string,
    readonly content: string,
  ) {}
  get record(): StepRecord {
    return { op: 'put-object', args: { key: this.key, content: this.content } };
  }
  check(): boolean {
    return true;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const res = await target.send('PUT', target.objectPath(this.key), {
        body: this.content,
        headers: { 'content-type': 'text/plain' },
      });
      expectOk(res, 'OBJ-PUT-001', `PUT of ${this.key}`);
      target.trackPath(target.objectPath(this.key));
      objectsOf(model).objects.set(this.key, this.content);
      objectsOf(model).deleted.delete(this.key);
      // "Stores the raw request body as the object": read it back at once.
      const got = await target.send('GET', target.objectPath(this.key));
      expectOk(got, 'OBJ-PUT-001', `GET of ${this.key} after its PUT`);
      if (got.text !== this.content)
        throw new ModelViolation(
          'OBJ-PUT-001',
          `GET of ${this.key} after its PUT`,
          `the bytes just uploaded ("${this.content}")`,
          `"${short(got.text)}"`,
        );
    });
  }
  toString(): string {
    return `put-object ${this.key} "${this.content}"`;
  }
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
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const res = await target.send('GET', target.objectPath(this.key));
      const expected = objectsOf(model).objects.get(this.key);
      if (expected === undefined) {
        if (ok(res))
          throw new ModelViolation(
            'OBJ-DEL-001',
            `GET of ${this.key} after its DELETE`,
            'no success',
            `${res.status} "${short(res.text)}"`,
          );
        return;
      }
      expectOk(res, 'OBJ-PUT-001', `GET of ${this.key}`);
      if (res.text !== expected)
        throw new ModelViolation(
          'OBJ-PUT-001',
          `GET of ${this.key}`,
          `the bytes last uploaded ("${expected}")`,
          `"${short(res.text)}"`,
        );
    });
  }
  toString(): string {
    return `get-object ${this.key}`;
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
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
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
 * marker the previous one gave (next_marker, or its last key when the target gives none).
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
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(objects, this, target, async () => {
      const expected = objectsOf(model).keysWithPrefix(this.prefix);
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
        const keys = (Array.isArray(body.objects) ? body.objects : []).map((o) =>
          isObject(o) && typeof o.key === 'string' ? o.key : '',
        );
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
          marker !== null
            ? expected.map((k) => target.objectKey(k)).find((k) => compareKeys(k, marker!) > 0)
            : undefined;
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
    });
  }
  toString(): string {
    return `list-objects prefix="${this.prefix}" max_keys=${this.maxKeys}`;
  }
}

/** Few keys sharing prefixes, so that listings by prefix and pages of one or two meet every case. */
const KEYS = ['a', 'a1', 'b'];
// 'a' weighs most: listings by a prefix that other keys follow in order are where page-by-page bugs show.
const PREFIXES = ['', 'a', 'a', 'a', 'b'];

export const objects: ExploreFamily = {
  name: 'objects',
  summary: 'uploads, downloads and deletes objects; walks the listings page by page',
  rules: {
    'OBJ-PUT-001': 'an uploaded object is downloaded with the bytes last uploaded, and appears in the listing',
    'OBJ-DEL-001': 'a deleted object is no longer downloaded nor listed',
    'OBJ-LIST-003': 'a listing with a prefix holds only keys with that prefix, on every page',
    'OBJ-LIST-004': 'a listing page holds at most max_keys objects, and is_truncated is true while objects remain',
    'OBJ-LIST-005': 'a listing with a marker holds only keys after it: walking the pages gives each key once',
  },
  rulesOf: {
    'put-object': ['OBJ-PUT-001'],
    'get-object': ['OBJ-PUT-001', 'OBJ-DEL-001'],
    'delete-object': ['OBJ-DEL-001'],
    'list-objects': ['OBJ-PUT-001', 'OBJ-DEL-001', 'OBJ-LIST-003', 'OBJ-LIST-004', 'OBJ-LIST-005'],
  },
  arbitraries() {
    const key = fc.constantFrom(...KEYS);
    const content = fc.stringMatching(/^[a-z]{1,6}$/);
    const put = fc.tuple(key, content).map(([k, c]): ExploreCommand => new PutObject(k, c));
    // Pages of one key most often: the most pages, so the most page boundaries, for the keys there are.
    const list = fc
      .tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(1, 1, 2))
      .map(([p, m]): ExploreCommand => new ListObjects(p, m));
    // Uploads, listings and deletes (a key uploaded again after it) weigh more (fc.commands draws its arbitraries evenly): a listing needs
    // three keys or so to have pages worth walking, and with six families taking turns an objects
    // sequence is one in six, so each must reach such a listing often.
    const remove = key.map((k): ExploreCommand => new DeleteObject(k));
    return [put, put, put, put, key.map((k) => new GetObject(k)), remove, remove, list, list, list];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'put-object') return new PutObject(argString(a.key), argString(a.content));
    if (s.op === 'get-object') return new GetObject(argString(a.key));
    if (s.op === 'delete-object') return new DeleteObject(argString(a.key));
    if (s.op === 'list-objects') return new ListObjects(argString(a.prefix), argNumber(a.max_keys));
    return undefined;
  },
  /** The exploration's own bucket, in the first region offering storage; a refusal is the session's error, not a finding. */
  async setUp(target: ExploreTarget) {
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
  async tearDown(target: ExploreTarget) {
    const res = await target.send('DELETE', `/storage/buckets/${encodeURIComponent(target.bucket)}`).catch(() => null);
    if (!res || !ok(res))
      target.warn(`could not delete the bucket ${target.bucket} (cloudcheck sweep removes cc- leftovers)`);
  },
};
