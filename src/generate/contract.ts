/**
 * Generated contract checks: for every operation of an area of the OpenAPI document, the checks of
 * every registered kind that applies to it (checks/index.ts; ids `contract.<operationId>[.<variant>].<kind>...`):
 *
 * - `positive` (MUST), `positive-status` and `positive-body` (SHOULD): checks/positive.ts;
 * - `auth-no-key`, `auth-bad-key` (MUST) and `auth-401` (SHOULD; another scheme than Bearer: suites/auth/schemes.spec.ts): checks/auth.ts;
 * - `unknown-id` (MUST envelope) and `unknown-id-404` (SHOULD): checks/unknown-id.ts;
 * - `negative.<field>.<kind>` (MUST where the specification decides, with its error code) and
 *   `negative.<field>.<kind>.status` (SHOULD: 422 and the code): checks/negative.ts;
 * - `after-delete` (MUST: gone as the delete requirement says) and `after-delete-404` (SHOULD):
 *   checks/after-delete.ts.
 *
 * Every error response a check receives (its prerequisites included) is validated against the
 * `Error` schema; an invalid envelope fails the check (checks/common.ts).
 */
import { declarationSite, declareAt, test } from '../harness/check.ts';
import type { Area, ConformanceClass } from '../../spec/classes.ts';
import { CONTRACT_CHECK_KINDS } from './checks/index.ts';
import type { ContractModel, ContractOperation } from './model.ts';
import { loadContractModel } from './model.ts';
import { setWorkerLedger } from './prerequisites.ts';

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
    const site = { model, cls: classOf(op), idBase: `contract.${op.operationId}` };
    // One group per operation, run in order in one worker, so its MUST and SHOULD checks share
    // their requests (checks/common.ts, Share); groups still spread over the workers.
    test.describe(op.key, () => {
      test.describe.configure({ mode: 'default' });
      for (const kind of CONTRACT_CHECK_KINDS) if (kind.appliesTo(op, model)) kind.define(op, site);
    });
  }
}
