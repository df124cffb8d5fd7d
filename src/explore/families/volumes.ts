/**
 * Volumes: created with run-prefixed names, read, listed with and without the `attached` and
 * `region` filters, attached to a VPS the family creates itself (in the volume's region), detached,
 * deleted; and the VPS deleted under its volumes. Commands aim at the sequence's volumes by
 * position, taken modulo how many there are when the step runs.
 *
 * Where the specification says "not shown" the model accepts every choice: volume states other
 * than `available` (never asked for), bodies and codes of create, get, attach, detach and delete,
 * whether an attach waits for the VPS to run, whether an attached volume may be deleted, and what
 * deleting a VPS does to the volumes attached to it (after it the model asks nothing of them).
 * A refused attach, detach or delete is no finding; it leaves what it aimed at unknown.
 */
import fc from 'fast-check';
import { isObject, listOf } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, expectOk, ok, short, step, stillThere } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { SequenceTarget } from '../target.ts';
import {
  catalogueOf,
  createVps,
  deleteVps,
  stringsOf,
  volumeOf,
  volumePath,
  vpsCatalogue,
  vpsPath,
  waitUntilBooted,
} from './vps-common.ts';

type Existence = 'live' | 'deleted' | 'unknown';

interface VolumeState {
  id: string;
  name: string;
  tags: string[];
  region: string;
  existence: Existence;
  /** The VPS id, null, or undefined when the model cannot know (a refused call, its VPS deleted). */
  attachedTo: string | null | undefined;
  /** The requirement that makes `attachedTo` what it is: creation, the last attach or the last detach. */
  attachedBecause: 'VOL-FLD-002' | 'VOL-ATT-001' | 'VOL-DET-001';
}

interface HostState {
  id: string;
  name: string;
  existence: Existence;
}

class VolumesState {
  /** In creation order; deleted ones stay, so commands can still aim at them. */
  readonly volumes: VolumeState[] = [];
  /** The instances the sequence created to attach to. */
  readonly hosts: HostState[] = [];
}

const volumesOf = (model: ExploreModel): VolumesState => model.part('volumes', () => new VolumesState());
const tagsOf = (tag: string): string[] => (tag === '' ? [] : [tag]);
const sameTags = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
/** The one size every target takes (VOL-CRT-002) and the cheapest. */
const SIZE_GB = 1;

const detached = (v: VolumeState): boolean => v.existence === 'live' && v.attachedTo === null;

function volumeAt(model: ExploreModel, index: number, accept: (v: VolumeState) => boolean): VolumeState | undefined {
  const pool = volumesOf(model).volumes.filter(accept);
  return pool.length ? pool[index % pool.length] : undefined;
}

/** Clean-up of a volume: detached first when it may be attached (a volume is removed before its VPS, newest first). */
function trackVolume(target: SequenceTarget, volume: VolumeState): void {
  target.track(volumePath(volume.id), async () => {
    if (volume.attachedTo !== null) await target.send('POST', `${volumePath(volume.id)}/detach`);
    const res = await target.send('DELETE', volumePath(volume.id));
    if (!ok(res) && res.status !== 404)
      target.warn(`could not delete the volume ${volume.id} (${res.status}); cloudcheck sweep removes cc- leftovers`);
  });
}

/** At most this many volumes a sequence: enough for the interplay, little for the account. */
const MAX_VOLUMES = 3;
/** At most this many instances to attach to a sequence (a new one after the first is deleted, or refused deletion). */
const MAX_HOSTS = 2;

/** POST /storage/volumes of 1 GB in the catalogue's first region; tracked for clean-up at once. */
async function createVolume(
  model: ExploreModel,
  target: SequenceTarget,
  label: string,
  tag: string,
): Promise<VolumeState> {
  const name = target.resourceName(label);
  const region = catalogueOf(target).regions[0]!;
  const tags = tagsOf(tag);
  const res = await target.send('POST', '/storage/volumes', { json: { name, size: SIZE_GB, region, tags } });
  expectOk(res, 'VOL-CRT-002', `POST /storage/volumes (size ${SIZE_GB}, region ${region})`);
  const id = volumeOf(res.body)?.id;
  if (typeof id !== 'string')
    throw new ModelViolation('VOL-FLD-001', 'POST /storage/volumes', 'the created volume with its id', short(res.text));
  const volume: VolumeState = {
    id,
    name,
    tags,
    region,
    existence: 'live',
    attachedTo: null,
    attachedBecause: 'VOL-FLD-002',
  };
  volumesOf(model).volumes.push(volume);
  trackVolume(target, volume);
  return volume;
}

class CreateVolume implements ExploreCommand {
  constructor(
    readonly label: string,
    readonly tag: string,
  ) {}
  get record(): StepRecord {
    return { op: 'create-volume', args: { label: this.label, tag: this.tag } };
  }
  check(model: ExploreModel): boolean {
    return volumesOf(model).volumes.length < MAX_VOLUMES;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      await createVolume(model, target, this.label, this.tag);
    });
  }
  toString(): string {
    return `create-volume ${this.label} tags=${JSON.stringify(tagsOf(this.tag))}`;
  }
}

/** What one record (from GET or the list) must say of a volume the model knows; `where` names the answer. */
function checkRecord(volume: VolumeState, got: Json, where: string): void {
  const tags = stringsOf(got.tags);
  if (
    got.name !== volume.name ||
    got.size !== SIZE_GB ||
    got.region !== volume.region ||
    !tags ||
    !sameTags(tags, volume.tags)
  ) {
    const expected = `name ${volume.name}, size ${SIZE_GB}, region ${volume.region}, tags ${JSON.stringify(volume.tags)}`;
    throw new ModelViolation(
      'VOL-CRT-004',
      where,
      expected,
      short(JSON.stringify({ name: got.name, size: got.size, region: got.region, tags: got.tags })),
    );
  }
  if (volume.attachedTo !== undefined && got.attached_to !== volume.attachedTo) {
    const why = {
      'VOL-FLD-002': 'null: never attached',
      'VOL-ATT-001': 'the VPS of the last attach',
      'VOL-DET-001': 'null: detached',
    }[volume.attachedBecause];
    throw new ModelViolation(
      volume.attachedBecause,
      where,
      `attached_to ${JSON.stringify(volume.attachedTo)} (${why})`,
      JSON.stringify(got.attached_to),
    );
  }
}

class GetVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return volumeAt(model, this.index, (v) => v.existence !== 'unknown') !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      const volume = volumeAt(model, this.index, (v) => v.existence !== 'unknown')!;
      const where = `GET /storage/volumes/{id} of ${volume.name}`;
      let res = await target.send('GET', volumePath(volume.id));
      if (volume.existence === 'deleted') {
        const answers = async (): Promise<boolean> => ok((res = await target.send('GET', volumePath(volume.id))));
        if (ok(res) && (await stillThere(target, answers)))
          throw new ModelViolation(
            'VOL-DEL-001',
            `${where} after its DELETE`,
            'no success',
            `${res.status} ${short(res.text)}`,
          );
        return;
      }
      expectOk(res, 'VOL-GET-001', where);
      const got = volumeOf(res.body);
      if (got?.id !== volume.id)
        throw new ModelViolation('VOL-GET-001', where, `the volume ${volume.id}`, short(res.text));
      checkRecord(volume, got, where);
    });
  }
  toString(): string {
    return `get-volume #${this.index}`;
  }
}

/** The sequence's instance to attach to, created on first need (in the volumes' region; VOL-ATT-002 asks for the same one). */
async function hostFor(model: ExploreModel, target: SequenceTarget): Promise<HostState> {
  const live = volumesOf(model).hosts.find((h) => h.existence === 'live');
  if (live) return live;
  const name = target.resourceName('host');
  const { id } = await createVps(target, name, catalogueOf(target).regions[0]!, []);
  const host: HostState = { id, name, existence: 'live' };
  volumesOf(model).hosts.push(host);
  return host;
}

/**
 * Attaches a detached volume to the sequence's VPS. Both are created on need (a volume when the
 * sequence has no detached one), so that attach, detach and the listings by attachment meet in a
 * few steps.
 */
class AttachVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'attach-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    const { volumes, hosts } = volumesOf(model);
    const host = hosts.some((h) => h.existence === 'live') || hosts.length < MAX_HOSTS;
    return host && (volumeAt(model, this.index, detached) !== undefined || volumes.length < MAX_VOLUMES);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      const volume = volumeAt(model, this.index, detached) ?? (await createVolume(model, target, 'd0', ''));
      const host = await hostFor(model, target);
      const attach = (): ReturnType<SequenceTarget['send']> =>
        target.send('POST', `${volumePath(volume.id)}/attach`, { json: { vps_id: host.id } });
      let res = await attach();
      if (!ok(res)) {
        await waitUntilBooted(target, host.id);
        res = await attach();
      }
      volume.attachedTo = ok(res) ? host.id : undefined;
      volume.attachedBecause = 'VOL-ATT-001';
      // Tracked again, so newest: the clean-up detaches and removes it before its VPS.
      trackVolume(target, volume);
    });
  }
  toString(): string {
    return `attach-volume #${this.index}`;
  }
}

class DetachVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'detach-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return volumeAt(model, this.index, (v) => v.existence === 'live' && typeof v.attachedTo === 'string') !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      const volume = volumeAt(model, this.index, (v) => v.existence === 'live' && typeof v.attachedTo === 'string')!;
      // No body: the specification's request is "none".
      const res = await target.send('POST', `${volumePath(volume.id)}/detach`);
      volume.attachedTo = ok(res) ? null : undefined;
      volume.attachedBecause = 'VOL-DET-001';
    });
  }
  toString(): string {
    return `detach-volume #${this.index}`;
  }
}

/**
 * Deletes a detached volume. Attached ones are left alone: whether they may be deleted is not
 * shown, so a refusal would tell nothing and leave the volume unknown for the rest of the sequence.
 */
class DeleteVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'delete-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return volumeAt(model, this.index, detached) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      const volume = volumeAt(model, this.index, detached)!;
      const res = await target.send('DELETE', volumePath(volume.id));
      // A refusal (a volume in a state the specification does not show) is no finding.
      volume.existence = ok(res) ? 'deleted' : 'unknown';
      if (ok(res)) target.untrack(volumePath(volume.id));
    });
  }
  toString(): string {
    return `delete-volume #${this.index}`;
  }
}

/** DELETE of the sequence's VPS, volumes attached or not: it is gone (VPS-DEL-001); what becomes of its volumes is not shown. */
class DeleteHost implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'delete-volume-vps', args: {} };
  }
  check(model: ExploreModel): boolean {
    return volumesOf(model).hosts.some((h) => h.existence === 'live');
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      const host = volumesOf(model).hosts.find((h) => h.existence === 'live')!;
      // Refusing while a volume is attached (or while it boots) is allowed: the instance is then left alone.
      if (!(await deleteVps(target, host))) return;
      for (const volume of volumesOf(model).volumes) {
        if (volume.attachedTo !== null && volume.existence === 'live') {
          volume.attachedTo = undefined;
          volume.existence = 'unknown';
        }
      }
      let got: ApiResponse | undefined;
      const answers = async (): Promise<boolean> => ok((got = await target.send('GET', vpsPath(host.id))));
      if (await stillThere(target, answers))
        throw new ModelViolation(
          'VPS-DEL-001',
          `GET /vps/{id} of ${host.name} after its DELETE (volumes were attached to it)`,
          'no success',
          `${got!.status} ${short(got!.text)}`,
        );
    });
  }
  toString(): string {
    return 'delete-volume-vps';
  }
}

type VolumeFilter = 'none' | 'attached' | 'unattached' | 'region';
const LIST_ATTEMPTS = 3;

class ListVolumes implements ExploreCommand {
  constructor(
    readonly filter: VolumeFilter,
    readonly region: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-volumes', args: { filter: this.filter, region: this.region } };
  }
  check(model: ExploreModel): boolean {
    return volumesOf(model).volumes.length > 0;
  }
  private query(target: SequenceTarget): Record<string, string> {
    const regions = catalogueOf(target).regions;
    return {
      none: {},
      attached: { attached: 'true' },
      unattached: { attached: 'false' },
      region: { region: regions[this.region % regions.length]! },
    }[this.filter];
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumes, this, target, async () => {
      // A deleted volume still listed is listed again a few times first: deletion may take a moment on a real platform.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.list(model, target);
        } catch (error) {
          if (!(error instanceof ModelViolation) || error.requirement !== 'VOL-DEL-001' || attempt >= LIST_ATTEMPTS)
            throw error;
          await target.pause(250 * attempt);
        }
      }
    });
  }
  private async list(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const query = this.query(target);
    const where = `GET /storage/volumes ${JSON.stringify(query)}`;
    const res = await target.send('GET', '/storage/volumes', { query });
    expectOk(res, this.filter === 'none' ? 'VOL-LIST-001' : 'VOL-LIST-002', where);
    const items = (listOf(res.body, 'volumes') ?? []).map((v): Json => (isObject(v) ? v : {}));
    const stray = items.find((v) => !this.matches(v, query));
    if (stray)
      throw new ModelViolation(
        'VOL-LIST-002',
        where,
        `only volumes matching ${JSON.stringify(query)}`,
        short(JSON.stringify(stray)),
      );
    for (const volume of volumesOf(model).volumes) this.checkVolume(volume, items, where);
  }
  /** Whether a listed record matches the filter by its own fields (a missing attached_to is VOL-FLD-002's business, not the filter's). */
  private matches(v: Json, query: Record<string, string>): boolean {
    if (query.region !== undefined) return v.region === query.region;
    if (query.attached === 'true') return v.attached_to !== null;
    if (query.attached === 'false') return typeof v.attached_to !== 'string';
    return true;
  }
  private checkVolume(volume: VolumeState, items: Json[], where: string): void {
    const item = items.find((v) => v.id === volume.id);
    if (volume.existence === 'deleted' && item)
      throw new ModelViolation('VOL-DEL-001', where, `the deleted ${volume.name} not listed`, 'listed');
    if (volume.existence !== 'live') return;
    if (this.filter === 'none' && !item)
      throw new ModelViolation('VOL-LIST-001', where, `${volume.name} (${volume.id}) listed`, 'not listed');
    // Listed under `attached` while the model knows it is not (or the reverse), whatever the record says.
    const attached = this.filter === 'attached' ? true : this.filter === 'unattached' ? false : undefined;
    if (item && attached !== undefined && volume.attachedTo !== undefined && (volume.attachedTo !== null) !== attached)
      throw new ModelViolation(
        'VOL-LIST-002',
        where,
        `${volume.name} left out (attached_to ${JSON.stringify(volume.attachedTo)})`,
        'listed',
      );
    if (item) checkRecord(volume, item, where);
  }
  toString(): string {
    return `list-volumes ${this.filter}${this.filter === 'region' ? `#${this.region}` : ''}`;
  }
}

const LABELS = ['d1', 'd2', 'd3'];
const TAGS = ['', 'data', 'logs'];

export const volumes: ExploreFamily = {
  name: 'volumes',
  summary: 'creates, gets, attaches, detaches and deletes volumes; filtered lists; deletes the VPS under them',
  // The instances it attaches to.
  changes: ['vps'],
  rules: {
    'VOL-CRT-002': 'POST /storage/volumes accepts a size of 1 GB',
    'VOL-FLD-001': 'a created volume has an id',
    'VOL-CRT-004': 'the volume reports the name, size, region and tags it was created with, alone and in the list',
    'VOL-FLD-002': 'a volume never attached reports attached_to null',
    'VOL-GET-001': 'GET /storage/volumes/{id} of a volume of the sequence answers success with it',
    'VOL-ATT-001': 'after a successful attach, the volume reports attached_to the VPS',
    'VOL-DET-001': 'after a successful detach, the volume reports attached_to null',
    'VOL-DEL-001': 'a deleted volume is no longer found nor listed',
    'VOL-LIST-001': 'GET /storage/volumes lists every volume the sequence created and did not delete',
    'VOL-LIST-002':
      'GET /storage/volumes with attached or region lists only matching volumes (by their fields and by the model)',
    'VPS-CRT-006': 'POST /vps (the VPS to attach to) accepts the target’s own catalogue',
    'VPS-CRT-003': 'an accepted POST /vps answers the created VPS with its id',
    'VPS-DEL-001': 'a VPS deleted with volumes attached is no longer found',
  },
  rulesOf: {
    'create-volume': ['VOL-CRT-002', 'VOL-FLD-001'],
    'get-volume': ['VOL-GET-001', 'VOL-CRT-004', 'VOL-FLD-002', 'VOL-ATT-001', 'VOL-DET-001', 'VOL-DEL-001'],
    'attach-volume': ['VOL-CRT-002', 'VOL-FLD-001', 'VPS-CRT-006', 'VPS-CRT-003'],
    'detach-volume': [],
    'delete-volume': [],
    'delete-volume-vps': ['VPS-DEL-001'],
    'list-volumes': [
      'VOL-LIST-001',
      'VOL-LIST-002',
      'VOL-CRT-004',
      'VOL-FLD-002',
      'VOL-ATT-001',
      'VOL-DET-001',
      'VOL-DEL-001',
    ],
  },
  arbitraries() {
    const index = fc.nat({ max: 2 });
    const create = fc
      .tuple(fc.constantFrom(...LABELS), fc.constantFrom(...TAGS))
      .map(([l, t]): ExploreCommand => new CreateVolume(l, t));
    const attach = index.map((i): ExploreCommand => new AttachVolume(i));
    const detach = index.map((i): ExploreCommand => new DetachVolume(i));
    const byAttachment = fc
      .constantFrom<VolumeFilter>('attached', 'attached', 'unattached')
      .map((f): ExploreCommand => new ListVolumes(f, 0));
    const other = fc
      .tuple(fc.constantFrom<VolumeFilter>('none', 'region'), fc.nat({ max: 1 }))
      .map(([f, r]): ExploreCommand => new ListVolumes(f, r));
    // fc.commands draws its arbitraries evenly, so weight is repetition: attach, detach and the
    // listings by attachment weigh most, as the interplay needs a volume attached and detached.
    return [
      create,
      attach,
      attach,
      attach,
      detach,
      detach,
      detach,
      index.map((i) => new GetVolume(i)),
      index.map((i) => new DeleteVolume(i)),
      fc.constant(new DeleteHost()),
      byAttachment,
      byAttachment,
      byAttachment,
      other,
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-volume') return new CreateVolume(argString(a.label), argString(a.tag));
    if (s.op === 'get-volume') return new GetVolume(argNumber(a.index));
    if (s.op === 'attach-volume') return new AttachVolume(argNumber(a.index));
    if (s.op === 'detach-volume') return new DetachVolume(argNumber(a.index));
    if (s.op === 'delete-volume') return new DeleteVolume(argNumber(a.index));
    if (s.op === 'delete-volume-vps') return new DeleteHost();
    if (s.op === 'list-volumes') {
      const filter = argString(a.filter);
      return new ListVolumes(
        filter === 'attached' || filter === 'unattached' || filter === 'region' ? filter : 'none',
        argNumber(a.region),
      );
    }
    return undefined;
  },
  async setUp(target: SequenceTarget) {
    await vpsCatalogue(target);
  },
};
