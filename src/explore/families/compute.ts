/**
 * Compute: VPS instances created with run-prefixed names, read, renamed and retagged (read back
 * at once), deleted, and the paginated GET /vps walked page by page with and without a `region`
 * or `status` filter. Commands aim at the sequence's instances by position, taken modulo how many
 * there are when the step runs.
 *
 * Where the specification says "not shown" the model accepts every choice: the state a VPS is
 * in after its creation (it is never waited for: nothing here needs it running), the bodies of
 * get, update and delete, success codes, the list's order, and whether an instance still
 * `creating` may be deleted (a refused DELETE leaves its existence unknown to the model).
 */
import fc from 'fast-check';
import { isObject } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, expectOk, ok, short, step, stillThere } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget } from '../target.ts';
import { catalogueOf, createVps, deleteVps, stringsOf, vpsCatalogue, vpsOf, vpsPath } from './vps-common.ts';

interface VpsState {
  id: string;
  label: string;
  name: string;
  tags: string[];
  region: string;
  /** `unknown` after a refused DELETE: the model then asks nothing of it. */
  existence: 'live' | 'deleted' | 'unknown';
}

class ComputeState {
  /** In creation order; deleted ones stay, so commands can still aim at them. */
  readonly vps: VpsState[] = [];
}

const computeOf = (model: ExploreModel): ComputeState => model.part('compute', () => new ComputeState());
const tagsOf = (tag: string): string[] => (tag === '' ? [] : [tag]);
/** Tags compare as a set: the order the target keeps them in is not shown. */
const sameTags = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

function vpsAt(model: ExploreModel, index: number, pool: 'live' | 'known'): VpsState | undefined {
  const all = computeOf(model).vps.filter((v) =>
    pool === 'live' ? v.existence === 'live' : v.existence !== 'unknown',
  );
  return all.length ? all[index % all.length] : undefined;
}

const MAX_VPS = 4;

class CreateVps implements ExploreCommand {
  constructor(
    readonly label: string,
    readonly region: number,
    readonly tag: string,
  ) {}
  get record(): StepRecord {
    return { op: 'create-vps', args: { label: this.label, region: this.region, tag: this.tag } };
  }
  /**
   * Four per sequence: enough for walks of several pages by region, few as each instance costs
   * compute requests (100 a minute a key) and money on a real cloud.
   */
  check(model: ExploreModel): boolean {
    return computeOf(model).vps.length < MAX_VPS;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const regions = catalogueOf(target).regions;
      const region = regions[this.region % regions.length]!;
      const name = target.resourceName(this.label);
      const tags = tagsOf(this.tag);
      const { id, created } = await createVps(target, name, region, tags);
      computeOf(model).vps.push({ id, label: this.label, name, tags, region, existence: 'live' });
      const echoed = stringsOf(created.tags);
      if (created.name !== name || created.region !== region || !echoed || !sameTags(echoed, tags))
        throw new ModelViolation(
          'VPS-CRT-005',
          'POST /vps',
          `name ${name}, region ${region}, tags ${JSON.stringify(tags)}`,
          short(JSON.stringify(created)),
        );
    });
  }
  toString(): string {
    return `create-vps ${this.label} region#${this.region} tags=${JSON.stringify(tagsOf(this.tag))}`;
  }
}

/** GET /vps/{id} of a live instance must give its name and tags as last set; of a deleted one, no success. */
async function readBack(target: ExploreTarget, vps: VpsState, what: string): Promise<void> {
  const res = await target.send('GET', vpsPath(vps.id));
  expectOk(res, 'VPS-GET-001', `GET /vps/{id} of ${vps.name}${what}`);
  const got = vpsOf(res.body);
  if (got?.id !== vps.id)
    throw new ModelViolation(
      'VPS-GET-001',
      `GET /vps/{id} of ${vps.name}${what}`,
      `the VPS ${vps.id}`,
      short(res.text),
    );
  if (got.name !== vps.name)
    throw new ModelViolation(
      'VPS-UPD-001',
      `GET /vps/{id} of ${vps.name}${what}`,
      `name "${vps.name}" (as last set)`,
      `"${String(got.name)}"`,
    );
  const tags = stringsOf(got.tags);
  if (!tags || !sameTags(tags, vps.tags))
    throw new ModelViolation(
      'VPS-UPD-001',
      `GET /vps/{id} of ${vps.name}${what}`,
      `tags ${JSON.stringify(vps.tags)} (as last set)`,
      JSON.stringify(got.tags),
    );
}

class GetVps implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-vps', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return vpsAt(model, this.index, 'known') !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const vps = vpsAt(model, this.index, 'known')!;
      if (vps.existence === 'live') return readBack(target, vps, '');
      let last: ApiResponse | undefined;
      const answers = async (): Promise<boolean> => ok((last = await target.send('GET', vpsPath(vps.id))));
      if (await stillThere(target, answers))
        throw new ModelViolation(
          'VPS-DEL-001',
          `GET /vps/{id} of the deleted ${vps.name}`,
          'no success',
          `${last!.status} ${short(last!.text)}`,
        );
    });
  }
  toString(): string {
    return `get-vps #${this.index}`;
  }
}

/** PUT of a new name or new tags (one field: the other must stay as it was), read back at once. */
class UpdateVps implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly field: 'name' | 'tags',
    readonly value: string,
  ) {}
  get record(): StepRecord {
    return { op: 'update-vps', args: { index: this.index, field: this.field, value: this.value } };
  }
  check(model: ExploreModel): boolean {
    return vpsAt(model, this.index, 'live') !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const vps = vpsAt(model, this.index, 'live')!;
      const change =
        this.field === 'name'
          ? { name: target.resourceName(`${vps.label}-${this.value}`) }
          : { tags: tagsOf(this.value) };
      const res = await target.send('PUT', vpsPath(vps.id), { json: change });
      expectOk(res, 'VPS-UPD-001', `PUT /vps/{id} of ${vps.name} ${JSON.stringify(change)}`);
      Object.assign(vps, change);
      // The requirement is about the GET that follows (the PUT's own body is not shown): read it back at once.
      await readBack(target, vps, ` after PUT ${JSON.stringify(change)}`);
    });
  }
  toString(): string {
    return `update-vps #${this.index} ${this.field}=${JSON.stringify(this.value)}`;
  }
}

class DeleteVps implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'delete-vps', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return vpsAt(model, this.index, 'live') !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(compute, this, target, async () => {
      await deleteVps(target, vpsAt(model, this.index, 'live')!);
    });
  }
  toString(): string {
    return `delete-vps #${this.index}`;
  }
}

type ListFilter = 'none' | 'region' | 'status';
/** Status values VPS-LIST-002 says the filter accepts (`stopped` too, but no step stops an instance). */
const STATUSES = ['running', 'creating'] as const;
/** Walks are retried this often when only the walk as a whole is inconsistent (another client may change the account meanwhile). */
const WALK_ATTEMPTS = 3;
/** Pages a walk may take before it takes bigger pages (an account with many instances of others). */
const MAX_PAGES = 6;

interface WalkResult {
  ids: string[];
  /** A walk that could not see every item (too many instances in the account): only per-page rules hold. */
  partial: boolean;
  /** What is wrong with the walk as a whole (each item once, `meta.total` items in all, nothing missing). */
  problem: ModelViolation | null;
}

const integer = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * GET /vps with `region` or `status` (or neither), walked page by page, `per_page` at a time.
 * Whatever one page shows is checked at once (the filter, the page's size and numbers, deleted
 * instances); what only the whole walk shows is returned, for the caller to retry.
 */
class ListVps implements ExploreCommand {
  constructor(
    readonly filter: ListFilter,
    /** Region index or status index, by filter. */
    readonly value: number,
    readonly perPage: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-vps', args: { filter: this.filter, value: this.value, per_page: this.perPage } };
  }
  check(model: ExploreModel): boolean {
    return computeOf(model).vps.length > 0 && this.perPage >= 1 && this.perPage <= 100;
  }
  private query(model: ExploreModel, target: ExploreTarget): Record<string, string> {
    if (this.filter === 'region') return { region: this.region(model, catalogueOf(target).regions) };
    if (this.filter === 'status') return { status: STATUSES[this.value % STATUSES.length]! };
    return {};
  }
  /**
   * Value 0 or 1: the region holding most of the sequence's live instances (the first on a tie),
   * 2: another one. A walk by the region most instances are in has the most pages to go wrong on.
   */
  private region(model: ExploreModel, regions: readonly string[]): string {
    const live = computeOf(model).vps.filter((v) => v.existence === 'live');
    const most = [...regions].sort(
      (a, b) => live.filter((v) => v.region === b).length - live.filter((v) => v.region === a).length,
    )[0]!;
    return this.value < 2 ? most : (regions.find((r) => r !== most) ?? most);
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const filter = this.query(model, target);
      let result = await this.attempt(model, target, filter);
      for (let attempt = 1; attempt < WALK_ATTEMPTS && result.problem; attempt++) {
        await target.pause(250 * attempt);
        result = await this.attempt(model, target, filter);
      }
      if (result.problem) throw result.problem;
    });
  }
  /** One walk; a deleted instance still listed is walked again too (deletion may take a moment on a real platform). */
  private async attempt(
    model: ExploreModel,
    target: ExploreTarget,
    filter: Record<string, string>,
  ): Promise<WalkResult> {
    try {
      return await this.walk(model, target, filter);
    } catch (error) {
      if (error instanceof ModelViolation && error.requirement === 'VPS-DEL-001')
        return { ids: [], partial: false, problem: error };
      throw error;
    }
  }
  private async walk(model: ExploreModel, target: ExploreTarget, filter: Record<string, string>): Promise<WalkResult> {
    const described = `GET /vps ${JSON.stringify(filter)}`;
    const first = await this.page(model, target, filter, 1, this.perPage);
    // Many instances (others' on a shared account): bigger pages, so the walk stays a few requests.
    const perPage =
      first.total > this.perPage * MAX_PAGES ? Math.min(100, Math.ceil(first.total / MAX_PAGES)) : this.perPage;
    const start = perPage === this.perPage ? first : await this.page(model, target, filter, 1, perPage);
    const pages = Math.max(1, Math.ceil(start.total / perPage));
    const partial = pages > MAX_PAGES;
    const ids = [...start.ids];
    for (let page = 2; page <= Math.min(pages, MAX_PAGES); page++) {
      const next = await this.page(model, target, filter, page, perPage);
      if (next.total !== start.total)
        return {
          ids,
          partial,
          problem: new ModelViolation(
            'PAGE-NUM-002',
            `${described} page ${page}`,
            `meta.total ${start.total} as on page 1`,
            `${next.total}`,
          ),
        };
      ids.push(...next.ids);
    }
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      return {
        ids,
        partial,
        problem: new ModelViolation(
          'PAGE-NUM-002',
          `walking ${described}, per_page ${perPage}`,
          'each instance once',
          `${twice} twice`,
        ),
      };
    if (!partial && ids.length !== start.total)
      return {
        ids,
        partial,
        problem: new ModelViolation(
          'PAGE-NUM-002',
          `walking ${described}, per_page ${perPage}, ${pages} page(s)`,
          `meta.total = ${start.total} instances in all`,
          `${ids.length}`,
        ),
      };
    // Unfiltered, the walk holds every instance the sequence created and did not delete.
    const missing =
      this.filter === 'none' && !partial
        ? computeOf(model).vps.find((v) => v.existence === 'live' && !ids.includes(v.id))
        : undefined;
    if (missing)
      return {
        ids,
        partial,
        problem: new ModelViolation(
          'VPS-LIST-001',
          `walking ${described}, per_page ${perPage}`,
          `${missing.name} (${missing.id}) listed`,
          `not on any page (${ids.join(', ') || 'none'})`,
        ),
      };
    return { ids, partial, problem: null };
  }
  /** One page: its own rules are checked here (a page is wrong whatever else changes in the account). */
  private async page(
    model: ExploreModel,
    target: ExploreTarget,
    filter: Record<string, string>,
    page: number,
    perPage: number,
  ): Promise<{ ids: string[]; total: number }> {
    const where = `GET /vps ${JSON.stringify({ ...filter, page, per_page: perPage })}`;
    const res = await target.send('GET', '/vps', { query: { ...filter, page, per_page: perPage } });
    expectOk(res, this.filter === 'none' ? 'VPS-LIST-001' : 'VPS-LIST-002', where);
    const body = isObject(res.body) ? res.body : {};
    const meta = isObject(body.meta) ? body.meta : {};
    if (!Array.isArray(body.vps_instances) || !isObject(body.meta))
      throw new ModelViolation('VPS-LIST-001', where, 'an array vps_instances and an object meta', short(res.text));
    if (![meta.total, meta.page, meta.per_page, meta.pages].every(integer))
      throw new ModelViolation(
        'PAGE-META-001',
        where,
        'integer meta.total, page, per_page and pages',
        JSON.stringify(meta),
      );
    if (meta.page !== page) throw new ModelViolation('PAGE-NUM-002', where, `meta.page ${page}`, String(meta.page));
    if (meta.per_page !== perPage)
      throw new ModelViolation('PAGE-SIZE-003', where, `meta.per_page ${perPage}`, String(meta.per_page));
    const items = body.vps_instances.map((v): Json => (isObject(v) ? v : {}));
    if (items.length > perPage)
      throw new ModelViolation('PAGE-SIZE-003', where, `at most ${perPage} instance(s)`, `${items.length}`);
    const stray = items.find((v) => Object.entries(filter).some(([field, value]) => v[field] !== value));
    if (stray)
      throw new ModelViolation(
        'VPS-LIST-002',
        where,
        `only instances with ${JSON.stringify(filter)}`,
        short(JSON.stringify(stray)),
      );
    const ids = items.map((v) => String(v.id));
    const deleted = computeOf(model).vps.find((v) => v.existence === 'deleted' && ids.includes(v.id));
    if (deleted) throw new ModelViolation('VPS-DEL-001', where, `the deleted ${deleted.name} not listed`, 'listed');
    return { ids, total: meta.total as number };
  }
  toString(): string {
    return `list-vps ${this.filter}#${this.value} per_page=${this.perPage}`;
  }
}

const LABELS = ['v1', 'v2', 'v3'];
const TAGS = ['', 'web', 'db'];

export const compute: ExploreFamily = {
  name: 'compute',
  summary: 'creates, gets, updates and deletes VPS; walks GET /vps page by page, with filters',
  rules: {
    'VPS-CRT-003': 'an accepted POST /vps answers the created VPS with its id',
    'VPS-CRT-005': 'the created VPS reports the name, region and tags sent',
    'VPS-CRT-006': 'POST /vps accepts a region, image and size of the target’s own catalogue',
    'VPS-GET-001': 'GET /vps/{id} of an instance of the sequence answers success with that instance',
    'VPS-UPD-001':
      'after PUT /vps/{id} of a name or tags, a following GET reports the new value and the other field unchanged',
    'VPS-DEL-001': 'a deleted instance is no longer found nor listed',
    'VPS-LIST-001': 'walking GET /vps lists every instance the sequence created and did not delete',
    'VPS-LIST-002': 'GET /vps with region or status lists only matching instances, on every page',
    'PAGE-META-001': 'every page of GET /vps carries integer meta.total, page, per_page and pages',
    'PAGE-SIZE-003': 'a page of GET /vps holds at most per_page instances and says that per_page',
    'PAGE-NUM-002': 'page N says meta.page N; walking the pages gives each instance once and meta.total in all',
  },
  rulesOf: {
    'create-vps': ['VPS-CRT-003', 'VPS-CRT-005', 'VPS-CRT-006'],
    'get-vps': ['VPS-GET-001', 'VPS-UPD-001', 'VPS-DEL-001'],
    'update-vps': ['VPS-UPD-001', 'VPS-GET-001'],
    'delete-vps': [],
    'list-vps': ['VPS-LIST-001', 'VPS-LIST-002', 'VPS-DEL-001', 'PAGE-META-001', 'PAGE-SIZE-003', 'PAGE-NUM-002'],
  },
  arbitraries() {
    const index = fc.nat({ max: 3 });
    const create = fc
      .tuple(fc.constantFrom(...LABELS), fc.nat({ max: 1 }), fc.constantFrom(...TAGS))
      .map(([l, r, t]): ExploreCommand => new CreateVps(l, r, t));
    const update = fc
      .tuple(index, fc.constantFrom('name' as const, 'tags' as const), fc.constantFrom('a', 'b', ...TAGS.slice(1)))
      .map(([i, f, v]) => new UpdateVps(i, f, v));
    // The region filter walks pages of one, mostly by the region most instances are in: instances
    // in two regions are where a filter lost between pages shows. Other walks take pages of one or two.
    const byRegion = fc.nat({ max: 2 }).map((v): ExploreCommand => new ListVps('region', v, 1));
    const other = fc
      .tuple(fc.constantFrom<ListFilter>('none', 'status'), fc.nat({ max: 1 }), fc.constantFrom(1, 2))
      .map(([f, v, p]): ExploreCommand => new ListVps(f, v, p));
    // fc.commands draws its arbitraries evenly, so weight is repetition: creations and listings
    // weigh most, as a walk needs several instances; updates twice, as two of one instance is
    // where a lost update shows.
    return [
      create,
      create,
      create,
      create,
      update,
      update,
      index.map((i) => new GetVps(i)),
      index.map((i) => new DeleteVps(i)),
      byRegion,
      byRegion,
      byRegion,
      byRegion,
      other,
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-vps') return new CreateVps(argString(a.label), argNumber(a.region), argString(a.tag));
    if (s.op === 'get-vps') return new GetVps(argNumber(a.index));
    if (s.op === 'update-vps')
      return new UpdateVps(argNumber(a.index), argString(a.field) === 'tags' ? 'tags' : 'name', argString(a.value));
    if (s.op === 'delete-vps') return new DeleteVps(argNumber(a.index));
    if (s.op === 'list-vps') {
      const filter = argString(a.filter);
      return new ListVps(
        filter === 'region' || filter === 'status' ? filter : 'none',
        argNumber(a.value),
        argNumber(a.per_page),
      );
    }
    return undefined;
  },
  async setUp(target: ExploreTarget) {
    await vpsCatalogue(target);
  },
};
