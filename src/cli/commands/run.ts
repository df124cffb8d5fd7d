/**
 * `cloudcheck run`: resolve options into the run's settings, start the embedded server when there
 * is no target, probe the target, run the suite with Playwright (the settings cross as the run
 * contract's variables, settings.ts; never argv: keys must not show in `ps`), clean up what dead
 * workers left, then finalise the reporter's draft once (finalise.ts) and gate on it.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dispatcher } from 'undici';
import type { OptionValues } from '../../config/options.ts';
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import { recoverFromJournals } from '../../harness/recover.ts';
import { openSession } from '../../harness/session.ts';
import type { ConnectionOptions, Session } from '../../harness/session.ts';
import { lastFailedIds, repeatedId, selectionOf } from '../../harness/selection.ts';
import {
  ASYNC_TIMEOUT_DEFAULT_S,
  RUN_PREFIX,
  RUN_VARIABLES,
  newRunId,
  settingsFromEnv,
  settingsToEnv,
  webhookSettings,
  withoutRunVariables,
} from '../../harness/settings.ts';
import type { RunSettings } from '../../harness/settings.ts';
import { workersFor } from '../../harness/concurrency.ts';
import { writeHandoff } from '../../harness/target-handoff.ts';
import {
  cachedCandidates,
  fileFilters,
  selectedCandidates,
  selectedWork,
  storeCandidates,
  suiteIndexKey,
} from '../../harness/suite-index.ts';
import { CONFORMANCE_CLASSES, isConformanceClass } from '../../../spec/classes.ts';
import type { ConformanceReport, Leak } from '../../model/report.ts';
import { type DraftReport, draftFile, finaliseReport } from '../../report/finalise.ts';
import { classificationOf, parseBaseline } from '../../report/gate.ts';
import { failureLine } from '../../report/failure-line.ts';
import { causeCount, causeViews } from '../../report/cause-lines.ts';
import { isTargetFailure } from '../../report/clusters.ts';
import { rerunUnanswered } from '../../report/rerun.ts';
import { type Interruption, watchInterruption } from '../interruption.ts';
import { lastRunReport } from '../last-run.ts';
import { emptyDraft, exitCodeOfRun, removeTree } from '../run-outcome.ts';
import { connectionOf } from '../connection.ts';
import { err, out, outText } from '../output.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const RUN_HELP: HelpSpec = {
  synopsis: 'cloudcheck run [options]',
  summary:
    'Checks a target (default: the embedded reference server) against the specification, writes the report (report.json, report.html, junit.xml, summary.md) and gates on it.',
  examples: [
    ['cloudcheck run', 'check the embedded reference server'],
    [
      'CLOUDCHECK_API_KEY=... cloudcheck run --target https://staging.example.net/v1 --classes messaging,compute',
      'check two classes of a staging server',
    ],
    ['cloudcheck run --list --grep VPS-LIST', 'show which checks a selection would run, running none'],
    [
      "cloudcheck run --target https://staging.example.net/v1 -H 'X-Gateway-Key: ...' --ca-cert internal-ca.pem -x",
      'through a gateway with an internal certificate, stopping at the first failure',
    ],
    [
      'cloudcheck run --target URL --baseline reports/last/report.json --workers 4',
      'gate only on failures the last run did not have',
    ],
  ],
  exitCodes: [
    ['0', 'the gate passed (--list: the selection selects checks)'],
    ['1', 'the gate failed: a MUST defect (a SHOULD deviation with --strict); also a run stopped by --max-failures'],
    [
      '2',
      'usage error, bad configuration, unreachable target or rejected key, a selection that selects no check, a cloudcheck error (the suite failed, not the target), or an inconclusive verdict: MUST checks not judged (no answer after the re-runs, a class named with --classes that could not run, no selected check ran) and no defect; --allow-inconclusive makes that 0',
    ],
    ['130', 'interrupted by SIGINT; what ran is reported, headed "interrupted", and the gate does not pass'],
    ['143', 'interrupted by SIGTERM (a CI timeout, docker stop, timeout), as 130'],
  ],
};

export interface RunPlan {
  /** What the runner and its workers get (settingsToEnv): the one description of the run. */
  settings: RunSettings & { reportDir: string; runTmp: string };
  args: string[];
}

/** `--rerun-unanswered` when not given: a check that got no answer is run twice more at most. */
export const DEFAULT_RERUNS = 2;

export interface RunTarget {
  target: string;
  s3Url: string | null;
  apiKey: string;
  altApiKey: string | null;
  /** More keys of the account (`--api-key` repeated). */
  extraKeys?: string[];
  embedded: boolean;
  /** The round trip the probe measured (ms); absent when the target was not probed (the embedded server). */
  roundTripMs?: number | null;
}

export interface RunPlanOptions {
  runId: string;
  cwd: string;
  onlyIds?: readonly string[] | undefined;
  /** The connection options, read once (connection.ts): headers, CA, retries, request deadline, timeout scale. */
  connection: ConnectionOptions;
  /** Where CLOUDCHECK_KEYS_PER_WORKER, a variable only a person sets, is read. */
  env: NodeJS.ProcessEnv;
}

/** The run's settings from the resolved options and the connection (pure; tested). */
export function settingsOfRun(
  values: OptionValues<'run'>,
  target: RunTarget,
  options: RunPlanOptions,
): RunPlan['settings'] {
  const { connection, env } = options;
  const runPrefix = `${RUN_PREFIX}${options.runId}-`;
  return {
    runId: options.runId,
    runPrefix,
    target: target.target,
    s3Url: target.s3Url,
    keys: { main: target.apiKey, alt: target.altApiKey, extra: target.extraKeys ?? [] },
    seed: values.seed,
    examples: values.examples,
    classes: (values.classes ?? CONFORMANCE_CLASSES).filter(isConformanceClass),
    testNumbers: {
      succeed: values['test-number-succeed'],
      fail: values['test-number-fail'],
      random: values['test-number-random'],
    },
    // The embedded server moves no real money, so charges are implied there.
    allowCharges: values['allow-charges'] || target.embedded,
    liveSms: values['live-sms'],
    strict: values.strict,
    timeoutScale: connection.timeoutScale,
    requestTimeoutMs: connection.requestTimeoutMs,
    asyncTimeoutMs: (values['async-timeout'] ?? ASYNC_TIMEOUT_DEFAULT_S) * 1000,
    webhook: webhookSettings(target.target, values['webhook-listen'] ?? null, values['webhook-url'] ?? null),
    embedded: target.embedded,
    reportDir: resolve(options.cwd, values['report-dir'] ?? join('reports', options.runId)),
    keep: values.keep ?? false,
    runTmp: join(tmpdir(), `cloudcheck-${options.runId}`),
    // Unless CLOUDCHECK_KEYS_PER_WORKER says, the global setup shares the run's keys out over the
    // workers it chose (concurrency.ts).
    keysPerWorker: keysPerWorkerOf(env),
    budgetKeys: [],
    headers: connection.headers,
    caCertFile: connection.caCertFile,
    retries: connection.retries,
    harAll: values.har === 'all',
    driven: true,
    progress: true,
    startedAt: new Date().toISOString(),
    baselineFile: values.baseline ? resolve(options.cwd, values.baseline) : null,
    shard: values.shard ?? null,
    workers: values.workers ?? null,
    roundTripMs: target.roundTripMs ?? null,
    selectedWork: null,
    maxFailures: values['max-failures'] ?? 0,
    // --grep and --grep-invert are applied where checks are defined (selection.ts), so that a
    // selected flow step brings the steps before it; Playwright's own filters would not.
    selection: {
      grep: values.grep ?? null,
      grepInvert: values['grep-invert'] ?? null,
      onlyIds: options.onlyIds ? [...options.onlyIds] : null,
    },
    handoffFile: null,
    suiteIndexOut: null,
  };
}

/** CLOUDCHECK_KEYS_PER_WORKER, or null: the global setup's share of the run's keys (concurrency.ts). */
function keysPerWorkerOf(env: NodeJS.ProcessEnv): number | null {
  const given = env[RUN_VARIABLES.keysPerWorker];
  if (given === undefined) return null;
  return settingsFromEnv({ [RUN_VARIABLES.keysPerWorker]: given }, { requireTarget: false }).keysPerWorker;
}

/** The Playwright command line for resolved options (pure; tested). */
export function planRun(
  values: OptionValues<'run'>,
  target: RunTarget,
  options: RunPlanOptions & { configPath: string },
): RunPlan {
  const args = ['test', '-c', options.configPath];
  if (values.shard) args.push(`--shard=${values.shard}`);
  return { settings: settingsOfRun(values, target, options), args };
}

/**
 * The environment of the Playwright runner: this process's, without any run contract variable
 * it may carry (a run started from another run's worker), plus the plan's settings.
 */
export function runnerEnv(plan: RunPlan, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...withoutRunVariables(outsidePlaywright(env)),
    ...settingsToEnv(plan.settings),
    // The pinned SDK supports Node 20; its notice about future releases would interleave with the
    // progress lines of every worker that loads it.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    FORCE_COLOR: '0',
  };
}

/**
 * The node arguments that start Playwright's CLI. Installed as a package (under node_modules),
 * the suites are TypeScript that Playwright's own transform leaves alone (it never compiles
 * node_modules), so the runner and its workers (which inherit the flag) load tsx's loader too.
 */
function playwrightArgs(): string[] {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  // The code cache of Playwright's bundles (bin/compile-cache.cjs), for the runner and its workers.
  const cache = ['--require', join(ROOT, 'bin', 'compile-cache.cjs')];
  return ROOT.split(sep).includes('node_modules')
    ? [...cache, '--import', import.meta.resolve('tsx'), cli]
    : [...cache, cli];
}

export async function runCommand(argv: string[]): Promise<number> {
  const resolved = resolveOptions('run', argv, process.env, process.cwd());
  if (resolved.help) {
    outText(helpText('run', RUN_HELP));
    return 0;
  }
  if (resolved.positionals.length)
    throw new UsageError(`run takes no positional arguments (got "${resolved.positionals[0]}")`);
  const v = resolved.values;
  // Parsed once, here: a bad baseline is a usage error before anything runs, and the gate uses it at the end.
  let baseline: Set<string> | null = null;
  if (v.baseline !== undefined) {
    const path = resolve(v.baseline);
    if (!existsSync(path)) throw new UsageError(`baseline file ${v.baseline} does not exist`);
    try {
      baseline = parseBaseline(readFileSync(path, 'utf8'), v.baseline);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const onlyIds = v['last-failed'] ? lastFailed(process.cwd()) : undefined;
  if (onlyIds?.length === 0) {
    err('cloudcheck run: --last-failed: the last run has no failed check; nothing to run again');
    return 2;
  }
  if (v.list) return listChecks(v, onlyIds);
  // The embedded server ends with the run: there would be nothing left to replay against.
  if (v.keep && !v.target)
    throw new UsageError(
      '--keep needs --target: the embedded reference server stops at the end of the run (start one with cloudcheck serve)',
    );
  const connection = connectionOf(v, process.env);
  const runId = newRunId();
  let session: Session | null = null;
  // Watched from the runner's start to the report (interruption.ts); set inside `start`.
  let interruption = null as Interruption | null;
  try {
    let target: RunTarget;
    let plan: RunPlan;
    let running: { exit: Promise<ExitInfo>; index: SuiteIndexUse } | null;
    /** Starts the runner; null when the suite index says the selection selects no check. */
    const start = (p: RunPlan): typeof running => {
      const index = useSuiteIndex(p);
      if (index.selectsNothing) return null;
      rmSync(p.settings.runTmp, { recursive: true, force: true });
      mkdirSync(p.settings.runTmp, { recursive: true });
      interruption ??= watchInterruption(err);
      return { index, exit: spawnPlaywright(p, false, {}, interruption) };
    };
    const nothingSelected = (): number => selectsNoCheck(v, 'nothing was checked');
    const planOptions = {
      runId,
      cwd: process.cwd(),
      configPath: join(ROOT, 'playwright.config.ts'),
      onlyIds,
      connection,
      env: process.env,
    };
    // The one way in (session.ts): a target is probed; without one, the embedded server starts.
    const open = (testNumbers?: RunSettings['testNumbers']): Promise<Session> =>
      openSession({
        connection,
        command: 'cloudcheck',
        embedded: { seed: v.seed, ...(testNumbers ? { testNumbers } : {}) },
        env: process.env,
        log: err,
        // The workers follow the target's round trip (concurrency.ts): the probe measures it.
        roundTrip: true,
      });
    const runLine = (): void =>
      err(`cloudcheck: run ${runId} against ${target.target}${v.classes ? ` (classes: ${v.classes.join(', ')})` : ''}`);
    if (connection.target) {
      const opened = (session = await open());
      target = runTargetOf(opened);
      plan = planRun(v, target, planOptions);
      runLine();
      running = start(plan);
      if (!running) return nothingSelected();
    } else {
      // Playwright's runner starts while the embedded server does (each takes a few tenths of a
      // second); its global setup waits for the server's address in a hand-off file.
      plan = planRun(v, { target: '', s3Url: null, apiKey: '', altApiKey: null, embedded: true }, planOptions);
      const handoff = join(tmpdir(), `cloudcheck-${runId}-target.json`);
      plan.settings.handoffFile = handoff;
      running = start(plan);
      // Known before anything starts: no server, no keys, no temp dir.
      if (!running) return nothingSelected();
      try {
        const opened = (session = await open(plan.settings.testNumbers));
        target = runTargetOf(opened);
        writeHandoff(handoff, {
          target: target.target,
          s3Url: target.s3Url,
          apiKey: target.apiKey,
          altApiKey: target.altApiKey,
        });
      } catch (error) {
        writeHandoff(handoff, { error: (error as Error).message });
        await running.exit;
        removeLeftovers(plan.settings);
        throw error;
      }
      runLine();
    }
    const { index } = running;
    const exit = await running.exit;
    // The runner reads the hand-off in its global setup, which a runner stopped (or failed)
    // before it never reaches: the file holds the embedded server's keys.
    if (plan.settings.handoffFile) rmSync(plan.settings.handoffFile, { force: true });
    index.settle(exit.code === 0 || exit.code === 1);
    const recover = { settings: session.clientSettings, dispatcher: session.dispatcher() };
    const first = await draftOfRun(plan.settings.runTmp, recover);
    const { reportDir, runTmp } = plan.settings;
    let draft = first.draft;
    if (draft && !interruption?.signal && !draft.run.stopped_after_failures) {
      // --rerun-unanswered: the checks that got no answer, whole again, each time in a runner of its own.
      draft = await rerunUnanswered(
        draft,
        v['rerun-unanswered'] ?? DEFAULT_RERUNS,
        async (ids, attempt) => {
          if (interruption?.signal) return null;
          const p = planRerun(v, target, plan, ids, attempt, planOptions);
          const rerun = start(p);
          if (!rerun) return null;
          const rerunExit = await rerun.exit;
          rerun.index.settle(false);
          const { draft: result } = await draftOfRun(p.settings.runTmp, recover);
          if (!result)
            err(
              `cloudcheck: the re-run ended without a report (Playwright exit ${rerunExit.code ?? rerunExit.signal})`,
            );
          return result;
        },
        err,
      );
    }
    const interruptedExit = interruption?.signal ? interruption.exitCode : null;
    if (!draft) {
      if (interruptedExit === null) {
        err(`cloudcheck: the suite ended without a report (Playwright exit ${exit.code ?? exit.signal})`);
        if (exit.output.trim()) err(exit.output.trim().split('\n').slice(-20).join('\n'));
        removeTree(runTmp);
        return 2;
      }
      // An interrupted run always reports, even before its runner wrote anything: nothing was judged.
      draft = emptyDraft({ ...plan.settings, target: target.target }, first.leaks);
    }
    // --max-failures stopped the suite (draft.run.stopped_after_failures): the gate says what did not run.
    const { report, outcome } = finaliseReport(draft, reportDir, {
      gate: {
        strict: v.strict,
        baseline,
        baselineSource: v.baseline ?? null,
        claimedClasses: v.classes ?? null,
        allowInconclusive: v['allow-inconclusive'] ?? false,
      },
      interrupted: interruptedExit !== null,
    });
    for (const f of outcome.failed) err(`cloudcheck: could not write ${f.file}: ${f.error}`);
    // Journals and Playwright artifacts are only needed until the report is final.
    removeTree(runTmp);
    // Where the suite index could not tell beforehand (its first run after an edit, a shard).
    if (report.checks.length === 0 && interruptedExit === null) return nothingSelected();
    appendJobSummary(reportDir);
    printSummary(report, reportDir);
    return exitCodeOfRun(report, { interruptedExit, target: target.target });
  } finally {
    interruption?.dispose();
    await session?.close();
  }
}

/** What the run's settings take of its session (settingsOfRun). */
function runTargetOf(session: Session): RunTarget {
  return {
    target: session.target,
    s3Url: session.s3Url,
    apiKey: session.keys.main,
    altApiKey: session.keys.alt,
    extraKeys: session.keys.extra,
    embedded: session.server !== null,
    roundTripMs: session.roundTripMs,
  };
}

/**
 * Re-run `attempt` of `--rerun-unanswered`: the checks `ids` (a flow step brings the steps before
 * it as setup), without --shard (they are this shard's already), in a temp dir of its own.
 */
export function planRerun(
  v: OptionValues<'run'>,
  target: RunTarget,
  plan: RunPlan,
  ids: string[],
  attempt: number,
  options: Pick<RunPlanOptions, 'connection' | 'env'>,
): RunPlan {
  const rerun = planRun({ ...v, shard: undefined }, target, {
    ...options,
    runId: plan.settings.runId,
    cwd: process.cwd(),
    configPath: join(ROOT, 'playwright.config.ts'),
    // A repetition's check (`<id>#k`, the suite's own tests) is selected by the check it repeats.
    onlyIds: [...new Set(ids.map(repeatedId))],
  });
  rerun.settings.runTmp = join(plan.settings.runTmp, `rerun-${attempt}`);
  // A few checks need no more workers than they are (each worker costs the run keys it creates);
  // the round trip a --target's probe measured sizes them as the run's (concurrency.ts).
  rerun.settings.workers = Math.min(rerun.settings.workers ?? workersFor(target.roundTripMs ?? null), ids.length);
  return rerun;
}

/** The options that made a selection, as the user gave them: `--classes all, --grep X`. */
function selectionWords(v: OptionValues<'run'>): string {
  return [
    `--classes ${v.classes?.join(',') ?? 'all'}`,
    ...(['grep', 'grep-invert', 'shard'] as const).filter((name) => v[name]).map((name) => `--${name} ${v[name]}`),
  ].join(', ');
}

/**
 * A selection that selects nothing proved nothing: a typo in --grep must not pass a CI gate. Said
 * in one line, exit 2.
 */
function selectsNoCheck(v: OptionValues<'run'>, consequence?: string): number {
  err(`cloudcheck run: the selection selects no check (${selectionWords(v)})${consequence ? `; ${consequence}` : ''}`);
  return 2;
}

/** What a run that ends before its report leaves behind: the hand-off (keys) and the temp dir. */
function removeLeftovers(settings: RunSettings): void {
  if (settings.handoffFile) rmSync(settings.handoffFile, { force: true });
  if (settings.runTmp) rmSync(settings.runTmp, { recursive: true, force: true });
}

/** What one runner left: its draft (null when it wrote none), with the leaks recovered after its workers. */
async function draftOfRun(
  runTmp: string,
  recover: { settings: Parameters<typeof recoverFromJournals>[1]; dispatcher: Dispatcher },
): Promise<{ draft: DraftReport | null; leaks: Leak[] }> {
  // Workers that died before their teardown leave journal entries: delete those resources now.
  const recovered = await recoverFromJournals(runTmp, recover.settings, recover.dispatcher).catch((error: Error) => {
    err(`cloudcheck: cleanup after the workers failed: ${error.message}`);
    return null;
  });
  if (recovered && recovered.deleted) err(`cloudcheck: deleted ${recovered.deleted} resources the workers left behind`);
  const draft = readDraft(runTmp);
  const leaks = recovered?.leaks ?? draft?.leaks ?? [];
  return { draft: draft && { ...draft, leaks }, leaks };
}

/** The reporter's draft of a driven run (playwright-reporter.ts), or null when the runner ended without one. */
function readDraft(runTmp: string): DraftReport | null {
  const file = draftFile(runTmp);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DraftReport;
  } catch {
    return null;
  }
}

interface ListedCheck {
  id: string;
  requirement: string;
  level: string;
  class: string;
  title: string;
  setup: boolean;
}

/** `--last-failed`: the ids of the checks the last run of `cwd` failed (selection.ts lastFailedIds), saying which report it read. */
function lastFailed(cwd: string): string[] {
  const { file, report } = lastRunReport(cwd);
  err(`cloudcheck run: --last-failed: read ${relative(cwd, file)} (run ${report.run.id}, ${report.run.finished_at})`);
  return lastFailedIds(report.checks);
}

/**
 * `--list`: Playwright lists the tests the selection defines (`test --list`, JSON reporter: the
 * same files, selection and --shard as a run; no global setup, so no target is contacted) and
 * the checks are printed from their annotations. Flow steps that would run only as setup for a
 * selected step after them are counted, not listed.
 */
async function listChecks(v: OptionValues<'run'>, onlyIds: readonly string[] | undefined): Promise<number> {
  const runId = newRunId();
  const target = {
    target: v.target ?? 'http://127.0.0.1:0/v1',
    s3Url: null,
    apiKey: '',
    altApiKey: null,
    embedded: !v.target,
  };
  const plan = planRun(v, target, {
    runId,
    cwd: process.cwd(),
    configPath: join(ROOT, 'playwright.config.ts'),
    onlyIds,
    connection: connectionOf(v, process.env),
    env: process.env,
  });
  const listing = join(plan.settings.runTmp, 'list.json');
  mkdirSync(plan.settings.runTmp, { recursive: true });
  try {
    const index = useSuiteIndex(plan);
    if (index.selectsNothing) return selectsNoCheck(v);
    plan.args.push('--list', '--reporter=json');
    const exit = await spawnPlaywright(plan, true, { PLAYWRIGHT_JSON_OUTPUT_FILE: listing });
    index.settle(exit.code === 0);
    if (!existsSync(listing)) {
      err(`cloudcheck run: listing the checks failed (Playwright exit ${exit.code ?? exit.signal})`);
      if (exit.output.trim()) err(exit.output.trim().split('\n').slice(-20).join('\n'));
      return exit.interrupted ? 130 : 2;
    }
    const checks = checksOfListing(JSON.parse(readFileSync(listing, 'utf8')) as JsonSuiteNode);
    const listed = checks.filter((c) => !c.setup);
    if (listed.length === 0) return selectsNoCheck(v);
    const width = (key: 'id' | 'requirement' | 'class'): number => Math.max(...listed.map((c) => c[key].length));
    const [wId, wReq, wCls] = [width('id'), width('requirement'), width('class')];
    // The suites' own titles, no secret in them: redaction would bend some ("the Basic or Token scheme").
    outText(`${'check'.padEnd(wId)}  ${'requirement'.padEnd(wReq)}  level   ${'class'.padEnd(wCls)}  title`);
    for (const c of listed)
      outText(
        `${c.id.padEnd(wId)}  ${c.requirement.padEnd(wReq)}  ${c.level.padEnd(6)}  ${c.class.padEnd(wCls)}  ${c.title}`,
      );
    const must = listed.filter((c) => c.level === 'MUST').length;
    const classes = new Set(listed.map((c) => c.class)).size;
    const setup = checks.length - listed.length;
    out(
      `${listed.length} check${listed.length === 1 ? '' : 's'} (${must} MUST, ${listed.length - must} SHOULD) in ${classes} class${classes === 1 ? '' : 'es'}${setup ? `; ${setup} earlier flow step${setup === 1 ? '' : 's'} would run as setup` : ''}; nothing was run`,
    );
    return 0;
  } finally {
    rmSync(plan.settings.runTmp, { recursive: true, force: true });
  }
}

interface JsonSuiteNode {
  title?: string;
  suites?: JsonSuiteNode[];
  specs?: Array<{ title: string; tests: Array<{ annotations?: Array<{ type: string; description?: string }> }> }>;
}

/** The checks of Playwright's JSON listing, in its order, once each (the annotations carry id, requirement, level, class). */
export function checksOfListing(root: JsonSuiteNode): ListedCheck[] {
  const found: ListedCheck[] = [];
  const seen = new Set<string>();
  const visit = (suite: JsonSuiteNode): void => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) {
        const note = (type: string): string => t.annotations?.find((a) => a.type === type)?.description ?? '';
        const id = note('cc.id');
        if (!id || seen.has(id)) continue;
        seen.add(id);
        found.push({
          id,
          requirement: note('cc.requirement'),
          level: note('cc.level'),
          class: note('cc.class'),
          title: spec.title.replace(/^\[[^\]]+\]\s*/, ''),
          setup: t.annotations?.some((a) => a.type === 'cc.setup') ?? false,
        });
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  visit(root);
  return found;
}

interface SuiteIndexUse {
  /** The index knows the sources and no check of theirs is selected: there is nothing to run. */
  selectsNothing: boolean;
  /** Stores the index written by a run that completed (a crashed listing may have seen only some files). */
  settle(completed: boolean): void;
}

/**
 * Hands Playwright only the suite files the selection reaches when the suite index knows them
 * (suite-index.ts); otherwise this run loads every file and indexes them. A selection of no file
 * is said before anything starts (loading every file to find nothing took 6 s of CPU).
 */
function useSuiteIndex(plan: RunPlan): SuiteIndexUse {
  const key = suiteIndexKey(runnerEnv(plan, process.env));
  const candidates = cachedCandidates(key);
  if (candidates) {
    const selected = selectedCandidates(selectionOf(plan.settings), candidates);
    const files = fileFilters(selected);
    plan.args.push(...files);
    plan.settings.selectedWork = selectedWork(selected);
    return { selectsNothing: files.length === 0, settle: () => undefined };
  }
  const out = join(tmpdir(), `cloudcheck-${plan.settings.runId}-suite-index.json`);
  plan.settings.suiteIndexOut = out;
  return {
    selectsNothing: false,
    settle: (completed) => (completed ? storeCandidates(key, out) : rmSync(out, { force: true })),
  };
}

interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  interrupted: boolean;
}

/**
 * The environment without the variables a Playwright worker runs under (cloudcheck run started
 * from a test of another Playwright run): the suite's runner is a runner of its own.
 */
function outsidePlaywright(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !/^(TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)$/.test(name)),
  );
}

/**
 * `quiet`: Playwright's stderr is kept too (shown only when it fails), as for a listing. A signal
 * stops the runner through `interruption` (interruption.ts); without one, this call watches alone.
 */
function spawnPlaywright(
  plan: RunPlan,
  quiet = false,
  extraEnv: Record<string, string> = {},
  interruption?: Interruption,
): Promise<ExitInfo> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...playwrightArgs(), ...plan.args], {
      cwd: ROOT,
      env: { ...runnerEnv(plan, process.env), ...extraEnv },
      // Playwright's own stdout is kept quiet (shown only when no report comes); the reporter's
      // progress lines go to stderr, straight through.
      stdio: ['ignore', 'pipe', quiet ? 'pipe' : 'inherit'],
    });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const watch = interruption ?? watchInterruption(err);
    watch.follow(child);
    const done = (): void => {
      if (!interruption) watch.dispose();
    };
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('exit', (code, signal) => {
      done();
      resolvePromise({ code, signal, output, interrupted: watch.signal !== null });
    });
  });
}

/** On GitHub Actions, the Markdown summary also goes onto the job's summary page. */
function appendJobSummary(reportDir: string): void {
  const target = process.env.GITHUB_STEP_SUMMARY;
  const summary = join(reportDir, 'summary.md');
  if (!target || !existsSync(summary)) return;
  try {
    appendFileSync(target, `${readFileSync(summary, 'utf8')}\n`);
  } catch (error) {
    err(`cloudcheck: could not append to GITHUB_STEP_SUMMARY: ${(error as Error).message}`);
  }
}

/** `requests: 2,208, 7.6 in flight on average over 24 s (8 workers, round trip 81 ms); longest chain: ...` */
export function concurrencyLine(c: NonNullable<ConformanceReport['concurrency']>): string {
  const setup = [
    c.workers === null ? null : `${c.workers} worker${c.workers === 1 ? '' : 's'}`,
    c.round_trip_ms === null ? null : `round trip ${c.round_trip_ms} ms`,
  ].filter((part) => part !== null);
  const chain = c.critical_path
    ? `; longest chain: ${c.critical_path.round_trips} round trips in a row (${c.critical_path.chain})`
    : '';
  return `requests: ${c.requests.toLocaleString('en-US')}, ${c.in_flight_average.toFixed(1)} in flight on average over ${Math.round(c.span_seconds)} s${setup.length ? ` (${setup.join(', ')})` : ''}${chain}`;
}

/**
 * The target's failures by cause (MUST first, the largest first), each with one example; then the
 * failures that are not the target's (environment, cloudcheck's own errors), one line each.
 */
function printCauses(report: ConformanceReport): void {
  const views = causeViews(report);
  if (views.length) {
    out(`causes: ${causeCount(report.clusters ?? [])}, MUST first, the most checks first`);
    for (const v of views.slice(0, 15)) {
      out(`  ${v.cluster.level.padEnd(6)} ${v.line}`);
      if (v.example && v.representative)
        out(`         e.g. [${v.representative.requirement}] ${v.example.slice(0, 160)}`);
    }
    if (views.length > 15) out(`  … and ${views.length - 15} more causes (see the report)`);
    out('');
  }
  const other = report.checks.filter((c) => c.status === 'failed' && !isTargetFailure(c));
  if (other.length === 0) return;
  out('not the target (these requirements went unjudged):');
  for (const c of other.slice(0, 20)) {
    const tag = classificationOf(c) === 'environment' ? 'ENV   ' : 'SUITE ';
    const line = failureLine(c);
    out(`  ${tag} [${c.requirement}] ${c.title}${line ? ` — ${line.slice(0, 160)}` : ''}`);
  }
  if (other.length > 20) out(`  … and ${other.length - 20} more (see the report)`);
  out('');
}

function printSummary(report: ConformanceReport, reportDir: string): void {
  const s = report.summary;
  out('');
  printCauses(report);
  if (report.checks.length === 0) out('warning: no checks ran (check --classes, --grep and --shard)');
  out(`${s.headline ?? s.verdict}`);
  const causes = causeCount(report.clusters ?? []);
  if (causes)
    out(
      `${causes}, the largest first: ${report
        .clusters!.slice(0, 3)
        .map((c) => c.cause)
        .join('; ')}${report.clusters!.length > 3 ? '; …' : ''}`,
    );
  out(
    `checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (MUST ${s.must.passed}/${s.must.failed}/${s.must.skipped}, SHOULD ${s.should.passed}/${s.should.failed}/${s.should.skipped} passed/failed/skipped)${s.environment ? `, ${s.environment} environment problems` : ''}${s.cloudcheck_errors ? `, ${s.cloudcheck_errors} cloudcheck errors` : ''}`,
  );
  const waits = Object.entries(report.waits ?? {}).filter(([, ms]) => ms >= 1000);
  if (waits.length)
    out(
      `waited for the target: ${waits.map(([cls, ms]) => `${cls} ${(ms / 1000).toFixed(1)} s`).join(', ')} (--async-timeout bounds each wait)`,
    );
  const concurrency = report.concurrency;
  if (concurrency && concurrency.requests > 0) out(concurrencyLine(concurrency));
  const thirdParty = report.third_party_output ?? [];
  if (thirdParty.length)
    out(
      `third-party output: ${thirdParty.length} distinct line${thirdParty.length === 1 ? '' : 's'} printed by libraries or Node in the workers, kept in report.json (third_party_output) and summary.md, not here`,
    );
  const retriedIn = report.checks.filter((c) => (c.retried_requests ?? 0) > 0);
  if (retriedIn.length) {
    const retried = retriedIn.reduce((n, c) => n + (c.retried_requests ?? 0), 0);
    out(
      `retried ${retried} request${retried === 1 ? '' : 's'} that got no answer, in ${retriedIn.length} check${retriedIn.length === 1 ? '' : 's'} (--retries; report.json retried_requests): the network or the target dropped connections`,
    );
  }
  if (report.kept?.length) {
    out(
      `kept (--keep): ${report.kept.length} resources the run created are still there, so the report's curl lines can be replayed:`,
    );
    for (const k of report.kept.slice(0, 20)) out(`  ${k.kind} ${k.id}`);
    if (report.kept.length > 20) out(`  … and ${report.kept.length - 20} more (report.json "kept")`);
    out(`  remove them when done: cloudcheck sweep --target ${report.run.target}`);
  }
  if (report.leaks.length)
    out(
      `leaks: ${report.leaks.length} resources could not be deleted (listed in the report; \`cloudcheck sweep\` removes cc- leftovers)`,
    );
  out(`gate: ${s.gate?.passed ? 'passed' : 'FAILED'} (${s.gate?.reason ?? ''})`);
  const shown = (file: string): string => {
    const rel = relative(process.cwd(), join(reportDir, file));
    return rel.startsWith('..') ? join(reportDir, file) : rel;
  };
  out(`report: ${shown('report.json')} (junit.xml, summary.md beside it)`);
  out(`open: ${shown('report.html')}`);
}
