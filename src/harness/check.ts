/**
 * The check API: the suites' one door to the harness (lint keeps every other harness file out of
 * suites/, eslint.config.js). What a suite needs of the harness is exported here.
 *
 * ```ts
 * import { defineCheck, defineFlow, expect, expectStatus } from './check.ts';
 *
 * defineCheck({
 *   id: 'contract.post-vps.positive',        // unique in the whole suite (duplicates throw)
 *   requirement: 'VPS-CREATE-001',           // id in spec/requirements.yaml
 *   level: 'MUST',                           // MUST → failure is a defect; SHOULD → a deviation (spec-gap)
 *   class: 'compute',                        // conformance class; selects the Playwright project
 *   operation: 'POST /vps',                  // `METHOD /path` as the spec writes it, or null
 *   title: 'POST /vps answers 201 with a valid VPS',
 * }, async ({ api, ledger, ctx }) => {
 *   const res = await api.post('/vps', { name: ctx.name('vps'), region: 'nyc1', image: 'ubuntu-22-04', size: 's-1' });
 *   expectStatus(res, 201);
 *   ledger.track('vps', res.json<{ vps: { id: string } }>().vps.id);   // the moment it exists
 *   expect(res.json<{ vps: { status: string } }>().vps.status).toBe('creating');
 * });
 *
 * defineFlow<{ vpsId: string }>({ id: 'flow.vps-lifecycle', class: 'compute', title: 'VPS lifecycle' }, (step) => {
 *   step({ id: 'flow.vps-lifecycle.create', requirement: 'VPS-CREATE-001', level: 'MUST', operation: 'POST /vps', title: '...' },
 *     async ({ api, ledger, ctx, state }) => { ...; state.vpsId = id; });
 *   step({ id: 'flow.vps-lifecycle.stop', ... }, async ({ api, state }) => { ... state.vpsId ... });
 * });
 * ```
 *
 * What a check gets:
 * - `api`: recording client (client.ts). `api.request({ method, path, query, headers, json, body, key, account })`
 *   plus `get/post/put/delete`. `key` absent → a key from the run's budget; `null` → no
 *   Authorization header; a string → exactly that key (no retry on 429). `account: 'alt'` → the
 *   second account. Responses: `{ status, headers, text, bytes, body, json<T>(), exchange }`.
 * - `ledger`: `ledger.track(kind, id, { account? })` right after creating; `ledger.deleted(kind, id)`
 *   when the check deletes it itself; `ledger.restore(label, { method, path, json })` BEFORE
 *   changing something the run did not create (the account), with the original values
 *   (`originalOnce(ctx.runTmp, ORIGINAL.account, read)`): run at teardown, first. Kinds: see
 *   KINDS in ledger.ts. Torn down after the check (after the flow for flow steps), in reverse
 *   dependency order, also when the check failed.
 * - `ctx`: settings (target, s3Url, keys.main/alt, seed, testNumbers, allowCharges, liveSms,
 *   timeoutScale, runPrefix...) and helpers: `name(label)`, `faker` (seeded), `scaled(ms)`,
 *   `poll(what, probe)`, `requireAlt()`, `requireCharges()`, `requireWebhook()`, `requireS3()`.
 * - `state` (flows): one object shared by the steps of a flow.
 * - second argument: Playwright's TestInfo.
 *
 * Failing: use the assertions of assert.ts (`expectStatus`, `expectSuccess`, `expectRefused`,
 * `expectResource`, `expectFields`, `expectErrorEnvelope`, `expectHeader`, `expectState`...): each
 * throws a typed failure (failure.ts) that reaches the report as data, with a headline in words.
 * A plain `expect` (Playwright's, with a fast path for passing assertions: expect.ts) works too:
 * its failure becomes kind `assertion`, from the matcher's result. Throw an EnvironmentError
 * (errors.ts) for "cannot check here" situations that are not the target's fault; they are
 * classified `environment`. Use `ctx.require*()` or `test.skip` to skip.
 *
 * Playwright mapping: a check is a `test()` titled `[REQ-ID] title`, tagged `@class:<class>` and
 * `@must`/`@should`, annotated with `cc.id`, `cc.requirement`, `cc.level`, `cc.class`,
 * `cc.operation`. A flow is a serial `describe` (a failed step skips the rest) of such tests.
 */
import type { TestInfo } from '@playwright/test';
import { expect } from './expect.ts';
import { CheckFailed, failureOf, setRunningCheck } from './failure.ts';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceClass, Level } from '../../spec/classes.ts';
import { isConformanceClass } from '../../spec/classes.ts';
import { requirementById } from '../../spec/requirements.ts';
import type { ApiClient } from './client.ts';
import { isEnvironmentError, isSuiteError } from './errors.ts';
import { ANNOTATION, test } from './fixtures.ts';
import type { CheckContext } from './fixtures.ts';
import type { Ledger } from './ledger.ts';
import type { Provision } from './provision.ts';
import { redact, redactString } from './redact.ts';
import {
  type Candidate,
  type Repetition,
  type Selection,
  inRepetition,
  isSelected,
  planFlow,
  repetitionsOf,
  selectionOf,
} from './selection.ts';
import { recordCandidate } from './suite-index.ts';
import { processSettings } from './settings.ts';

export interface CheckMeta {
  id: string;
  requirement: string;
  level: Level;
  class: ConformanceClass;
  operation?: string | null;
  title: string;
  /** Extra tags (without `@`), e.g. `slow`; `early` puts the check's file first (scheduler.ts). */
  tags?: string[];
  /** What slow the check takes (provision.ts `take`): the runner starts making it at once. */
  provisions?: ReadonlyArray<Provision<unknown>>;
}

export interface CheckArgs<S = Record<string, unknown>> {
  api: ApiClient;
  ledger: Ledger;
  ctx: CheckContext;
  state: S;
}

export type CheckBody<S = Record<string, unknown>> = (args: CheckArgs<S>, testInfo: TestInfo) => Promise<void>;

export interface FlowMeta {
  id: string;
  class: ConformanceClass;
  title: string;
  tags?: string[];
}

export type StepMeta = Omit<CheckMeta, 'class'> & { class?: ConformanceClass };
export type StepFn<S> = (meta: StepMeta, body: CheckBody<S>) => void;

/** id → where it was defined; the same file loaded again (per project) is not a duplicate. */
const registry = new Map<string, string>();

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `suites/x.spec.ts:12` of the suite line that declared the check: the first frame in a suite file
 * (generated checks are declared by src/generate for a suite file), else the first frame outside
 * this file, relative to the project (never a path of the machine that ran it).
 */
export interface CallSite {
  /** `suites/flows/x.spec.ts:12`: the line of the suite code that declared the check. */
  location: string;
  /** The spec file being loaded, relative to suites/ (`rate-limits/burst.spec.ts`), which may import the declaring helper. */
  specFile: string;
}

/**
 * Where a check is declared. A generator computes it once, before it awaits, and declares its
 * checks inside `declareAt`: a stack goes through the runner's source maps frame by frame, and a
 * thousand generated checks come from a few suite lines.
 */
export function declarationSite(): CallSite {
  const frames = (new Error().stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => /\(?((?:file:\/\/)?[^()\s]+?):(\d+):\d+\)?\s*$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null && !m[1]!.startsWith('node:') && /\.[cm]?[jt]s$/.test(m[1]!));
  const files = frames.map((m) => ({ file: m[1]!.replace(/^file:\/\//, ''), line: m[2]! }));
  const inSuites = (file: string): string | null => {
    const i = file.lastIndexOf('/suites/');
    return i >= 0 ? file.slice(i + '/suites/'.length) : null;
  };
  const chosen =
    files.find((f) => f.file.includes('/suites/')) ?? files.find((f) => !f.file.endsWith('/src/harness/check.ts'));
  if (!chosen) return { location: 'unknown', specFile: 'unknown' };
  const i = chosen.file.lastIndexOf('/suites/');
  const file = i >= 0 ? chosen.file.slice(i + 1) : relative(ROOT, chosen.file);
  const spec = files.map((f) => inSuites(f.file)).find((f): f is string => f !== null && f.endsWith('.spec.ts'));
  return { location: `${file}:${chosen.line}`, specFile: spec ?? file.replace(/^suites\//, '') };
}

/** The site checks declared inside `declareAt` take instead of each computing its own. */
let fixedSite: CallSite | undefined;

/** Runs `declare` (synchronous) with every check it declares placed at `site`. */
export function declareAt(site: CallSite, declare: () => void): void {
  const outer = fixedSite;
  fixedSite = site;
  try {
    declare();
  } finally {
    fixedSite = outer;
  }
}

function callerLocation(): string {
  return declarationSite().location;
}

/** Registers a check id; throws when another place already uses it. Exported for tests and tools. */
export function registerCheckId(id: string, location: string = callerLocation()): void {
  if (!/^[a-z0-9][a-z0-9._:-]*$/i.test(id))
    throw new Error(`check id "${id}" must be letters, digits, '.', '_', ':' or '-'`);
  const existing = registry.get(id);
  if (existing !== undefined && existing !== location) {
    throw new Error(`duplicate check id "${id}": defined at ${existing} and at ${location}`);
  }
  registry.set(id, location);
}

export function registeredCheckIds(): string[] {
  return [...registry.keys()];
}

function validateMeta(meta: CheckMeta): void {
  if (!meta.requirement) throw new Error(`check ${meta.id}: requirement is required`);
  if (meta.level !== 'MUST' && meta.level !== 'SHOULD')
    throw new Error(`check ${meta.id}: level must be MUST or SHOULD`);
  if (!isConformanceClass(meta.class)) throw new Error(`check ${meta.id}: unknown class "${meta.class}"`);
  if (meta.operation && !/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \//.test(meta.operation)) {
    throw new Error(`check ${meta.id}: operation must be "METHOD /path", got "${meta.operation}"`);
  }
}

function detailsOf(meta: CheckMeta, location: string, flowId?: string, setup = false) {
  const annotation = [
    { type: ANNOTATION.location, description: location },
    { type: ANNOTATION.id, description: meta.id },
    { type: ANNOTATION.requirement, description: meta.requirement },
    { type: ANNOTATION.level, description: meta.level },
    { type: ANNOTATION.class, description: meta.class },
    ...(meta.operation ? [{ type: ANNOTATION.operation, description: meta.operation }] : []),
    ...(flowId ? [{ type: ANNOTATION.flow, description: flowId }] : []),
    ...(setup ? [{ type: ANNOTATION.setup, description: 'runs for the state of the selected steps after it' }] : []),
    ...(meta.provisions?.length
      ? [{ type: ANNOTATION.provision, description: meta.provisions.map((p) => p.name).join(',') }]
      : []),
  ];
  const tag = [
    `@class:${meta.class}`,
    meta.level === 'MUST' ? '@must' : '@should',
    ...(meta.tags ?? []).map((t) => `@${t}`),
  ];
  return { tag, annotation };
}

/**
 * A check's class is its requirement's class in the catalogue (`--classes auth` selects every
 * auth check, generated under any operation); the class a suite file names is the fallback for
 * requirements the catalogue does not hold (validateMeta's caller reports those elsewhere).
 */
function withCatalogueClass<M extends { requirement: string; class?: ConformanceClass }>(
  meta: M,
  fallback: ConformanceClass,
): M & { class: ConformanceClass } {
  const cls = requirementById(meta.requirement)?.class;
  return { ...meta, class: cls && isConformanceClass(cls) ? cls : (meta.class ?? fallback) };
}

/** The run's selection and its repetitions, from the process's settings when the first definition asks. */
let chosen: { selection: Selection; repetitions: Repetition[] } | undefined;
function runSelection(): { selection: Selection; repetitions: Repetition[] } {
  // One repetition, the plain selection, unless the fault matrix asks for several (selection.ts).
  return (chosen ??= { selection: selectionOf(processSettings()), repetitions: repetitionsOf(process.env) });
}

/** ` (repetition k)` after the title of repetition k's tests: titles in one file must differ. */
function titleOf(title: string, repetition: Repetition): string {
  return repetition.suffix ? `${title} (repetition ${repetition.suffix.slice(1)})` : title;
}

/**
 * A SHOULD check that fails its assertion records the deviation as an annotation and ends as a
 * passed test; the reporter turns it into a failed check classified `spec-gap`. Two reasons:
 * a deviation from a convention must not skip the MUST steps after it in a flow, and Playwright
 * replaces its worker after every failed test (seconds of CPU each), which made a run against a
 * target with many legal-but-different choices take minutes.
 */
function recordDeviation(level: Level, error: unknown, testInfo: TestInfo): boolean {
  if (level !== 'SHOULD' || isEnvironmentError(error) || isSuiteError(error)) return false;
  const message = error instanceof Error ? error.message : String(error);
  testInfo.annotations.push({ type: ANNOTATION.deviation, description: redactString(message) });
  recordFailureData(error, testInfo);
  return true;
}

/** The failure as data (failure.ts), for the reporter: it never parses the message. */
function recordFailureData(error: unknown, testInfo: TestInfo): void {
  testInfo.annotations.push({
    type: ANNOTATION.failureData,
    // The data is redacted, not its JSON: a pattern on text would end a secret at an escaped quote.
    description: JSON.stringify(redact(failureOf(error))),
  });
}

/**
 * A check that fails records the failure as an annotation and ends as a passed test, which the
 * reporter turns back into the failed check (classification, message, stack): Playwright replaces
 * its worker after every failed test (about a second of CPU each), and against a target that fails
 * hundreds of checks (an error on every route) that made a run take many minutes. A flow step does
 * the same; the steps after it then skip themselves (`failedStepOf`), as a serial describe would
 * after a real failure, with the failed step named as the reason.
 */
function recordFailure(error: unknown, testInfo: TestInfo): void {
  const named =
    error instanceof CheckFailed
      ? error.message
      : error instanceof Error && error.name !== 'Error'
        ? `${error.name}: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
  testInfo.annotations.push({ type: ANNOTATION.failure, description: redactString(named) });
  recordFailureData(error, testInfo);
  if (isSuiteError(error) && error instanceof Error && error.stack)
    testInfo.annotations.push({ type: ANNOTATION.stack, description: redactString(error.stack) });
}

/** The failed step of each running flow, by the flow's state object (one per flow and worker, dropped with it). */
const failedStepOf = new WeakMap<object, string>();

/** `flowStep`: the id of the step when the check is a step of a flow. */
function wrap<S>(body: CheckBody<S>, meta: Pick<CheckMeta, 'level' | 'operation'>, flowStep?: string) {
  return async (
    {
      api,
      ledger,
      ctx,
      flowState,
    }: { api: ApiClient; ledger: Ledger; ctx: CheckContext; flowState: Record<string, unknown> },
    testInfo: TestInfo,
  ): Promise<void> => {
    const failedBefore = flowStep === undefined ? undefined : failedStepOf.get(flowState);
    // Only when it skips: every call of testInfo.skip captures a source-mapped stack for its location.
    if (failedBefore !== undefined) {
      testInfo.annotations.push({ type: ANNOTATION.skippedAfter, description: failedBefore });
      testInfo.skip(true, `not run: the flow's step ${failedBefore} failed before it`);
    }
    setRunningCheck({ level: meta.level, operation: meta.operation ?? null });
    try {
      await body({ api, ledger, ctx, state: flowState as S }, testInfo);
    } catch (error) {
      // test.skip() and ctx.require*() skip by throwing: that is not a failure.
      if (testInfo.expectedStatus === 'skipped') throw error;
      if (isEnvironmentError(error))
        testInfo.annotations.push({ type: ANNOTATION.classification, description: 'environment' });
      else if (isSuiteError(error))
        testInfo.annotations.push({ type: ANNOTATION.classification, description: 'cloudcheck-error' });
      if (recordDeviation(meta.level, error, testInfo)) return;
      recordFailure(error, testInfo);
      if (flowStep !== undefined) failedStepOf.set(flowState, flowStep);
    } finally {
      setRunningCheck(undefined);
    }
  };
}

/** Whether the run's selection selects a definition; every definition is also indexed (suite-index.ts). */
function considered(candidate: Candidate): boolean {
  recordCandidate(candidate);
  return isSelected(runSelection().selection, candidate);
}

/** Declares one check (a Playwright test), when the run's selection selects it. */
export function defineCheck(meta: CheckMeta, body: CheckBody): void {
  const full = withCatalogueClass(meta, meta.class);
  validateMeta(full);
  const { location, specFile } = fixedSite ?? declarationSite();
  registerCheckId(full.id, location);
  const title = `[${full.requirement}] ${full.title}`;
  const details = detailsOf(full, location);
  const candidate: Candidate = {
    file: specFile,
    describe: null,
    title,
    tags: details.tag,
    class: full.class,
    id: full.id,
  };
  if (!considered(candidate)) return;
  for (const repetition of runSelection().repetitions) {
    if (!inRepetition(repetition, candidate)) continue;
    test(
      titleOf(title, repetition),
      repetition.suffix ? detailsOf({ ...full, id: full.id + repetition.suffix }, location) : details,
      wrap(body, full),
    );
  }
}

/**
 * Declares a flow: steps run in order in one worker, sharing `state` and the ledger; a failed step
 * skips the rest. Under a selection, the flow is defined up to its last selected step, the
 * earlier steps running as setup (selection.ts), or not at all when no step is selected.
 */
export function defineFlow<S extends object = Record<string, unknown>>(
  meta: FlowMeta,
  build: (step: StepFn<S>) => void,
): void {
  if (!isConformanceClass(meta.class)) throw new Error(`flow ${meta.id}: unknown class "${meta.class}"`);
  registerCheckId(meta.id);
  const describe = `[flow] ${meta.title}`;
  const flowTags = [`@class:${meta.class}`, ...(meta.tags ?? []).map((t) => `@${t}`)];
  const steps: Array<{
    meta: CheckMeta;
    body: CheckBody<S>;
    location: string;
    candidate: Candidate;
    selected: boolean;
  }> = [];
  build((stepMeta, body) => {
    const full = withCatalogueClass(stepMeta, meta.class);
    validateMeta(full);
    const { location, specFile } = declarationSite();
    registerCheckId(full.id, location);
    const title = `[${full.requirement}] ${full.title}`;
    const tags = [...flowTags, ...detailsOf(full, location).tag];
    const candidate: Candidate = { file: specFile, describe, title, tags, class: full.class, id: full.id };
    steps.push({ meta: full, body, location, candidate, selected: considered(candidate) });
  });
  // Each repetition is a flow of its own (its own state, ledger and ids), with its own selection.
  for (const repetition of runSelection().repetitions) {
    const plan = planFlow(steps.map((s) => s.selected && inRepetition(repetition, s.candidate)));
    if (plan.length === 0) continue;
    const flowId = meta.id + repetition.suffix;
    test.describe.serial(titleOf(describe, repetition), { tag: flowTags }, () => {
      for (const { index, setup } of plan) {
        const step = steps[index]!;
        const stepId = step.meta.id + repetition.suffix;
        const details = detailsOf({ ...step.meta, id: stepId }, step.location, flowId, setup);
        // The flow's class tag (on the describe) selects the project for every step when Playwright
        // runs the suite directly (one project per class), so the flow stays in one worker.
        test(
          `[${step.meta.requirement}] ${step.meta.title}`,
          { ...details, tag: details.tag.filter((t) => !t.startsWith('@class:')) },
          wrap(step.body, step.meta, stepId),
        );
      }
      test.afterAll(async ({ harness }) => {
        await harness.endFlow(flowId);
      });
    });
  }
}

export { expect, test };
export {
  SPEC_ERROR_CODES,
  errorOf,
  expectBody,
  expectContentType,
  expectEchoed,
  expectErrorCode,
  expectErrorEnvelope,
  expectErrorMember,
  expectFields,
  expectFieldValues,
  expectHeader,
  expectNoBody,
  expectNotListed,
  expectPdf,
  expectRefused,
  expectResource,
  expectSchema,
  expectState,
  expectStatus,
  expectStatusExactly,
  expectSuccess,
  expectWrappedIn,
  judged,
} from './assert.ts';
export type { ErrorBody, FieldType } from './assert.ts';
export { fail } from './failure.ts';
export { listOf, resourceOf } from './body-shape.ts';
export { EnvironmentError, PrerequisiteMissingError } from './errors.ts';
/** The run-wide original of something a check changes and must put back (the account). */
export { ORIGINAL, originalOnce } from './ledger.ts';
/** Slow provisioning a check takes, started early by the run (provision.ts). */
export { Provision } from './provision.ts';
export type { Ledger } from './ledger.ts';
/** A value a check learns that must never show in a report (a key it created). */
export { addSecret } from './redact.ts';
export { RUN_PREFIX } from './settings.ts';
export { webhookReceiver } from './webhook-receiver.ts';
export type { WebhookDelivery, WebhookReceiver } from './webhook-receiver.ts';
export type { ApiClient, ApiResponse } from './client.ts';
export type { CheckContext } from './fixtures.ts';
// The rate-limit invariants (the same checker the report and load/ use).
export { checkRateLimitSequence, intHeader, serverSeconds } from '../rules/rate-limits.ts';
export type { InvariantName, ObservedResponse, RateLimitExpectation } from '../rules/rate-limits.ts';
