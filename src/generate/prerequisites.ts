/**
 * Prerequisites of generated checks: the resources an operation's path ids and body references
 * need, created by following the document's `links` backwards (which operation's response
 * produces `vps_id`, `bucket_name`, `template_id`...), plus the state some operations need (a
 * running VPS before an action, an initiated upload before a part, a volume attached before a
 * detach, a payment method before a top-up).
 *
 * Resources a check does not destroy are cached per worker (one running VPS, one bucket with one
 * object, one volume...) and recorded in the worker's ledger, torn down when the worker ends.
 * Resources a check destroys or changes for good are created fresh and recorded in the check's
 * own ledger. Everything is recorded the moment its creating response arrives.
 */
import { listOf, resourceOf } from '../harness/body-shape.ts';
import { expectPrerequisite } from '../harness/assert.ts';
import type { ApiResponse, CheckContext } from '../harness/check.ts';
import type { ApiClient } from '../harness/client.ts';
import { EnvironmentError, Provision } from '../harness/check.ts';
import type { Ledger } from '../harness/ledger.ts';
import { ORIGINAL } from '../harness/ledger.ts';
import type { Catalogue, DataContext } from './data.ts';
import { generateValue } from './data.ts';
import type { ContractModel, ContractOperation, JsonSchema } from './model.ts';

/** The worker's ledger (torn down when the worker ends), set by the contract suites' beforeAll. */
let workerLedger: Ledger | null = null;
export function setWorkerLedger(ledger: Ledger): void {
  workerLedger = ledger;
}

/** Creating operation → ledger kind and where the response holds the id. */
const CREATED_KINDS: Record<string, { kind: string; pointer: string }> = {
  createVps: { kind: 'vps', pointer: '/vps/id' },
  createBucket: { kind: 'bucket', pointer: '/bucket/name' },
  createVolume: { kind: 'volume', pointer: '/volume/id' },
  restoreVolume: { kind: 'volume', pointer: '/volume/id' },
  createVolumeSnapshot: { kind: 'volume-snapshot', pointer: '/snapshot/id' },
  addPaymentMethod: { kind: 'payment-method', pointer: '/payment_method/id' },
  createProject: { kind: 'project', pointer: '/project/id' },
  createApiKey: { kind: 'api-key', pointer: '/api_key/id' },
  createSshKey: { kind: 'ssh-key', pointer: '/ssh_key/id' },
  createAccessKey: { kind: 'access-key', pointer: '/access_key/id' },
  createTemplate: { kind: 'template', pointer: '/template/id' },
  createContactList: { kind: 'contact-list', pointer: '/contact_list/id' },
  addOptOut: { kind: 'opt-out', pointer: '/opt_out/phone' },
  configureWebhook: { kind: 'webhook', pointer: '/webhook/id' },
  registerSenderId: { kind: 'sender-id', pointer: '/sender_id/sender_id' },
  createAlert: { kind: 'alert', pointer: '/alert/id' },
  sendSms: { kind: 'message', pointer: '/message_id' },
  sendTemplateSms: { kind: 'message', pointer: '/message_id' },
  sendBulkSms: { kind: 'campaign', pointer: '/campaign_id' },
};

export function createdKind(operationId: string): { kind: string; pointer: string } | undefined {
  return CREATED_KINDS[operationId];
}

/**
 * Operations that change something the run did not create and cannot create: the state every
 * account has (its name, company, timezone). A check that sends one first records a restore in its
 * ledger (contract.ts `send`): `read` is where the original is read, `pointer` where it is in the
 * body; the restore sends the operation again with the original values of the request's fields.
 * (Bucket policies, CDN settings, VPS and project updates only ever target resources the run
 * created: their path ids come from prerequisites, or are made-up unknown ids.)
 */
const ACCOUNT_STATE: Record<string, { label: string; read: string; pointer: string }> = {
  // `label`: the run-wide original (ledger.ts `originalOnce`), shared with the billing flow.
  updateAccount: { label: ORIGINAL.account, read: '/account', pointer: '/account' },
};

export function accountState(operationId: string): { label: string; read: string; pointer: string } | undefined {
  return ACCOUNT_STATE[operationId];
}

/** Evaluates `$response.body#/a/0/b` (or a literal) against a parsed body. */
export function evaluateExpression(expression: string, body: unknown): string | undefined {
  const m = /^\$response\.body#(.*)$/.exec(expression);
  if (!m) return expression.startsWith('$') ? undefined : expression;
  const path = m[1]!
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('/');
  const node = pointer(body, path);
  return typeof node === 'string' || typeof node === 'number' ? String(node) : undefined;
}

function walk(node: unknown, keys: readonly string[]): unknown {
  for (const key of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * A JSON pointer into a success body (`/vps/id`, `/snapshots`, `/invoices/0/id`). When the body
 * has another legal shape than the document's convention (the resource flat, or under `data`:
 * bodies the specification does not show), the first segment is read as the resource or list
 * name through body-shape.ts, so a prerequisite never fails on a shape the target may choose.
 */
export function pointer(body: unknown, path: string): unknown {
  const keys = path.split('/').filter((s) => s !== '');
  const exact = walk(body, keys);
  if (exact !== undefined || keys.length === 0) return exact;
  const [head, ...rest] = keys;
  const list = listOf(body, head!);
  if (list) return walk(list, rest);
  if (rest.length === 0) return undefined;
  const resource = resourceOf(body, head!, rest[0]);
  return resource === undefined ? undefined : walk(resource, rest);
}

/** The operation whose success response links to `target` with `name` (a path parameter or a body field), preferring one that creates. */
export function producerOf(
  model: ContractModel,
  targetOperationId: string,
  name: string,
): { op: ContractOperation; expression: string } | undefined {
  const found: Array<{ op: ContractOperation; expression: string }> = [];
  for (const op of model.operations) {
    for (const response of op.responses.filter((r) => /^2/.test(r.status))) {
      for (const link of response.links) {
        if (link.operationId !== targetOperationId) continue;
        const expression = link.parameters[name] ?? link.bodyFields[`/${name}`] ?? link.bodyFields[`/${name}/0`];
        if (expression) found.push({ op, expression });
      }
    }
  }
  return found.find((f) => f.op.method === 'POST' || f.op.method === 'PUT') ?? found[0];
}

// ---------------------------------------------------------------------------------------------
// Per-worker caches

interface CatalogueCache {
  promise: Promise<Catalogue>;
}
let catalogue: CatalogueCache | undefined;
const cache = new Map<string, Promise<Record<string, string>>>();
/** Per-worker metadata of cached resources (a volume's current size, an object's bytes). */
export const cachedMeta = new Map<string, Record<string, unknown>>();

export interface Env {
  api: ApiClient;
  ledger: Ledger;
  ctx: CheckContext;
  model: ContractModel;
}

/** The live catalogue (available regions, images, sizes), fetched once per worker. */
export async function liveCatalogue(env: Env): Promise<Catalogue> {
  catalogue ??= { promise: catalogueOf(env.api) };
  try {
    return await catalogue.promise;
  } catch (error) {
    catalogue = undefined;
    throw error;
  }
}

/** The available regions, images (not Windows) and sizes (smallest disk first) the target lists. */
async function catalogueOf(api: ApiClient): Promise<Catalogue> {
  const [regions, images, sizes] = await Promise.all([api.get('/regions'), api.get('/images'), api.get('/sizes')]);
  expectPrerequisite(regions, 'GET /regions');
  expectPrerequisite(images, 'GET /images');
  expectPrerequisite(sizes, 'GET /sizes');
  const r = (pointer(regions.body, '/regions') as Array<{ slug: string; available?: boolean }> | undefined) ?? [];
  const i = (pointer(images.body, '/images') as Array<{ id: string; type?: string }> | undefined) ?? [];
  const s =
    (pointer(sizes.body, '/sizes') as Array<{ slug: string; available?: boolean; disk?: number }> | undefined) ?? [];
  const result = {
    regions: r.filter((x) => x.available !== false).map((x) => x.slug),
    images: i.filter((x) => x.type !== 'windows').map((x) => x.id),
    // Smallest disks first: the cheapest sizes, and ones every image fits.
    sizes: s
      .filter((x) => x.available !== false)
      .sort((a, b) => (a.disk ?? 0) - (b.disk ?? 0))
      .map((x) => x.slug),
  };
  if (!result.regions.length || !result.images.length || !result.sizes.length) {
    throw new EnvironmentError(`the live catalogue has no available region, image or size: ${JSON.stringify(result)}`);
  }
  return result;
}

/**
 * A worker's running VPS, for the checks of operations on a VPS or its snapshots (cached per
 * worker: `runningVps`). The runner boots one for each worker that will want one as the run
 * starts (provision.ts), so no check waits out a whole boot; the worker takes the first ready.
 * In the home region, with the catalogue's first image and smallest size (dataContext's choice).
 */
export const RUNNING_VPS = new Provision(
  'contract.running-vps',
  async ({ api, ledger, name }) => {
    const cat = await catalogueOf(api);
    const res = await api.post('/vps', {
      name: name('vps'),
      region: cat.regions[0],
      image: cat.images[0],
      size: cat.sizes[0],
    });
    expectPrerequisite(res, 'POST /vps');
    const id = pointer(res.body, CREATED_KINDS.createVps!.pointer);
    if (typeof id !== 'string') throw new EnvironmentError(`POST /vps answered no id: ${res.text.slice(0, 200)}`);
    ledger.track('vps', id);
    return { vps_id: id, region: String(pointer(res.body, '/vps/region')) };
  },
  { pool: true, late: true },
);

/** Whether an operation's checks use the worker's running VPS (RUNNING_VPS). */
export function usesRunningVps(op: ContractOperation): boolean {
  return (
    /\{(vps_id|snapshot_id)\}/.test(op.path) ||
    op.key === 'POST /storage/volumes/{volume_id}/attach' ||
    op.key === 'POST /storage/volumes/{volume_id}/detach'
  );
}

/** Data context for generation: the check's seeded faker, its names, the catalogue (home region first). */
export async function dataContext(env: Env, refs: Record<string, string> = {}, label = 'r'): Promise<DataContext> {
  const cat = await liveCatalogue(env);
  // One home region for everything the worker creates, so volumes can attach to VPS instances.
  const home = { regions: [cat.regions[0]!], images: [cat.images[0]!], sizes: [cat.sizes[0]!] };
  return {
    faker: env.ctx.faker,
    testNumbers: env.ctx.testNumbers,
    name: (l?: string) => env.ctx.name(l ?? label),
    catalogue: home,
    refs: { $label: label, ...refs },
    // SSH keys and sender ids must differ from those of earlier runs (and of a retry) on the same account.
    unique: `${env.ctx.runId}#${env.ctx.testInfo.retry}`,
  };
}

function requestSchema(op: ContractOperation): JsonSchema | undefined {
  return op.requestBody?.content.find((c) => /json/.test(c.contentType))?.schema;
}

/** Valid JSON body for an operation. */
export async function validBody(
  env: Env,
  op: ContractOperation,
  refs: Record<string, string> = {},
  label?: string,
): Promise<unknown> {
  const schema = requestSchema(op);
  if (!schema) return undefined;
  const data = await dataContext(env, refs, label ?? labelOf(op));
  return generateValue(schema, data);
}

function labelOf(op: ContractOperation): string {
  const segment =
    op.path
      .split('/')
      .filter((s) => s && !s.startsWith('{'))
      .pop() ?? 'r';
  return (
    segment
      .replace(/[^a-z0-9]/gi, '')
      .slice(0, 6)
      .toLowerCase() || 'r'
  );
}

/** Calls a creating operation with a valid body, records what it created, returns the response. */
export async function create(
  env: Env,
  operationId: string,
  options: { refs?: Record<string, string>; path?: string; body?: unknown; ledger: Ledger; label?: string },
): Promise<ApiResponse> {
  const op = env.model.operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId} in the document`);
  const body = options.body ?? (await validBody(env, op, options.refs, options.label));
  const res = await env.api.request({ method: op.method, path: options.path ?? op.path, json: body });
  expectPrerequisite(res, op.key);
  const kind = CREATED_KINDS[operationId];
  if (kind) {
    const id = pointer(res.body, kind.pointer);
    if (typeof id === 'string') options.ledger.track(kind.kind, id);
    // Created, but with no id to delete it by: a leak, reported (idOf then fails the check).
    else
      options.ledger.untrackable(
        kind.kind,
        `${op.key} answered ${res.status} without an id at ${kind.pointer}: ${res.text.slice(0, 200)}`,
      );
  }
  return res;
}

function idOf(res: ApiResponse, operationId: string): string {
  const kind = CREATED_KINDS[operationId];
  const id = kind ? pointer(res.body, kind.pointer) : undefined;
  if (typeof id !== 'string')
    throw new EnvironmentError(
      `prerequisite ${operationId}: no id at ${kind?.pointer ?? '?'} in ${res.text.slice(0, 200)}`,
    );
  return id;
}

async function waitRunning(env: Env, vpsId: string): Promise<void> {
  await env.ctx.poll(
    `VPS ${vpsId} to be running`,
    async () => {
      const res = await env.api.get(`/vps/${encodeURIComponent(vpsId)}`);
      expectPrerequisite(res, 'GET /vps/{vps_id}');
      return pointer(res.body, '/vps/status') === 'running';
    },
    { intervalMs: 300 },
  );
}

// ---------------------------------------------------------------------------------------------
// Recipes: one per resource the checks need. `fresh` resources go in the check's ledger.

type Recipe = (env: Env, ledger: Ledger) => Promise<Record<string, string>>;

const enc = encodeURIComponent;

export const RECIPES: Record<string, Recipe> = {
  async vps(env, ledger) {
    const res = await create(env, 'createVps', { ledger, label: 'vps' });
    return { vps_id: idOf(res, 'createVps'), region: String(pointer(res.body, '/vps/region')) };
  },
  async runningVps(env, ledger) {
    const { vps_id, region } =
      (await RUNNING_VPS.takeMade({ api: env.api, ledger, ctx: env.ctx })) ?? (await RECIPES.vps!(env, ledger));
    await waitRunning(env, vps_id);
    return { vps_id, region };
  },
  async vpsSnapshot(env, ledger) {
    const { vps_id } = await resource(env, 'runningVps');
    // The shared VPS may still be in an action another check started (actions may be asynchronous).
    await waitRunning(env, vps_id!);
    const name = env.ctx.name('snap');
    const res = await env.api.post(`/vps/${enc(vps_id!)}/actions`, { type: 'snapshot', name });
    expectPrerequisite(res, 'POST /vps/{vps_id}/actions snapshot');
    const snap = await env.ctx.poll(
      `snapshot "${name}" in GET /snapshots after the snapshot action`,
      async () => {
        const list = await env.api.get('/snapshots');
        expectPrerequisite(list, 'GET /snapshots');
        return ((pointer(list.body, '/snapshots') as Array<{ id: string; name: string }> | undefined) ?? []).find(
          (s) => s.name === name,
        );
      },
      { intervalMs: 300 },
    );
    ledger.track('snapshot', snap.id);
    return { snapshot_id: snap.id };
  },
  async bucket(env, ledger) {
    const name = env.ctx.name('bkt');
    const res = await create(env, 'createBucket', { ledger, refs: { name }, label: 'bkt' });
    return { bucket_name: idOf(res, 'createBucket') };
  },
  async object(env, ledger) {
    const { bucket_name } = await resource(env, 'bucket');
    const key = `${env.ctx.name('obj')}/hello.txt`;
    const bytes = `cloudcheck ${env.ctx.faker.lorem.sentence(6)}\n`;
    const res = await env.api.request({
      method: 'PUT',
      path: `/storage/buckets/${enc(bucket_name!)}/objects/${key.split('/').map(enc).join('/')}`,
      headers: { 'content-type': 'text/plain' },
      body: bytes,
    });
    expectPrerequisite(res, 'PUT /storage/buckets/{bucket_name}/objects/{object_key}');
    ledger.track('object', `${bucket_name}/${key}`);
    cachedMeta.set(`object:${bucket_name}/${key}`, { bytes, contentType: 'text/plain' });
    return { bucket_name: bucket_name!, object_key: key };
  },
  async upload(env) {
    const { bucket_name } = await resource(env, 'bucket');
    const key = `${env.ctx.name('mpu')}/big.bin`;
    const res = await env.api.request({
      method: 'POST',
      path: `/storage/buckets/${enc(bucket_name!)}/objects/${key.split('/').map(enc).join('/')}`,
      query: { uploads: true },
      headers: { 'content-type': 'application/octet-stream' },
    });
    expectPrerequisite(res, 'POST /storage/buckets/{bucket_name}/objects/{object_key}?uploads');
    const uploadId = pointer(res.body, '/upload_id');
    if (typeof uploadId !== 'string')
      throw new EnvironmentError(`prerequisite multipart initiate: no upload_id in ${res.text.slice(0, 200)}`);
    return { bucket_name: bucket_name!, object_key: key, uploadId };
  },
  async volume(env, ledger) {
    const res = await create(env, 'createVolume', { ledger, refs: { region: await homeRegion(env) }, label: 'vol' });
    const id = idOf(res, 'createVolume');
    cachedMeta.set(`volume:${id}`, { size: pointer(res.body, '/volume/size') });
    return { volume_id: id };
  },
  async attachedVolume(env, ledger) {
    const { volume_id } = await RECIPES.volume!(env, ledger);
    const { vps_id } = await resource(env, 'runningVps');
    const res = await env.api.post(`/storage/volumes/${enc(volume_id!)}/attach`, { vps_id });
    expectPrerequisite(res, 'POST /storage/volumes/{volume_id}/attach');
    return { volume_id: volume_id!, vps_id: vps_id! };
  },
  async volumeSnapshot(env, ledger) {
    const { volume_id } = await resource(env, 'volume');
    const res = await create(env, 'createVolumeSnapshot', { ledger, refs: { volume_id: volume_id! }, label: 'vsnap' });
    return { snapshot_id: idOf(res, 'createVolumeSnapshot') };
  },
  async paymentMethod(env, ledger) {
    env.ctx.requireCharges();
    const res = await create(env, 'addPaymentMethod', { ledger, body: { type: 'card', token: 'tok_visa' } });
    return { payment_method_id: idOf(res, 'addPaymentMethod'), payment_method: idOf(res, 'addPaymentMethod') };
  },
  async project(env, ledger) {
    const res = await create(env, 'createProject', { ledger, refs: { region: await homeRegion(env) }, label: 'proj' });
    return { project_id: idOf(res, 'createProject') };
  },
  async apiKey(env, ledger) {
    const res = await create(env, 'createApiKey', {
      ledger,
      body: {
        name: env.ctx.name('key'),
        permissions: ['read'],
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    return { key_id: idOf(res, 'createApiKey') };
  },
  async message(env, ledger) {
    const res = await create(env, 'sendSms', { ledger, label: 'msg' });
    return { message_id: idOf(res, 'sendSms') };
  },
  async campaign(env, ledger) {
    const res = await create(env, 'sendBulkSms', { ledger, label: 'cmp' });
    return { campaign_id: idOf(res, 'sendBulkSms') };
  },
  async contactList(env, ledger) {
    const res = await create(env, 'createContactList', { ledger, label: 'cl' });
    return { list_id: idOf(res, 'createContactList') };
  },
  async template(env, ledger) {
    const res = await create(env, 'createTemplate', { ledger, label: 'tpl' });
    return { template_id: idOf(res, 'createTemplate') };
  },
  async invoice(env) {
    const res = await env.api.get('/account/invoices');
    expectPrerequisite(res, 'GET /account/invoices');
    const id = pointer(res.body, '/invoices/0/id');
    env.ctx.testInfo.skip(
      typeof id !== 'string',
      'the account has no invoice to read (GET /account/invoices is empty)',
    );
    return { invoice_id: String(id) };
  },
};

async function homeRegion(env: Env): Promise<string> {
  return (await liveCatalogue(env)).regions[0]!;
}

/**
 * A cached (per worker) resource: created once, recorded in the worker's ledger. Falls back to the
 * check's ledger (torn down after the check) when no worker ledger is known.
 */
export async function resource(env: Env, recipe: string): Promise<Record<string, string>> {
  let hit = cache.get(recipe);
  if (!hit) {
    const ledger = workerLedger ?? env.ledger;
    hit = RECIPES[recipe]!(env, ledger);
    cache.set(recipe, hit);
    if (!workerLedger) hit.finally(() => cache.delete(recipe)).catch(() => undefined);
  }
  try {
    return await hit;
  } catch (error) {
    cache.delete(recipe);
    throw error;
  }
}

/** A fresh resource for this check alone (it destroys or changes it): recorded in the check's ledger. */
export function fresh(env: Env, recipe: string): Promise<Record<string, string>> {
  return RECIPES[recipe]!(env, env.ledger);
}

/** Which recipe gives a path parameter, following the document's links backwards to name the producer. */
export function recipeForParam(model: ContractModel, op: ContractOperation, name: string): string {
  switch (name) {
    case 'vps_id':
      return 'runningVps';
    case 'snapshot_id':
      return 'vpsSnapshot';
    case 'bucket_name':
      return op.path.includes('{object_key}') ? 'object' : 'bucket';
    case 'object_key':
      return 'object';
    case 'volume_id':
      return 'volume';
    case 'payment_method_id':
      return 'paymentMethod';
    case 'project_id':
      return 'project';
    case 'key_id':
      return 'apiKey';
    case 'message_id':
      return 'message';
    case 'campaign_id':
      return 'campaign';
    case 'list_id':
      return 'contactList';
    case 'invoice_id':
      return 'invoice';
    default: {
      const producer = producerOf(model, op.operationId, name);
      throw new Error(
        `no recipe for path parameter ${name} of ${op.key}${producer ? ` (the document links it from ${producer.op.key})` : ''}`,
      );
    }
  }
}
