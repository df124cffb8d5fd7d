/**
 * `--examples N`: more valid requests for the positive MUST check (src/generate/examples.ts), drawn
 * from the operation's schema and judged like the seeded one.
 */
import { CloudcheckError, isEnvironmentError, isSuiteError } from '../../harness/errors.ts';
import { CheckFailed, restated } from '../../harness/failure.ts';
import type { ContractModel, ContractOperation, VariantModel } from '../model.ts';
import { fillPath, buildValid, movesMoney } from '../requests.ts';
import type { BuiltRequest } from '../requests.ts';
// Types only: the module (and fast-check with it) is loaded when a run asks for --examples (drawnExamples).
import type * as Examples from '../examples.ts';
import type { DrawnInput, FieldPlan, Verdict } from '../examples.ts';
import { send } from './common.ts';
import type { Env } from './common.ts';
import { positiveMust, variantKey } from './success.ts';

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
export async function drawnExamples(
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
  const ex = await import('../examples.ts');
  const { SENDS_SMS, describeInput, planFields, runExamples, seedOf } = ex;
  const key = variantKey(op, variant);
  if (movesMoney(op) || (SENDS_SMS.has(key) && env.ctx.liveSms)) return;
  const plans = planFields(op, key);
  if (plans.length === 0) return;
  const seed = seedOf(env.ctx.seed, checkId);
  // The typed failure of each failing input: the shrunk one's is what the check fails with.
  const failures = new Map<string, unknown>();
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
        failures.set(JSON.stringify(input), error);
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
  const story =
    `--examples ${env.ctx.examples}: a valid request drawn from the schema failed after ${outcome.drawn} drawn inputs (seed ${outcome.seed} of this check, from --seed ${env.ctx.seed}; ${how}).\n` +
    `Shrunk input: ${describeInput(failure.input)}\n${failure.message}`;
  const typed = failures.get(JSON.stringify(failure.input));
  if (typed instanceof CheckFailed)
    throw restated(typed, { context: 'a request drawn by --examples', evidence: story });
  throw new Error(story);
}
