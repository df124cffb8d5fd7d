/**
 * Snapshots, as two families whose operations do not interplay (each alone draws its sequences
 * denser): `volume-snapshots`, volumes created (1 or 2 GB) and grown, volume snapshots taken and
 * listed (all, and by `volume_id`), volumes restored from them (without a size, with the snapshot's
 * size, one more, one less); `vps-snapshots`, VPS snapshots taken with the snapshot action on an
 * instance of the sequence's own, listed and deleted. Commands aim at the sequence's volumes and
 * snapshots by position, taken modulo how many there are when the step runs.
 *
 * What the model knows is compared wherever it is shown: a volume's size after a resize (its GET),
 * a restored volume's name and size (the restore's answer when it holds the volume, its GET), a
 * volume snapshot in every listing that may hold it (and in none filtered by another volume), a
 * snapshot's size where its record shows one; a VPS snapshot, once found by the name its action
 * gave, in every later GET /snapshots until it is deleted, and in none after. Lists may lag: one
 * that differs is read again for a moment first.
 *
 * The size of a volume snapshot is what VOL-RST-002 measures a restore by, and its record is not
 * shown: the model takes it from a record that carries an integer `size`, and otherwise asks only
 * what holds whatever it is (a restore without a size is accepted). That it is its volume's size
 * at the time, and that a restore without a size makes a volume of it, is a SHOULD convention
 * (VOL-SNAP-003), as is a snapshot action's snapshot appearing in GET /snapshots with its name
 * (VPS-ACT-007): deviations are reported without ending the exploration.
 *
 * Where the specification is silent the model accepts every choice: refused resizes, snapshots
 * and actions (the volume or VPS may be in a state that does not allow it: what it asked is then
 * unknown), success codes and wrappers, a snapshot's fields other than its id. Volume snapshots
 * have no delete in the API: each sequence takes two at most, and the tear-down says how many
 * remain (their names carry the run prefix; `cloudcheck sweep` lists them).
 */
import fc from 'fast-check';
import { isObject, listOf, resourceOf } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import { argNumber, argString, compareSettled, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget, SequenceTarget } from '../target.ts';
import { catalogueOf, createVps, volumeOf, volumePath, vpsCatalogue, vpsPath, waitUntilBooted } from './vps-common.ts';

interface SnapVolume {
  id: string;
  name: string;
  /** Created by the sequence, or restored from one of its snapshots. */
  origin: 'created' | 'restored';
  /** As the model knows it (undefined after a refused or unclear change), and why it is that. */
  size: number | undefined;
  sizeBecause: 'VOL-CRT-004' | 'VOL-RSZ-002' | 'VOL-RST-001' | 'VOL-SNAP-003';
}

interface VolumeSnapshot {
  id: string;
  volumeId: string;
  /** Its volume's size when it was taken (VOL-SNAP-003), if the model knew it. */
  volumeSize: number | undefined;
  /** The size its record showed (an integer `size`), the measure of a restore (VOL-RST-002). */
  size: number | undefined;
  /** Volumes restored from it. */
  restored: string[];
}

interface VpsSnapshot {
  name: string;
  /** Found in GET /snapshots by its name: from then on the model holds the listing to it. */
  id: string | null;
  deleted: boolean;
}

class SnapshotsState {
  readonly volumes: SnapVolume[] = [];
  readonly snapshots: VolumeSnapshot[] = [];
  /** The instance VPS snapshots are taken of, created on first need. */
  host: string | undefined = undefined;
  readonly vpsSnapshots: VpsSnapshot[] = [];
}

const stateOf = (model: ExploreModel): SnapshotsState => model.part('snapshots', () => new SnapshotsState());
const snapshotOf = (body: unknown): Json | undefined => resourceOf(body, 'snapshot');
const integer = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const at = <T>(list: readonly T[], index: number): T | undefined =>
  list.length ? list[index % list.length] : undefined;

/** Volume snapshots made, by exploration (the API cannot delete them: the tear-down says how many remain). */
const madeSnapshots = new WeakMap<ExploreTarget, number>();

const MAX_VOLUMES = 2;
const MAX_RESTORES = 3;
const MAX_VOLUME_SNAPSHOTS = 2;
const MAX_VPS_SNAPSHOTS = 2;
/** Sizes stay small: a snapshot and its restores cost storage on a real cloud. */
const MAX_SIZE = 4;

/** The deletion of a volume of the sequence at its end. */
function trackVolume(target: SequenceTarget, id: string): void {
  target.track(volumePath(id), async () => {
    const res = await target.send('DELETE', volumePath(id));
    if (!ok(res) && res.status !== 404)
      target.warn(`could not delete the volume ${id} (${res.status}); cloudcheck sweep removes cc- leftovers`);
  });
}

class CreateVolume implements ExploreCommand {
  constructor(
    readonly label: string,
    readonly size: number,
  ) {}
  get record(): StepRecord {
    return { op: 'create-snap-volume', args: { label: this.label, size: this.size } };
  }
  check(model: ExploreModel): boolean {
    return this.size >= 1 && this.size <= MAX_SIZE && created(model).length < MAX_VOLUMES;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, async () => {
      await createVolume(model, target, this.label, this.size);
    });
  }
  toString(): string {
    return `create-snap-volume ${this.label} ${this.size} GB`;
  }
}

/** POST /storage/volumes in the catalogue's first region; creating volumes is the volumes family's to judge, so a refusal is no finding (there is nothing to snapshot). */
async function createVolume(
  model: ExploreModel,
  target: SequenceTarget,
  label: string,
  size: number,
): Promise<SnapVolume | undefined> {
  const name = target.resourceName(label);
  const region = catalogueOf(target).regions[0]!;
  const res = await target.send('POST', '/storage/volumes', { json: { name, size, region } });
  const id = ok(res) ? volumeOf(res.body)?.id : undefined;
  if (typeof id !== 'string') return undefined;
  trackVolume(target, id);
  const volume: SnapVolume = { id, name, origin: 'created', size, sizeBecause: 'VOL-CRT-004' };
  stateOf(model).volumes.push(volume);
  return volume;
}

const created = (model: ExploreModel): SnapVolume[] => stateOf(model).volumes.filter((v) => v.origin === 'created');

/** The volume at `index` among the sequence's (of 1 or 2 GB, by index, created first when it has none): steps reach their interplay sooner. */
async function volumeFor(model: ExploreModel, target: SequenceTarget, index: number): Promise<SnapVolume | undefined> {
  return at(stateOf(model).volumes, index) ?? createVolume(model, target, 'v0', 1 + (index % 2));
}

/** GET of a volume of the sequence: found, with the name it has and the size the model knows (VOL-RSZ-002, VOL-RST-001, VOL-SNAP-003). */
async function readVolume(target: SequenceTarget, volume: SnapVolume, when: string): Promise<void> {
  const where = `GET /storage/volumes/{id} of ${volume.name}${when}`;
  const res = await target.send('GET', volumePath(volume.id));
  expectOk(res, volume.origin === 'created' ? 'VOL-GET-001' : 'VOL-RST-001', where);
  checkVolume(target, volume, volumeOf(res.body) ?? {}, where);
}

/** A record of a volume of the sequence: its name, and its size when the model knows it. */
function checkVolume(target: SequenceTarget, volume: SnapVolume, got: Json, where: string): void {
  if (got.name !== volume.name)
    throw new ModelViolation(
      volume.origin === 'created' ? 'VOL-GET-001' : 'VOL-RST-001',
      where,
      `name "${volume.name}"`,
      JSON.stringify(got.name ?? null),
    );
  if (volume.size === undefined || got.size === volume.size) return;
  const why = {
    'VOL-CRT-004': 'as created',
    'VOL-RSZ-002': 'the size of its last resize',
    'VOL-RST-001': 'the size its restore asked for',
    'VOL-SNAP-003': "a restore without a size: the snapshot's",
  }[volume.sizeBecause];
  const violation = new ModelViolation(
    volume.sizeBecause,
    where,
    `size ${volume.size} (${why})`,
    JSON.stringify(got.size ?? null),
  );
  if (volume.sizeBecause === 'VOL-SNAP-003') target.deviation(violation);
  else throw violation;
}

class ResizeVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'resize-snap-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return growable(model).length > 0 || stateOf(model).volumes.length === 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, async () => {
      const volume = at(growable(model), this.index) ?? (await volumeFor(model, target, this.index));
      if (volume?.size === undefined || volume.size >= MAX_SIZE) return;
      const size = volume.size + 1;
      const res = await target.send('POST', `${volumePath(volume.id)}/resize`, { json: { size } });
      // A refusal (a state the specification does not show) leaves the size unknown.
      if (!ok(res)) {
        volume.size = undefined;
        return;
      }
      volume.size = size;
      volume.sizeBecause = 'VOL-RSZ-002';
      await readVolume(target, volume, ' after its resize');
    });
  }
  toString(): string {
    return `resize-snap-volume #${this.index}`;
  }
}

const growable = (model: ExploreModel): SnapVolume[] =>
  stateOf(model).volumes.filter((v) => v.size !== undefined && v.size < MAX_SIZE);

class SnapshotVolume implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly label: string,
  ) {}
  get record(): StepRecord {
    return { op: 'snapshot-volume', args: { index: this.index, label: this.label } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).snapshots.length < MAX_VOLUME_SNAPSHOTS;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, async () => {
      const volume = await volumeFor(model, target, this.index);
      if (volume) await snapshotVolume(model, target, volume, this.label);
    });
  }
  toString(): string {
    return `snapshot-volume #${this.index} ${this.label}`;
  }
}

/** POST /storage/snapshots of a volume of the sequence; its answer is not shown: without an id the model cannot find the snapshot again, and asks nothing of it. */
async function snapshotVolume(
  model: ExploreModel,
  target: SequenceTarget,
  volume: SnapVolume,
  label: string,
): Promise<VolumeSnapshot | undefined> {
  const res = await target.send('POST', '/storage/snapshots', {
    json: { volume_id: volume.id, name: target.resourceName(label) },
  });
  if (ok(res)) madeSnapshots.set(target.exploration, (madeSnapshots.get(target.exploration) ?? 0) + 1);
  const record = ok(res) ? snapshotOf(res.body) : undefined;
  if (typeof record?.id !== 'string') return undefined;
  const snapshot: VolumeSnapshot = {
    id: record.id,
    volumeId: volume.id,
    volumeSize: volume.size,
    size: undefined,
    restored: [],
  };
  stateOf(model).snapshots.push(snapshot);
  checkSnapshotSize(target, snapshot, record, 'POST /storage/snapshots');
  return snapshot;
}

/** A snapshot record that shows a size: its volume's size at the time (a SHOULD convention); the model takes it as the snapshot's. */
function checkSnapshotSize(target: SequenceTarget, snapshot: VolumeSnapshot, record: Json, where: string): void {
  if (!integer(record.size)) return;
  snapshot.size ??= record.size;
  if (snapshot.volumeSize !== undefined && record.size !== snapshot.volumeSize)
    target.deviation(
      new ModelViolation(
        'VOL-SNAP-003',
        where,
        `size ${snapshot.volumeSize} (its volume's when it was taken)`,
        JSON.stringify(record.size),
      ),
    );
}

type SnapshotFilter = 'none' | 'volume';

/** GET /storage/snapshots, alone or with `volume_id` of a volume of the sequence: its snapshots listed, and only those of that volume. */
class ListVolumeSnapshots implements ExploreCommand {
  constructor(
    readonly filter: SnapshotFilter,
    readonly index: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-volume-snapshots', args: { filter: this.filter, index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).snapshots.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, () => compareSettled(target, () => this.compare(model, target)));
  }
  private async compare(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const state = stateOf(model);
    const volume = this.filter === 'volume' ? at(state.volumes, this.index) : undefined;
    const query: Record<string, string> = volume ? { volume_id: volume.id } : {};
    const where = `GET /storage/snapshots ${JSON.stringify(query)}`;
    const res = await target.send('GET', '/storage/snapshots', { query });
    expectOk(res, 'VOL-SNAP-002', where);
    const listed = (listOf(res.body, 'snapshots') ?? []).map((s) => (isObject(s) ? s : {}));
    for (const snapshot of state.snapshots) {
      const entry = listed.find((s) => s.id === snapshot.id);
      const matches = !volume || snapshot.volumeId === volume.id;
      if (matches && !entry)
        throw new ModelViolation('VOL-SNAP-002', where, `the snapshot ${snapshot.id} listed`, 'not listed');
      if (volume && !matches && entry)
        throw new ModelViolation(
          'VOL-SNAP-002',
          where,
          `only snapshots of ${volume.name}`,
          `the snapshot ${snapshot.id} of another volume of the sequence`,
        );
      if (entry) checkSnapshotSize(target, snapshot, entry, `the entry of ${snapshot.id} in ${where}`);
    }
  }
  toString(): string {
    return `list-volume-snapshots ${this.filter}${this.filter === 'volume' ? ` #${this.index}` : ''}`;
  }
}

type RestoreSize = 'none' | 'equal' | 'larger' | 'smaller';

/**
 * POST /storage/volumes/restore of a snapshot of the sequence. Without a size, and with the
 * snapshot's size or more, it makes a new volume (VOL-RST-001, VOL-RST-002); with less, it is
 * refused (VOL-RST-002). Sizes are asked only when the model knows the snapshot's.
 */
class RestoreVolume implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly size: RestoreSize,
    readonly label: string,
  ) {}
  get record(): StepRecord {
    return { op: 'restore-volume', args: { index: this.index, size: this.size, label: this.label } };
  }
  check(model: ExploreModel): boolean {
    const state = stateOf(model);
    return state.volumes.filter((v) => v.origin === 'restored').length < MAX_RESTORES;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, async () => {
      const state = stateOf(model);
      const source = state.snapshots.length ? undefined : await volumeFor(model, target, this.index);
      const snapshot =
        at(state.snapshots, this.index) ?? (source && (await snapshotVolume(model, target, source, 's0')));
      // A size is asked only when the model knows the snapshot's (a smaller one only when there is one).
      if (!snapshot || (this.size !== 'none' && (snapshot.size ?? 1) <= (this.size === 'smaller' ? 1 : 0))) return;
      if (this.size !== 'none' && snapshot.size === undefined) return;
      const name = target.resourceName(this.label);
      const size = this.size === 'none' ? undefined : snapshot.size! + { equal: 0, larger: 1, smaller: -1 }[this.size];
      const where = `POST /storage/volumes/restore of ${snapshot.id}${size === undefined ? '' : ` at ${size} GB`} (the snapshot ${snapshot.size === undefined ? 'of unknown size' : `of ${snapshot.size} GB`})`;
      const res = await target.send('POST', '/storage/volumes/restore', {
        json: { snapshot_id: snapshot.id, name, ...(size !== undefined && { size }) },
      });
      if (this.size === 'smaller') {
        if (ok(res)) {
          const id = volumeOf(res.body)?.id;
          if (typeof id === 'string') trackVolume(target, id);
          throw new ModelViolation(
            'VOL-RST-002',
            where,
            'a refusal: smaller than the snapshot',
            `${res.status} ${short(res.text)}`,
          );
        }
        return;
      }
      expectOk(res, size === undefined ? 'VOL-RST-001' : 'VOL-RST-002', where);
      const record = volumeOf(res.body);
      const id = record?.id;
      // Its answer is not shown: without an id the model cannot find the new volume, and asks nothing of it.
      if (typeof id !== 'string') return;
      const known = state.volumes.find((v) => v.id === id);
      if (!known) trackVolume(target, id);
      if (known || id === snapshot.volumeId)
        throw new ModelViolation(
          'VOL-RST-001',
          where,
          'a new volume (an id of its own)',
          `the id ${id} of ${known ? known.name : "the snapshot's volume"}`,
        );
      const volume: SnapVolume = {
        id,
        name,
        origin: 'restored',
        size: size ?? snapshot.volumeSize,
        sizeBecause: size === undefined ? 'VOL-SNAP-003' : 'VOL-RST-001',
      };
      state.volumes.push(volume);
      snapshot.restored.push(id);
      if (record!.name !== undefined) checkVolume(target, volume, record!, where);
      await readVolume(target, volume, ' after its restore');
    });
  }
  toString(): string {
    return `restore-volume #${this.index} size=${this.size} ${this.label}`;
  }
}

class GetVolume implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-snap-volume', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).volumes.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(volumeSnapshots, this, target, () => readVolume(target, at(stateOf(model).volumes, this.index)!, ''));
  }
  toString(): string {
    return `get-snap-volume #${this.index}`;
  }
}

/** The instance VPS snapshots are taken of: created on first need and waited for a few seconds (a snapshot of one still booting may be refused). */
async function hostOf(state: SnapshotsState, target: SequenceTarget): Promise<string> {
  if (state.host !== undefined) return state.host;
  const { id } = await createVps(target, target.resourceName('snap-host'), catalogueOf(target).regions[0]!, []);
  await waitUntilBooted(target, id);
  state.host = id;
  return id;
}

/** GET /snapshots: its entries, or a finding on SNAP-LIST-001 when it answers none. */
async function listedVpsSnapshots(target: SequenceTarget, where: string): Promise<Json[]> {
  const res = await target.send('GET', '/snapshots');
  expectOk(res, 'SNAP-LIST-001', where);
  return (listOf(res.body, 'snapshots') ?? []).map((s) => (isObject(s) ? s : {}));
}

/**
 * A snapshot action on the family's instance; the snapshot it made is looked up by its name in
 * GET /snapshots (VPS-ACT-007, a SHOULD convention). A refused action is no finding (whether an
 * instance may be snapshotted in its state is not shown).
 */
class SnapshotVps implements ExploreCommand {
  constructor(readonly label: string) {}
  get record(): StepRecord {
    return { op: 'snapshot-vps', args: { label: this.label } };
  }
  check(model: ExploreModel): boolean {
    const state = stateOf(model);
    return state.vpsSnapshots.length < MAX_VPS_SNAPSHOTS;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(vpsSnapshots, this, target, async () => {
      const state = stateOf(model);
      const host = await hostOf(state, target);
      const name = target.resourceName(`${this.label}-${state.vpsSnapshots.length}`);
      const res = await target.send('POST', `${vpsPath(host)}/actions`, { json: { type: 'snapshot', name } });
      if (!ok(res)) return;
      const snapshot: VpsSnapshot = { name, id: null, deleted: false };
      state.vpsSnapshots.push(snapshot);
      await compareSettled(target, async () => {
        const where = `GET /snapshots after the snapshot action "${name}"`;
        const listed = await listedVpsSnapshots(target, where);
        checkVpsSnapshots(model, listed, where);
        const entry = listed.find((s) => s.name === name && typeof s.id === 'string');
        if (!entry) {
          target.deviation(new ModelViolation('VPS-ACT-007', where, `a snapshot named ${name}`, 'none'));
          return;
        }
        snapshot.id = entry.id as string;
        const id = snapshot.id;
        target.track(`/snapshots/${id}`, () => target.send('DELETE', `/snapshots/${encodeURIComponent(id)}`));
      });
    });
  }
  toString(): string {
    return `snapshot-vps ${this.label}`;
  }
}

/** A listing of GET /snapshots: every VPS snapshot of the sequence found and not deleted is in it (SNAP-LIST-001), none deleted is (SNAP-DEL-001). */
function checkVpsSnapshots(model: ExploreModel, listed: readonly Json[], where: string): void {
  const ids = new Set(listed.map((s) => s.id));
  for (const snapshot of stateOf(model).vpsSnapshots.filter((s) => s.id !== null)) {
    if (!snapshot.deleted && !ids.has(snapshot.id))
      throw new ModelViolation('SNAP-LIST-001', where, `${snapshot.name} (${snapshot.id}) listed`, 'not listed');
    if (snapshot.deleted && ids.has(snapshot.id))
      throw new ModelViolation('SNAP-DEL-001', where, `the deleted ${snapshot.name} not listed`, 'listed');
  }
}

class ListVpsSnapshots implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-vps-snapshots', args: {} };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).vpsSnapshots.some((s) => s.id !== null);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(vpsSnapshots, this, target, () =>
      compareSettled(target, async () =>
        checkVpsSnapshots(model, await listedVpsSnapshots(target, 'GET /snapshots'), 'GET /snapshots'),
      ),
    );
  }
  toString(): string {
    return 'list-vps-snapshots';
  }
}

class DeleteVpsSnapshot implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'delete-vps-snapshot', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return live(model).length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(vpsSnapshots, this, target, async () => {
      const snapshot = at(live(model), this.index)!;
      const res = await target.send('DELETE', `/snapshots/${encodeURIComponent(snapshot.id!)}`);
      expectOk(res, 'SNAP-DEL-001', `DELETE /snapshots/{id} of ${snapshot.name}`);
      snapshot.deleted = true;
      target.untrack(`/snapshots/${snapshot.id}`);
      // "It no longer appears in GET /snapshots": read back at once.
      const where = `GET /snapshots after the DELETE of ${snapshot.name}`;
      await compareSettled(target, async () =>
        checkVpsSnapshots(model, await listedVpsSnapshots(target, where), where),
      );
    });
  }
  toString(): string {
    return `delete-vps-snapshot #${this.index}`;
  }
}

const live = (model: ExploreModel): VpsSnapshot[] =>
  stateOf(model).vpsSnapshots.filter((s) => s.id !== null && !s.deleted);

const LABELS = ['s1', 's2'];

export const volumeSnapshots: ExploreFamily = {
  name: 'volume-snapshots',
  summary: 'grows volumes, snapshots them, lists their snapshots, restores them at several sizes',
  rules: {
    'VOL-RSZ-002': 'after a resize, GET of the volume reports the new size',
    'VOL-SNAP-002':
      'GET /storage/snapshots lists every volume snapshot of the sequence; with volume_id, those of that volume and no other',
    'VOL-RST-001': 'a restore answers a new volume (an id of its own), found with the name and size asked',
    'VOL-RST-002': "a restore at the snapshot's size or more is accepted, one below it refused",
    'VOL-SNAP-003':
      "SHOULD: a snapshot's size is its volume's when it was taken, and a restore without a size makes a volume of it",
    'VOL-GET-001': 'GET /storage/volumes/{id} of a volume of the sequence answers it, with its name',
  },
  rulesOf: {
    'create-snap-volume': [],
    'resize-snap-volume': ['VOL-RSZ-002', 'VOL-GET-001'],
    'snapshot-volume': ['VOL-SNAP-003'],
    'list-volume-snapshots': ['VOL-SNAP-002', 'VOL-SNAP-003'],
    'restore-volume': ['VOL-RST-001', 'VOL-RST-002', 'VOL-SNAP-003'],
    'get-snap-volume': ['VOL-GET-001', 'VOL-RSZ-002', 'VOL-RST-001', 'VOL-SNAP-003'],
  },
  arbitraries() {
    const index = fc.nat({ max: 2 });
    const label = fc.constantFrom(...LABELS);
    const create = fc
      .tuple(fc.constantFrom('v1', 'v2'), fc.integer({ min: 1, max: 2 }))
      .map(([l, s]): ExploreCommand => new CreateVolume(l, s));
    const restore = fc
      .tuple(
        index,
        fc.constantFrom<RestoreSize>('none', 'equal', 'equal', 'larger', 'smaller'),
        fc.constantFrom('r1', 'r2'),
      )
      .map(([i, s, l]): ExploreCommand => new RestoreVolume(i, s, l));
    const list = fc
      .tuple(fc.constantFrom<SnapshotFilter>('none', 'volume', 'volume'), index)
      .map(([f, i]): ExploreCommand => new ListVolumeSnapshots(f, i));
    // fc.commands draws its arbitraries evenly, so weight is repetition: volumes and their
    // snapshots first (everything else needs them), restores and resizes where sizes meet.
    return [
      create,
      create,
      index.map((i): ExploreCommand => new ResizeVolume(i)),
      index.map((i): ExploreCommand => new ResizeVolume(i)),
      fc.tuple(index, label).map(([i, l]): ExploreCommand => new SnapshotVolume(i, l)),
      fc.tuple(index, label).map(([i, l]): ExploreCommand => new SnapshotVolume(i, l)),
      list,
      list,
      restore,
      restore,
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-snap-volume') return new CreateVolume(argString(a.label), argNumber(a.size));
    if (s.op === 'resize-snap-volume') return new ResizeVolume(argNumber(a.index));
    if (s.op === 'snapshot-volume') return new SnapshotVolume(argNumber(a.index), argString(a.label));
    if (s.op === 'list-volume-snapshots')
      return new ListVolumeSnapshots(argString(a.filter) === 'volume' ? 'volume' : 'none', argNumber(a.index));
    if (s.op === 'restore-volume') {
      const size = argString(a.size);
      return new RestoreVolume(
        argNumber(a.index),
        size === 'equal' || size === 'larger' || size === 'smaller' ? size : 'none',
        argString(a.label),
      );
    }
    if (s.op === 'get-snap-volume') return new GetVolume(argNumber(a.index));
    return undefined;
  },
  async setUp(target: SequenceTarget) {
    await vpsCatalogue(target);
  },
  async tearDown(target: SequenceTarget) {
    const made = madeSnapshots.get(target.exploration) ?? 0;
    if (made > 0)
      target.warn(
        `${made} volume snapshot(s) of the volume-snapshots family remain: the API cannot delete them (their names start with ${target.runPrefix}; cloudcheck sweep lists them)`,
      );
  },
};

export const vpsSnapshots: ExploreFamily = {
  name: 'vps-snapshots',
  summary: 'snapshots a VPS of its own by the snapshot action, lists and deletes its snapshots',
  // The instance VPS snapshots are taken of.
  changes: ['vps'],
  rules: {
    'SNAP-LIST-001': 'GET /snapshots lists every VPS snapshot of the sequence not deleted',
    'SNAP-DEL-001': 'DELETE /snapshots/{id} answers success, and the snapshot is no longer listed',
    'VPS-ACT-007': 'SHOULD: a snapshot action makes a snapshot GET /snapshots lists with the name given',
    'VPS-CRT-006': 'POST /vps (the instance snapshots are taken of) accepts the target’s own catalogue',
    'VPS-CRT-003': 'an accepted POST /vps answers the created VPS with its id',
  },
  rulesOf: {
    'snapshot-vps': ['VPS-ACT-007', 'VPS-CRT-006', 'VPS-CRT-003', 'SNAP-LIST-001', 'SNAP-DEL-001'],
    'list-vps-snapshots': ['SNAP-LIST-001', 'SNAP-DEL-001'],
    'delete-vps-snapshot': ['SNAP-DEL-001', 'SNAP-LIST-001'],
  },
  arbitraries() {
    const label = fc.constantFrom(...LABELS);
    return [
      label.map((l): ExploreCommand => new SnapshotVps(l)),
      label.map((l): ExploreCommand => new SnapshotVps(l)),
      fc.constant(new ListVpsSnapshots()),
      fc.nat({ max: 2 }).map((i): ExploreCommand => new DeleteVpsSnapshot(i)),
    ];
  },
  commandOf(s: StepRecord) {
    if (s.op === 'snapshot-vps') return new SnapshotVps(argString(s.args.label));
    if (s.op === 'list-vps-snapshots') return new ListVpsSnapshots();
    if (s.op === 'delete-vps-snapshot') return new DeleteVpsSnapshot(argNumber(s.args.index));
    return undefined;
  },
  async setUp(target: SequenceTarget) {
    await vpsCatalogue(target);
  },
};
