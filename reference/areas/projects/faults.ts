/** Deliberate non-conformances of the projects area; each breaks exactly one requirement (a MUST, or a convention's SHOULD). */
import type { FaultDefinition } from '../../core/faults.ts';

export const PROJECT_FAULTS = {
  updateIgnored: 'project-update-ignored',
  deleteKeepsResources: 'project-delete-keeps-resources',
  budgetLimitReturned: 'project-budget-limit-returned',
  listCostText: 'project-list-cost-text',
  createdInactive: 'project-created-inactive',
  listEmpty: 'project-list-empty',
  resourcesEmpty: 'project-resources-empty',
  resourcesFilterIgnored: 'project-resources-filter-ignored',
  usageRangeRefused: 'project-usage-range-refused',
  getOtherProject: 'project-get-other-project',
  secondUpdateLost: 'project-second-update-lost',
  deletedListedBesideOthers: 'project-deleted-listed-beside-others',
  listMissesNewestAfterDelete: 'project-list-misses-newest-after-delete',
  listStaleAfterUpdate: 'project-list-stale-after-update',
  budgetLimitAfterUpdate: 'project-budget-limit-after-update',
  regionOfPrevious: 'project-region-of-previous',
  deleteKeepsLaterResources: 'project-delete-keeps-later-resources',
  idsUnprefixed: 'ids-unprefixed-projects',
} as const;

export const projectFaults = [
  {
    name: PROJECT_FAULTS.updateIgnored,
    requirement: 'PROJ-UPD-001',
    description: 'PUT /projects/{id} answers with the new values but does not keep them.',
  },
  {
    name: PROJECT_FAULTS.deleteKeepsResources,
    requirement: 'PROJ-DEL-001',
    description: 'DELETE /projects/{id} removes the project but leaves its resources running.',
  },
  {
    name: PROJECT_FAULTS.budgetLimitReturned,
    requirement: 'PROJ-FLD-002',
    description: 'Project records carry the input-only budget_limit.',
  },
  {
    name: PROJECT_FAULTS.createdInactive,
    requirement: 'PROJ-CRT-002',
    description: 'A created project reports status `pending` instead of `active`.',
  },
  { name: PROJECT_FAULTS.listEmpty, requirement: 'PROJ-LIST-001', description: 'GET /projects lists no project.' },
  {
    name: PROJECT_FAULTS.resourcesEmpty,
    requirement: 'PROJ-RES-001',
    description: "GET /projects/{project_id}/resources lists none of the project's resources.",
  },
  {
    name: PROJECT_FAULTS.resourcesFilterIgnored,
    requirement: 'PROJ-RES-002',
    description: 'GET /projects/{project_id}/resources ignores the service and status filters.',
  },
  {
    name: PROJECT_FAULTS.usageRangeRefused,
    requirement: 'PROJ-USE-001',
    description: 'GET /projects/{project_id}/usage refuses from_date and to_date as a validation error.',
  },
  {
    name: PROJECT_FAULTS.getOtherProject,
    requirement: 'PROJ-GET-001',
    description: 'GET /projects/{project_id} answers the newest other project of the account (when there is one).',
  },
  {
    name: PROJECT_FAULTS.listCostText,
    requirement: 'PROJ-FLD-001',
    description: 'GET /projects lists monthly_cost and resource_count as strings.',
  },
  // Sequence-only faults: each shows only after a particular order of operations (cloudcheck explore finds them).
  {
    name: PROJECT_FAULTS.secondUpdateLost,
    requirement: 'PROJ-UPD-001',
    description:
      'Only the first PUT /projects/{id} of a project is kept; later ones answer the new values and store nothing.',
  },
  {
    name: PROJECT_FAULTS.deletedListedBesideOthers,
    requirement: 'PROJ-DEL-001',
    description:
      'A deleted project stays in GET /projects while the account has another project (GET /projects/{id} of it is 404).',
  },
  {
    name: PROJECT_FAULTS.listMissesNewestAfterDelete,
    requirement: 'PROJ-LIST-001',
    description:
      'Once a project of the account was deleted, GET /projects leaves out the newest project (a stale count cuts the list).',
  },
  {
    name: PROJECT_FAULTS.listStaleAfterUpdate,
    requirement: 'PROJ-UPD-001',
    description:
      'GET /projects lists each project with the name and description it was created with (GET /projects/{id} shows the update).',
  },
  {
    name: PROJECT_FAULTS.budgetLimitAfterUpdate,
    requirement: 'PROJ-FLD-002',
    description: 'A project whose update set budget_limit carries it in every record from then on.',
  },
  {
    name: PROJECT_FAULTS.regionOfPrevious,
    requirement: 'PROJ-CRT-002',
    description:
      'A project created with a region gets the region of the newest project of the account created with one (a form default that sticks).',
  },
  {
    name: PROJECT_FAULTS.deleteKeepsLaterResources,
    requirement: 'PROJ-DEL-001',
    description: 'Deleting a project removes its oldest resource only; the others keep running.',
  },
  {
    name: PROJECT_FAULTS.idsUnprefixed,
    requirement: 'PROJ-ID-001',
    description: 'Projects and project resources get ids without their type prefix.',
  },
] as const satisfies readonly FaultDefinition[];

// Its names join the server's FaultName union (core/faults.ts): a misspelt fault does not compile.
declare module '../../core/faults.ts' {
  interface FaultNames extends Record<(typeof projectFaults)[number]['name'], true> {}
}
