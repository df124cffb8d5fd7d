/** Per-account projects. Resources are not stored here: the areas that own them tag them with a project_id. */
import type { ReferenceContext } from '../../core/context.ts';

export interface ProjectRecord {
  id: string;
  name: string;
  description: string;
  region: string;
  /** Monthly budget; input only (the specification says so), kept for future alerts. */
  budgetLimit: number | null;
  status: string;
  createdMs: number;
  /** Fault `project-list-stale-after-update` only: name and description as created. */
  created?: { name: string; description: string };
  /** Fault `project-budget-limit-after-update` only: an update set the budget. */
  budgetUpdated?: boolean;
  /** Fault `project-region-of-previous` only: created with a region. */
  regionGiven?: boolean;
}

export interface ProjectsState {
  /** Insertion order = creation order. */
  projects: Map<string, ProjectRecord>;
  /** What the sequence-only faults remember: deleted projects, and how often each project was updated. */
  deleted: ProjectRecord[];
  updates: Map<string, number>;
}

export function projectsState(ctx: ReferenceContext, accountId: string): ProjectsState {
  return ctx.accountState(accountId, 'projects', () => ({ projects: new Map(), deleted: [], updates: new Map() }));
}
