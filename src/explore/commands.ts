/**
 * The operations a sequence is made of, as fast-check model-based commands: each has a
 * precondition on the model (`check`), runs its request against the target, compares the answer
 * with the model (throwing a ModelViolation that cites the requirement) and then moves the model.
 *
 * Commands refer to what the sequence made by position ("the 2nd project it created"), never by
 * a target's id, so a sequence is data (StepRecord) that replays against any target.
 */
import fc from 'fast-check';
import type { ApiResponse } from '../harness/client.ts';
import { isObject } from '../harness/body-shape.ts';
import { ModelViolation, compareKeys } from './model.ts';
import type { StepRecord, ExploreModel } from './model.ts';
import type { ExploreTarget } from './target.ts';
import { projectOf, projectsOf } from './target.ts';

export type ExploreCommand = fc.AsyncCommand<ExploreModel, ExploreTarget> & { readonly record: StepRecord };

/** The requirements each operation's checks cite (what a passing step exercised). */
export const RULES_OF: Readonly<Record<string, readonly string[]>> = {
  'put-object': ['OBJ-PUT-001'],
  'get-object': ['OBJ-PUT-001', 'OBJ-DEL-001'],
  'delete-object': ['OBJ-DEL-001'],
  'list-objects': ['OBJ-PUT-001', 'OBJ-DEL-001', 'OBJ-LIST-003', 'OBJ-LIST-004', 'OBJ-LIST-005'],
  'create-project': ['PROJ-LIST-001'],
  'update-project': ['PROJ-UPD-001', 'PROJ-GET-001'],
  'get-project': ['PROJ-GET-001', 'PROJ-UPD-001', 'PROJ-DEL-001'],
  'delete-project': ['PROJ-DEL-001'],
  'list-projects': ['PROJ-LIST-001', 'PROJ-DEL-001'],
};

/** Runs a step: recorded before it runs (a failing step is part of the finding), its rules noted once the model agreed. */
async function step(command: ExploreCommand, target: ExploreTarget, body: () => Promise<void>): Promise<void> {
  target.ranSteps.push(command.record);
  await body();
  target.stepPassed(command.record, RULES_OF[command.record.op] ?? []);
}

const ok = (res: ApiResponse): boolean => res.status >= 200 && res.status < 300;
const short = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** A response that must be a success: anything else is a finding on `requirement`. */
function expectOk(res: ApiResponse, requirement: string, what: string): void {
  if (!ok(res)) throw new ModelViolation(requirement, what, 'a 2xx answer', `${res.status} ${short(res.text)}`);
}

// ---- objects -------------------------------------------------------------------------------

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
    return step(this, target, async () => {
      const res = await target.send('PUT', target.objectPath(this.key), { body: this.content, headers: { 'content-type': 'text/plain' } });
      expectOk(res, 'OBJ-PUT-001', `PUT of ${this.key}`);
      model.objects.set(this.key, this.content);
      model.deletedObjects.delete(this.key);
      // "Stores the raw request body as the object": read it back at once.
      const got = await target.send('GET', target.objectPath(this.key));
      expectOk(got, 'OBJ-PUT-001', `GET of ${this.key} after its PUT`);
      if (got.text !== this.content) throw new ModelViolation('OBJ-PUT-001', `GET of ${this.key} after its PUT`, `the bytes just uploaded ("${this.content}")`, `"${short(got.text)}"`);
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
  check(model: Readonly<ExploreModel>): boolean {
    return model.objects.has(this.key) || model.deletedObjects.has(this.key);
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const res = await target.send('GET', target.objectPath(this.key));
      const expected = model.objects.get(this.key);
      if (expected === undefined) {
        if (ok(res)) throw new ModelViolation('OBJ-DEL-001', `GET of ${this.key} after its DELETE`, 'no success', `${res.status} "${short(res.text)}"`);
        return;
      }
      expectOk(res, 'OBJ-PUT-001', `GET of ${this.key}`);
      if (res.text !== expected) throw new ModelViolation('OBJ-PUT-001', `GET of ${this.key}`, `the bytes last uploaded ("${expected}")`, `"${short(res.text)}"`);
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
  check(model: Readonly<ExploreModel>): boolean {
    return model.objects.has(this.key);
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const res = await target.send('DELETE', target.objectPath(this.key));
      expectOk(res, 'OBJ-DEL-001', `DELETE of ${this.key}`);
      model.objects.delete(this.key);
      model.deletedObjects.add(this.key);
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
    return step(this, target, async () => {
      const expected = model.keysWithPrefix(this.prefix);
      const fullPrefix = target.objectKey(this.prefix);
      const seen: string[] = [];
      let marker: string | null = null;
      let pages = 0;
      // One page more than the model needs: a listing that never ends is a finding, not a hang.
      for (let page = 1; page <= expected.length + 2; page++) {
        const query: Record<string, string | number> = { prefix: fullPrefix, max_keys: this.maxKeys, ...(marker !== null ? { marker } : {}) };
        const res = await target.send('GET', target.listingPath, { query });
        pages = page;
        expectOk(res, 'OBJ-LIST-003', `listing page ${page} (prefix "${this.prefix}", max_keys ${this.maxKeys})`);
        const body = isObject(res.body) ? res.body : {};
        const keys = (Array.isArray(body.objects) ? body.objects : []).map((o) => (isObject(o) && typeof o.key === 'string' ? o.key : ''));
        const where = `listing page ${page} (prefix "${this.prefix}", max_keys ${this.maxKeys}${marker !== null ? `, marker "${marker}"` : ''})`;
        const outside = keys.find((k) => !k.startsWith(fullPrefix));
        if (outside !== undefined) throw new ModelViolation('OBJ-LIST-003', where, `only keys starting with "${fullPrefix}"`, `"${outside}"`);
        if (keys.length > this.maxKeys) throw new ModelViolation('OBJ-LIST-004', where, `at most ${this.maxKeys} objects`, `${keys.length}`);
        const notAfter = marker !== null ? keys.find((k) => compareKeys(k, marker!) <= 0) : undefined;
        if (notAfter !== undefined) throw new ModelViolation('OBJ-LIST-005', where, `only keys after "${marker}"`, `"${notAfter}"`);
        // "Starts after that key": the first key the model has after the marker opens the page.
        const firstAfter = marker !== null ? expected.map((k) => target.objectKey(k)).find((k) => compareKeys(k, marker!) > 0) : undefined;
        if (firstAfter !== undefined && keys.length > 0 && compareKeys(keys[0]!, firstAfter) > 0)
          throw new ModelViolation('OBJ-LIST-005', where, `the page to start at "${firstAfter}", the first key after the marker`, `"${keys[0]}"`);
        seen.push(...keys.map((k) => k.slice(target.keyPrefix.length)));
        const truncated = body.is_truncated === true;
        const remaining = expected.filter((k) => !seen.includes(k) && (seen.length === 0 || compareKeys(k, seen.at(-1)!) > 0));
        if (!truncated && remaining.length > 0) {
          // An empty last page after a marker skipped what follows the marker; otherwise the page miscounted what remains.
          if (marker !== null && keys.length === 0) throw new ModelViolation('OBJ-LIST-005', where, `the keys after the marker (${remaining.slice(0, 3).join(', ')})`, 'an empty page, not truncated');
          throw new ModelViolation('OBJ-LIST-004', where, `is_truncated true: ${remaining.length} more object(s) remain (${remaining.slice(0, 3).join(', ')})`, 'is_truncated false');
        }
        if (!truncated || keys.length === 0) break;
        marker = typeof body.next_marker === 'string' && body.next_marker !== '' ? body.next_marker : keys.at(-1)!;
      }
      const duplicate = seen.find((k, i) => seen.indexOf(k) !== i);
      if (duplicate !== undefined) throw new ModelViolation('OBJ-LIST-005', `walking the listing (prefix "${this.prefix}", max_keys ${this.maxKeys})`, 'each key once', `"${duplicate}" twice`);
      const deletedListed = seen.find((k) => model.deletedObjects.has(k));
      if (deletedListed !== undefined) throw new ModelViolation('OBJ-DEL-001', `walking the listing (prefix "${this.prefix}")`, `no deleted key`, `"${deletedListed}" listed after its DELETE`);
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

// ---- projects ------------------------------------------------------------------------------

class CreateProject implements ExploreCommand {
  constructor(readonly label: string) {}
  get record(): StepRecord {
    return { op: 'create-project', args: { label: this.label } };
  }
  /** A handful per sequence: enough for every interplay, little for the account. */
  check(model: Readonly<ExploreModel>): boolean {
    return model.projects.length < 4;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const name = target.projectName(this.label);
      const description = `explore ${this.label}`;
      const res = await target.send('POST', '/projects', { json: { name, description } });
      expectOk(res, 'PROJ-LIST-001', 'POST /projects');
      const id = projectOf(res.body)?.id;
      if (typeof id !== 'string') throw new ModelViolation('PROJ-LIST-001', 'POST /projects', 'the created project with its id', short(res.text));
      target.trackProject(id);
      model.projects.push({ id, name, description, deleted: false });
    });
  }
  toString(): string {
    return `create-project ${this.label}`;
  }
}

/** Index into the sequence's projects, taken modulo how many there are when it runs. */
function projectAt(model: Readonly<ExploreModel>, index: number, live: boolean): ExploreModel['projects'][number] | undefined {
  const pool = live ? model.projects.filter((p) => !p.deleted) : model.projects;
  return pool.length ? pool[index % pool.length] : undefined;
}

class UpdateProject implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly description: string,
  ) {}
  get record(): StepRecord {
    return { op: 'update-project', args: { index: this.index, description: this.description } };
  }
  check(model: Readonly<ExploreModel>): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const res = await target.send('PUT', `/projects/${encodeURIComponent(project.id)}`, { json: { description: this.description } });
      expectOk(res, 'PROJ-UPD-001', `PUT /projects/{id} of ${project.name}`);
      project.description = this.description;
      // The requirement is about the GET that follows: read it back at once.
      const got = await target.send('GET', `/projects/${encodeURIComponent(project.id)}`);
      expectOk(got, 'PROJ-GET-001', `GET /projects/{id} of ${project.name} after its update`);
      const description = projectOf(got.body)?.description;
      if (description !== this.description)
        throw new ModelViolation('PROJ-UPD-001', `GET /projects/{id} of ${project.name} after PUT`, `description "${this.description}"`, `"${String(description)}"`);
    });
  }
  toString(): string {
    return `update-project #${this.index} description="${this.description}"`;
  }
}

class GetProject implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-project', args: { index: this.index } };
  }
  check(model: Readonly<ExploreModel>): boolean {
    return projectAt(model, this.index, false) !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const project = projectAt(model, this.index, false)!;
      const res = await target.send('GET', `/projects/${encodeURIComponent(project.id)}`);
      if (project.deleted) {
        if (ok(res)) throw new ModelViolation('PROJ-DEL-001', `GET /projects/{id} of the deleted ${project.name}`, 'no success', `${res.status}`);
        return;
      }
      expectOk(res, 'PROJ-GET-001', `GET /projects/{id} of ${project.name}`);
      const got = projectOf(res.body);
      if (got?.name !== project.name) throw new ModelViolation('PROJ-UPD-001', `GET /projects/{id} of ${project.name}`, `name "${project.name}"`, `"${String(got?.name)}"`);
      if (got?.description !== project.description)
        throw new ModelViolation('PROJ-UPD-001', `GET /projects/{id} of ${project.name}`, `description "${project.description}" (the last PUT)`, `"${String(got?.description)}"`);
    });
  }
  toString(): string {
    return `get-project #${this.index}`;
  }
}

class DeleteProject implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'delete-project', args: { index: this.index } };
  }
  check(model: Readonly<ExploreModel>): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const res = await target.send('DELETE', `/projects/${encodeURIComponent(project.id)}`);
      expectOk(res, 'PROJ-DEL-001', `DELETE /projects/{id} of ${project.name}`);
      project.deleted = true;
      target.forgetProject(project.id);
    });
  }
  toString(): string {
    return `delete-project #${this.index}`;
  }
}

/** GET /projects: the sequence's live projects listed, its deleted ones not (others' projects are not the model's business). */
class ListProjects implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-projects', args: {} };
  }
  check(model: Readonly<ExploreModel>): boolean {
    return model.projects.length > 0;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(this, target, async () => {
      const res = await target.send('GET', '/projects');
      expectOk(res, 'PROJ-LIST-001', 'GET /projects');
      const ids = new Set((projectsOf(res.body) ?? []).map((p) => p.id));
      for (const p of model.projects) {
        if (!p.deleted && !ids.has(p.id)) throw new ModelViolation('PROJ-LIST-001', 'GET /projects', `${p.name} listed`, 'not listed');
        if (p.deleted && ids.has(p.id)) throw new ModelViolation('PROJ-DEL-001', 'GET /projects', `the deleted ${p.name} not listed`, 'listed');
      }
    });
  }
  toString(): string {
    return 'list-projects';
  }
}

// ---- generation and replay ----------------------------------------------------------------

/** Few keys sharing prefixes, so that listings by prefix and pages of one or two meet every case. */
const KEYS = ['a', 'a1', 'b', 'b1'];
// 'a' twice: listings by a prefix that other keys follow in order are where page-by-page bugs show.
const PREFIXES = ['', 'a', 'a', 'b'];

export function commandArbitraries(): Array<fc.Arbitrary<ExploreCommand>> {
  const key = fc.constantFrom(...KEYS);
  const content = fc.stringMatching(/^[a-z]{1,6}$/);
  const index = fc.nat({ max: 3 });
  const put = fc.tuple(key, content).map(([k, c]) => new PutObject(k, c));
  const create = fc.constantFrom('p1', 'p2', 'p3').map((l) => new CreateProject(l));
  // Uploads and creations weigh more (fc.commands draws its arbitraries evenly): the other
  // operations need something to act on, and listings need several objects to have pages.
  return [
    put,
    put,
    key.map((k) => new GetObject(k)),
    key.map((k) => new GetObject(k)),
    key.map((k) => new DeleteObject(k)),
    fc.tuple(fc.constantFrom(...PREFIXES), fc.integer({ min: 1, max: 2 })).map(([p, m]) => new ListObjects(p, m)),
    fc.tuple(fc.constantFrom(...PREFIXES), fc.integer({ min: 1, max: 2 })).map(([p, m]) => new ListObjects(p, m)),
    create,
    create,
    fc.tuple(index, content).map(([i, d]) => new UpdateProject(i, d)),
    index.map((i) => new GetProject(i)),
    index.map((i) => new DeleteProject(i)),
    fc.constant(new ListProjects()),
  ];
}

const str = (v: string | number | undefined): string => String(v ?? '');
const num = (v: string | number | undefined): number => Number(v ?? 0);

/** A step of a replay file back into its command; an unknown operation is an error naming it. */
export function commandOf(step: StepRecord): ExploreCommand {
  const a = step.args;
  switch (step.op) {
    case 'put-object':
      return new PutObject(str(a.key), str(a.content));
    case 'get-object':
      return new GetObject(str(a.key));
    case 'delete-object':
      return new DeleteObject(str(a.key));
    case 'list-objects':
      return new ListObjects(str(a.prefix), num(a.max_keys));
    case 'create-project':
      return new CreateProject(str(a.label));
    case 'update-project':
      return new UpdateProject(num(a.index), str(a.description));
    case 'get-project':
      return new GetProject(num(a.index));
    case 'delete-project':
      return new DeleteProject(num(a.index));
    case 'list-projects':
      return new ListProjects();
    default:
      throw new Error(`unknown operation "${step.op}"`);
  }
}
