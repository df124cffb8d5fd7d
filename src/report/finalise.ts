/**
 * The one end of every report: `cloudcheck run` (after its workers, with the leaks it recovered),
 * a bare `npx playwright test` (in the reporter), `cloudcheck load` and `report merge` hand a
 * draft here. Summary and gate are computed (or the merged ones kept), the causes grouped
 * (clusters.ts), the report is redacted once, and every writer runs once.
 */
import { join } from 'node:path';
import type { ConformanceReport, Leak } from '../model/report.ts';
import { redact } from '../harness/redact.ts';
import { clusterChecks, withClusters } from './clusters.ts';
import { type GateOptions, markStopped, summarize } from './gate.ts';
import { WRITERS, type ReportWriter, type WriteOutcome, writeReportFiles } from './writers.ts';

/** What the reporter collects: a report whose summary is not computed yet. */
export type DraftReport = Omit<ConformanceReport, 'summary'> & { summary?: ConformanceReport['summary'] };

/**
 * Where a driven run's draft waits for `cloudcheck run` to finalise it. Here, not in the
 * reporter: the CLI must not load the reporter's module (it pulls in @playwright/test).
 */
export function draftFile(runTmp: string): string {
  return join(runTmp, 'draft-report.json');
}

export interface FinaliseOptions {
  /** A run's gate (--strict, --baseline): summary and gate are computed from the checks. Without it, the draft's own summary stands (a merge, a load run). */
  gate?: GateOptions;
  /** Leaks recovered after the workers ended: they replace what the workers' journals said. */
  leaks?: Leak[];
  /** The run was interrupted (SIGINT/SIGTERM): the headline says so, and the gate does not pass. */
  interrupted?: boolean;
  writers?: ReportWriter[];
}

export function finaliseReport(
  draft: DraftReport,
  dir: string,
  options: FinaliseOptions = {},
): { report: ConformanceReport; outcome: WriteOutcome } {
  const stopped = draft.run.stopped_after_failures;
  // A run --max-failures stopped failed its gate on its own failures: that, not the stop, is its headline.
  const interrupted = options.interrupted === true && !stopped;
  const run = {
    ...draft.run,
    ...(interrupted ? { interrupted: true } : {}),
    ...(options.gate?.allowInconclusive ? { allow_inconclusive: true } : {}),
    ...(options.gate?.claimedClasses ? { classes_named: true } : {}),
  };
  const summary = options.gate ? summarize(draft.checks, { ...options.gate, interrupted }) : draft.summary;
  if (!summary) throw new Error('finaliseReport: a draft without a summary needs the gate options to compute one');
  if (stopped) markStopped(summary, stopped);
  else if (interrupted && !options.gate && !/^interrupted/.test(summary.headline ?? ''))
    summary.headline = `interrupted: ${summary.headline ?? summary.verdict}`;
  const redacted = redact({ ...draft, run, summary, ...(options.leaks ? { leaks: options.leaks } : {}) });
  // The causes of a merged or re-run report are its checks' now, never an earlier computation's.
  // Grouped after the redaction: their terms come from redacted data, and `signature` (a name the
  // redaction treats as a secret's) is cloudcheck's own.
  const clusters = clusterChecks(redacted.checks);
  const report = { ...redacted, checks: withClusters(redacted.checks, clusters), clusters };
  return { report, outcome: writeReportFiles(report, dir, options.writers ?? WRITERS) };
}
