/** Deliberate non-conformances of the projects area; each breaks exactly one MUST requirement. */
import type { FaultDefinition } from '../../core/faults.ts';

export const PROJECT_FAULTS = {
  updateIgnored: 'project-update-ignored',
  deleteKeepsResources: 'project-delete-keeps-resources',
  budgetLimitReturned: 'project-budget-limit-returned',
  listCostText: 'project-list-cost-text',
} as const;

export const projectFaults: FaultDefinition[] = [
  { name: PROJECT_FAULTS.updateIgnored, requirement: 'PROJ-UPD-001', description: 'PUT /projects/{id} answers with the new values but does not keep them.' },
  { name: PROJECT_FAULTS.deleteKeepsResources, requirement: 'PROJ-DEL-001', description: 'DELETE /projects/{id} removes the project but leaves its resources running.' },
  { name: PROJECT_FAULTS.budgetLimitReturned, requirement: 'PROJ-FLD-002', description: 'Project records carry the input-only budget_limit.' },
  { name: PROJECT_FAULTS.listCostText, requirement: 'PROJ-FLD-001', description: 'GET /projects lists monthly_cost and resource_count as strings.' },
];
