/**
 * The Playwright reporter of the conformance suite: it collects. Every test becomes a CheckResult
 * (from the check's annotations, its exchanges attachment and its error); the ledger journals
 * give leaks, the workers' observations the run-wide rate-limit checks, the exchanges coverage.
 * Under `cloudcheck run` the draft goes to the run's temp dir and the CLI finalises it (with the
 * leaks it recovers); run directly, the reporter finalises it itself (finalise.ts).
 *
 * Under `cloudcheck run` (settings.progress) it prints a line per finished class to stderr;
 * the list reporter is not used then, so output stays short.
 */
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { isConformanceClass } from '../../spec/classes.ts';
import type { ConformanceClass, Level } from '../../spec/classes.ts';
import type { CheckFailure, CheckResult, Classification, Exchange } from '../model/finding.ts';
import type { ConformanceReport, Leak, ThirdPartyLine } from '../model/report.ts';
import { placeJudged } from '../harness/failure.ts';
import type { FailureRecord } from '../harness/failure.ts';
import {
  ANNOTATION,
  EXCHANGES_ATTACHMENT,
  REQUESTS_ANNOTATION,
  RETRIED_ANNOTATION,
  SEEN_ANNOTATION,
  type SeenExchange,
} from '../harness/fixtures.ts';
import { foldJournal } from '../harness/ledger.ts';
import { type RequestStats, runRequests } from '../harness/request-stats.ts';
import { addSecret, redactString } from '../harness/redact.ts';
import { processSettings } from '../harness/settings.ts';
import { RunEstimate, budgetWait, describeBudget, formatDuration, pacingKeys } from '../harness/run-estimate.ts';
import type { RunSettings } from '../harness/settings.ts';
import { loadRequirements } from '../../spec/requirements.ts';
import { classCounts } from './class-counts.ts';
import { type CoverageInput, computeCoverage, loadInventory } from './coverage.ts';
import { RUN_CHECKS, rateInvariantChecks, readObservations } from './rate-invariants.ts';
import { countsAgainstGate, parseBaseline } from './gate.ts';
import { type DraftReport, draftFile, finaliseReport } from './finalise.ts';
import { stopGracefullyOnSigterm } from './stop-on-term.ts';

/** Exchanges kept per failed check (the last ones: they are closest to the failure). */
const MAX_EXCHANGES = 20;
/** Third-party output kept in the report: distinct lines, and characters per line. */
const MAX_NOTE_LINES = 100;
const MAX_NOTE_CHARS = 400;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

function annotationsOf(test: TestCase, result: TestResult | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const a of [...test.annotations, ...(result?.annotations ?? [])]) {
    if (a.description !== undefined) map.set(a.type, a.description);
  }
  return map;
}

function exchangesOf(result: TestResult | undefined): Exchange[] {
  const attachment = result?.attachments.find((a) => a.name === EXCHANGES_ATTACHMENT);
  if (!attachment) return [];
  try {
    const text = attachment.body
      ? attachment.body.toString('utf8')
      : attachment.path
        ? readFileSync(attachment.path, 'utf8')
        : '[]';
    const parsed = JSON.parse(text) as Exchange[];
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The failure a check recorded as data (check.ts), or undefined when none or unreadable. */
function failureDataOf(ann: Map<string, string>): FailureRecord | undefined {
  const text = ann.get(ANNOTATION.failureData);
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as FailureRecord;
    return parsed && typeof parsed === 'object' && parsed.failure ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whose fault a failed test is, from data only: the classification the check wrapper or a fixture
 * annotated (an environment or cloudcheck error); a timeout or an interruption is the
 * environment's; an error outside the check's body that nobody classified judged nothing of the
 * target (cloudcheck's own); anything the check's assertions failed is the target's: a defect at
 * MUST, a deviation at SHOULD.
 */
function failureClassification(
  annotated: string | undefined,
  status: TestResult['status'],
  byTheCheck: boolean,
  level: Level,
): Classification {
  if (annotated === 'environment' || annotated === 'cloudcheck-error') return annotated;
  if (status === 'timedOut' || status === 'interrupted') return 'environment';
  if (!byTheCheck) return 'cloudcheck-error';
  return level === 'MUST' ? 'defect' : 'spec-gap';
}

/** A failure that reached Playwright without the check wrapper's data (a timeout, a fixture's error): kind `error`. */
function untypedFailure(operation: string | null, status: TestResult['status'], message: string): FailureRecord {
  const first = message.split('\n')[0]!;
  return {
    failure: {
      kind: 'error',
      subject: status === 'timedOut' ? 'timeout' : status === 'interrupted' ? 'interrupted' : 'error',
      headline: operation ? `${operation}: ${first}` : first,
      operation,
      evidence: message,
    },
    judged: [],
  };
}

export function checkFromTest(
  test: TestCase,
  result: TestResult | undefined,
  projectName: string | undefined,
  harAll = false,
): CheckResult {
  const ann = annotationsOf(test, result);
  const rawClass = ann.get(ANNOTATION.class) ?? projectName ?? '';
  const cls: ConformanceClass = isConformanceClass(rawClass) ? rawClass : 'errors';
  const level: Level = ann.get(ANNOTATION.level) === 'SHOULD' ? 'SHOULD' : 'MUST';
  const title = test.title.replace(/^\[[^\]]+\]\s*/, '');
  let status: CheckResult['status'] = 'skipped';
  let classification: Classification | undefined;
  let message: string | undefined;
  let stack: string | undefined;
  const deviation = result?.status === 'passed' ? ann.get(ANNOTATION.deviation) : undefined;
  const recorded = result?.status === 'passed' ? ann.get(ANNOTATION.failure) : undefined;
  let data = deviation !== undefined || recorded !== undefined ? failureDataOf(ann) : undefined;
  if (result) {
    if (deviation !== undefined) {
      status = 'failed';
      classification = 'spec-gap';
      message = deviation.replace(ANSI, '').replace(/^Error: /, '');
    } else if (recorded !== undefined) {
      status = 'failed';
      message = recorded.replace(ANSI, '');
      classification = failureClassification(ann.get(ANNOTATION.classification), 'failed', true, level);
      if (classification === 'cloudcheck-error') stack = ann.get(ANNOTATION.stack)?.replace(ANSI, '');
    } else if (result.status === 'passed') status = 'passed';
    else if (result.status === 'skipped') {
      status = 'skipped';
      message = [...test.annotations, ...result.annotations].find((a) => a.type === 'skip')?.description;
    } else status = 'failed';
    if (status === 'failed' && deviation === undefined && recorded === undefined) {
      const error = result.errors[0] ?? result.error;
      // Plain `Error: ` adds nothing; other names stay (they say what failed).
      message = (error?.message ?? error?.value ?? `test ${result.status}`).replace(ANSI, '').replace(/^Error: /, '');
      if (result.status === 'timedOut') message = `timed out after ${result.duration} ms: ${message}`;
      classification = failureClassification(ann.get(ANNOTATION.classification), result.status, false, level);
      data = untypedFailure(ann.get(ANNOTATION.operation) ?? null, result.status, message);
      if (classification === 'cloudcheck-error') stack = (error?.stack ?? '').replace(ANSI, '') || undefined;
    }
  } else {
    message = 'not run';
  }
  // `--har all`: every check keeps its exchanges (the workers attached them), all of them.
  const exchanges = status === 'failed' ? exchangesOf(result).slice(-MAX_EXCHANGES) : harAll ? exchangesOf(result) : [];
  // The exchanges the failure judged are kept, wherever they were recorded (an earlier flow step).
  const judged = status === 'failed' && data ? placeJudged(exchanges, data.judged) : [];
  const failure: CheckFailure | undefined =
    status === 'failed' && data ? { ...data.failure, ...(judged.length ? { exchanges: judged } : {}) } : undefined;
  const check: CheckResult = {
    id: ann.get(ANNOTATION.id) ?? test.titlePath().slice(1).join(' › '),
    requirement: ann.get(ANNOTATION.requirement) ?? 'UNKNOWN',
    level,
    class: cls,
    operation: ann.get(ANNOTATION.operation) ?? null,
    title,
    status,
    ...(ann.has(ANNOTATION.flow) ? { flow: ann.get(ANNOTATION.flow)! } : {}),
    ...(status === 'skipped' && ann.has(ANNOTATION.skippedAfter)
      ? { skipped_after: ann.get(ANNOTATION.skippedAfter)! }
      : {}),
    ...(classification ? { classification } : {}),
    ...(message ? { message } : {}),
    ...(failure?.expected !== undefined ? { expected: failure.expected } : {}),
    ...(failure?.actual !== undefined ? { actual: failure.actual } : {}),
    ...(failure ? { failure } : {}),
    ...(exchanges.length ? { exchanges } : {}),
    ...(stack ? { stack: redactString(stack) } : {}),
    ...(result ? { duration_ms: result.duration } : {}),
    ...(waitedMs(result) > 0 ? { waited_ms: waitedMs(result) } : {}),
    ...(Number(ann.get(RETRIED_ANNOTATION)) > 0 ? { retried_requests: Number(ann.get(RETRIED_ANNOTATION)) } : {}),
    location:
      ann.get(ANNOTATION.location) ??
      `${test.location.file.replace(/^.*?\/suites\//, 'suites/')}:${test.location.line}`,
  };
  return check;
}

/** What the check's own requests cost in time (fixtures.ts REQUESTS_ANNOTATION), when it sent any. */
function requestStatsOf(test: TestCase, result: TestResult | undefined): RequestStats | null {
  const text = annotationsOf(test, result).get(REQUESTS_ANNOTATION);
  if (!text) return null;
  try {
    const stats = JSON.parse(text) as unknown;
    return Array.isArray(stats) && stats.length === 5 && stats.every((n) => typeof n === 'number')
      ? (stats as RequestStats)
      : null;
  } catch {
    return null;
  }
}

/** The sum of the check's waits for asynchronous changes (ctx.poll annotations). */
function waitedMs(result: TestResult | undefined): number {
  return (result?.annotations ?? [])
    .filter((a) => a.type === ANNOTATION.waited)
    .reduce((sum, a) => sum + (Number(a.description) || 0), 0);
}

/** Waiting time per class, for report.json `waits`. */
export function waitsByClass(checks: readonly CheckResult[]): Partial<Record<ConformanceClass, number>> {
  const waits: Partial<Record<ConformanceClass, number>> = {};
  for (const c of checks) if (c.waited_ms) waits[c.class] = (waits[c.class] ?? 0) + c.waited_ms;
  return waits;
}

/**
 * Statuses for coverage come from every check's exchanges, not only the failed ones kept in the
 * report: a check the report passes left only method, URL and status (fixtures.ts SEEN_ANNOTATION).
 */
function seenBy(test: TestCase, result: TestResult | undefined): SeenExchange[] {
  const compact = annotationsOf(test, result).get(SEEN_ANNOTATION);
  if (compact) {
    try {
      const parsed = JSON.parse(compact) as unknown;
      if (Array.isArray(parsed)) return parsed as SeenExchange[];
    } catch {
      // A damaged annotation only costs coverage its statuses.
    }
  }
  return exchangesOf(result).map((e) => [e.request.method, e.request.url, e.response?.status ?? null]);
}

export function readJournals(dir: string | undefined | null): { leaks: Leak[]; kept: Leak[] } {
  if (!dir || !existsSync(dir)) return { leaks: [], kept: [] };
  const lines: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('ledger-') && name.endsWith('.jsonl'))
      lines.push(...readFileSync(join(dir, name), 'utf8').split('\n'));
  }
  const { alive, leaks, kept } = foldJournal(lines);
  return {
    kept,
    leaks: [
      ...leaks,
      ...alive.map((e) => ({
        kind: e.kind,
        id: e.id,
        delete_operation: e.deleteOperation,
        reason: 'not deleted: its worker ended before teardown',
      })),
    ],
  };
}

/** A flow step that ran only for the state of a selected step after it (selection.ts). */
function isSetup(test: TestCase): boolean {
  return test.annotations.some((a) => a.type === ANNOTATION.setup);
}

/**
 * Whether a test is one of the run's results. A setup step is one only when it failed: the
 * selected steps after it could not run, and its failure is what the target did.
 */
export function isReported(test: TestCase, check: CheckResult): boolean {
  return !isSetup(test) || check.status === 'failed';
}

/** The class a test is counted under before it runs: its check's class (the requirement's). */
function classOfTest(test: TestCase): string {
  return test.annotations.find((a) => a.type === ANNOTATION.class)?.description ?? test.parent.project()?.name ?? '';
}

/** ` with 8 workers (round trip 81 ms)`: what the global setup chose, which has run by onBegin. */
function concurrencyWords(config: FullConfig, roundTripMs: number | null): string {
  // Playwright's own count: no more workers than the selection has groups of tests.
  const workers = Number(config.metadata.actualWorkers) || config.workers;
  const rtt =
    roundTripMs === null
      ? ''
      : ` (round trip ${roundTripMs < 10 ? roundTripMs.toFixed(1) : Math.round(roundTripMs)} ms)`;
  return ` with ${workers} worker${workers === 1 ? '' : 's'}${rtt}`;
}

/** How often a progress line is printed when stderr is not a terminal. */
const PROGRESS_EVERY_MS = 10_000;

export default class CloudcheckReporter implements Reporter {
  private rootSuite: Suite | undefined;
  /**
   * The run's settings: the process's (settings.ts processSettings), which the global setup, run
   * after the reporter is made, completes (the embedded server's address, the run's keys).
   */
  private get settings(): RunSettings {
    return processSettings();
  }
  private get progress(): boolean {
    return this.settings.progress;
  }
  private readonly tty = process.stderr.isTTY === true;
  private readonly remaining = new Map<string, number>();
  private readonly counts = new Map<string, { passed: number; failed: number; skipped: number }>();
  private config: FullConfig | undefined;
  private finishedTests = 0;
  private totalTests = 0;
  private startedAt = Date.now();
  private lastProgressAt = 0;
  /** `--max-failures N`: stop once N failures count against the gate. */
  private get maxFailures(): number {
    return this.settings.maxFailures;
  }
  private gateFailures = 0;
  /** Why the checks of each class were skipped, with how many, for the class's console line. */
  private readonly skipReasons = new Map<string, Map<string, number>>();
  private stoppedAfter = 0;
  /** Third-party output of the workers (report.json third_party_output), by stream and line. */
  private readonly thirdParty = new Map<string, ThirdPartyLine>();
  private gateOptions: { strict: boolean; baseline: Set<string> | null } | undefined;
  /** The run's request budget and the windows it waits for (run-estimate.ts), from onBegin. */
  private estimate: RunEstimate | undefined;

  constructor() {
    stopGracefullyOnSigterm();
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.rootSuite = suite;
    this.startedAt = Date.now();
    // Counted per check class (the requirement's class), as report.json counts them; setup steps
    // are not checks of the selection and are not counted unless they fail.
    for (const test of suite.allTests()) {
      if (isSetup(test)) continue;
      const name = classOfTest(test);
      this.remaining.set(name, (this.remaining.get(name) ?? 0) + 1);
      if (!this.counts.has(name)) this.counts.set(name, { passed: 0, failed: 0, skipped: 0 });
      this.totalTests++;
    }
    const runWide = this.counts.has('rate-limits')
      ? ` (and ${Object.keys(RUN_CHECKS).length} run-wide rate-limit invariants at the end)`
      : '';
    // The global setup has run: the keys the run paces over are known.
    this.estimate = new RunEstimate(this.remaining, pacingKeys(this.settings.budgetKeys.length));
    if (this.progress) {
      process.stderr.write(
        `running ${this.totalTests} checks in ${this.counts.size} classes${runWide}${concurrencyWords(config, this.settings.roundTripMs)}\n`,
      );
      const requests = this.estimate.remainingRequests();
      process.stderr.write(
        `  ${describeBudget(requests, this.estimate.keys, budgetWait(requests, this.estimate.keys, Date.now()))}\n`,
      );
    }
  }

  /**
   * True: this reporter owns the terminal. With false, Playwright prints the workers' output
   * itself, each chunk under the raw title of its test, in the middle of the progress lines.
   */
  printsToStdio(): boolean {
    return true;
  }

  /**
   * What library code and Node print in the workers (deprecation notices, SDK warnings) would
   * break into the progress lines: it goes into the report instead, each distinct line once.
   */
  /** Errors outside any check (a suite file that does not load, a failing global setup). */
  onError(error: TestError): void {
    const text = redactString((error.stack ?? error.message ?? error.value ?? 'unknown error').replace(ANSI, ''));
    process.stderr.write(`cloudcheck run: error outside the checks (Playwright): ${text}\n`);
  }

  onStdOut(chunk: string | Buffer, test?: TestCase): void {
    this.keepThirdParty('stdout', chunk, test);
  }

  onStdErr(chunk: string | Buffer, test?: TestCase): void {
    this.keepThirdParty('stderr', chunk, test);
  }

  private keepThirdParty(stream: ThirdPartyLine['stream'], chunk: string | Buffer, test: TestCase | undefined): void {
    for (const raw of chunk.toString().split('\n')) {
      const text = redactString(raw.replace(ANSI, '').trimEnd()).slice(0, MAX_NOTE_CHARS);
      if (!text.trim()) continue;
      const key = `${stream}\u0000${text}`;
      const line = this.thirdParty.get(key);
      if (line) line.count++;
      else if (this.thirdParty.size < MAX_NOTE_LINES) {
        const check = test?.annotations.find((a) => a.type === ANNOTATION.id)?.description ?? null;
        this.thirdParty.set(key, { stream, text, count: 1, check });
      }
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const check = checkFromTest(test, result, undefined, this.settings.harAll);
    if (!isReported(test, check)) return;
    const cls = check.class;
    if (isSetup(test)) {
      // A failed setup step becomes a result: count it as if it had been selected.
      this.totalTests++;
      this.remaining.set(cls, (this.remaining.get(cls) ?? 0) + 1);
    }
    this.finishedTests++;
    this.estimate?.finished(cls, Date.now());
    this.countForMaxFailures(check);
    const c = this.counts.get(cls) ?? { passed: 0, failed: 0, skipped: 0 };
    this.counts.set(cls, c);
    c[check.status]++;
    if (check.status === 'skipped' && check.message) {
      const reasons = this.skipReasons.get(cls) ?? new Map<string, number>();
      this.skipReasons.set(cls, reasons);
      reasons.set(check.message, (reasons.get(check.message) ?? 0) + 1);
    }
    const left = (this.remaining.get(cls) ?? 1) - 1;
    this.remaining.set(cls, left);
    if (!this.progress) return;
    if (left === 0) {
      if (this.tty) process.stderr.write('\r\x1b[K');
      // A class with nothing run is not a pass: it says so, and why its checks were skipped.
      const mark = c.failed ? '✗' : c.passed === 0 && c.skipped > 0 ? '–' : '✓';
      process.stderr.write(
        `  ${mark} ${cls.padEnd(16)} ${String(c.passed).padStart(4)} passed ${String(c.failed).padStart(4)} failed ${String(c.skipped).padStart(4)} skipped   [${this.finishedTests}/${this.totalTests}]\n`,
      );
      for (const [reason, count] of this.skipReasons.get(cls) ?? [])
        process.stderr.write(`      skipped ${count}: ${reason}\n`);
    }
    this.printProgress();
  }

  /**
   * Playwright's own --max-failures counts failed tests, and a failed standalone check ends as a
   * passed test (check.ts recordFailure): the count here is what the report's gate counts. At N,
   * the run stops as on Ctrl-C (workers tear down what they created) and the report says why.
   */
  private countForMaxFailures(check: CheckResult): void {
    if (!this.maxFailures || this.stoppedAfter) return;
    this.gateOptions ??= { strict: this.settings.strict, baseline: readBaseline(this.settings.baselineFile) };
    if (!countsAgainstGate(check, this.gateOptions)) return;
    this.gateFailures++;
    if (this.gateFailures < this.maxFailures) return;
    this.stoppedAfter = this.gateFailures;
    if (this.tty && this.progress) process.stderr.write('\r\x1b[K');
    process.stderr.write(
      `cloudcheck run: ${this.gateFailures} failure${this.gateFailures === 1 ? '' : 's'} (--max-failures ${this.maxFailures}): stopping the suite\n`,
    );
    process.kill(process.pid, 'SIGINT');
  }

  /** Count, elapsed time and an estimate of what is left: on one line on a terminal, every 10 s in a log. */
  private printProgress(): void {
    const now = Date.now();
    const done = this.finishedTests >= this.totalTests;
    if (!this.tty && (done || now - this.lastProgressAt < PROGRESS_EVERY_MS)) return;
    this.lastProgressAt = now;
    const elapsed = (now - this.startedAt) / 1000;
    const line = `  [${this.finishedTests}/${this.totalTests}] ${Math.floor((100 * this.finishedTests) / Math.max(this.totalTests, 1))}% · ${elapsed.toFixed(0)} s elapsed${done ? '' : this.timeLeft(now, elapsed)}`;
    process.stderr.write(this.tty ? `\r\x1b[K${line}${done ? '\n' : ''}` : `${line}\n`);
  }

  /**
   * What is left, from the budget first: the windows the remaining requests must wait for (run-estimate.ts),
   * which no pace of the checks so far shows; the pace only when it says longer.
   */
  private timeLeft(now: number, elapsed: number): string {
    const wait = this.estimate?.wait(now) ?? { waitMs: 0, rule: null };
    const rate = this.finishedTests / Math.max(elapsed, 0.001);
    // A pace from the first few checks says nothing: wait for a sample.
    const paced =
      rate > 0 && this.finishedTests >= 20 && elapsed >= 3
        ? ((this.totalTests - this.finishedTests) / rate) * 1000
        : Number.NaN;
    if (wait.rule && !(paced > wait.waitMs))
      return ` · about ${formatDuration(wait.waitMs)} left (the ${wait.rule} limit of the keys)`;
    return Number.isFinite(paced) ? ` · about ${formatDuration(paced)} left` : '';
  }

  async onEnd(result: FullResult): Promise<void> {
    const settings = this.settings;
    addSecret(settings.keys.main);
    addSecret(settings.keys.alt);
    for (const value of Object.values(settings.headers)) addSecret(value);
    const draft = await this.collect(settings, result);
    if (settings.driven && settings.runTmp) {
      // `cloudcheck run` finalises: it adds the leaks it recovers after the workers (run.ts).
      writeDraft(draft, settings.runTmp);
      return;
    }
    const dir = settings.reportDir ?? join(process.cwd(), 'reports', draft.run.id);
    const baseline = readBaseline(settings.baselineFile, true);
    const { report, outcome } = finaliseReport(draft, dir, {
      gate: { strict: settings.strict, baseline, baselineSource: settings.baselineFile },
      interrupted: result.status === 'interrupted',
    });
    for (const f of outcome.failed) process.stderr.write(`cloudcheck: could not write ${f.file}: ${f.error}\n`);
    process.stdout.write(`\ncloudcheck: ${report.summary.headline}\ncloudcheck: report in ${dir}\n`);
  }

  /** Every check of the run, with coverage, run-wide checks, journals and notes: the report but its summary. */
  private async collect(settings: RunSettings, result: FullResult): Promise<DraftReport> {
    const checks: CheckResult[] = [];
    const forCoverage: CoverageInput[] = [];
    const timed: Array<{ chain: string; stats: RequestStats }> = [];
    for (const project of this.rootSuite?.suites ?? []) {
      for (const test of project.allTests()) {
        const last = test.results.at(-1);
        const check = checkFromTest(test, last, project.title, settings.harAll);
        if (isReported(test, check)) checks.push(check);
        forCoverage.push({ operation: check.operation, status: check.status, seen: seenBy(test, last) });
        const stats = requestStatsOf(test, last);
        if (stats) timed.push({ chain: annotationsOf(test, last).get(ANNOTATION.flow) ?? check.id, stats });
      }
    }
    const requests = runRequests(timed);
    const target = settings.target || 'unknown';
    const inventory = await loadInventory(new URL('../../spec/endpoint-inventory.ts', import.meta.url));
    const operations = computeCoverage(forCoverage, inventory, target);
    // Driven, the run claims the classes it selected; run directly, the projects Playwright ran.
    const classes = settings.driven
      ? settings.classes
      : (this.config?.projects.map((p) => p.name).filter(isConformanceClass) ?? settings.classes);
    this.addRunWideChecks(checks, classes, settings);
    const { leaks, kept } = readJournals(settings.runTmp);
    const notCheckable = notCheckableIn(classes);
    return {
      schema_version: 1,
      run: {
        id: settings.runId,
        target,
        s3_url: settings.s3Url,
        started_at: settings.startedAt ?? new Date(Date.now() - result.duration).toISOString(),
        finished_at: new Date().toISOString(),
        seed: settings.seed,
        classes,
        strict: settings.strict,
        shard: this.config?.shard ? { index: this.config.shard.current, total: this.config.shard.total } : null,
        selection: { classes, grep: settings.selection.grep, grep_invert: settings.selection.grepInvert },
        embedded: settings.embedded,
        cloudcheck_version: packageVersion(),
        ...(this.stoppedAfter ? { stopped_after_failures: this.stoppedAfter } : {}),
      },
      checks,
      coverage: { operations },
      leaks,
      ...(kept.length ? { kept } : {}),
      ...(notCheckable.length ? { not_checkable: notCheckable } : {}),
      waits: waitsByClass(checks),
      concurrency: {
        workers: settings.workers,
        round_trip_ms: settings.roundTripMs === null ? null : Math.round(settings.roundTripMs * 10) / 10,
        requests: requests.requests,
        in_flight_average: Math.round(requests.inFlightAverage * 100) / 100,
        span_seconds: Math.round(requests.spanSeconds * 10) / 10,
        critical_path: requests.criticalPath
          ? { round_trips: requests.criticalPath.roundTrips, chain: requests.criticalPath.chain }
          : null,
      },
      ...(this.thirdParty.size ? { third_party_output: [...this.thirdParty.values()] } : {}),
    };
  }

  /**
   * Run-wide rate-limit header invariants over every messaging/compute response of every worker
   * (observation files in the run's temp dir; see rate-invariants.ts). Only when the class is
   * claimed and some of its checks are in this run (--grep and --shard can leave none).
   */
  private addRunWideChecks(checks: CheckResult[], classes: readonly string[], settings: RunSettings): void {
    if (!classes.includes('rate-limits') || !checks.some((c) => c.class === 'rate-limits')) return;
    const runWide = rateInvariantChecks(readObservations(settings.runTmp ?? undefined), {
      target: settings.target,
      mainKey: settings.keys.main,
      altKey: settings.keys.alt,
    });
    checks.push(...runWide);
    if (!this.progress) return;
    // The class line again, with the run-wide checks counted in: its last line is the class's total.
    const c = classCounts(checks).get('rate-limits')!;
    const violated = runWide.filter((x) => x.status === 'failed').length;
    process.stderr.write(
      `  ${c.failed ? '✗' : '✓'} ${'rate-limits'.padEnd(16)} ${String(c.passed).padStart(4)} passed ${String(c.failed).padStart(4)} failed ${String(c.skipped).padStart(4)} skipped   (with ${runWide.length} run-wide header invariants: ${runWide.length - violated} held, ${violated} violated)\n`,
    );
  }
}

function writeDraft(draft: DraftReport, runTmp: string): void {
  const file = draftFile(runTmp);
  writeFileSync(`${file}.partial`, JSON.stringify(draft));
  renameSync(`${file}.partial`, file);
}

/** The run's --baseline; an unreadable one is ignored, and said once (at the end). */
function readBaseline(file: string | null, say = false): Set<string> | null {
  if (!file) return null;
  try {
    return parseBaseline(readFileSync(file, 'utf8'), file);
  } catch (error) {
    if (say) process.stderr.write(`cloudcheck: baseline ignored: ${(error as Error).message}\n`);
    return null;
  }
}

/** The catalogue's not-checkable requirements of the run's classes (report.json `not_checkable`). */
function notCheckableIn(classes: readonly string[]): NonNullable<ConformanceReport['not_checkable']> {
  return loadRequirements()
    .filter((r) => r.not_checkable && classes.includes(r.class))
    .map((r) => ({
      requirement: r.id,
      level: r.level,
      class: r.class,
      reason: r.not_checkable!.reason,
      checked_by: r.not_checkable!.checked_by ?? null,
    }));
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}
