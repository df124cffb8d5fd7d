/**
 * `cloudcheck explore`: random sequences of operations checked against the model of what the
 * specification states (src/explore/), against a target or the embedded reference server. A
 * failing sequence is shrunk, replayed to confirm it, and reported like any failed check, with a
 * replay file (`--replay`) and a shell script of curl lines beside the report.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import type { OptionValues } from '../../config/options.ts';
import type { Session } from '../../harness/session.ts';
import { Budget } from '../../harness/budget.ts';
import { createRunKeys } from '../../harness/run-keys.ts';
import { isObject } from '../../harness/body-shape.ts';
import { onInterrupt, openSession } from '../../harness/session.ts';
import { DEFAULT_TEST_NUMBERS, RUN_PREFIX, newRunId } from '../../harness/settings.ts';
import { ExploreTarget } from '../../explore/target.ts';
import type { TestNumbers } from '../../explore/target.ts';
import { explore, findingOf, replay as replayOf } from '../../explore/explore.ts';
import type { ExploreFinding, ExploreOutcome } from '../../explore/explore.ts';
import { ExploreSetupError } from '../../explore/family.ts';
import type { ExploreFamily } from '../../explore/family.ts';
import { FAMILIES, commandOf, familiesNamed, rulesOf } from '../../explore/families/index.ts';
import { ModelViolation } from '../../explore/model.ts';
import { placeJudged } from '../../harness/failure.ts';
import { reproductionScript } from '../../explore/repro.ts';
import type { StepRecord } from '../../explore/model.ts';
import type { CheckResult } from '../../model/finding.ts';
import { requirementById } from '../../../spec/requirements.ts';
import { finaliseReport } from '../../report/finalise.ts';
import { connectionOf } from '../connection.ts';
import { err, out, outText } from '../output.ts';
import { type ReplayOrigin, originOf, replayHint, replayRefusal } from '../replay-origin.ts';

export const EXPLORE_HELP: HelpSpec = {
  synopsis: 'cloudcheck explore [options]',
  summary:
    'Sends random sequences of operations, each drawn from one family (listed below), the families taking turns, and checks every answer against a model of what the specification states; a failing sequence is shrunk to a minimal one and reported with a replay file and curl lines.',
  examples: [
    ['cloudcheck explore', 'explore the embedded reference server (seed 1, 2000 requests, 60 s at most)'],
    ['cloudcheck explore --seed 7 --budget 2000 --time 300', 'another seed, a longer exploration'],
    ['cloudcheck explore --families objects', 'only the sequences of one family'],
    ['CLOUDCHECK_API_KEY=... cloudcheck explore --target https://staging.example.net/v1', 'explore a staging server'],
    ['cloudcheck explore --target URL --replay reports/<run>/explore-replay.json', 'run a reported sequence again'],
  ],
  exitCodes: [
    ['0', 'no sequence contradicted the model (or the replayed sequence passed)'],
    ['1', 'a sequence contradicted the model: a MUST requirement is broken (the report shows the shrunk sequence)'],
    [
      '2',
      "usage error, bad replay file, unreachable target or rejected key, or an error that is not the target's (nothing was proved)",
    ],
    ['130', 'interrupted: the running sequence was cleaned up and what ran is reported'],
  ],
};

const DEFAULT_BUDGET = 2000;
/**
 * Requests per key of the exploration. A key may send 1,000 an hour but only 100 a minute to
 * messaging and to compute (specification, "Limits"); at 200 a key the minute windows do not bind
 * an exploration that spends its budget within a minute, so the budget, not the machine's speed
 * against --time, decides how much is explored (and a seed finds the same faults anywhere).
 */
const REQUESTS_PER_KEY = 200;
const DEFAULT_TIME_S = 60;

export async function exploreCommand(argv: string[]): Promise<number> {
  const resolved = resolveOptions('explore', argv, process.env, process.cwd());
  if (resolved.help) {
    outText(`${helpText('explore', EXPLORE_HELP)}\n${familiesText()}`);
    return 0;
  }
  if (resolved.positionals.length)
    throw new UsageError(`explore takes no positional arguments (got "${resolved.positionals[0]}")`);
  const v = resolved.values;
  const replayFile = v.replay !== undefined ? readReplay(resolve(v.replay)) : null;
  const refusal = replayFile && !v['replay-any-target'] ? replayRefusal(replayFile.origin, v.target) : null;
  if (refusal) throw new UsageError(`--replay: ${refusal}`);
  if (replayFile && !replayFile.origin)
    err('cloudcheck explore: the replay file does not say which target it came from (written by an older version)');
  const replay = replayFile?.steps ?? null;
  const families = selectedFamilies(v.families);
  const session = await openSession({
    connection: connectionOf(v, process.env),
    command: 'cloudcheck explore',
    embedded: { seed: v.seed, testNumbers: testNumbersOf(v) },
    env: process.env,
    log: err,
  });
  try {
    return await exploreOn(session, v, { replay, families });
  } finally {
    await session.close();
  }
}

/** The exploration (or the replay) on an open session: its own keys, the run, the report. */
async function exploreOn(
  session: Session,
  v: OptionValues<'explore'>,
  what: { replay: StepRecord[] | null; families: ExploreFamily[] },
): Promise<number> {
  const { replay, families } = what;
  const runId = newRunId();
  const runPrefix = `${RUN_PREFIX}${runId}-`;
  const settings = session.clientSettings;
  // Keys of the exploration's own (revoked at the end, named with the run prefix) spread the budget
  // over the per-key limits, as `cloudcheck run` does; the more keys given (--api-key) count too.
  const budget = v.budget ?? DEFAULT_BUDGET;
  const given = [settings.keys.main, ...session.keys.extra];
  const runKeys = await createRunKeys({
    settings,
    count: Math.max(0, Math.ceil(budget / REQUESTS_PER_KEY) - given.length),
    namePrefix: runPrefix,
    journalDir: null,
    dispatcher: session.dispatcher(),
  });
  if (runKeys.shortfall)
    err(
      `cloudcheck explore: created ${runKeys.keys.length} extra API keys (${runKeys.shortfall}); the budget may meet the hourly limit`,
    );
  // The session's key stays out of billing once there are run keys, as in `cloudcheck run`: its billing
  // window (100/h) is kept for revoking them, whatever the api-keys sequences spent.
  const keptOut = runKeys.keys.length ? { billing: [settings.keys.main] } : undefined;
  const api = session.client(
    new Budget([...runKeys.keys, ...session.keys.extra, settings.keys.main], { maxWaitMs: 60_000, keptOut }),
  );
  const startedAt = new Date();
  let interrupted = false;
  const target = new ExploreTarget(
    api,
    `${runPrefix}explore`,
    runPrefix,
    { budget, deadline: startedAt.getTime() + (v.time ?? DEFAULT_TIME_S) * 1000 },
    testNumbersOf(v),
  );
  // Ctrl-C: no new sequence starts; the running one finishes, is cleaned up and reported.
  const stopListening = onInterrupt(() => {
    // A second signal does not wait for the clean-up: `cloudcheck sweep` removes what is left.
    if (interrupted) process.exit(130);
    err('cloudcheck explore: stopping after the running sequence (it is cleaned up; again to stop at once)');
    interrupted = true;
    target.stop();
  });
  try {
    err(
      `cloudcheck explore: ${replay ? `replaying ${replay.length} steps` : `seed ${v.seed}, at most ${v.budget ?? DEFAULT_BUDGET} requests and ${v.time ?? DEFAULT_TIME_S} s`} against ${session.target}`,
    );
    const outcome = replay
      ? await replayOutcome(target, replay)
      : await explore(target, { seed: v.seed, families, progress: progressPrinter() });
    for (const warning of target.warnings) err(`cloudcheck explore: ${warning}`);
    if (outcome.error instanceof ExploreSetupError) {
      err(`cloudcheck explore: ${outcome.error.message}`);
      return 2;
    }
    if (outcome.error) {
      err(`cloudcheck explore: the exploration stopped on an error that is not a finding: ${outcome.error.message}`);
      return 2;
    }
    const reportDir = resolve(v['report-dir'] ?? join('reports', `explore-${runId}`));
    const rules = rulesOf(replay ? FAMILIES.filter((f) => replay.some((s) => f.commandOf(s))) : families);
    const report = writeReport(outcome, rules, {
      strict: v.strict ?? false,
      runId,
      target: session.target,
      exploreTarget: target,
      embedded: session.server !== null,
      seed: v.seed,
      startedAt,
      reportDir,
      interrupted,
    });
    printSummary(outcome, rules, reportDir, { target: session.target, embedded: session.server !== null });
    if (interrupted) return 130;
    // No rule exercised is no evidence: a pass would mean nothing (a budget or time too small to run a step).
    if (outcome.findings.length === 0 && outcome.exercised.size === 0) {
      err(
        'cloudcheck explore: no sequence exercised any rule of the model (raise --budget or --time); nothing was checked',
      );
      return 2;
    }
    return report.summary.gate?.passed ? 0 : 1;
  } finally {
    const unrevoked = await runKeys.revoke().catch(() => runKeys.keys.length);
    if (unrevoked)
      err(
        `cloudcheck explore: ${unrevoked} of its API keys could not be revoked (they expire on their own within 3 h)`,
      );
    stopListening();
  }
}

/** The test-mode numbers messaging sequences send to (`--test-number-*`, else the defaults of the specification's examples). */
function testNumbersOf(v: OptionValues<'explore'>): TestNumbers {
  return {
    succeed: v['test-number-succeed'] ?? DEFAULT_TEST_NUMBERS.succeed,
    fail: v['test-number-fail'] ?? DEFAULT_TEST_NUMBERS.fail,
    random: v['test-number-random'] ?? DEFAULT_TEST_NUMBERS.random,
  };
}

/** The families `--families` takes, each with what its sequences do (the help's last section). */
function familiesText(): string {
  const width = Math.max(...FAMILIES.map((f) => f.name.length));
  return [
    'families (--families a,b; default: all, taking turns):',
    ...FAMILIES.map((f) => `  ${f.name.padEnd(width)}  ${f.summary}`),
    '',
  ].join('\n');
}

/** `--families a,b`: the families named, each known (default: all). */
function selectedFamilies(names: readonly string[] | undefined): ExploreFamily[] {
  try {
    return familiesNamed(names);
  } catch (error) {
    throw new UsageError(`--families: ${(error as Error).message}`);
  }
}

function progressPrinter(): (sequences: number, requests: number) => void {
  let last = Date.now();
  return (sequences, requests) => {
    if (Date.now() - last < 5_000) return;
    last = Date.now();
    err(`  ${sequences} sequences, ${requests} requests`);
  };
}

/** A replay file: `{ "target", "embedded", "steps": [{ "op": ..., "args": {...} }, ...] }`, as explore writes it. */
function readReplay(file: string): { steps: StepRecord[]; origin: ReplayOrigin | null } {
  if (!existsSync(file)) throw new UsageError(`--replay: ${file} does not exist`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--replay: ${file} is not JSON (${(error as Error).message})`);
  }
  const steps = isObject(data) ? data.steps : undefined;
  if (
    !Array.isArray(steps) ||
    !steps.every((s) => isObject(s) && typeof s.op === 'string' && (s.args === undefined || isObject(s.args)))
  ) {
    throw new UsageError(`--replay: ${file} holds no "steps" list of { op, args }`);
  }
  const records = steps.map((s) => ({ op: s.op as string, args: (s.args ?? {}) as StepRecord['args'] }));
  for (const record of records) {
    try {
      commandOf(record);
    } catch (error) {
      throw new UsageError(`--replay: ${file}: ${(error as Error).message}`);
    }
  }
  return { steps: records, origin: originOf(data) };
}

async function replayOutcome(target: ExploreTarget, steps: StepRecord[]): Promise<ExploreOutcome> {
  const outcome: ExploreOutcome = {
    sequences: 1,
    requests: 0,
    exercised: target.exercised,
    findings: [],
    error: null,
  };
  try {
    await replayOf(target, steps);
  } catch (error) {
    if (!(error instanceof ModelViolation)) outcome.error = error instanceof Error ? error : new Error(String(error));
    else outcome.findings.push(findingOf(error, commandOf(steps[0]!).family.name, steps, target.exchanges, true));
  }
  outcome.requests = target.requestsSent;
  return outcome;
}

/** One check per rule of the model: failed (the finding), passed (exercised, never contradicted) or skipped (never exercised). */
function checksOf(outcome: ExploreOutcome, rules: Record<string, string>): CheckResult[] {
  return Object.entries(rules).map(([requirement, title]) => {
    const known = requirementById(requirement);
    // Every rule cites a requirement of the catalogue (test/explore/explore.test.ts): its class and level are the report's.
    const base = {
      id: `explore.${requirement}`,
      requirement,
      level: known?.level ?? 'MUST',
      class: known?.class ?? 'storage-objects',
      operation: null,
      title: `explore: ${title}`,
    };
    const f = outcome.findings.find((x) => x.requirement === requirement);
    if (f) {
      const exchanges = [...f.exchanges];
      const judged = placeJudged(exchanges, f.failure.judged);
      const failure = { ...f.failure.failure, ...(judged.length ? { exchanges: judged } : {}) };
      return {
        ...base,
        status: 'failed' as const,
        classification: f.level === 'MUST' ? ('defect' as const) : ('spec-gap' as const),
        message: findingMessage(f),
        ...(failure.expected !== undefined ? { expected: failure.expected } : {}),
        ...(failure.actual !== undefined ? { actual: failure.actual } : {}),
        failure,
        exchanges,
      };
    }
    if (outcome.exercised.has(requirement)) return { ...base, status: 'passed' as const };
    return {
      ...base,
      status: 'skipped' as const,
      message: 'no sequence exercised this rule (a bigger --budget or --time draws more)',
    };
  });
}

function findingMessage(f: ExploreFinding): string {
  const steps = f.steps.map(
    (s, i) =>
      `  ${i + 1}. ${s.op} ${Object.entries(s.args)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ')}`,
  );
  return `${f.message}: expected ${f.expected}, got ${f.actual}\nminimal sequence (${f.steps.length} step${f.steps.length === 1 ? '' : 's'}${f.confirmed ? ', failed again on replay' : ', did NOT fail again on replay: the target may be flaky'}):\n${steps.join('\n')}`;
}

function writeReport(
  outcome: ExploreOutcome,
  rules: Record<string, string>,
  run: {
    strict: boolean;
    runId: string;
    target: string;
    exploreTarget: ExploreTarget;
    embedded: boolean;
    seed: number;
    startedAt: Date;
    reportDir: string;
    interrupted: boolean;
  },
): ReturnType<typeof finaliseReport>['report'] {
  const checks = checksOf(outcome, rules);
  const { report, outcome: written } = finaliseReport(
    {
      schema_version: 1,
      run: {
        id: `explore-${run.runId}`,
        target: run.target,
        started_at: run.startedAt.toISOString(),
        finished_at: new Date().toISOString(),
        seed: run.seed,
        classes: [...new Set(checks.map((c) => c.class))],
        embedded: run.embedded,
      },
      checks,
      coverage: { operations: [] },
      leaks: [],
    },
    run.reportDir,
    { gate: { strict: run.strict, baseline: null, baselineSource: null }, interrupted: run.interrupted },
  );
  for (const f of written.failed) err(`cloudcheck explore: could not write ${f.file}: ${f.error}`);
  const origin = { target: run.target, embedded: run.embedded };
  outcome.findings.forEach((f, i) => writeReproduction(f, i, run.reportDir, run.exploreTarget, origin));
  return report;
}

/** The files of the i-th finding: explore-replay.json and explore-repro.sh for the first, -2, -3, ... after the name for the others. */
function reproductionFiles(i: number): { replay: string; script: string } {
  const suffix = i === 0 ? '' : `-${i + 1}`;
  return { replay: `explore-replay${suffix}.json`, script: `explore-repro${suffix}.sh` };
}

/** The shrunk sequence as a replay file and as a script of curl lines (src/explore/repro.ts). */
function writeReproduction(
  finding: ExploreFinding,
  i: number,
  dir: string,
  target: ExploreTarget,
  origin: ReplayOrigin,
): void {
  const baseUrl = origin.target;
  const files = reproductionFiles(i);
  writeFileSync(
    join(dir, files.replay),
    `${JSON.stringify({ requirement: finding.requirement, ...origin, steps: finding.steps }, null, 2)}\n`,
  );
  const script = reproductionScript({
    requirement: finding.requirement,
    summary: `${finding.message}: expected ${finding.expected}, got ${finding.actual}`,
    baseUrl,
    setUp: target.setUpExchanges,
    exchanges: finding.exchanges,
  });
  writeFileSync(join(dir, files.script), script, { mode: 0o755 });
}

function printSummary(
  outcome: ExploreOutcome,
  rules: Record<string, string>,
  reportDir: string,
  origin: ReplayOrigin,
): void {
  out(
    `${outcome.sequences} sequence${outcome.sequences === 1 ? '' : 's'}, ${outcome.requests} requests; ${outcome.exercised.size} of ${Object.keys(rules).length} rules exercised`,
  );
  outcome.findings.forEach((f, i) => {
    const files = reproductionFiles(i);
    out(`${f.level === 'MUST' ? 'FAILED' : 'DEVIATION'} [${f.requirement}] ${findingMessage(f)}`);
    out(`replay: ${replayHint(join(reportDir, files.replay), origin)}; curl lines: ${files.script}`);
  });
  if (outcome.findings.length === 0) out('no sequence contradicted the model');
  else if (!outcome.findings.some((f) => f.level === 'MUST'))
    out(
      'no sequence contradicted a MUST rule of the model (SHOULD deviations fail the exploration only with --strict)',
    );
  out(`report: ${join(reportDir, 'report.json')}`);
}
