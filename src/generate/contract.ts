/**
 * Generated contract checks: for every operation of an area of the OpenAPI document, checks of
 * these kinds (ids `contract.<operationId>[.<variant>].<kind>...`):
 *
 * - `positive` (MUST): a valid request answers 2xx with the documented content type, the
 *   documented required headers, and a body valid against the part of the response schema the
 *   specification shows (`x-assumed` parts relaxed); `positive-status` (SHOULD): exactly the
 *   documented status; `positive-body` (SHOULD): the whole schema, conventions included;
 * - `auth-no-key`, `auth-bad-key` (MUST): refused (4xx) with the error envelope; `auth-401`
 *   (SHOULD): exactly 401 `unauthorized`, also for another scheme than Bearer;
 * - `unknown-id` (MUST envelope) and `unknown-id-404` (SHOULD);
 * - `negative.<field>.<kind>` (MUST where the specification decides, with its error code) and
 *   `negative.<field>.<kind>.status` (SHOULD: 422 and the code);
 * - `after-delete` (MUST: gone as the delete requirement says) and `after-delete-404` (SHOULD).
 *
 * Every error response a check receives (its prerequisites included) is validated against the
 * `Error` schema; an invalid envelope fails the check.
 */
import type { ApiResponse, CheckContext } from '../harness/check.ts';
import type { ApiClient } from '../harness/client.ts';
import { declarationSite, declareAt, defineCheck, EnvironmentError, expect, test } from '../harness/check.ts';
import { repetitionOfId } from '../harness/selection.ts';
import { CloudcheckError, isEnvironmentError, isSuiteError } from '../harness/errors.ts';
import type { RequestOptions } from '../harness/client.ts';
import { originalOnce } from '../harness/ledger.ts';
import { expectRefused, listOf, resourceOf } from '../harness/resource.ts';
import type { Area, ConformanceClass, Level } from '../../spec/classes.ts';
import type { ContractModel, ContractOperation, JsonSchema, VariantModel } from './model.ts';
import { hasAssumption, loadContractModel, relaxAssumptions, validateAgainst } from './model.ts';
import { bodyCases, customCases, queryCases } from './negative.ts';
import type { NegativeCase } from './negative.ts';
import {
  accountState,
  cachedMeta,
  createdKind,
  dataContext,
  expectOk,
  pointer,
  RUNNING_VPS,
  setWorkerLedger,
  usesRunningVps,
} from './prerequisites.ts';
import type { Env } from './prerequisites.ts';
import {
  AFTER_DELETE_MUST,
  AFTER_DELETE_SHOULD,
  AUTH,
  negativeTarget,
  POSITIVE_BODY_SHOULD,
  POSITIVE_MUST,
  statusRequirement,
  UNKNOWN_ID_MUST,
  UNKNOWN_ID_MUST_DEFAULT,
  UNKNOWN_ID_MUST_STORAGE,
  UNKNOWN_ID_SHOULD,
} from './requirement-map.ts';
import { buildValid, fillPath, movesMoney, pathParams } from './requests.ts';
import type { BuiltRequest } from './requests.ts';
import { generateValue } from './data.ts';
// Types only: the module (and fast-check with it) is loaded when a run asks for --examples (drawnExamples).
import type * as Examples from './examples.ts';
import type { DrawnInput, FieldPlan, Verdict } from './examples.ts';
import { shortText } from '../harness/body-shape.ts';

/** Conformance class of an operation: its area, refined where a narrower class exists. */
export function classOf(op: Pick<ContractOperation, 'area' | 'path'>): ConformanceClass {
  const p = op.path;
  if (op.area === 'messaging') return p === '/messaging/webhooks' ? 'webhooks' : 'messaging';
  if (op.area === 'compute') return 'compute';
  if (op.area === 'storage') return /^\/storage\/(volumes|snapshots)/.test(p) ? 'storage-volumes' : 'storage-objects';
  if (p.startsWith('/projects')) return 'projects';
  if (p.startsWith('/account/api-keys')) return 'api-keys';
  return 'billing';
}

// ---------------------------------------------------------------------------------------------
// Envelope guard: every error response a check receives is validated against the Error schema.

function guarded(api: ApiClient, errorSchema: JsonSchema | undefined, problems: string[]): ApiClient {
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
      return async (options: RequestOptions): Promise<ApiResponse> => {
        const res = await target.request.call(receiver, options);
        if (res.status >= 400 && options.method.toUpperCase() !== 'HEAD' && errorSchema) {
          const errors = validateAgainst(errorSchema, res.body);
          if (errors.length) {
            problems.push(
              `${options.method.toUpperCase()} ${new URL(res.exchange.request.url).pathname} answered ${res.status} without a valid error envelope: ${errors.join('; ')}${res.body === undefined ? ` (body: ${JSON.stringify(res.text.slice(0, 120))})` : ''}`,
            );
          }
        }
        return res;
      };
    },
  });
}

type Body = (env: Env, share: Share) => Promise<void>;

/**
 * Runs a request scenario once per worker and hands its responses to every check of the same
 * operation that asks for the same key: the MUST and SHOULD checks of one case send the same
 * request, so the second one reads the first one's answer (half the requests, and the rate
 * limits of the target stay out of reach). The checks of one operation run in order in one
 * worker (see defineContractChecks). A check that reuses a scenario records its exchanges as its
 * own.
 */
type Share = <T extends Partial<Record<string, ApiResponse>>>(key: string, scenario: () => Promise<T>) => Promise<T>;
const scenarios = new Map<string, Promise<Partial<Record<string, ApiResponse>>>>();

function check(
  model: ContractModel,
  meta: { id: string; requirement: string; level: Level; cls: ConformanceClass; op: ContractOperation; title: string },
  body: Body,
): void {
  defineCheck(
    {
      id: meta.id,
      requirement: meta.requirement,
      level: meta.level,
      class: meta.cls,
      operation: meta.op.key,
      title: meta.title,
      ...(usesRunningVps(meta.op) ? { provisions: [RUNNING_VPS] } : {}),
    },
    async ({ api, ledger, ctx }) => {
      const problems: string[] = [];
      const env: Env = { api: guarded(api, model.schemas.Error, problems), ledger, ctx, model };
      const share: Share = async <T extends Partial<Record<string, ApiResponse>>>(
        scenarioKey: string,
        scenario: () => Promise<T>,
      ): Promise<T> => {
        // Each repetition of a run (selection.ts) sends its own requests: a fault may bend one only.
        const key = scenarioKey + repetitionOfId(ctx.checkId);
        const hit = scenarios.get(key);
        if (hit) {
          const result = (await hit) as T;
          api.recordShared(Object.values(result).flatMap((r) => (r ? [r.exchange] : [])));
          return result;
        }
        const run = scenario();
        scenarios.set(key, run);
        run.catch(() => scenarios.delete(key));
        return run;
      };
      await body(env, share);
      if (problems.length)
        throw new Error(
          `error responses must carry the error envelope (ERR-ENVELOPE-001):\n  ${problems.join('\n  ')}`,
        );
    },
  );
}

/**
 * Sends a check's own request (positive, auth, unknown id, negative, delete). Every one goes
 * through the ledger's two safety rules here, whatever kind of check sends it:
 * - before a request that changes the account's own state, a restore of the original values is
 *   recorded (`recordRestore`), also for requests that should be refused: a target may accept them;
 * - after it, whatever a creating operation created is recorded (`trackIfCreated`) the moment its
 *   id is known, also when the request was expected to be refused.
 */
async function send(
  env: Env,
  op: ContractOperation,
  built: BuiltRequest,
  extra: Partial<RequestOptions> = {},
): Promise<ApiResponse> {
  await recordRestore(env, op, built);
  const res = await env.api.request({
    method: built.method,
    path: built.path,
    query: built.query,
    headers: { ...acceptFor(op), ...built.headers },
    ...(built.json !== undefined ? { json: built.json } : {}),
    ...(built.body !== undefined ? { body: built.body } : {}),
    ...extra,
  });
  trackIfCreated(env, op, res);
  built.after?.(res.status, res.body);
  return res;
}

/**
 * Records what a creating operation created (so teardown removes it): the resources of positive
 * checks, and those of requests the check expected to be refused but the target accepted. A 2xx
 * whose body does not hold the id where the document says still created something: that is
 * reported as a leak (nobody could delete it), never silently dropped.
 */
function trackIfCreated(env: Env, op: ContractOperation, res: ApiResponse): void {
  if (res.status < 200 || res.status >= 300) return;
  const kind = createdKind(op.operationId);
  if (!kind) return;
  const id = pointer(res.body, kind.pointer);
  if (typeof id === 'string' || typeof id === 'number') env.ledger.track(kind.kind, String(id));
  else
    env.ledger.untrackable(
      kind.kind,
      `${op.key} answered ${res.status} without an id at ${kind.pointer}: ${short(res.text)}`,
    );
}

/**
 * Before a request that changes the account's own state (PUT /account): records in the check's
 * ledger a restore of the values from before the run (read once per run, see `originalOnce`), so
 * teardown puts them back after the check, whether it passed or failed.
 */
async function recordRestore(env: Env, op: ContractOperation, built: BuiltRequest): Promise<void> {
  const state = accountState(op.operationId);
  if (!state) return;
  const original = await originalOnce(env.ctx.runTmp, state.label, async () => {
    const res = await env.api.get(state.read);
    expectOk(res, `GET ${state.read} (the original values, before ${op.key})`);
    return pointer(res.body, state.pointer) as Record<string, unknown> | undefined;
  });
  const schema = op.requestBody?.content.find((c) => /json/.test(c.contentType))?.schema;
  const fields = Object.keys((schema?.properties as Record<string, unknown> | undefined) ?? {});
  const values = Object.fromEntries(fields.filter((f) => original && f in original).map((f) => [f, original![f]]));
  if (Object.keys(values).length === 0)
    throw new EnvironmentError(
      `cannot restore ${op.key} afterwards: GET ${state.read} did not show the fields ${fields.join(', ')}`,
    );
  env.ledger.restore(op.key, { method: op.method, path: built.path, json: values });
}

function reqLine(res: ApiResponse): string {
  const r = res.exchange.request;
  return `${r.method} ${new URL(r.url).pathname}${new URL(r.url).search}`;
}

const short = (text: string): string => shortText(text, 400);

function errorOf(
  res: ApiResponse,
): { code?: unknown; message?: unknown; details?: unknown; resource?: unknown } | undefined {
  return (res.body as { error?: Record<string, unknown> } | undefined)?.error;
}

function expectEnvelope(res: ApiResponse, what: string): void {
  const error = errorOf(res);
  expect(
    typeof error?.code === 'string' && typeof error?.message === 'string',
    `${what}: ${reqLine(res)} answered ${res.status} without the error envelope {"error": {"code", "message"}}: ${short(res.text)}`,
  ).toBe(true);
}

function expectCode(res: ApiResponse, code: string, what: string): void {
  expect(errorOf(res)?.code, `${what}: ${reqLine(res)} answered ${res.status} ${short(res.text)}; error.code`).toBe(
    code,
  );
}

// ---------------------------------------------------------------------------------------------
// Positive

/**
 * The Accept header of an operation whose success is not JSON (the invoice PDF, object bodies):
 * its own media types first, JSON after them for the error envelope. The client's default
 * (`application/json`) would let a target that honours Accept answer 406 and be blamed for it.
 */
function acceptFor(op: ContractOperation): Record<string, string> {
  const media = successOf(op)?.content.map((c) => c.contentType) ?? [];
  if (media.length === 0 || media.some((m) => /json/.test(m))) return {};
  return { accept: [...media.map((m) => (m === '*/*' ? '*/*;q=0.9' : m)), 'application/json;q=0.5'].join(', ') };
}

function successOf(op: ContractOperation) {
  return op.responses.filter((r) => /^2\d\d$/.test(r.status)).sort((a, b) => a.status.localeCompare(b.status))[0];
}

function responseSchema(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
): JsonSchema | undefined {
  if (variant?.response && model.schemas[variant.response]) return model.schemas[variant.response];
  return successOf(op)?.content.find((c) => /json/.test(c.contentType))?.schema;
}

function variantKey(op: ContractOperation, variant: VariantModel | undefined): string {
  // The plain object upload shares the operation's own entries; other variants have their own.
  return variant && variant.name !== 'upload' ? `${op.key} ${variant.name}` : op.key;
}

function positiveMust(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
  res: ApiResponse,
  built: BuiltRequest,
): void {
  const success = successOf(op)!;
  expect(
    res.status >= 200 && res.status < 300,
    `${reqLine(res)} with a valid request should succeed (2xx), got ${res.status}: ${short(res.text)}`,
  ).toBe(true);
  for (const h of success.headers.filter((x) => x.required)) {
    // Content-Length of a HEAD is what undici reports; every documented required header must be there.
    expect(res.headers[h.name.toLowerCase()], `${reqLine(res)}: documented header ${h.name} is missing`).toBeDefined();
  }
  const media = success.content.map((c) => c.contentType);
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (op.method === 'HEAD') {
    expect(res.bytes.length, `${reqLine(res)}: HEAD answers without a body`).toBe(0);
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expect(Number(res.headers['content-length']), 'HEAD Content-Length equals the uploaded size').toBe(
        Buffer.byteLength(String(meta.bytes)),
      );
      expect(contentType, 'HEAD Content-Type equals the uploaded one').toBe(meta.contentType);
    }
    return;
  }
  // No documented body (DELETE): what a success carries is not shown, so nothing is asserted
  // here; the convention (204, empty) is the SHOULD `positive-status` check's.
  if (media.length === 0) return;
  if (media.includes('application/pdf')) {
    expect(contentType, 'Content-Type of the invoice PDF').toBe('application/pdf');
    expect(res.bytes.subarray(0, 5).toString('latin1'), 'the PDF body starts with %PDF-').toBe('%PDF-');
    return;
  }
  if (op.key === 'GET /storage/buckets/{bucket_name}/objects/{object_key}') {
    const meta = cachedMeta.get(`object:${built.params.bucket_name}/${built.params.object_key}`);
    if (meta) {
      expect(res.text, 'the downloaded bytes equal the uploaded ones').toBe(meta.bytes);
      expect(contentType, 'the object is served with its Content-Type').toBe(meta.contentType);
    }
    return;
  }
  if (media.some((m) => /json/.test(m))) {
    expect(contentType, `${reqLine(res)}: Content-Type`).toBe('application/json');
    const schema = responseSchema(model, op, variant);
    if (schema) {
      const relaxed = relaxAssumptions(schema);
      const errors = validateAgainst(relaxed, res.body);
      // A body the specification does not show may hold the resource flat or under `data`; the
      // convention's wrapper is the SHOULD `positive-body` check's.
      const otherShape =
        errors.length > 0 &&
        BODY_NOT_SHOWN.has(variantKey(op, variant)) &&
        otherShapes(relaxed, res.body).some((alt) => validateAgainst(relaxed, alt).length === 0);
      if (!otherShape)
        expect(
          errors,
          `${reqLine(res)}: the body does not match the response schema (the specification's part): ${short(res.text)}`,
        ).toEqual([]);
    }
  }
}

/**
 * Operations whose success body the specification does not show ("Response bodies not shown
 * for: ..." in each area of Endpoints), as `variantKey` writes them. Only for these may a MUST
 * check accept the resource in another shape than the document's convention.
 */
const BODY_NOT_SHOWN: ReadonlySet<string> = new Set([
  'GET /sms/campaigns/{campaign_id}',
  'POST /messaging/sender-ids',
  'GET /messaging/templates',
  'POST /messaging/templates',
  'POST /sms/send-template',
  'GET /messaging/contacts/lists',
  'POST /messaging/contacts/lists',
  'POST /messaging/contacts/lists/{list_id}/contacts',
  'GET /messaging/opt-outs',
  'POST /messaging/opt-outs',
  'POST /messaging/webhooks',
  'GET /vps/{vps_id}',
  'PUT /vps/{vps_id}',
  'POST /vps/{vps_id}/actions',
  'GET /ssh-keys',
  'POST /ssh-keys',
  'GET /snapshots',
  'POST /storage/buckets',
  'GET /storage/buckets/{bucket_name}',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key} upload-part',
  'POST /storage/buckets/{bucket_name}/objects/{object_key} complete',
  'POST /storage/volumes',
  'GET /storage/volumes/{volume_id}',
  'POST /storage/volumes/{volume_id}/resize',
  'POST /storage/volumes/{volume_id}/attach',
  'POST /storage/volumes/{volume_id}/detach',
  'GET /storage/snapshots',
  'POST /storage/snapshots',
  'POST /storage/volumes/restore',
  'POST /storage/buckets/{bucket_name}/cdn',
  'POST /storage/buckets/{bucket_name}/cdn/purge',
  'GET /storage/buckets/{bucket_name}/policy',
  'PUT /storage/buckets/{bucket_name}/policy',
  'GET /storage/access-keys',
  'POST /storage/access-keys',
  'PUT /account',
  'POST /account/wallets/topup',
  'POST /account/payment-methods',
  'GET /account/invoices/{invoice_id}',
  'POST /projects',
  'GET /projects/{project_id}',
  'PUT /projects/{project_id}',
  'GET /projects/{project_id}/usage',
  'GET /account/analytics/trends',
  'GET /account/alerts',
  'POST /account/alerts',
]);

/** The body rebuilt in the document's shape from the other legal shapes: flat, a bare list, or under `data`. */
function otherShapes(schema: JsonSchema, body: unknown): unknown[] {
  const shapes: unknown[] = [];
  const inner = (body as { data?: unknown } | undefined)?.data;
  if (inner !== undefined) shapes.push(inner);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (required.length === 1) {
    const name = required[0]!;
    const value = properties[name]?.type === 'array' ? listOf(body, name) : resourceOf(body, name);
    if (value !== undefined) shapes.push({ [name]: value });
  }
  return shapes;
}

function definePositive(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
  cls: ConformanceClass,
  idBase: string,
): void {
  const key = variantKey(op, variant);
  const label = variant && variant.name !== 'upload' ? variant.row : op.key;
  const success = successOf(op);
  if (!success) return;
  const mustId = POSITIVE_MUST[key];
  let built: BuiltRequest | undefined;
  const positive = (env: Env, share: Share) =>
    share(`${idBase}.positive`, async () => {
      built = await buildValid(env, op, variant, true);
      return { res: await send(env, op, built) };
    });
  if (mustId) {
    check(
      model,
      {
        id: `${idBase}.positive`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `${label}: a valid request succeeds with the documented content type, headers and body`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        positiveMust(model, op, variant, res, built!);
        // After the one example every run sends (and the SHOULD checks below share): with
        // --examples N > 1, N - 1 more drawn from the schema.
        await drawnExamples(model, op, variant, env, `${idBase}.positive`);
      },
    );
  }
  const statusId = statusRequirement(op.key);
  if (statusId) {
    check(
      model,
      {
        id: `${idBase}.positive-status`,
        requirement: statusId,
        level: 'SHOULD',
        cls,
        op,
        title: `${label}: a valid request answers exactly ${success.status}`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        expect(res.status, `${reqLine(res)}: ${short(res.text)}`).toBe(Number(success.status));
      },
    );
  }
  const schema = responseSchema(model, op, variant);
  const bodyId = POSITIVE_BODY_SHOULD[key];
  if (schema && bodyId && hasAssumption(schema)) {
    check(
      model,
      {
        id: `${idBase}.positive-body`,
        requirement: bodyId,
        level: 'SHOULD',
        cls,
        op,
        title: `${label}: the success body follows the assumed conventions of the document (wrapper, fields)`,
      },
      async (env, share) => {
        const { res } = await positive(env, share);
        expect(
          res.status >= 200 && res.status < 300,
          `${reqLine(res)} should succeed, got ${res.status}: ${short(res.text)}`,
        ).toBe(true);
        const errors = validateAgainst(schema, res.body);
        expect(errors, `${reqLine(res)}: the body does not match the full response schema: ${short(res.text)}`).toEqual(
          [],
        );
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// --examples N: more valid requests for the positive MUST check (src/generate/examples.ts)

/** The seeded example with the drawn input put in: query values, body fields, the object key. */
function withInput(
  ex: typeof Examples,
  env: Env,
  op: ContractOperation,
  plans: readonly FieldPlan[],
  built: BuiltRequest,
  input: DrawnInput,
): BuiltRequest {
  const { NAME_MAX, textOf } = ex;
  const query = { ...built.query };
  const json = { ...((built.json as Record<string, unknown> | undefined) ?? {}) };
  let { params, path, after } = built;
  for (const [id, value] of Object.entries(input)) {
    const [where, name = ''] = id.split('.');
    if (where === 'query' && value === null) delete query[name];
    else if (where === 'query' && typeof value !== 'object') query[name] = value;
    else if (where === 'body' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const field = plans.find((p) => p.id === id)?.field;
      if (field?.where === 'body' && field.kind === 'label') {
        // A name keeps the run prefix first: sweep finds leftovers by it.
        const label = `${env.ctx.name('ex')}-${textOf(value)}`;
        if ([...label].length > NAME_MAX)
          throw new CloudcheckError(
            `--examples: the name ${label} is longer than ${NAME_MAX} characters (the run prefix leaves less room than the drawn suffix takes)`,
          );
        json[name] = label;
      } else {
        json[name] = textOf(value);
      }
    } else if (where === 'key' && Array.isArray(value)) {
      const key = `${env.ctx.name('ex')}/${value.map(textOf).join('/')}`;
      params = { ...params, object_key: key };
      path = fillPath(op.path, params);
      const bucket = params.bucket_name;
      // Recorded the moment it exists, like every upload of a positive check (requests.ts).
      after = (status) => {
        if (status >= 200 && status < 300) env.ledger.track('object', `${bucket}/${key}`);
      };
    }
  }
  return { ...built, query, params, path, after, ...(built.json !== undefined ? { json } : {}) };
}

/**
 * With `--examples N` (N > 1), the positive MUST check of an operation listed in EXAMPLE_FIELDS
 * sends N - 1 more valid requests, drawn from the operation's schema (boundaries first), each
 * judged like the seeded one (`positiveMust`); a failure is shrunk by fast-check and fails the
 * check naming the shrunk input and the seed. Each request is built afresh (fresh names, fresh
 * resources where the operation destroys one) and goes through `send`, so whatever it creates is
 * in the ledger at once, and through the run's client, so the rate budget paces it.
 */
async function drawnExamples(
  model: ContractModel,
  op: ContractOperation,
  variant: VariantModel | undefined,
  env: Env,
  checkId: string,
): Promise<void> {
  const count = env.ctx.examples - 1;
  if (count <= 0) return;
  // Loaded here, not at the top: every process that loads the suites would pay for fast-check
  // (some 50 ms each), and the default run is to cost what it did before --examples.
  const ex = await import('./examples.ts');
  const { SENDS_SMS, describeInput, planFields, runExamples, seedOf } = ex;
  const key = variantKey(op, variant);
  if (movesMoney(op) || (SENDS_SMS.has(key) && env.ctx.liveSms)) return;
  const plans = planFields(op, key);
  if (plans.length === 0) return;
  const seed = seedOf(env.ctx.seed, checkId);
  const notAboutTarget = (error: unknown): boolean =>
    isEnvironmentError(error) || isSuiteError(error) || env.ctx.testInfo.expectedStatus === 'skipped';
  const outcome = await runExamples({
    plans,
    count,
    seed,
    isAbort: notAboutTarget,
    attempt: async (input): Promise<Verdict> => {
      const drawn = withInput(ex, env, op, plans, await buildValid(env, op, variant, true), input);
      const res = await send(env, op, drawn);
      try {
        positiveMust(model, op, variant, res, drawn);
        return { ok: true };
      } catch (error) {
        if (notAboutTarget(error)) throw error;
        return { ok: false, message: error instanceof Error ? error.message : String(error) };
      }
    },
  });
  const failure = outcome.failure;
  if (!failure) return;
  const unchanged = JSON.stringify(failure.input) === JSON.stringify(failure.firstInput);
  const how = unchanged
    ? `no smaller input failed (${failure.shrinks} tried)`
    : `shrunk in ${failure.shrinks} requests${failure.shrinkBudgetSpent ? ' (the shrink budget ran out: maybe not the smallest)' : ''} from ${describeInput(failure.firstInput)}`;
  throw new Error(
    `--examples ${env.ctx.examples}: a valid request drawn from the schema failed after ${outcome.drawn} drawn inputs (seed ${outcome.seed} of this check, from --seed ${env.ctx.seed}; ${how}).\n` +
      `Shrunk input: ${describeInput(failure.input)}\n${failure.message}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Auth

const FAKE_PREFIX: Record<string, string> = {
  vps_id: 'vps_',
  volume_id: 'vol_',
  snapshot_id: 'snap_',
  project_id: 'proj_',
  key_id: 'key_',
  payment_method_id: 'pm_',
  invoice_id: 'inv_',
  message_id: 'msg_',
  campaign_id: 'cmp_',
  list_id: 'cl_',
};

function unknownValue(name: string, ctx: CheckContext): string {
  const tail = ctx.faker.string.alphanumeric({ length: 12, casing: 'lower' });
  if (name === 'bucket_name') return `cc-unknown-${tail}`;
  if (name === 'object_key') return `cc-unknown/${tail}.txt`;
  return `${FAKE_PREFIX[name] ?? ''}ccunknown${tail}`;
}

/** A request that would be valid but for its key: made-up path ids, a generated body. */
async function authRequest(env: Env, op: ContractOperation): Promise<BuiltRequest> {
  if (movesMoney(op)) env.ctx.requireCharges();
  const params: Record<string, string> = {};
  for (const name of pathParams(op)) params[name] = unknownValue(name, env.ctx);
  const built: BuiltRequest = { method: op.method, path: fillPath(op.path, params), query: {}, headers: {}, params };
  const data = await dataContext(env);
  for (const p of op.parameters)
    if (p.in === 'query' && p.required) built.query[p.name] = generateValue(p.schema, data, p.name) as string;
  const json = op.requestBody?.content.find((c) => /json/.test(c.contentType));
  if (json?.schema) built.json = generateValue(json.schema, data);
  else if (op.requestBody) {
    built.body = 'cloudcheck';
    built.headers['content-type'] = op.requestBody.content[0]?.contentType.replace('*/*', 'text/plain') ?? 'text/plain';
  }
  if (op.variants.length) {
    const first = op.variants[0]!;
    for (const q of first.query) built.query[q] = q === 'partNumber' ? 1 : q === 'uploads' ? true : 'cc-unknown-upload';
  }
  return built;
}

function fakeKey(ctx: CheckContext): string {
  const main = ctx.keys.main;
  const cut = main.lastIndexOf('_');
  const prefix = cut > 0 && cut < 16 ? main.slice(0, cut + 1) : '';
  const length = Math.max(24, main.length - prefix.length);
  return `${prefix}${ctx.faker.string.alphanumeric({ length, casing: 'lower' })}`;
}

function defineAuth(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  const head = op.method === 'HEAD';
  const verify = (res: ApiResponse, what: string) => {
    expectRefused(res, what);
    if (!head) expectEnvelope(res, what);
  };
  check(
    model,
    {
      id: `${idBase}.auth-no-key`,
      requirement: AUTH.noKey,
      level: 'MUST',
      cls,
      op,
      title: `${op.key} without an Authorization header is refused${head ? '' : ' with the error envelope'}`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      const res = await send(env, op, built, { key: null });
      verify(res, 'no Authorization header');
    },
  );
  check(
    model,
    {
      id: `${idBase}.auth-bad-key`,
      requirement: AUTH.badKey,
      level: 'MUST',
      cls,
      op,
      title: `${op.key} with a bearer value that is no API key is refused${head ? '' : ' with the error envelope'}`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      for (const [what, value] of [
        ['malformed bearer value', 'Bearer !!not-a-key!!'],
        ['well-formed but unknown key', `Bearer ${fakeKey(env.ctx)}`],
      ] as const) {
        const res = await send(env, op, built, { authorization: value });
        verify(res, what);
      }
    },
  );
  check(
    model,
    {
      id: `${idBase}.auth-401`,
      requirement: AUTH.status,
      level: 'SHOULD',
      cls,
      op,
      title: `${op.key} answers 401 unauthorized without a valid bearer key (none, malformed, unknown, another scheme)`,
    },
    async (env) => {
      const built = await authRequest(env, op);
      const variants: Array<[string, Partial<RequestOptions>]> = [
        ['no Authorization header', { key: null }],
        ['malformed bearer value', { authorization: 'Bearer !!not-a-key!!' }],
        ['well-formed but unknown key', { authorization: `Bearer ${fakeKey(env.ctx)}` }],
        ['the run key under another scheme', { authorization: `Token ${env.ctx.keys.main}` }],
      ];
      for (const [what, extra] of variants) {
        const res = await send(env, op, built, extra);
        expect(res.status, `${what}: ${reqLine(res)} ${short(res.text)}`).toBe(401);
        if (!head) expectCode(res, 'unauthorized', what);
      }
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Unknown id

function unknownTarget(op: ContractOperation): string | undefined {
  const names = pathParams(op);
  if (names.length === 0) return undefined;
  // Writing to a new object key is valid (upload, initiate, presign): the unknown id is the bucket.
  if (names.includes('object_key') && op.method !== 'GET' && op.method !== 'HEAD' && op.method !== 'DELETE')
    return 'bucket_name';
  if (op.path.endsWith('/presigned-url')) return 'bucket_name';
  return names[names.length - 1];
}

function defineUnknownId(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  const target = unknownTarget(op);
  if (!target) return;
  const storage = op.area === 'storage';
  const build = async (env: Env): Promise<BuiltRequest> => {
    const variant = op.variants.find((v) => v.query.length === 0) ?? op.variants[0];
    const built = await buildValid(env, op, variant, false);
    const params = { ...built.params, [target]: unknownValue(target, env.ctx) };
    return { ...built, path: fillPath(op.path, params), params, after: undefined };
  };
  const unknown = (env: Env, share: Share) =>
    share(`${idBase}.unknown-id`, async () => {
      const res = await send(env, op, await build(env));
      return { res };
    });
  if (op.method !== 'HEAD') {
    const mustId = UNKNOWN_ID_MUST[op.key] ?? (storage ? UNKNOWN_ID_MUST_STORAGE : UNKNOWN_ID_MUST_DEFAULT);
    check(
      model,
      {
        id: `${idBase}.unknown-id`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `${op.key} with an unknown {${target}} is refused with the error envelope${storage ? ' naming the resource' : ''}`,
      },
      async (env, share) => {
        const { res } = await unknown(env, share);
        expectRefused(res, `unknown ${target}`);
        expectEnvelope(res, `unknown ${target}`);
        if (storage) {
          const resource = errorOf(res)?.resource;
          expect(
            typeof resource === 'string' && resource.length > 0,
            `unknown ${target}: error.resource should name the resource, got ${JSON.stringify(resource)}`,
          ).toBe(true);
        }
      },
    );
  }
  check(
    model,
    {
      id: `${idBase}.unknown-id-404`,
      requirement: UNKNOWN_ID_SHOULD,
      level: 'SHOULD',
      cls,
      op,
      title: `${op.key} with an unknown {${target}} answers 404 not_found`,
    },
    async (env, share) => {
      const { res } = await unknown(env, share);
      expect(res.status, `${reqLine(res)} ${short(res.text)}`).toBe(404);
      if (op.method !== 'HEAD') {
        expectCode(res, 'not_found', `unknown ${target}`);
        const resource = errorOf(res)?.resource;
        expect(
          typeof resource === 'string' && resource.length > 0,
          `error.resource should name the kind of resource, got ${JSON.stringify(resource)}`,
        ).toBe(true);
      }
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Negative data

function negativeCasesOf(op: ContractOperation): NegativeCase[] {
  const cases: NegativeCase[] = [];
  const json = op.requestBody?.content.find((c) => /json/.test(c.contentType));
  if (json?.schema) cases.push(...bodyCases(json.schema));
  if (op.variants.length === 0) cases.push(...queryCases(op));
  cases.push(...customCases(op));
  return cases;
}

function detailsMention(res: ApiResponse, field: string): boolean {
  return JSON.stringify(errorOf(res)?.details ?? null).includes(field);
}

function defineNegative(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  for (const c of negativeCasesOf(op)) {
    const target = negativeTarget(op.key, c.field, c.kind, { assumed: c.assumed, query: c.where === 'query' });
    const caseId = `${idBase}.negative.${c.field}.${c.kind}`;
    const run = async (env: Env, share: Share): Promise<ApiResponse> =>
      (
        await share(caseId, async () => {
          const built = await buildValid(env, op, undefined, false);
          const applied = c.apply((built.json as Record<string, unknown> | undefined) ?? {}, built.query);
          const res = await send(env, op, {
            ...built,
            json: c.where === 'body' || built.json !== undefined ? applied.body : undefined,
            query: applied.query,
            after: undefined,
          });
          return { res };
        })
      ).res;
    if (target.must) {
      const must = target.must;
      check(
        model,
        {
          id: caseId,
          requirement: must.id,
          level: 'MUST',
          cls,
          op,
          title: `${op.key} ${c.describe} is refused${must.code ? ` with ${must.code}` : ''}`,
        },
        async (env, share) => {
          const res = await run(env, share);
          expectRefused(res, c.describe);
          expectEnvelope(res, c.describe);
          if (must.code) expectCode(res, must.code, c.describe);
          if (must.id === 'ERR-CODE-007')
            expect(
              errorOf(res)?.details,
              `${c.describe}: validation_error carries details describing the problem`,
            ).toBeDefined();
        },
      );
    }
    check(
      model,
      {
        id: `${caseId}.status`,
        requirement: target.should.id,
        level: 'SHOULD',
        cls,
        op,
        title: `${op.key} ${c.describe} answers 422 ${target.should.code} naming the field`,
      },
      async (env, share) => {
        const res = await run(env, share);
        expect(res.status, `${c.describe}: ${reqLine(res)} ${short(res.text)}`).toBe(422);
        expectCode(res, target.should.code, c.describe);
        expect(
          detailsMention(res, c.field),
          `${c.describe}: error.details should name the field "${c.field}": ${short(res.text)}`,
        ).toBe(true);
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Use after delete

/** Where a deleted resource is looked up: its GET (path) or its list (id must be absent). */
function lookupAfterDelete(
  model: ContractModel,
  op: ContractOperation,
): { get?: ContractOperation; list?: ContractOperation } {
  const get = model.operations.find((o) => o.method === 'GET' && o.path === op.path);
  if (get) return { get };
  const parent = op.path.replace(/\/\{[^}]+\}$/, '');
  return { list: model.operations.find((o) => o.method === 'GET' && o.path === parent) };
}

function defineAfterDelete(model: ContractModel, op: ContractOperation, cls: ConformanceClass, idBase: string): void {
  if (op.method !== 'DELETE') return;
  const mustId = AFTER_DELETE_MUST[op.key];
  const { get, list } = lookupAfterDelete(model, op);
  /** Delete, then look it up (GET or list) and delete it again; both checks read the same answers. */
  const scenario = (env: Env, share: Share) =>
    share(
      `${idBase}.after-delete`,
      async (): Promise<Partial<Record<'first' | 'lookup' | 'again' | 'id', ApiResponse>>> => {
        const built = await buildValid(env, op, undefined, true);
        const first = await send(env, op, built);
        if (first.status < 200 || first.status >= 300) return { first };
        const id = Object.values(built.params).pop()!;
        const lookup = get ? await env.api.request({ method: 'GET', path: built.path }) : await env.api.get(list!.path);
        const again = await env.api.request({ method: 'DELETE', path: built.path });
        // The id travels with the answers, for the list check.
        return { first, lookup, again, id: { ...again, text: id } };
      },
    );
  const firstOk = (first: ApiResponse) =>
    expect(
      first.status >= 200 && first.status < 300,
      `the first ${reqLine(first)} should succeed, got ${first.status}: ${short(first.text)}`,
    ).toBe(true);
  if (mustId && (get || list)) {
    check(
      model,
      {
        id: `${idBase}.after-delete`,
        requirement: mustId,
        level: 'MUST',
        cls,
        op,
        title: `after ${op.key}, the resource is gone (${get ? get.key : `${list!.key} no longer lists it`})`,
      },
      async (env, share) => {
        const { first, lookup, id } = await scenario(env, share);
        firstOk(first!);
        const res = lookup!;
        if (get) {
          expectRefused(res, 'reading a deleted resource');
          expectEnvelope(res, 'reading a deleted resource');
        } else {
          expect(res.status, `${reqLine(res)} ${short(res.text)}`).toBe(200);
          expect(
            res.text.includes(JSON.stringify(id!.text)),
            `${list!.key} still lists the deleted ${id!.text}: ${short(res.text)}`,
          ).toBe(false);
        }
      },
    );
  }
  check(
    model,
    {
      id: `${idBase}.after-delete-404`,
      requirement: AFTER_DELETE_SHOULD,
      level: 'SHOULD',
      cls,
      op,
      title: `after ${op.key}, ${get ? `${get.key} and ` : ''}a second DELETE answer 404`,
    },
    async (env, share) => {
      const { first, lookup, again } = await scenario(env, share);
      firstOk(first!);
      if (get)
        expect(lookup!.status, `reading a deleted resource: ${reqLine(lookup!)} ${short(lookup!.text)}`).toBe(404);
      expect(again!.status, `deleting a deleted resource: ${reqLine(again!)} ${short(again!.text)}`).toBe(404);
    },
  );
}

// ---------------------------------------------------------------------------------------------

/** Declares every generated check of one area. Call at the top level of a suite file. */
export async function defineContractChecks(area: Area): Promise<void> {
  // Before the await: the suite file's frame is still on the stack.
  const site = declarationSite();
  const model = await loadContractModel();
  // Prerequisites shared by the checks of a worker are recorded in the worker's ledger.
  test.beforeAll(async ({ harness }) => {
    setWorkerLedger(harness.ledger);
  });
  declareAt(site, () => declareOperations(model, area));
}

function declareOperations(model: ContractModel, area: Area): void {
  for (const op of model.operations.filter((o) => o.area === area)) {
    const cls = classOf(op);
    const idBase = `contract.${op.operationId}`;
    // One group per operation, run in order in one worker, so its MUST and SHOULD checks share
    // their requests (see Share); groups still spread over the workers.
    test.describe(op.key, () => {
      test.describe.configure({ mode: 'default' });
      const variants = op.variants.length ? op.variants : [undefined];
      for (const variant of variants) {
        definePositive(
          model,
          op,
          variant,
          cls,
          variant && op.variants.length > 1 ? `${idBase}.${variant.name}` : idBase,
        );
      }
      defineAuth(model, op, cls, idBase);
      defineUnknownId(model, op, cls, idBase);
      defineNegative(model, op, cls, idBase);
      defineAfterDelete(model, op, cls, idBase);
    });
  }
}
