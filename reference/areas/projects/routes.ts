/** /projects: CRUD, the resources of a project, and its usage. */
import type { FastifyInstance } from 'fastify';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { Fields } from '../../core/validation.ts';
import { PROJECT_FAULTS } from './faults.ts';
import { NO_REGION, projectResourceView, projectResources } from './resources.ts';
import { type ProjectRecord, projectsState } from './store.ts';

const REGION = /^[a-z0-9][a-z0-9-]{0,31}$/;
const MAX_BUDGET = 1e9;
const DAY = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const SERVICES = ['compute', 'storage', 'messaging'] as const;

type Params = { Params: { project_id: string } };

/** Money with four decimals at most, summed in integers so totals do not drift. */
const units = (amount: number): number => Math.round((Number.isFinite(amount) ? amount : 0) * 10_000);
const money = (u: number): number => u / 10_000;

export function registerProjectRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  const view = (accountId: string, currency: string, project: ProjectRecord): Record<string, unknown> => {
    const owned = projectResources(ctx, accountId, project.id);
    return {
      id: project.id,
      name: project.name,
      description: project.description,
      status: ctx.faults.has(PROJECT_FAULTS.createdInactive) ? 'pending' : project.status,
      region: project.region,
      created_at: isoTimestamp(project.createdMs),
      resource_count: owned.length,
      monthly_cost: money(owned.reduce((sum, { resource }) => sum + units(resource.monthly_cost), 0)),
      currency,
      // Faults: leak the input-only budget (always, or once an update set it).
      ...((ctx.faults.has(PROJECT_FAULTS.budgetLimitReturned) ||
        (ctx.faults.has(PROJECT_FAULTS.budgetLimitAfterUpdate) && project.budgetUpdated)) && {
        budget_limit: project.budgetLimit,
      }),
    };
  };

  const find = (accountId: string, id: string): ProjectRecord => {
    const project = projectsState(ctx, accountId).projects.get(id);
    if (!project) throw notFound('project');
    return project;
  };

  app.get('/projects', async (request) => {
    const { account } = authOf(request);
    const state = projectsState(ctx, account.id);
    let projects = [...state.projects.values()].reverse();
    // Faults: a list cut by a count taken before the last delete; deleted projects kept beside live ones.
    if (ctx.faults.has(PROJECT_FAULTS.listMissesNewestAfterDelete) && state.deleted.length > 0)
      projects = projects.slice(1);
    if (ctx.faults.has(PROJECT_FAULTS.deletedListedBesideOthers) && projects.length > 0)
      projects = [...projects, ...state.deleted];
    // Fault: the list shows each project as it was created.
    const asCreated = ctx.faults.has(PROJECT_FAULTS.listStaleAfterUpdate);
    const listed = ctx.faults.has(PROJECT_FAULTS.listEmpty)
      ? []
      : projects.map((p) => view(account.id, account.currency, asCreated && p.created ? { ...p, ...p.created } : p));
    if (ctx.faults.has(PROJECT_FAULTS.listCostText))
      for (const v of listed)
        Object.assign(v, { monthly_cost: String(v.monthly_cost), resource_count: String(v.resource_count) });
    return { projects: listed };
  });

  app.post('/projects', async (request, reply) => {
    const { account } = authOf(request);
    const fields = new Fields('projects', request.body);
    const name = fields.string('name', { required: true, max: 100 });
    const description = fields.string('description', { max: 1000 });
    const region = fields.string('region', { pattern: REGION });
    const budgetLimit = fields.number('budget_limit', { min: 0, max: MAX_BUDGET });
    const state = projectsState(ctx, account.id);
    // Fault: a region given takes the one of the newest project of the account created with a region.
    const sticky =
      region !== undefined && ctx.faults.has(PROJECT_FAULTS.regionOfPrevious)
        ? [...state.projects.values()].reverse().find((p) => p.regionGiven)?.region
        : undefined;
    const project: ProjectRecord = {
      id: newId('proj'),
      name,
      // The specification types these as strings: unset is empty / not bound to one region.
      description: description ?? '',
      region: sticky ?? region ?? NO_REGION,
      budgetLimit: budgetLimit ?? null,
      status: 'active',
      createdMs: ctx.clock.now(),
      ...(ctx.faults.has(PROJECT_FAULTS.listStaleAfterUpdate) && { created: { name, description: description ?? '' } }),
      ...(region !== undefined && ctx.faults.has(PROJECT_FAULTS.regionOfPrevious) && { regionGiven: true }),
    };
    state.projects.set(project.id, project);
    return reply.status(201).send({ project: view(account.id, account.currency, project) });
  });

  app.get<Params>('/projects/:project_id', async (request) => {
    const { account } = authOf(request);
    const asked = find(account.id, request.params.project_id);
    // Fault: the lookup answers the newest project of the account instead of the one asked for.
    const other = ctx.faults.has(PROJECT_FAULTS.getOtherProject)
      ? [...projectsState(ctx, account.id).projects.values()].reverse().find((p) => p.id !== asked.id)
      : undefined;
    return { project: view(account.id, account.currency, other ?? asked) };
  });

  app.put<Params>('/projects/:project_id', async (request) => {
    const { account } = authOf(request);
    const project = find(account.id, request.params.project_id);
    const fields = new Fields('projects', request.body);
    const name = fields.string('name', { min: 1, max: 100 });
    const description = fields.string('description', { max: 1000 });
    const budgetLimit = fields.number('budget_limit', { min: 0, max: MAX_BUDGET });
    const updated: ProjectRecord = {
      ...project,
      ...(name !== undefined && { name }),
      ...(description !== undefined && { description }),
      ...(budgetLimit !== undefined && { budgetLimit }),
      ...(budgetLimit !== undefined &&
        ctx.faults.has(PROJECT_FAULTS.budgetLimitAfterUpdate) && { budgetUpdated: true }),
    };
    // Faults: answer with the new values but keep the old ones (always, or from the second update on).
    let lost = ctx.faults.has(PROJECT_FAULTS.updateIgnored);
    if (ctx.faults.has(PROJECT_FAULTS.secondUpdateLost)) {
      const updates = projectsState(ctx, account.id).updates;
      updates.set(project.id, (updates.get(project.id) ?? 0) + 1);
      lost ||= updates.get(project.id)! > 1;
    }
    if (!lost) Object.assign(project, updated);
    return { project: view(account.id, account.currency, updated) };
  });

  app.delete<Params>('/projects/:project_id', async (request, reply) => {
    const { account } = authOf(request);
    const project = find(account.id, request.params.project_id);
    // "Removes the project and all its resources": each owning area deletes its own resource.
    if (!ctx.faults.has(PROJECT_FAULTS.deleteKeepsResources)) {
      const owned = projectResources(ctx, account.id, project.id);
      // Fault: only the oldest resource goes.
      const removed = ctx.faults.has(PROJECT_FAULTS.deleteKeepsLaterResources)
        ? [...owned].sort((a, b) => Date.parse(a.resource.created_at) - Date.parse(b.resource.created_at)).slice(0, 1)
        : owned;
      for (const { provider, resource } of removed) provider.remove(account.id, resource.id);
    }
    const state = projectsState(ctx, account.id);
    state.projects.delete(project.id);
    // Remembered only for the faults that need it: the correct server keeps nothing of a deleted project.
    if (
      ctx.faults.has(PROJECT_FAULTS.deletedListedBesideOthers) ||
      ctx.faults.has(PROJECT_FAULTS.listMissesNewestAfterDelete)
    )
      state.deleted.push(project);
    return reply.status(204).send();
  });

  app.get<Params>('/projects/:project_id/resources', async (request) => {
    const { account } = authOf(request);
    const project = find(account.id, request.params.project_id);
    const query = new Fields('projects', request.query);
    // Plain string filters (the specification gives no value list here): an unknown value matches nothing.
    const service = query.string('service');
    const status = query.string('status');
    const ignoreFilters = ctx.faults.has(PROJECT_FAULTS.resourcesFilterIgnored);
    const resources = (
      ctx.faults.has(PROJECT_FAULTS.resourcesEmpty) ? [] : projectResources(ctx, account.id, project.id)
    )
      .map(({ resource }) => resource)
      .filter(
        (r) =>
          ignoreFilters ||
          ((service === undefined || r.service === service) && (status === undefined || r.status === status)),
      );
    return { resources: resources.map((r) => projectResourceView(ctx, r)) };
  });

  app.get<Params>('/projects/:project_id/usage', async (request) => {
    const { account } = authOf(request);
    const project = find(account.id, request.params.project_id);
    const query: Fields = new Fields('projects', request.query);
    const now = ctx.clock.now();
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const from = query.timestamp('from_date', { allowDate: true });
    const to = query.timestamp('to_date', { allowDate: true });
    if (ctx.faults.has(PROJECT_FAULTS.usageRangeRefused) && (from !== undefined || to !== undefined))
      query.fail('from_date', 'from_date and to_date are not supported.');
    const fromMs = from === undefined ? monthStart : Date.parse(DATE_ONLY.test(from) ? `${from}T00:00:00Z` : from);
    // A date-only to_date covers that whole day.
    const toMs = to === undefined ? now : DATE_ONLY.test(to) ? Date.parse(`${to}T00:00:00Z`) + DAY - 1 : Date.parse(to);
    if (fromMs > toMs) query.fail('to_date', 'to_date must not be before from_date.');

    // The providers' usage entries name their resource by id (compute) or bucket (storage).
    const owned = projectResources(ctx, account.id, project.id).map(({ resource }) => resource);
    const keys = new Set(owned.flatMap((r) => [r.id, r.name]));
    const services: Record<string, { cost: number; resources: Array<Record<string, unknown>> }> = {};
    const totals: Record<string, number> = {};
    for (const s of SERVICES) totals[s] = 0;
    const entriesBy: Record<string, Array<Record<string, unknown>>> = { compute: [], storage: [], messaging: [] };
    for (const provider of ctx.services.resourceProviders) {
      const usage = provider.usage(account.id, fromMs, Math.min(toMs, now));
      for (const entry of usage.resources) {
        const key = entry.id ?? entry.bucket;
        if (typeof key !== 'string' || !keys.has(key)) continue;
        totals[usage.service] = (totals[usage.service] ?? 0) + units(typeof entry.cost === 'number' ? entry.cost : 0);
        entriesBy[usage.service]?.push(entry);
      }
    }
    for (const s of SERVICES) services[s] = { cost: money(totals[s] ?? 0), resources: entriesBy[s] ?? [] };
    return {
      usage: {
        project_id: project.id,
        period: { start: isoTimestamp(fromMs), end: isoTimestamp(toMs) },
        total_cost: money(SERVICES.reduce((sum, s) => sum + (totals[s] ?? 0), 0)),
        currency: account.currency,
        services,
      },
    };
  });
}
