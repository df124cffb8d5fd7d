/**
 * The gate: does this report pass? Pure functions, no I/O (the CLI reads the baseline file).
 *
 * - A failed MUST check classified `defect` fails the gate.
 * - A failed SHOULD check (`spec-gap`, a deviation) fails it only with `strict`.
 * - `environment` failures never fail it (not the target's fault), nor do `cloudcheck-error`s (the
 *   suite's own failures: the run exits 2 for them, see `cloudcheckErrors`).
 * - With a baseline (requirement ids and/or check ids known to fail), only failures not in it count.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { CheckResult, Classification } from '../model/finding.ts';
import type { ConformanceReport, LevelCounts } from '../model/report.ts';
import { type VerdictOptions, gateWithUnjudged, inconclusiveHeadline, unjudgedOf, verdictOf } from './verdict.ts';

export interface GateOptions extends VerdictOptions {
  strict?: boolean;
  /** Ids (requirement or check) whose failures are already known and accepted. */
  baseline?: Set<string> | null;
  /** Where the baseline came from, for the report. */
  baselineSource?: string | null;
}

export interface GateDecision {
  passed: boolean;
  reason: string;
  /** Gate-relevant failures (check ids) not covered by the baseline. */
  new_failures: string[];
  /** Gate-relevant failures the baseline excused. */
  known_failures: string[];
  baseline: string | null;
}

/** The classification a failed check gets when its writer did not set one. */
export function classificationOf(check: CheckResult): Classification {
  if (check.classification) return check.classification;
  return check.level === 'MUST' ? 'defect' : 'spec-gap';
}

export function isGateRelevant(check: CheckResult, strict: boolean): boolean {
  if (check.status !== 'failed') return false;
  const c = classificationOf(check);
  if (c === 'environment' || c === 'cloudcheck-error') return false;
  if (check.level === 'MUST') return c === 'defect' || strict;
  return strict;
}

/** Failed checks that failed in cloudcheck's own code: their requirements went unchecked. */
export function cloudcheckErrors(checks: readonly CheckResult[]): CheckResult[] {
  return checks.filter((c) => c.status === 'failed' && classificationOf(c) === 'cloudcheck-error');
}

function inBaseline(check: CheckResult, baseline: Set<string> | null | undefined): boolean {
  return !!baseline && (baseline.has(check.requirement) || baseline.has(check.id));
}

/** Whether a failed check counts against the gate (what --max-failures counts). */
export function countsAgainstGate(check: CheckResult, options: GateOptions = {}): boolean {
  return isGateRelevant(check, options.strict ?? false) && !inBaseline(check, options.baseline);
}

/**
 * A run that --max-failures stopped: what did not run was not checked, so its gate fails and its
 * headline says so (it had N failures that fail the gate anyway).
 */
export function markStopped(summary: ConformanceReport['summary'], failures: number): void {
  const note = `stopped after ${failures} failure${failures === 1 ? '' : 's'} (--max-failures)`;
  summary.headline = `${(summary.headline ?? summary.verdict).replace(/^interrupted: /, '')} (${note})`;
  if (summary.gate)
    summary.gate = { ...summary.gate, passed: false, reason: `${summary.gate.reason}; ${note}: the rest did not run` };
}

export function decideGate(checks: CheckResult[], options: GateOptions = {}): GateDecision {
  const strict = options.strict ?? false;
  const relevant = checks.filter((c) => isGateRelevant(c, strict));
  const fresh = relevant.filter((c) => !inBaseline(c, options.baseline));
  const known = relevant.filter((c) => inBaseline(c, options.baseline));
  const mustFresh = fresh.filter((c) => c.level === 'MUST').length;
  const shouldFresh = fresh.length - mustFresh;
  let reason: string;
  if (fresh.length === 0) {
    reason =
      relevant.length === 0
        ? 'no MUST failures' + (strict ? ' and no SHOULD deviations (strict)' : '')
        : `all ${known.length} failures are in the baseline`;
  } else {
    const parts = [];
    if (mustFresh) parts.push(`${mustFresh} MUST failure${mustFresh === 1 ? '' : 's'}`);
    if (shouldFresh) parts.push(`${shouldFresh} SHOULD deviation${shouldFresh === 1 ? '' : 's'} (strict)`);
    reason = parts.join(' and ') + (options.baseline ? ' not in the baseline' : '');
  }
  return {
    passed: fresh.length === 0,
    reason,
    new_failures: fresh.map((c) => c.id),
    known_failures: known.map((c) => c.id),
    baseline: options.baselineSource ?? null,
  };
}

function counts(checks: CheckResult[]): LevelCounts {
  return {
    passed: checks.filter((c) => c.status === 'passed').length,
    failed: checks.filter((c) => c.status === 'failed').length,
    skipped: checks.filter((c) => c.status === 'skipped').length,
  };
}

/** The summary block of report.json, including the headline and the gate. */
export function summarize(checks: CheckResult[], options: GateOptions = {}): ConformanceReport['summary'] {
  const all = counts(checks);
  const must = counts(checks.filter((c) => c.level === 'MUST'));
  const should = counts(checks.filter((c) => c.level === 'SHOULD'));
  const failedAs = (c: CheckResult): Classification | null => (c.status === 'failed' ? classificationOf(c) : null);
  const environment = checks.filter((c) => failedAs(c) === 'environment').length;
  const suiteErrors = cloudcheckErrors(checks).length;
  const mustDefects = checks.filter(
    (c) => c.level === 'MUST' && (failedAs(c) === 'defect' || failedAs(c) === 'spec-gap'),
  ).length;
  const deviations = checks.filter(
    (c) => c.level === 'SHOULD' && (failedAs(c) === 'defect' || failedAs(c) === 'spec-gap'),
  ).length;
  const unjudged = unjudgedOf(checks, options);
  const verdict = verdictOf(mustDefects, unjudged);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  let headline =
    verdict === 'conformant'
      ? 'conformant (MUST)'
      : verdict === 'inconclusive'
        ? inconclusiveHeadline(unjudged!)
        : `non-conformant: ${plural(mustDefects, 'MUST failure')}`;
  headline += `, ${plural(deviations, 'SHOULD deviation')}`;
  if (environment) headline += `, ${plural(environment, 'environment problem')}`;
  if (suiteErrors)
    headline += `; cloudcheck could not check ${plural(new Set(cloudcheckErrors(checks).map((c) => c.requirement)).size, 'requirement')} (${plural(suiteErrors, 'cloudcheck error')})`;
  if (options.interrupted) headline = `interrupted: ${headline}`;
  const gate = decideGate(checks, options);
  const judged = gateWithUnjudged(
    { passed: gate.passed, reason: gate.reason, baseline: gate.baseline, new_failures: gate.new_failures },
    unjudged,
    options,
  );
  return {
    verdict,
    headline,
    passed: all.passed,
    failed: all.failed,
    skipped: all.skipped,
    must,
    should,
    environment,
    ...(suiteErrors ? { cloudcheck_errors: suiteErrors } : {}),
    gate: judged,
    ...(unjudged ? { unjudged } : {}),
  };
}

/** Recomputes summary and gate of an existing report (the CLI does this with --baseline/--strict). */
export function regate(report: ConformanceReport, options: GateOptions): ConformanceReport {
  return { ...report, summary: summarize(report.checks, options) };
}

/**
 * Reads a baseline: a previous report.json (its failed checks: their requirement and check ids),
 * a YAML list of ids, a YAML object with a `requirements`/`failures`/`checks` list, or plain text
 * with one id per line (`#` comments allowed).
 */
export function parseBaseline(text: string, source = 'baseline'): Set<string> {
  const trimmed = text.trim();
  if (trimmed === '') return new Set();
  if (trimmed.startsWith('{')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (error) {
      throw new Error(`${source}: not valid JSON (${(error as Error).message})`, { cause: error });
    }
    const checks = (data as { checks?: unknown }).checks;
    if (Array.isArray(checks)) {
      const ids = new Set<string>();
      for (const c of checks as CheckResult[]) {
        if (c && c.status === 'failed') {
          if (typeof c.requirement === 'string') ids.add(c.requirement);
          if (typeof c.id === 'string') ids.add(c.id);
        }
      }
      return ids;
    }
    return idsFromValue(data, source);
  }
  const lines = trimmed
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
  if (lines.every((l) => /^[A-Za-z0-9][\w.:-]*$/.test(l))) return new Set(lines);
  let data: unknown;
  try {
    // Loaded here, for the one kind of baseline that needs it: every run and reporter imports this module.
    data = (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(trimmed);
  } catch (error) {
    throw new Error(`${source}: neither a report.json, a list of ids nor valid YAML (${(error as Error).message})`, {
      cause: error,
    });
  }
  return idsFromValue(data, source);
}

function idsFromValue(data: unknown, source: string): Set<string> {
  let list: unknown = data;
  if (list && typeof list === 'object' && !Array.isArray(list)) {
    const o = list as Record<string, unknown>;
    list = o.requirements ?? o.failures ?? o.checks ?? o.ids;
  }
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
    throw new Error(`${source}: expected a list of requirement or check ids`);
  }
  return new Set(list);
}
