/**
 * Projects: create, update read back at once, get, delete, and the listing. Commands aim at the
 * sequence's projects by position, taken modulo how many there are when the step runs.
 */
import fc from 'fast-check';
import { listOf, resourceOf } from '../../harness/body-shape.ts';
import { argNumber, argString, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget } from '../target.ts';

interface ProjectState {
  /** The target's id, known once the create ran. */
  id: string;
  name: string;
  description: string;
  /** Deleted ones stay in the list, so commands can still aim at them by position. */
  deleted: boolean;
}

class ProjectsState {
  /** In creation order. */
  readonly projects: ProjectState[] = [];
}

const projectsOf = (model: ExploreModel): ProjectsState => model.part('projects', () => new ProjectsState());
const projectPath = (id: string): string => `/projects/${encodeURIComponent(id)}`;
/** A project record from a create, get or update answer (flat, under `project`, or under a generic envelope). */
const projectOf = (body: unknown): Record<string, unknown> | undefined => resourceOf(body, 'project');
const listedProjects = (body: unknown): Array<Record<string, unknown>> | undefined => listOf(body, 'projects');

class CreateProject implements ExploreCommand {
  constructor(readonly label: string) {}
  get record(): StepRecord {
    return { op: 'create-project', args: { label: this.label } };
  }
  /** A handful per sequence: enough for every interplay, little for the account. */
  check(model: ExploreModel): boolean {
    return projectsOf(model).projects.length < 4;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const name = target.resourceName(this.label);
      const description = `explore ${this.label}`;
      const res = await target.send('POST', '/projects', { json: { name, description } });
      expectOk(res, 'PROJ-LIST-001', 'POST /projects');
      const id = projectOf(res.body)?.id;
      if (typeof id !== 'string')
        throw new ModelViolation('PROJ-LIST-001', 'POST /projects', 'the created project with its id', short(res.text));
      target.trackPath(projectPath(id));
      projectsOf(model).projects.push({ id, name, description, deleted: false });
    });
  }
  toString(): string {
    return `create-project ${this.label}`;
  }
}

/** Index into the sequence's projects, taken modulo how many there are when it runs. */
function projectAt(model: ExploreModel, index: number, live: boolean): ProjectState | undefined {
  const pool = live ? projectsOf(model).projects.filter((p) => !p.deleted) : projectsOf(model).projects;
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
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, true) !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const res = await target.send('PUT', projectPath(project.id), { json: { description: this.description } });
      expectOk(res, 'PROJ-UPD-001', `PUT /projects/{id} of ${project.name}`);
      project.description = this.description;
      // The requirement is about the GET that follows: read it back at once.
      const got = await target.send('GET', projectPath(project.id));
      expectOk(got, 'PROJ-GET-001', `GET /projects/{id} of ${project.name} after its update`);
      const description = projectOf(got.body)?.description;
      if (description !== this.description)
        throw new ModelViolation(
          'PROJ-UPD-001',
          `GET /projects/{id} of ${project.name} after PUT`,
          `description "${this.description}"`,
          `"${String(description)}"`,
        );
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
  check(model: ExploreModel): boolean {
    return projectAt(model, this.index, false) !== undefined;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, false)!;
      const res = await target.send('GET', projectPath(project.id));
      if (project.deleted) {
        if (ok(res))
          throw new ModelViolation(
            'PROJ-DEL-001',
            `GET /projects/{id} of the deleted ${project.name}`,
            'no success',
            `${res.status}`,
          );
        return;
      }
      expectOk(res, 'PROJ-GET-001', `GET /projects/{id} of ${project.name}`);
      const got = projectOf(res.body);
      if (got?.name !== project.name)
        throw new ModelViolation(
          'PROJ-UPD-001',
          `GET /projects/{id} of ${project.name}`,
          `name "${project.name}"`,
          `"${String(got?.name)}"`,
        );
      if (got?.description !== project.description)
        throw new ModelViolation(
          'PROJ-UPD-001',
          `GET /projects/{id} of ${project.name}`,
          `description "${project.description}" (the last PUT)`,
          `"${String(got?.description)}"`,
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
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const project = projectAt(model, this.index, true)!;
      const res = await target.send('DELETE', projectPath(project.id));
      expectOk(res, 'PROJ-DEL-001', `DELETE /projects/{id} of ${project.name}`);
      project.deleted = true;
      target.untrack(projectPath(project.id));
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
  check(model: ExploreModel): boolean {
    return projectsOf(model).projects.length > 0;
  }
  run(model: ExploreModel, target: ExploreTarget): Promise<void> {
    return step(projects, this, target, async () => {
      const res = await target.send('GET', '/projects');
      expectOk(res, 'PROJ-LIST-001', 'GET /projects');
      const ids = new Set((listedProjects(res.body) ?? []).map((p) => p.id));
      for (const p of projectsOf(model).projects) {
        if (!p.deleted && !ids.has(p.id))
          throw new ModelViolation('PROJ-LIST-001', 'GET /projects', `${p.name} listed`, 'not listed');
        if (p.deleted && ids.has(p.id))
          throw new ModelViolation('PROJ-DEL-001', 'GET /projects', `the deleted ${p.name} not listed`, 'listed');
      }
    });
  }
  toString(): string {
    return 'list-projects';
  }
}

export const projects: ExploreFamily = {
  name: 'projects',
  summary: 'creates, updates, gets, deletes and lists projects',
  rules: {
    'PROJ-LIST-001': 'GET /projects lists every project the sequence created and did not delete',
    'PROJ-UPD-001': 'after PUT /projects/{id}, a following GET reports the new values',
    'PROJ-GET-001': 'GET /projects/{id} of an existing project answers success with it',
    'PROJ-DEL-001': 'a deleted project is no longer found nor listed',
  },
  rulesOf: {
    'create-project': ['PROJ-LIST-001'],
    'update-project': ['PROJ-UPD-001', 'PROJ-GET-001'],
    'get-project': ['PROJ-GET-001', 'PROJ-UPD-001', 'PROJ-DEL-001'],
    'delete-project': ['PROJ-DEL-001'],
    'list-projects': ['PROJ-LIST-001', 'PROJ-DEL-001'],
  },
  arbitraries() {
    const index = fc.nat({ max: 3 });
    const create = fc.constantFrom('p1', 'p2', 'p3').map((l): ExploreCommand => new CreateProject(l));
    const description = fc.stringMatching(/^[a-z]{1,6}$/);
    // Creations weigh more (fc.commands draws its arbitraries evenly): the other operations need a project to act on.
    return [
      create,
      create,
      fc.tuple(index, description).map(([i, d]) => new UpdateProject(i, d)),
      index.map((i) => new GetProject(i)),
      index.map((i) => new DeleteProject(i)),
      fc.constant(new ListProjects()),
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-project') return new CreateProject(argString(a.label));
    if (s.op === 'update-project') return new UpdateProject(argNumber(a.index), argString(a.description));
    if (s.op === 'get-project') return new GetProject(argNumber(a.index));
    if (s.op === 'delete-project') return new DeleteProject(argNumber(a.index));
    if (s.op === 'list-projects') return new ListProjects();
    return undefined;
  },
};
