/**
 * Projects: create (with a region and a budget or without), update read back at once, get, delete,
 * the listing, and the resources of a project. Commands aim at the sequence's projects by
 * position, taken modulo how many there are when the step runs.
 *
 * What the model knows of a project (its name, description and region as sent, `active` at its
 * creation, and that `budget_limit` is input only) is compared wherever a project record is shown:
 * the creation's answer and the update's (when they hold the project), every GET, and its entry
 * in every listing (whose freshness is not shown: a listing that differs is read again for a
 * moment first). Not compared: `resource_count` and `monthly_cost` (what they count is not
 * shown), `status` after the creation (other states are not shown).
 *
 * How a resource joins a project is not shown either: a VPS created with `project_id` (the
 * reference server's extension, as the fixed flow uses it) joins it on targets that honour it.
 * The model learns that from the project's resources (a VPS listed there is the project's) and
 * asks, once the project is deleted, that every VPS it saw there is gone ("removes the project
 * and all its resources"). A target that refuses or ignores `project_id` leaves that unknown.
 */
import fc from 'fast-check';
import { isObject, listOf, resourceOf } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, compareSettled, expectOk, ok, short, step, stillThere } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { SequenceTarget } from '../target.ts';
import { catalogueOf, removeVps, vpsCatalogue, vpsOf, vpsPath } from './vps-common.ts';

interface ProjectVps {
  id: string;
  name: string;
  /** Seen among the project's resources: it is the project's, and goes with it. */
  joined: boolean;
}

interface ProjectState {
  /** The target's id, known once the create ran. */
  id: string;
  name: string;
  description: string;
  /** The region sent at creation (none: whatever the target reports is legal). */
  region: string | null;
  /** Deleted ones stay in the list, so commands can still aim at them by position. */
  deleted: boolean;
  /** Instances created with this project's id. */
  vps: ProjectVps[];
}

class ProjectsState {
  /** In creation order. */
  readonly projects: ProjectState[] = [];
}

const projectsOf = (model: ExploreModel): ProjectsState => model.part('projects', () => new ProjectsState());
const projectPath = (id: string): string => `/projects/${encodeURIComponent(id)}`;
/** A project record from a create, get or update answer (flat, under `project`, or under a generic envelope). */
const projectOf = (body: unknown): Json | undefined => resourceOf(body, 'project');
const listedProjects = (body: unknown): Json[] => (listOf(body, 'projects') ?? []).map((p) => (isObject(p) ? p : {}));

/**
 * A project record the model knows, wherever it is shown: name and description as last set
 * (PROJ-UPD-001), the region sent (PROJ-CRT-002), never `budget_limit` (PROJ-FLD-002).
 */
function checkRecord(project: ProjectState, got: Json, where: string): void {
  if ('budget_limit' in got)
    throw new ModelViolation(
      'PROJ-FLD-002',
      where,
      'no budget_limit (input only)',
      `budget_limit ${JSON.stringify(got.budget_limit)}`,
    );
  if (project.region !== null && got.region !== project.region)
    throw new ModelViolation(
      'PROJ-CRT-002',
      where,
      `region "${project.region}" (as created)`,
      JSON.stringify(got.region ?? null),
    );
  if (got.name !== project.name)
    throw new ModelViolation('PROJ-UPD-001', where, `name "${project.name}"`, JSON.stringify(got.name ?? null));
  if (got.description !== project.description)
    throw new ModelViolation(
      'PROJ-UPD-001',
      where,
      `description "${project.description}" (the last one set)`,
      JSON.stringify(got.description ?? null),
    );
}

/** The budgets a create or update may send (0: none); the record never shows one. */
const BUDGETS = [0, 0, 25, 50];

class CreateProject implements ExploreCommand {
  constructor(
    readonly label: string,
    /** Index into the catalogue's regions, or -1 for none. */
    readonly region: number,
    readonly budget: number,
  ) {}
  get record(): StepRecord {
    return { op: 'create-project', args: { label: this.label, region: this.region, budget: this.budget } };
  }
  /** A handful per sequence: enough for every interplay, little for the account. */
  check(model: ExploreModel): boolean {
    return projectsOf(model).projects.length < 4;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const name = target.resourceName(this.label);
      const description = `explore ${this.label}`;
      const regions = catalogueOf(target).regions;
      const region = this.region < 0 ? null : regions[this.region % regions.length]!;
      const res = await target.send('POST', '/projects', {
        json: {
          name,
          description,
          ...(region !== null && { region }),
          ...(this.budget > 0 && { budget_limit: this.budget }),
        },
      });
      expectOk(res, 'PROJ-LIST-001', 'POST /projects');
      const created = projectOf(res.body);
      const id = created?.id;
      if (typeof id !== 'string')
        throw new ModelViolation('PROJ-LIST-001', 'POST /projects', 'the created project with its id', short(res.text));
      target.trackPath(projectPath(id));
      const project: ProjectState = { id, name, description, region, deleted: false, vps: [] };
      projectsOf(model).projects.push(project);
      checkRecord(project, created!, 'POST /projects');
      // "A newly created project reports ... status active": its creation's answer is where it is new.
      if (created!.status !== 'active')
        throw new ModelViolation('PROJ-CRT-002', 'POST /projects', 'status "active"', JSON.stringify(created!.status));
    });
  }
  toString(): string {
    return `create-project ${this.label} region#${this.region} budget=${this.budget}`;
  }
}

/** Index into the sequence's projects, taken modulo how many there are when it runs. */
function projectAt(model: ExploreModel, index: number, live: boolean): ProjectState | undefined {
  const pool = live ? projectsOf(model).projects.filter((p) => !p.deleted) : projectsOf(model).projects;
  return pool.length ? pool[index % pool.length] : undefined;
}

/** GET /projects/{id} of a live project: that project, as the model knows it. */
async function readBack(target: SequenceTarget, project: ProjectState, when: string): Promise<void> {
  const where = `GET /projects/{id} of ${project.name}${when}`;
  const res = await target.send('GET', projectPath(project.id));
  expectOk(res, 'PROJ-GET-001', where);
  const got = projectOf(res.body);
  if (got?.id !== undefined && got.id !== project.id)
    throw new ModelViolation('PROJ-GET-001', where, `the project ${project.id}`, short(res.text));
  checkRecord(project, got ?? {}, where);
}

class UpdateProject implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly description: string,
    readonly budget: number = 0,
  ) {}
  get record(): StepRecord {
    return { op: 'update-project', args: { index: this.index, description: this.description, budget: this.budget } };
  }
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const change = { description: this.description, ...(this.budget > 0 && { budget_limit: this.budget }) };
      const res = await target.send('PUT', projectPath(project.id), { json: change });
      const where = `PUT /projects/{id} of ${project.name} ${JSON.stringify(change)}`;
      expectOk(res, 'PROJ-UPD-001', where);
      project.description = this.description;
      // "Answers with the updated project": when the answer holds the project, it is the updated one.
      const answered = projectOf(res.body);
      if (answered?.id === project.id) checkRecord(project, answered, where);
      // The requirement is about the GET that follows: read it back at once.
      await readBack(target, project, ' after its update');
    });
  }
  toString(): string {
    return `update-project #${this.index} description="${this.description}" budget=${this.budget}`;
  }
}

class GetProject implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-project', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, false) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, false)!;
      if (!project.deleted) return readBack(target, project, '');
      const res = await target.send('GET', projectPath(project.id));
      if (ok(res))
        throw new ModelViolation(
          'PROJ-DEL-001',
          `GET /projects/{id} of the deleted ${project.name}`,
          'no success',
          `${res.status}`,
        );
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
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const res = await target.send('DELETE', projectPath(project.id));
      expectOk(res, 'PROJ-DEL-001', `DELETE /projects/{id} of ${project.name}`);
      project.deleted = true;
      target.untrack(projectPath(project.id));
      // "Removes the project and all its resources": every instance seen among them is gone.
      for (const vps of project.vps.filter((v) => v.joined)) {
        let last: ApiResponse | undefined;
        const answers = async (): Promise<boolean> => ok((last = await target.send('GET', vpsPath(vps.id))));
        if (await stillThere(target, answers))
          throw new ModelViolation(
            'PROJ-DEL-001',
            `GET /vps/{id} of ${vps.name}, a resource of the deleted ${project.name}`,
            'no success (the project’s resources go with it)',
            `${last!.status} ${short(last!.text)}`,
          );
      }
    });
  }
  toString(): string {
    return `delete-project #${this.index}`;
  }
}

/** GET /projects: the sequence's live projects listed as the model knows them, its deleted ones not (others' projects are not the model's business). */
class ListProjects implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-projects', args: {} };
  }
  check(model: ExploreModel): boolean {
    return projectsOf(model).projects.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, () =>
      compareSettled(target, async () => {
        const res = await target.send('GET', '/projects');
        expectOk(res, 'PROJ-LIST-001', 'GET /projects');
        const listed = listedProjects(res.body);
        for (const p of projectsOf(model).projects) {
          const entry = listed.find((e) => e.id === p.id);
          if (!p.deleted && !entry)
            throw new ModelViolation('PROJ-LIST-001', 'GET /projects', `${p.name} listed`, 'not listed');
          if (p.deleted && entry)
            throw new ModelViolation('PROJ-DEL-001', 'GET /projects', `the deleted ${p.name} not listed`, 'listed');
          if (entry) checkRecord(p, entry, `the entry of ${p.name} in GET /projects`);
        }
      }),
    );
  }
  toString(): string {
    return 'list-projects';
  }
}

/** At most this many instances a project of a sequence (each is a VPS: compute requests and money on a real cloud). */
const MAX_PROJECT_VPS = 2;

/**
 * POST /vps with the project's `project_id` (an extension: the specification does not show how a
 * resource joins a project). A refusal is no finding: the target does not take the extension.
 */
class CreateProjectVps implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly label: string,
  ) {}
  get record(): StepRecord {
    return { op: 'create-project-vps', args: { index: this.index, label: this.label } };
  }
  check(model: ExploreModel): boolean {
    const project = projectAt(model, this.index, true);
    return project !== undefined && project.vps.length < MAX_PROJECT_VPS;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const { regions, image, size } = catalogueOf(target);
      const name = target.resourceName(`${this.label}-${project.vps.length}`);
      const res = await target.send('POST', '/vps', {
        json: { name, region: regions[0], image, size, project_id: project.id },
      });
      const id = ok(res) ? vpsOf(res.body)?.id : undefined;
      if (typeof id !== 'string') return;
      target.track(vpsPath(id), () => removeVps(target, id));
      project.vps.push({ id, name, joined: false });
      // Whether it joined the project: what the project's resources list says.
      await listResources(target, project);
    });
  }
  toString(): string {
    return `create-project-vps #${this.index} ${this.label}`;
  }
}

/** GET /projects/{id}/resources of a live project: an array `resources`; what it lists of the sequence's instances joined the project. */
async function listResources(target: SequenceTarget, project: ProjectState): Promise<void> {
  const where = `GET /projects/{id}/resources of ${project.name}`;
  const res = await target.send('GET', `${projectPath(project.id)}/resources`);
  expectOk(res, 'PROJ-RES-001', where);
  const resources = listOf(res.body, 'resources');
  if (!resources) throw new ModelViolation('PROJ-RES-001', where, 'an array `resources`', short(res.text));
  // A resource names the underlying instance by its id, in `resource_id` beside its own or as its id.
  const listed = new Set(
    resources.flatMap((r) => (isObject(r) ? [r.resource_id, r.id].filter((v) => typeof v === 'string') : [])),
  );
  for (const vps of project.vps) if (listed.has(vps.id)) vps.joined = true;
}

class ListProjectResources implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'list-project-resources', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(projects, this, target, () => listResources(target, projectAt(model, this.index, true)!));
  }
  toString(): string {
    return `list-project-resources #${this.index}`;
  }
}

export const projects: ExploreFamily = {
  name: 'projects',
  summary: 'creates, updates, gets, deletes and lists projects; puts a VPS into them and deletes it with its project',
  // The instances put into projects.
  changes: ['vps'],
  rules: {
    'PROJ-LIST-001': 'GET /projects lists every project the sequence created and did not delete',
    'PROJ-CRT-002': 'a created project answers status active, and reports the region it was created with everywhere',
    'PROJ-UPD-001':
      'an update answers and a following GET reports the new values; every GET and listing shows the name and description last set',
    'PROJ-FLD-002': 'no answer (create, update, GET, listing) carries the input-only budget_limit',
    'PROJ-GET-001': 'GET /projects/{id} of an existing project answers success with it',
    'PROJ-DEL-001':
      'a deleted project is no longer found nor listed, and the instances seen among its resources are gone',
    'PROJ-RES-001': 'GET /projects/{id}/resources answers an array resources',
  },
  rulesOf: {
    'create-project': ['PROJ-LIST-001', 'PROJ-CRT-002', 'PROJ-FLD-002', 'PROJ-UPD-001'],
    'update-project': ['PROJ-UPD-001', 'PROJ-GET-001', 'PROJ-FLD-002', 'PROJ-CRT-002'],
    'get-project': ['PROJ-GET-001', 'PROJ-UPD-001', 'PROJ-DEL-001', 'PROJ-FLD-002', 'PROJ-CRT-002'],
    'delete-project': ['PROJ-DEL-001'],
    'list-projects': ['PROJ-LIST-001', 'PROJ-DEL-001', 'PROJ-UPD-001', 'PROJ-FLD-002', 'PROJ-CRT-002'],
    'create-project-vps': ['PROJ-RES-001'],
    'list-project-resources': ['PROJ-RES-001'],
  },
  arbitraries() {
    const index = fc.nat({ max: 3 });
    const budget = fc.constantFrom(...BUDGETS);
    const create = fc
      .tuple(fc.constantFrom('p1', 'p2', 'p3'), fc.integer({ min: -1, max: 1 }), budget)
      .map(([l, r, b]): ExploreCommand => new CreateProject(l, r, b));
    const description = fc.stringMatching(/^[a-z]{1,6}$/);
    const update = fc.tuple(index, description, budget).map(([i, d, b]): ExploreCommand => new UpdateProject(i, d, b));
    // Creations weigh more (fc.commands draws its arbitraries evenly): the other operations need a
    // project to act on, and a deletion shows most with two instances in the project.
    return [
      create,
      create,
      update,
      update,
      index.map((i) => new GetProject(i)),
      index.map((i) => new DeleteProject(i)),
      fc.constant(new ListProjects()),
      fc.constant(new ListProjects()),
      fc.tuple(index, fc.constantFrom('pv')).map(([i, l]): ExploreCommand => new CreateProjectVps(i, l)),
      fc.tuple(index, fc.constantFrom('pv')).map(([i, l]): ExploreCommand => new CreateProjectVps(i, l)),
      fc.tuple(index, fc.constantFrom('pv')).map(([i, l]): ExploreCommand => new CreateProjectVps(i, l)),
      index.map((i): ExploreCommand => new ListProjectResources(i)),
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-project')
      return new CreateProject(
        argString(a.label),
        a.region === undefined ? -1 : argNumber(a.region),
        argNumber(a.budget),
      );
    if (s.op === 'update-project')
      return new UpdateProject(argNumber(a.index), argString(a.description), argNumber(a.budget));
    if (s.op === 'get-project') return new GetProject(argNumber(a.index));
    if (s.op === 'delete-project') return new DeleteProject(argNumber(a.index));
    if (s.op === 'list-projects') return new ListProjects();
    if (s.op === 'create-project-vps') return new CreateProjectVps(argNumber(a.index), argString(a.label));
    if (s.op === 'list-project-resources') return new ListProjectResources(argNumber(a.index));
    return undefined;
  },
  async setUp(target: SequenceTarget) {
    await vpsCatalogue(target);
  },
};
