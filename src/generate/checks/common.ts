/**
 * What every kind of generated contract check (checks/*.ts) is built with: `contractCheck`, which
 * declares one check whose error responses are held to the `Error` schema and whose requests can be
 * shared with the other checks of its operation (`Share`); `send`, the one way a check sends its own
 * request (the ledger's two safety rules); and the small readers of answers the kinds share.
 */
import type { ApiResponse, CheckContext } from '../../harness/check.ts';
import { expectPrerequisite } from '../../harness/assert.ts';
import type { ApiClient, RequestOptions } from '../../harness/client.ts';
import { defineCheck, EnvironmentError } from '../../harness/check.ts';
import { judged, schemaFindings } from '../../harness/assert.ts';
import type { SchemaError } from '../../harness/assert.ts';
import { fail, findingSays } from '../../harness/failure.ts';
import { repetitionOfId } from '../../harness/selection.ts';
import { originalOnce } from '../../harness/ledger.ts';
import { shortText } from '../../harness/body-shape.ts';
import type { ConformanceClass, Level } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation, JsonSchema } from '../model.ts';
import { compileSchema } from '../model.ts';
import { RUNNING_VPS, accountState, createdKind, pointer, usesRunningVps } from '../prerequisites.ts';
import type { Env } from '../prerequisites.ts';
import type { BuiltRequest } from '../requests.ts';

export type { Env } from '../prerequisites.ts';

// ---------------------------------------------------------------------------------------------
// Envelope guard: every error response a check receives is validated against the Error schema.

/** An error response whose body the `Error` schema refused, with the validator's errors. */
interface EnvelopeProblem {
  res: ApiResponse;
  errors: SchemaError[];
}

function guarded(api: ApiClient, errorSchema: JsonSchema | undefined, problems: EnvelopeProblem[]): ApiClient {
  return new Proxy(api, {
    get(target, prop, receiver) {
      if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
      return async (options: RequestOptions): Promise<ApiResponse> => {
        const res = await target.request.call(receiver, options);
        if (res.status >= 400 && options.method.toUpperCase() !== 'HEAD' && errorSchema) {
          const validate = compileSchema(errorSchema);
          if (!validate(res.body)) problems.push({ res, errors: [...(validate.errors ?? [])] });
        }
        return res;
      };
    },
  });
}

/** Every error response of the check without a valid envelope, as one failure (ERR-ENVELOPE-001). */
function failEnvelopes(problems: readonly EnvelopeProblem[]): never {
  const findings = problems.flatMap((p) => schemaFindings(p.errors, p.res.body));
  const [first, ...rest] = findings;
  const statuses = [...new Set(problems.map((p) => p.res.status))].join(', ');
  return fail({
    kind: 'envelope',
    ...(first ?? { subject: '/error', keyword: 'required', expected: 'present', actual: 'absent' }),
    ...(rest.length ? { also: rest } : {}),
    judged: problems.map((p) => judged(p.res)),
    says: `answered ${statuses} without a valid error envelope (ERR-ENVELOPE-001): ${first ? findingSays(first) : 'invalid'}${rest.length ? ` (and ${rest.length} more)` : ''}`,
    evidence: problems
      .map(
        (p) =>
          `${p.res.requestLine} answered ${p.res.status}: ${p.errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`).join('; ')}${p.res.body === undefined ? ` (body: ${JSON.stringify(p.res.text.slice(0, 120))})` : ''}`,
      )
      .join('\n'),
  });
}

export type Body = (env: Env, share: Share) => Promise<void>;

/**
 * Runs a request scenario once per worker and hands its responses to every check of the same
 * operation that asks for the same key: the MUST and SHOULD checks of one case send the same
 * request, so the second one reads the first one's answer (half the requests, and the rate
 * limits of the target stay out of reach). The checks of one operation run in order in one
 * worker (see defineContractChecks). A check that reuses a scenario records its exchanges as its
 * own.
 */
export type Share = <T extends Partial<Record<string, ApiResponse>>>(
  key: string,
  scenario: () => Promise<T>,
) => Promise<T>;
const scenarios = new Map<string, Promise<Partial<Record<string, ApiResponse>>>>();

export function contractCheck(
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
      const problems: EnvelopeProblem[] = [];
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
      if (problems.length) failEnvelopes(problems);
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
export async function send(
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
      `${op.key} answered ${res.status} without an id at ${kind.pointer}: ${shortText(res.text, 400)}`,
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
    expectPrerequisite(res, `GET ${state.read} (the original values, before ${op.key})`);
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

/**
 * The Accept header of an operation whose success is not JSON (the invoice PDF, object bodies):
 * its own media types first, JSON after them for the error envelope. The client's default
 * (`application/json`) would let a target that honours Accept answer 406 and be blamed for it.
 */
export function acceptFor(op: ContractOperation): Record<string, string> {
  const media = successOf(op)?.content.map((c) => c.contentType) ?? [];
  if (media.length === 0 || media.some((m) => /json/.test(m))) return {};
  return { accept: [...media.map((m) => (m === '*/*' ? '*/*;q=0.9' : m)), 'application/json;q=0.5'].join(', ') };
}

export function successOf(op: ContractOperation) {
  return op.responses.filter((r) => /^2\d\d$/.test(r.status)).sort((a, b) => a.status.localeCompare(b.status))[0];
}

/** Made-up ids of the right form (a prefix where the resource has one) that no resource has. */
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

export function unknownValue(name: string, ctx: CheckContext): string {
  const tail = ctx.faker.string.alphanumeric({ length: 12, casing: 'lower' });
  if (name === 'bucket_name') return `cc-unknown-${tail}`;
  if (name === 'object_key') return `cc-unknown/${tail}.txt`;
  return `${FAKE_PREFIX[name] ?? ''}ccunknown${tail}`;
}
