/**
 * Flow: the life of one VPS, from POST /vps to use after delete. The bugs this catches live
 * between requests: a status that never leaves `creating`, a rename that is not stored, filters
 * that are ignored, an action that answers success and changes nothing, a snapshot that survives
 * its delete, metrics outside the asked window, a deleted VPS still answering. And the conventions
 * of docs/conventions.md: a meaningless action is 422 `invalid_state`, the units of sizes and metrics.
 */
import {
  Provision,
  defineFlow,
  expect,
  expectEchoed,
  expectErrorEnvelope,
  expectFields,
  expectFieldValues,
  expectNotListed,
  expectRefused,
  expectResource,
  expectStatus,
  expectSuccess,
  expectWrappedIn,
  listOf,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse } from '../../src/harness/check.ts';
import { computeCatalogue, isRunningWithIps, waitForVps } from './_compute.ts';
import type { ComputeCatalogue, Vps } from './_compute.ts';

interface State {
  catalogue: ComputeCatalogue;
  created: Vps;
  /** The answer of POST /vps: what the steps that judge the created VPS judged. */
  createdRes: ApiResponse;
  vpsId: string;
  name: string;
  tags: string[];
  snapshotName: string;
  snapshotId: string;
}

const FLOW = 'flow.vps-lifecycle';
const vpsPath = (id: string): string => `/vps/${encodeURIComponent(id)}`;

async function getVps(api: ApiClient, id: string): Promise<Vps> {
  // GET /vps/{vps_id}'s body is not shown: wrapped in `vps` (the convention) or not.
  return expectResource<Vps>(await api.get(vpsPath(id)), 'vps');
}

/**
 * Performs an action: accepted (2xx) is what the specification states; the result's shape and
 * the resulting states are not shown. The step waits for the state it needs, then calls
 * `actionConvention` last, so a deviation from the convention never cuts the wait short.
 */
async function act(api: ApiClient, id: string, body: Record<string, unknown>): Promise<ApiResponse> {
  const res = await api.post(`${vpsPath(id)}/actions`, body);
  expectSuccess(res, `${String(body.type)} action`);
  return res;
}

/** The convention of docs/conventions.md (VPS-ACT-005): 200 `{"action": {...}}`, completed before the response. */
function actionConvention(res: ApiResponse, type: string): void {
  expectStatus(res, 200, `${type} action`);
  const action = expectWrappedIn<{ status?: string }>(res, 'action', `${type} action`);
  expect(action.status, `${type}: action.status`).toBe('completed');
}

/** Every VPS GET /vps lists with these filters, walking the pages (at most 10 of 100). */
async function listAll(api: ApiClient, query: { status?: string; region?: string }): Promise<Vps[]> {
  const items: Vps[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await api.get('/vps', { query: { ...query, per_page: 100, page } });
    expectStatus(res, 200);
    const body = res.json<{ vps_instances: Vps[]; meta?: { pages?: number } }>();
    expect(Array.isArray(body.vps_instances), 'vps_instances should be an array').toBe(true);
    items.push(...body.vps_instances);
    if (body.vps_instances.length < 100 || !body.meta?.pages || page >= body.meta.pages) break;
  }
  return items;
}

/** Filtering by the VPS's own status and region lists it, and only matching items; other values leave it out. */
async function checkFilters(api: ApiClient, vps: Vps, otherStatus: string, otherRegion: string | null): Promise<void> {
  const queries: Array<{ status?: string; region?: string }> = [
    { status: vps.status },
    { region: vps.region },
    { status: vps.status, region: vps.region },
  ];
  for (const query of queries) {
    const items = await listAll(api, query);
    const q = JSON.stringify(query);
    for (const item of items) {
      if (query.status) expect(item.status, `GET /vps ${q} listed ${item.id}`).toBe(query.status);
      if (query.region) expect(item.region, `GET /vps ${q} listed ${item.id}`).toBe(query.region);
    }
    expect(
      items.map((i) => i.id),
      `GET /vps ${q} should list the flow's VPS`,
    ).toContain(vps.id);
  }
  const others: Array<{ status?: string; region?: string }> = [{ status: otherStatus }];
  if (otherRegion) others.push({ region: otherRegion });
  for (const query of others) {
    const items = await listAll(api, query);
    expect(
      items.map((i) => i.id),
      `GET /vps ${JSON.stringify(query)} must not list the flow's ${vps.status} VPS in ${vps.region}`,
    ).not.toContain(vps.id);
  }
}

/**
 * The flow's VPS, asked for as early as the run allows (provision.ts): its boot overlaps the rest
 * of the run instead of being waited out when the flow reaches it. The create step judges the
 * answer as if it had sent the request itself (it did, by the runner's hand, under its id).
 */
const firstVps = new Provision(
  `${FLOW}.vps`,
  async ({ api, ledger, name }) => {
    const catalogue = await computeCatalogue(api);
    const { region, image, size } = catalogue;
    const vpsName = name('vps');
    const tags = ['cloudcheck', 'flow'];
    const created = await api.post('/vps', { name: vpsName, region, image, size: size.slug, tags });
    const id = resourceOf<Vps>(created.body, 'vps')?.id;
    if (typeof id === 'string') ledger.track('vps', id);
    return { catalogue, name: vpsName, tags, created };
  },
  { late: true },
);

defineFlow<State>({ id: FLOW, class: 'compute', title: 'VPS lifecycle' }, (step) => {
  step(
    {
      id: `${FLOW}.create`,
      requirement: 'VPS-CRT-006',
      level: 'MUST',
      operation: 'POST /vps',
      title: 'POST /vps accepts a region of GET /regions, an image of GET /images and a size of GET /sizes',
      provisions: [firstVps],
    },
    async ({ api, ledger, ctx, state }) => {
      const early = await firstVps.take({ api, ledger, ctx });
      state.catalogue = early.catalogue;
      const { region, image, size } = state.catalogue;
      state.name = early.name;
      state.tags = early.tags;
      const res = early.created;
      expectStatus(
        res,
        [200, 201],
        `POST /vps with region ${region}, image ${image} and size ${size.slug}, as the catalogue lists them`,
      );
      const body = res.json<{ vps?: Vps }>();
      expectFields(body, { vps: 'object' }, 'the answer of POST /vps', res);
      const vps = body.vps!;
      expectFields(vps, { id: 'string' }, 'the created VPS', res);
      state.vpsId = ledger.track('vps', vps.id);
      state.created = vps;
      state.createdRes = res;
    },
  );

  step(
    {
      id: `${FLOW}.create-state`,
      requirement: 'VPS-CRT-004',
      level: 'MUST',
      operation: 'POST /vps',
      title: 'POST /vps answers status creating with null ip_address and private_ip',
    },
    async ({ state }) => {
      const right = { status: 'creating', ip_address: null, private_ip: null };
      expectFieldValues(state.created, right, 'the VPS right after POST /vps', state.createdRes);
    },
  );

  step(
    {
      id: `${FLOW}.create-echo`,
      requirement: 'VPS-CRT-005',
      level: 'MUST',
      operation: 'POST /vps',
      title: 'the created VPS echoes name, region, image, size and tags',
    },
    async ({ state }) => {
      const { region, image, size } = state.catalogue;
      const sent = { name: state.name, region, image, size: size.slug, tags: state.tags };
      expectEchoed(state.createdRes, state.created, sent, 'the created VPS');
    },
  );

  step(
    {
      id: `${FLOW}.fields`,
      requirement: 'VPS-FLD-001',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}',
      title:
        'the VPS record carries id, name, status, region, image, size, vcpus, memory, disk, created_at and tags with their types',
    },
    async ({ api, state }) => {
      const vps = expectResource(await api.get(`/vps/${encodeURIComponent(state.vpsId)}`), 'vps');
      const types = {
        id: 'string',
        name: 'string',
        status: 'string',
        region: 'string',
        image: 'string',
        size: 'string',
        vcpus: 'integer',
        memory: 'integer',
        disk: 'integer',
        created_at: 'timestamp',
        tags: 'string[]',
      } as const;
      expectFields(vps, types, `GET /vps/${state.vpsId}`);
    },
  );

  step(
    {
      id: `${FLOW}.ips-present`,
      requirement: 'VPS-FLD-002',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}',
      title: 'the VPS record always carries ip_address and private_ip, each a string or null',
    },
    async ({ api, state }) => {
      const vps = expectResource(await api.get(`/vps/${encodeURIComponent(state.vpsId)}`), 'vps');
      expectFields(vps, { ip_address: 'string|null', private_ip: 'string|null' }, `GET /vps/${state.vpsId}`);
    },
  );

  step(
    {
      id: `${FLOW}.boot`,
      requirement: 'VPS-STATE-002',
      level: 'SHOULD',
      operation: 'GET /vps/{vps_id}',
      title: 'the VPS becomes running with ip_address and private_ip set',
    },
    async ({ api, ctx, state }) => {
      await waitForVps(api, ctx, state.vpsId, 'the VPS to be running with IPs', isRunningWithIps);
    },
  );

  step(
    {
      id: `${FLOW}.states-spelled`,
      requirement: 'VPS-STATE-001',
      level: 'MUST',
      operation: 'GET /vps',
      title: 'the running VPS reads status `running`, spelled so, in GET /vps and GET /vps/{vps_id}',
    },
    async ({ api, state }) => {
      // The flow saw it running and has not acted on it since: both reads must spell it so.
      expect((await getVps(api, state.vpsId)).status, `GET /vps/${state.vpsId}: status`).toBe('running');
      const listed = (await listAll(api, {})).find((v) => v.id === state.vpsId);
      expect(listed, `GET /vps lists the VPS ${state.vpsId}`).toBeTruthy();
      expect(listed!.status, `GET /vps: status of ${state.vpsId}`).toBe('running');
    },
  );

  step(
    {
      id: `${FLOW}.get`,
      requirement: 'VPS-GET-001',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}',
      title: 'GET /vps/{vps_id} answers the created VPS',
    },
    async ({ api, state }) => {
      const vps = await getVps(api, state.vpsId);
      expect(vps.id).toBe(state.vpsId);
      expect(vps.name).toBe(state.name);
    },
  );

  step(
    {
      id: `${FLOW}.update`,
      requirement: 'VPS-UPD-001',
      level: 'MUST',
      operation: 'PUT /vps/{vps_id}',
      title: 'a rename and retag is answered and seen by a later GET, other fields unchanged',
    },
    async ({ api, ctx, state }) => {
      const before = await getVps(api, state.vpsId);
      const name = ctx.name('vps-renamed');
      const tags = ['cloudcheck', 'renamed'];
      const res = await api.put(vpsPath(state.vpsId), { name, tags });
      expectStatus(res, 200);
      const answered = (resourceOf<Vps>(res.body, 'vps') ?? {}) as Vps;
      expect(answered.name, 'name in the PUT response').toBe(name);
      expect(answered.tags, 'tags in the PUT response').toEqual(tags);
      const after = await getVps(api, state.vpsId);
      expect(after.name, 'name in a later GET').toBe(name);
      expect(after.tags, 'tags in a later GET').toEqual(tags);
      expect(
        { region: after.region, image: after.image, size: after.size, created_at: after.created_at },
        'fields not sent stay unchanged',
      ).toEqual({
        region: before.region,
        image: before.image,
        size: before.size,
        created_at: before.created_at,
      });
      state.name = name;
      state.tags = tags;
    },
  );

  step(
    {
      id: `${FLOW}.list-running`,
      requirement: 'VPS-LIST-002',
      level: 'MUST',
      operation: 'GET /vps',
      title: 'GET /vps with status and region filters lists the running VPS and only matching items',
    },
    async ({ api, state }) => {
      const vps = await getVps(api, state.vpsId);
      expect(vps.status).toBe('running');
      await checkFilters(api, vps, 'stopped', state.catalogue.otherRegion);
    },
  );

  step(
    {
      id: `${FLOW}.stop`,
      requirement: 'VPS-ACT-005',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'stop takes the running VPS to stopped',
    },
    async ({ api, ctx, state }) => {
      const acted = await act(api, state.vpsId, { type: 'stop' });
      await waitForVps(api, ctx, state.vpsId, 'the VPS to be stopped', (v) => v.status === 'stopped');
      actionConvention(acted, 'stop');
    },
  );

  step(
    {
      id: `${FLOW}.stop-refused`,
      requirement: 'VPS-ACT-008',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'stop on the stopped VPS is refused with 422 invalid_state and leaves it stopped',
    },
    async ({ api, state }) => {
      const res = await api.post(`${vpsPath(state.vpsId)}/actions`, { type: 'stop' });
      expectStatus(res, 422, 'stop on a stopped VPS');
      expectErrorEnvelope(res, 'invalid_state');
      expect((await getVps(api, state.vpsId)).status, 'the VPS after the refused stop').toBe('stopped');
    },
  );

  step(
    {
      id: `${FLOW}.invalid-state-details`,
      requirement: 'ERR-MAP-011',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'restart on the stopped VPS answers 422 invalid_state with details [{"field": "type", "message"}]',
    },
    async ({ api, state }) => {
      const res = await api.post(`${vpsPath(state.vpsId)}/actions`, { type: 'restart' });
      expectStatus(res, 422, 'restart on a stopped VPS');
      const { details } = expectErrorEnvelope(res, 'invalid_state');
      const entries = Array.isArray(details) ? (details as Array<{ field?: unknown; message?: unknown }>) : [];
      expect(
        entries.length > 0 && entries.every((e) => e.field === 'type' && typeof e.message === 'string'),
        `error.details ${JSON.stringify(details)} is an array of {"field": "type", "message"}`,
      ).toBe(true);
    },
  );

  step(
    {
      id: `${FLOW}.list-stopped`,
      requirement: 'VPS-LIST-002',
      level: 'MUST',
      operation: 'GET /vps',
      title: 'GET /vps with status=stopped lists the stopped VPS, status=running does not',
    },
    async ({ api, state }) => {
      await checkFilters(api, await getVps(api, state.vpsId), 'running', null);
    },
  );

  step(
    {
      id: `${FLOW}.start`,
      requirement: 'VPS-ACT-005',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'start takes the stopped VPS back to running',
    },
    async ({ api, ctx, state }) => {
      const acted = await act(api, state.vpsId, { type: 'start' });
      await waitForVps(api, ctx, state.vpsId, 'the VPS to be running', (v) => v.status === 'running');
      actionConvention(acted, 'start');
    },
  );

  step(
    {
      id: `${FLOW}.restart`,
      requirement: 'VPS-ACT-005',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'restart leaves the VPS running',
    },
    async ({ api, ctx, state }) => {
      const acted = await act(api, state.vpsId, { type: 'restart' });
      await waitForVps(api, ctx, state.vpsId, 'the VPS to be running after restart', (v) => v.status === 'running');
      actionConvention(acted, 'restart');
    },
  );

  step(
    {
      id: `${FLOW}.resize`,
      requirement: 'VPS-ACT-006',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'resize gives the VPS the new size with its vcpus, memory and disk',
    },
    async ({ api, ctx, state }) => {
      const target = state.catalogue.largerSize;
      ctx.testInfo.skip(!target, 'the target offers no larger available size to resize to');
      const acted = await act(api, state.vpsId, { type: 'resize', size: target!.slug });
      const vps = await waitForVps(
        api,
        ctx,
        state.vpsId,
        `the VPS to have size ${target!.slug}`,
        (v) => v.size === target!.slug,
      );
      expect(
        { vcpus: vps.vcpus, memory: vps.memory, disk: vps.disk },
        `vcpus, memory and disk of size ${target!.slug}`,
      ).toEqual({
        vcpus: target!.vcpus,
        memory: target!.memory,
        disk: target!.disk,
      });
      expect(['running', 'stopped'], 'status after resize').toContain(vps.status);
      actionConvention(acted, 'resize');
    },
  );

  step(
    {
      id: `${FLOW}.snapshot`,
      requirement: 'VPS-ACT-007',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'a snapshot action creates a snapshot listed in GET /snapshots',
    },
    async ({ api, ledger, ctx, state }) => {
      state.snapshotName = ctx.name('snap');
      const acted = await act(api, state.vpsId, { type: 'snapshot', name: state.snapshotName });
      const snapshot = await ctx.poll(
        `snapshot ${state.snapshotName} in GET /snapshots`,
        async () => {
          const res = await api.get('/snapshots');
          expectStatus(res, 200);
          // GET /snapshots's body is not shown: a `snapshots` list (the convention) or another shape.
          return listOf<{ id: string; name: string }>(res.body, 'snapshots')?.find(
            (s) => s.name === state.snapshotName,
          );
        },
        { intervalMs: 500 },
      );
      state.snapshotId = ledger.track('snapshot', snapshot.id);
      actionConvention(acted, 'snapshot');
    },
  );

  step(
    {
      id: `${FLOW}.snapshot-delete`,
      requirement: 'SNAP-DEL-001',
      level: 'MUST',
      operation: 'DELETE /snapshots/{snapshot_id}',
      title: 'a deleted snapshot is no longer in GET /snapshots',
    },
    async ({ api, ledger, ctx, state }) => {
      ctx.testInfo.skip(!state.snapshotId, 'no snapshot to delete: the snapshot step did not get one');
      const res = await api.delete(`/snapshots/${encodeURIComponent(state.snapshotId)}`);
      expectStatus(res, [200, 202, 204]);
      ledger.deleted('snapshot', state.snapshotId);
      const list = await api.get('/snapshots');
      expectStatus(list, 200);
      const ids = (listOf<{ id: string }>(list.body, 'snapshots') ?? []).map((s) => s.id);
      expectNotListed(list, ids.includes(state.snapshotId), state.snapshotId, 'GET /snapshots after DELETE');
    },
  );

  step(
    {
      id: `${FLOW}.rebuild`,
      requirement: 'VPS-ACT-007',
      level: 'SHOULD',
      operation: 'POST /vps/{vps_id}/actions',
      title: 'rebuild with another image replaces the image and leaves the VPS running',
    },
    async ({ api, ctx, state }) => {
      const image = state.catalogue.otherImage;
      ctx.testInfo.skip(!image, 'the target offers only one image that fits the size');
      const acted = await act(api, state.vpsId, { type: 'rebuild', image: image! });
      await waitForVps(
        api,
        ctx,
        state.vpsId,
        `the VPS to run image ${image!}`,
        (v) => v.image === image && v.status === 'running',
      );
      actionConvention(acted, 'rebuild');
    },
  );

  step(
    {
      id: `${FLOW}.metrics-window`,
      requirement: 'VPS-MET-003',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}/metrics',
      title: 'metrics have the five series with every timestamp inside the asked window',
    },
    async ({ api, state }) => {
      const end = new Date(Math.floor(Date.now() / 60_000) * 60_000);
      const start = new Date(end.getTime() - 3_600_000);
      const res = await api.get(`${vpsPath(state.vpsId)}/metrics`, {
        query: { start: start.toISOString(), end: end.toISOString(), interval: '5m' },
      });
      expectStatus(res, 200);
      const metrics = res.json<{ metrics?: Record<string, Array<{ timestamp: string; value: unknown }>> }>().metrics;
      expect(metrics, 'an object `metrics`').toBeTruthy();
      for (const series of ['cpu', 'memory', 'disk', 'network_in', 'network_out']) {
        const points = metrics![series];
        expect(Array.isArray(points), `metrics.${series} should be an array`).toBe(true);
        for (const point of points!) {
          const t = Date.parse(point.timestamp);
          expect(Number.isNaN(t), `metrics.${series} timestamp ${point.timestamp}`).toBe(false);
          expect(
            t,
            `metrics.${series} point ${point.timestamp} must not be before start ${start.toISOString()}`,
          ).toBeGreaterThanOrEqual(start.getTime());
          expect(
            t,
            `metrics.${series} point ${point.timestamp} must not be after end ${end.toISOString()}`,
          ).toBeLessThanOrEqual(end.getTime());
          expect(typeof point.value, `metrics.${series} value`).toBe('number');
        }
      }
    },
  );

  step(
    {
      id: `${FLOW}.metrics-interval`,
      requirement: 'VPS-MET-002',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}/metrics',
      title: 'metrics honour interval=1h (points an hour apart) and refuse interval=7m',
    },
    async ({ api, state }) => {
      const end = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      const start = new Date(end.getTime() - 6 * 3_600_000);
      const res = await api.get(`${vpsPath(state.vpsId)}/metrics`, {
        query: { start: start.toISOString(), end: end.toISOString(), interval: '1h' },
      });
      expectStatus(res, 200);
      const cpu = res.json<{ metrics: { cpu: Array<{ timestamp: string }> } }>().metrics.cpu;
      expect(cpu.length, 'a six-hour window at 1h has points').toBeGreaterThan(1);
      expect(cpu.length, 'a six-hour window at 1h has at most 7 points').toBeLessThanOrEqual(7);
      const times = cpu.map((p) => Date.parse(p.timestamp));
      for (let i = 1; i < times.length; i++)
        expect(times[i]! - times[i - 1]!, `gap between ${cpu[i - 1]!.timestamp} and ${cpu[i]!.timestamp}`).toBe(
          3_600_000,
        );
      const bad = await api.get(`${vpsPath(state.vpsId)}/metrics`, { query: { interval: '7m' } });
      expectRefused(bad, 'interval=7m');
      expectErrorEnvelope(bad);
    },
  );

  step(
    {
      id: `${FLOW}.units`,
      requirement: 'VPS-UNIT-001',
      level: 'SHOULD',
      operation: 'GET /sizes',
      title: 'sizes give memory in MB, disk in GB and transfer in TB; cpu, memory and disk metrics are percentages',
    },
    async ({ api, state }) => {
      const res = await api.get('/sizes');
      expectStatus(res, 200);
      const sizes = listOf<{ slug: string; memory: number; disk: number; transfer: number }>(res.body, 'sizes') ?? [];
      expect(sizes.length, 'GET /sizes lists sizes').toBeGreaterThan(0);
      const smallest = (field: 'memory' | 'disk' | 'transfer'): number => Math.min(...sizes.map((s) => s[field]));
      // No VPS has less than 256 MB of memory, or a 4 TB disk and 100 TB of transfer as its smallest.
      expect(smallest('memory'), 'the smallest memory, in MB').toBeGreaterThanOrEqual(256);
      expect(smallest('disk'), 'the smallest disk, in GB').toBeLessThan(4096);
      expect(smallest('transfer'), 'the smallest transfer, in TB').toBeLessThan(100);
      const end = new Date(Math.floor(Date.now() / 60_000) * 60_000);
      const metrics = await api.get(`${vpsPath(state.vpsId)}/metrics`, {
        query: { start: new Date(end.getTime() - 3_600_000).toISOString(), end: end.toISOString(), interval: '5m' },
      });
      expectStatus(metrics, 200);
      const series = metrics.json<{ metrics?: Record<string, Array<{ value: unknown }>> }>().metrics ?? {};
      for (const name of ['cpu', 'memory', 'disk'])
        for (const point of series[name] ?? [])
          expect(
            typeof point.value === 'number' && point.value >= 0 && point.value <= 100,
            `metrics.${name} value ${JSON.stringify(point.value)} is a percentage`,
          ).toBe(true);
    },
  );

  step(
    {
      id: `${FLOW}.delete`,
      requirement: 'VPS-DEL-001',
      level: 'MUST',
      operation: 'DELETE /vps/{vps_id}',
      title: 'DELETE /vps/{vps_id} answers success',
    },
    async ({ api, ledger, state }) => {
      const res = await api.delete(vpsPath(state.vpsId));
      expectStatus(res, [200, 202, 204]);
      ledger.deleted('vps', state.vpsId);
    },
  );

  step(
    {
      id: `${FLOW}.use-after-delete`,
      requirement: 'VPS-DEL-001',
      level: 'MUST',
      operation: 'GET /vps/{vps_id}',
      title: 'after delete the VPS is not found, not listed, and actions on it fail',
    },
    async ({ api, ctx, state }) => {
      // Deletion may take a moment on a real platform; it must end with the VPS gone. Which 4xx
      // (404 by convention, ERR-MAP-003) is checked elsewhere; here it must not be a success.
      let last: ApiResponse | undefined;
      const res = await ctx.poll(
        'GET /vps/{vps_id} to stop answering the deleted VPS',
        async () => {
          last = await api.get(vpsPath(state.vpsId));
          return last.status >= 400 ? last : undefined;
        },
        // A VPS still served at the deadline fails on its last answer (what the target did), as
        // the generated use-after-delete check does, not only on the time it took.
        { intervalMs: 500, atDeadline: () => last && expectRefused(last, 'GET of the deleted VPS at the deadline') },
      );
      expect(res.status, 'GET of a deleted VPS should be a client error').toBeLessThan(500);
      expectErrorEnvelope(res);
      const action = await api.post(`${vpsPath(state.vpsId)}/actions`, { type: 'start' });
      expectRefused(action, 'an action on a deleted VPS');
      const ids = (await listAll(api, {})).map((v) => v.id);
      expect(ids, 'GET /vps after delete').not.toContain(state.vpsId);
    },
  );
});
