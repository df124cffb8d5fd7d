/**
 * The compute rows of the specification's Endpoints table. Statuses and wrappers follow
 * docs/conventions.md: 201 with the created resource, 200 for reads, updates and actions, 204
 * with an empty body for deletes; single resources wrapped in their singular name.
 */
import type { FastifyInstance } from 'fastify';
import { isoTimestamp } from '../../core/clock.ts';
import type { ReferenceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { paginate, readPageQuery } from '../../core/pagination.ts';
import { Fields } from '../../core/validation.ts';
import { IMAGES, REGIONS, SIZES } from './catalog.ts';
import { fail, queryFields, readCreateVps, readImage, readName, readSize, readTags } from './input.ts';
import { INTERVALS, MAX_POINTS, buildMetrics, pointCount, pointTimes } from './metrics.ts';
import type { ActionRequest, ComputeService } from './service.ts';
import { parsePublicKey } from './ssh.ts';
import {
  TRANSITIONAL_STATUSES,
  VPS_STATUSES,
  type VpsRecord,
  computeState,
  snapshotView,
  sshKeyView,
  vpsView,
} from './store.ts';

/** The content type Fastify gives a serialised object; pre-serialised bodies keep it. */
const JSON_TYPE = 'application/json; charset=utf-8';

const ACTION_TYPES = ['start', 'stop', 'restart', 'resize', 'snapshot', 'rebuild'] as const;

type VpsParams = { Params: { vps_id: string } };

export function registerComputeRoutes(app: FastifyInstance, ctx: ReferenceContext, service: ComputeService): void {
  /** The caller's instance, or 404 for unknown and other accounts' ids alike. */
  const ownVps = (accountId: string, vpsId: string): VpsRecord => {
    const state = computeState(ctx, accountId);
    const record = state.vps.get(vpsId) ?? (ctx.faults.has('vps-delete-ghost') ? state.ghosts.get(vpsId) : undefined);
    if (!record) throw notFound('vps');
    return record;
  };

  // ----- Catalogue ------------------------------------------------------------------------

  // The catalogue never changes: serialised once, not on every request.
  const regionsJson = JSON.stringify({ regions: REGIONS });
  const sizesJson = JSON.stringify({ sizes: SIZES.map((size) => shownUnits(size)) });
  // Fault `sizes-transfer-gb`: the same catalogue with transfer in GB.
  const sizesInGb = JSON.stringify({
    sizes: SIZES.map((size) => ({ ...shownUnits(size), transfer: size.transfer * 1000 })),
  });
  app.get('/regions', async (_request, reply) => reply.type(JSON_TYPE).send(regionsJson));

  app.get('/sizes', async (_request, reply) =>
    reply.type(JSON_TYPE).send(ctx.faults.has('sizes-transfer-gb') ? sizesInGb : sizesJson),
  );

  /**
   * A size or VPS record in the units shown: the convention's (memory MB, disk GB, transfer TB),
   * or under the variant `units-linode` disk in MB and transfer in GB, as Linode gives them.
   */
  function shownUnits<T extends { disk: unknown; transfer?: unknown }>(record: T): T {
    if (!ctx.variants.has('units-linode')) return record;
    const shown = { ...record, disk: Number(record.disk) * 1024 };
    return record.transfer === undefined ? shown : { ...shown, transfer: Number(record.transfer) * 1000 };
  }

  const view = (record: VpsRecord): Record<string, unknown> =>
    shownUnits(vpsView(record) as Record<string, unknown> & { disk: unknown });

  app.get('/images', async (request) => {
    // Fault `image-filter-ignored`: neither filter is read, so any `type` passes and nothing is filtered.
    if (ctx.faults.has('image-filter-ignored')) return { images: IMAGES };
    const f = queryFields(request.query);
    const type = f.string('type', { oneOf: ['linux', 'windows'] });
    const distribution = f.string('distribution');
    const images = IMAGES.filter(
      (image) =>
        (type === undefined || image.type === type) &&
        (distribution === undefined || image.distribution.toLowerCase() === distribution.toLowerCase()),
    );
    return { images };
  });

  // ----- Instances ------------------------------------------------------------------------

  app.get('/vps', async (request) => {
    const { account } = authOf(request);
    const f = queryFields(request.query);
    const region = f.string('region');
    const status = f.string('status', { oneOf: [...VPS_STATUSES, ...TRANSITIONAL_STATUSES] });
    const { page, perPage } = readPageQuery(
      'compute',
      { page: f.raw('page'), per_page: f.raw('per_page') },
      ctx.variants,
      ctx.faults,
    );
    const ignoreFilters = ctx.faults.has('vps-list-filter-ignored');
    const newestFirst = [...computeState(ctx, account.id).vps.values()].reverse();
    const matching = newestFirst.filter(
      (vps) =>
        ignoreFilters ||
        ((region === undefined || vps.region === region) && (status === undefined || vps.status === status)),
    );
    const { items, meta } = paginate(matching, page, perPage, ctx.variants, ctx.faults);
    const filtered = region !== undefined || status !== undefined;
    const served =
      ctx.faults.has('vps-list-filter-first-page-only') && filtered && page > 1
        ? pastFirstFilteredPage(newestFirst, matching, page, perPage)
        : items;
    // Fault `vps-list-stale-after-update`: the list shows each instance as it was created.
    const asCreated = ctx.faults.has('vps-list-stale-after-update');
    const vpsInstances = served.map((vps) => view(asCreated && vps.created ? { ...vps, ...vps.created } : vps));
    // Fault `vps-list-pages-unfiltered`: a filtered list counts its pages over every instance.
    if (filtered && ctx.faults.has('vps-list-pages-unfiltered'))
      Object.assign(meta, { pages: Math.ceil(newestFirst.length / perPage) });
    // Fault `vps-list-total-stale-after-delete`: deletions since the last creation still count.
    const stale = ctx.faults.has('vps-list-total-stale-after-delete')
      ? computeState(ctx, account.id).deletedSinceCreate
      : 0;
    if (stale > 0 && typeof meta.total === 'number')
      Object.assign(meta, { total: meta.total + stale, pages: Math.ceil((meta.total + stale) / perPage) });
    // Fault `vps-list-status-capitalised`: the list spells states its own way (the record keeps the spec's).
    if (ctx.faults.has('vps-list-status-capitalised'))
      for (const view of vpsInstances) view.status = String(view.status).replace(/^./, (c) => c.toUpperCase());
    return ctx.faults.has('vps-list-meta-missing')
      ? { vps_instances: vpsInstances }
      : { vps_instances: vpsInstances, meta };
  });

  app.post('/vps', async (request, reply) => {
    const { account } = authOf(request);
    const input = readCreateVps(ctx, account.id, request.body);
    const record = service.create(account.id, ctx.faults.has('vps-tags-dropped') ? { ...input, tags: [] } : input);
    return reply.code(201).send({ vps: view(record) });
  });

  app.get<VpsParams>('/vps/:vps_id', async (request) => {
    const { account } = authOf(request);
    const shown = view(ownVps(account.id, request.params.vps_id));
    if (ctx.faults.has('vps-get-name-wrong')) shown.name = `${String(shown.name)}-renamed`;
    if (ctx.faults.has('vps-get-vcpus-string'))
      for (const field of ['vcpus', 'memory', 'disk']) shown[field] = String(shown[field]);
    if (ctx.faults.has('vps-get-ips-omitted')) for (const field of ['ip_address', 'private_ip']) delete shown[field];
    return ctx.faults.has('vps-get-unwrapped') ? shown : { vps: shown };
  });

  app.put<VpsParams>('/vps/:vps_id', async (request) => {
    const { account } = authOf(request);
    const record = ownVps(account.id, request.params.vps_id);
    const f = new Fields('compute', request.body);
    const name = readName(f, false);
    const tags = readTags(f);
    return { vps: view(service.update(record, { name, tags })) };
  });

  app.delete<VpsParams>('/vps/:vps_id', async (request, reply) => {
    const { account } = authOf(request);
    const record = ownVps(account.id, request.params.vps_id);
    service.delete(account.id, record.id);
    return reply.code(204).send();
  });

  app.post<VpsParams>('/vps/:vps_id/actions', async (request) => {
    const { account } = authOf(request);
    const record = ownVps(account.id, request.params.vps_id);
    const action = readAction(ctx, record, request.body);
    return { action: service.perform(account.id, record, action) };
  });

  app.get<VpsParams>('/vps/:vps_id/metrics', async (request) => {
    const { account } = authOf(request);
    const record = ownVps(account.id, request.params.vps_id);
    const f = queryFields(request.query);
    const interval = f.string('interval', { oneOf: [...INTERVALS.keys()] }) ?? '5m';
    const step = ctx.faults.has('vps-metrics-interval-ignored') ? 300_000 : (INTERVALS.get(interval) ?? 300_000);
    const start = f.timestamp('start', { allowDate: true });
    const end = f.timestamp('end', { allowDate: true });
    // Default window: the hour before `end` (or before now).
    const endMs =
      end !== undefined
        ? Date.parse(end)
        : start !== undefined
          ? Math.max(Date.parse(start), ctx.clock.now())
          : ctx.clock.now();
    const startMs = start !== undefined ? Date.parse(start) : endMs - 3_600_000;
    if (endMs < startMs) fail('end', 'end must not be before start.');
    const count = pointCount(startMs, endMs, step);
    if (count > MAX_POINTS)
      fail(
        'interval',
        `The window holds ${count} points at interval ${interval}; at most ${MAX_POINTS} are returned. Use a longer interval or a shorter window.`,
      );
    // Fault `vps-metrics-outside-window`: the series begin one interval before `start`.
    const first = ctx.faults.has('vps-metrics-outside-window') ? startMs - step : startMs;
    return { metrics: buildMetrics(record.id, pointTimes(first, endMs, step)) };
  });

  // ----- SSH keys -------------------------------------------------------------------------

  app.get('/ssh-keys', async (request) => {
    const { account } = authOf(request);
    return { ssh_keys: [...computeState(ctx, account.id).sshKeys.values()].reverse().map(sshKeyView) };
  });

  app.post('/ssh-keys', async (request, reply) => {
    const { account } = authOf(request);
    const f = new Fields('compute', request.body);
    const name = f.string('name', { required: true, max: 255 });
    const text = f.string('public_key', { required: true, max: 16_384 });
    const parsed = parsePublicKey(text);
    if (!parsed.ok) fail('public_key', parsed.reason);
    const keys = computeState(ctx, account.id).sshKeys;
    // A key is identified by its fingerprint (POST /vps accepts either), so it is added once.
    if ([...keys.values()].some((k) => k.fingerprint === parsed.fingerprint))
      fail('public_key', `This key (${parsed.fingerprint}) is already added.`);
    const record = {
      id: newId('ssh'),
      name,
      public_key: parsed.normalized,
      fingerprint: parsed.fingerprint,
      created_at: isoTimestamp(ctx.clock.now()),
    };
    keys.set(record.id, record);
    return reply.code(201).send({ ssh_key: sshKeyView(record) });
  });

  // ----- VPS snapshots --------------------------------------------------------------------

  app.get('/snapshots', async (request) => {
    const { account } = authOf(request);
    let snapshots = [...computeState(ctx, account.id).snapshots.values()].reverse();
    // Fault `snapshot-list-newest-per-vps`: one snapshot per instance, its newest.
    if (ctx.faults.has('snapshot-list-newest-per-vps'))
      snapshots = snapshots.filter((s, i) => snapshots.findIndex((t) => t.vps_id === s.vps_id) === i);
    return { snapshots: snapshots.map(snapshotView) };
  });

  app.delete<{ Params: { snapshot_id: string } }>('/snapshots/:snapshot_id', async (request, reply) => {
    const { account } = authOf(request);
    if (!service.deleteSnapshot(account.id, request.params.snapshot_id)) throw notFound('snapshot');
    return reply.code(204).send();
  });
}

/**
 * Fault `vps-list-filter-first-page-only`: page `page` (> 1) cut from every instance that is not
 * on the filtered first page, as a cursor that forgot the filter would.
 */
function pastFirstFilteredPage(
  all: readonly VpsRecord[],
  matching: readonly VpsRecord[],
  page: number,
  perPage: number,
): VpsRecord[] {
  const first = new Set(matching.slice(0, perPage));
  return all.filter((vps) => !first.has(vps)).slice((page - 2) * perPage, (page - 1) * perPage);
}

/** `type` and the field each type needs; semantic checks (the size exists, fits the image) here too. */
function readAction(ctx: ReferenceContext, record: VpsRecord, body: unknown): ActionRequest {
  const f = new Fields('compute', body);
  if (ctx.faults.has('vps-action-type-unchecked')) {
    const type = f.string('type', { required: true });
    if (!(ACTION_TYPES as readonly string[]).includes(type)) return { type, unknown: true };
  }
  const type = f.string('type', { required: true, oneOf: ACTION_TYPES }) as (typeof ACTION_TYPES)[number];
  switch (type) {
    case 'resize': {
      const slug = f.string('size', { required: true });
      return { type, size: readSize('size', slug, readImage('image', record.image)) };
    }
    case 'snapshot':
      return { type, name: f.string('name', { required: true, max: 255 }) };
    case 'rebuild': {
      const image = readImage('image', f.string('image', { required: true }));
      if (image.min_disk_size > record.disk)
        fail('image', `Image ${image.id} needs a ${image.min_disk_size} GB disk; this VPS has ${record.disk} GB.`);
      return { type, image };
    }
    default:
      return { type };
  }
}
