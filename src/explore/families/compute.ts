/**
 * Compute: VPS instances created with run-prefixed names, read, renamed and retagged (read back
 * at once), deleted, and the paginated GET /vps walked page by page with and without a `region`
 * or `status` filter. Commands aim at the sequence's instances by position, taken modulo how many
 * there are when the step runs.
 *
 * What the model knows of an instance (its name and tags as last set, the region, image and size
 * it was created with) is compared wherever a VPS record is shown: the creation's answer, the
 * update's (when it holds the instance), every GET, and its entry on every page of every walk
 * (whose freshness is not shown: a walk that differs is walked again for a moment first). Each
 * page's `pages` is held to ceil(total / per_page), a SHOULD convention (PAGE-META-002): a target
 * that counts otherwise is reported without ending the exploration.
 *
 * Where the specification says "not shown" the model accepts every choice: the state a VPS is
 * in after its creation (it is never waited for: nothing here needs it running), the bodies of
 * get, update and delete, success codes, the list's order, and whether an instance still
 * `creating` may be deleted (a refused DELETE leaves its existence unknown to the model).
 * `vcpus`, `memory`, `disk` and the addresses are not compared (their values are not shown).
 */
import fc from 'fast-check';
import { isObject } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, compareSettled, expectOk, ok, short, step, stillThere } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { SequenceTarget } from '../target.ts';
import { catalogueOf, createVps, deleteVps, stringsOf, vpsCatalogue, vpsOf, vpsPath } from './vps-common.ts';

interface VpsState {
  id: string;
  label: string;
  name: string;
  tags: string[];
  region: string;
  image: string;
  size: string;
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
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const regions = catalogueOf(target).regions;
      const region = regions[this.region % regions.length]!;
      const name = target.resourceName(this.label);
      const tags = tagsOf(this.tag);
      const { id, created } = await createVps(target, name, region, tags);
      const { image, size } = catalogueOf(target);
      const vps: VpsState = { id, label: this.label, name, tags, region, image, size, existence: 'live' };
      computeOf(model).vps.push(vps);
      if (differences(vps, created).length)
        throw new ModelViolation(
          'VPS-CRT-005',
          'POST /vps',
          `name ${name}, region ${region}, image ${image}, size ${size}, tags ${JSON.stringify(tags)}`,
          short(JSON.stringify(created)),
        );
    });
  }
  toString(): string {
    return `create-vps ${this.label} region#${this.region} tags=${JSON.stringify(tagsOf(this.tag))}`;
  }
}

/** The fields of a VPS record that differ from what the model knows of the instance. */
function differences(vps: VpsState, got: Json): string[] {
  const tags = stringsOf(got.tags);
  return [
    ...(got.name !== vps.name ? ['name'] : []),
    ...(!tags || !sameTags(tags, vps.tags) ? ['tags'] : []),
    ...(['region', 'image', 'size'] as const).filter((field) => got[field] !== vps[field]),
  ];
}

/**
 * A record of a live instance, wherever it is shown: name and tags as last set, region, image and
 * size as created ("the new values are what a following GET returns, and fields not sent are
 * unchanged").
 */
function checkRecord(vps: VpsState, got: Json, where: string): void {
  const differ = differences(vps, got);
  if (differ.length === 0) return;
  const known: Record<string, unknown> = {
    name: vps.name,
    tags: vps.tags,
    region: vps.region,
    image: vps.image,
    size: vps.size,
  };
  throw new ModelViolation(
    'VPS-UPD-001',
    where,
    differ.map((f) => `${f} ${JSON.stringify(known[f])}`).join(', ') +
      ' (name and tags as last set, the rest as created)',
    differ.map((f) => `${f} ${JSON.stringify(got[f] ?? null)}`).join(', '),
  );
}

/** GET /vps/{id} of a live instance: that instance, as the model knows it. */
async function readBack(target: SequenceTarget, vps: VpsState, what: string): Promise<void> {
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
  checkRecord(vps, got, `GET /vps/{id} of ${vps.name}${what}`);
}

class GetVps implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-vps', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return vpsAt(model, this.index, 'known') !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
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
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(compute, this, target, async () => {
      const vps = vpsAt(model, this.index, 'live')!;
      const change =
        this.field === 'name'
          ? { name: target.resourceName(`${vps.label}-${this.value}`) }
          : { tags: tagsOf(this.value) };
      const where = `PUT /vps/{id} of ${vps.name} ${JSON.stringify(change)}`;
      const res = await target.send('PUT', vpsPath(vps.id), { json: change });
      expectOk(res, 'VPS-UPD-001', where);
      Object.assign(vps, change);
      // "Answers with the updated VPS": when the answer holds the instance, it is the updated one.
      const answered = vpsOf(res.body);
      if (answered?.id === vps.id) checkRecord(vps, answered, where);
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
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
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
/** Pages a walk may take before it takes bigger pages (an account with many instances of others). */
const MAX_PAGES = 6;

const integer = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * GET /vps with `region` or `status` (or neither), walked page by page, `per_page` at a time:
 * every page keeps to the filter and the page size, shows the instances of the sequence as the
 * model knows them and no deleted one, and the whole walk gives each instance once, `meta.total` in
 * all. A walk that differs from the model is walked again for a moment first: a list may lag, and
 * another client may change a shared account meanwhile.
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
  private query(model: ExploreModel, target: SequenceTarget): Record<string, string> {
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
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(compute, this, target, () => {
      const filter = this.query(model, target);
      return compareSettled(target, () => this.walk(model, target, filter));
    });
  }
  private async walk(model: ExploreModel, target: SequenceTarget, filter: Record<string, string>): Promise<void> {
    const described = `GET /vps ${JSON.stringify(filter)}`;
    const first = await this.page(model, target, filter, 1, this.perPage);
    // Many instances (others' on a shared account): bigger pages, so the walk stays a few requests.
    const perPage =
      first.total > this.perPage * MAX_PAGES ? Math.min(100, Math.ceil(first.total / MAX_PAGES)) : this.perPage;
    const start = perPage === this.perPage ? first : await this.page(model, target, filter, 1, perPage);
    const pages = Math.max(1, Math.ceil(start.total / perPage));
    // A walk that cannot see every item (too many instances in the account): only per-page rules hold.
    const partial = pages > MAX_PAGES;
    const ids = [...start.ids];
    for (let page = 2; page <= Math.min(pages, MAX_PAGES); page++) {
      const next = await this.page(model, target, filter, page, perPage);
      if (next.total !== start.total)
        throw new ModelViolation(
          'PAGE-NUM-002',
          `${described} page ${page}`,
          `meta.total ${start.total} as on page 1`,
          `${next.total}`,
        );
      ids.push(...next.ids);
    }
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      throw new ModelViolation(
        'PAGE-NUM-002',
        `walking ${described}, per_page ${perPage}`,
        'each instance once',
        `${twice} twice`,
      );
    if (!partial && ids.length !== start.total)
      throw new ModelViolation(
        'PAGE-NUM-002',
        `walking ${described}, per_page ${perPage}, ${pages} page(s)`,
        `meta.total = ${start.total} instances in all`,
        `${ids.length}`,
      );
    // Unfiltered, the walk holds every instance the sequence created and did not delete.
    const missing =
      this.filter === 'none' && !partial
        ? computeOf(model).vps.find((v) => v.existence === 'live' && !ids.includes(v.id))
        : undefined;
    if (missing)
      throw new ModelViolation(
        'VPS-LIST-001',
        `walking ${described}, per_page ${perPage}`,
        `${missing.name} (${missing.id}) listed`,
        `not on any page (${ids.join(', ') || 'none'})`,
      );
  }
  /** One page: its own rules are checked here (a page is wrong whatever else changes in the account). */
  private async page(
    model: ExploreModel,
    target: SequenceTarget,
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
    const known = computeOf(model).vps;
    const deleted = known.find((v) => v.existence === 'deleted' && ids.includes(v.id));
    if (deleted) throw new ModelViolation('VPS-DEL-001', where, `the deleted ${deleted.name} not listed`, 'listed');
    for (const vps of known.filter((v) => v.existence === 'live')) {
      const entry = items.find((v) => v.id === vps.id);
      if (entry) checkRecord(vps, entry, `the entry of ${vps.name} on ${where}`);
    }
    const pages = Math.ceil((meta.total as number) / perPage);
    if (meta.pages !== pages)
      target.deviation(
        new ModelViolation(
          'PAGE-META-002',
          where,
          `meta.pages ${pages} (ceil of total ${String(meta.total)} / ${perPage})`,
          String(meta.pages),
        ),
      );
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
  // Its walks count every instance of the account: nothing else creates or deletes one meanwhile.
  observes: ['vps'],
  changes: ['vps'],
  rules: {
    'VPS-CRT-003': 'an accepted POST /vps answers the created VPS with its id',
    'VPS-CRT-005': 'the created VPS reports the name, region, image, size and tags sent',
    'VPS-CRT-006': 'POST /vps accepts a region, image and size of the target’s own catalogue',
    'VPS-GET-001': 'GET /vps/{id} of an instance of the sequence answers success with that instance',
    'VPS-UPD-001':
      'after PUT /vps/{id} of a name or tags, its answer, every GET and every page listing the instance show the name and tags last set, and the region, image and size as created',
    'VPS-DEL-001': 'a deleted instance is no longer found nor listed',
    'VPS-LIST-001': 'walking GET /vps lists every instance the sequence created and did not delete',
    'VPS-LIST-002': 'GET /vps with region or status lists only matching instances, on every page',
    'PAGE-META-001': 'every page of GET /vps carries integer meta.total, page, per_page and pages',
    'PAGE-SIZE-003': 'a page of GET /vps holds at most per_page instances and says that per_page',
    'PAGE-NUM-002': 'page N says meta.page N; walking the pages gives each instance once and meta.total in all',
    'PAGE-META-002': 'SHOULD: every page of GET /vps says meta.pages = ceil(total / per_page)',
  },
  rulesOf: {
    'create-vps': ['VPS-CRT-003', 'VPS-CRT-005', 'VPS-CRT-006'],
    'get-vps': ['VPS-GET-001', 'VPS-UPD-001', 'VPS-DEL-001'],
    'update-vps': ['VPS-UPD-001', 'VPS-GET-001'],
    'delete-vps': [],
    'list-vps': [
      'VPS-LIST-001',
      'VPS-LIST-002',
      'VPS-DEL-001',
      'VPS-UPD-001',
      'PAGE-META-001',
      'PAGE-META-002',
      'PAGE-SIZE-003',
      'PAGE-NUM-002',
    ],
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
  async setUp(target: SequenceTarget) {
    await vpsCatalogue(target);
  },
};
