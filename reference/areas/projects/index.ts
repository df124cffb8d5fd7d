/**
 * Projects group resources of the other areas (a VPS, bucket or volume created with a
 * `project_id`). The project record lives here; its resources, their count and monthly cost
 * come from the areas' resource providers.
 */
import type { AreaModule } from '../area.ts';
import { projectFaults } from './faults.ts';
import { registerProjectRoutes } from './routes.ts';

export const projectsArea: AreaModule = {
  name: 'projects',
  faults: projectFaults,
  plugin: async (app, { ctx }) => {
    registerProjectRoutes(app, ctx);
  },
};
