/**
 * The `load` section of a load run written into report.json (src/model/load.ts), creating a
 * minimal report when there is none, and every other report file beside it, through the one end of
 * every report (src/report/finalise.ts): redacted, each file written once.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckResult } from '../src/model/finding.ts';
import type { LoadReport } from '../src/model/load.ts';
import type { ConformanceReport } from '../src/model/report.ts';
import { finaliseReport } from '../src/report/finalise.ts';
import { mergeLoadReports } from './merge.ts';

/**
 * Fills what a schema_version 1 report must hold and a load-only (or hand-made) report.json may
 * lack, so that every writer can read it; fields already there are kept as they are.
 */
function completeReport(report: Record<string, unknown>, load: LoadReport): void {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  report.schema_version ??= 1;
  report.run ??= {
    id: `load-${load.started_at}`,
    target: load.target,
    started_at: load.started_at,
    finished_at: load.finished_at,
    seed: 0,
    classes: [],
  };
  const summary = (report.summary ??= {}) as Record<string, unknown>;
  summary.verdict ??= load.passed ? 'conformant' : 'non-conformant';
  summary.headline ??= load.passed ? 'load profiles passed' : 'load profiles failed';
  for (const key of ['passed', 'failed', 'skipped'] as const) summary[key] ??= 0;
  summary.must ??= { ...counts };
  summary.should ??= { ...counts };
  report.checks ??= [];
  report.coverage ??= { operations: [] };
  report.leaks ??= [];
}

/** report.json of `reportDir` as an object, or undefined when there is none (or it is not a JSON object). */
async function existingReport(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the load section into `reportDir`'s report.json (the profiles of an earlier load run of
 * the same names are replaced, never counted twice) and the other report files beside it.
 * Returns report.json's path; `warn` hears of a file that could not be written.
 */
export async function writeLoadReport(
  reportDir: string,
  load: LoadReport,
  warn: (line: string) => void = () => undefined,
): Promise<string> {
  const file = join(reportDir, 'report.json');
  const report = (await existingReport(file)) ?? {};
  completeReport(report, load);
  const prev = report.load as LoadReport | undefined;
  const kept = prev?.profiles.filter((p) => !load.profiles.some((q) => q.profile === p.profile)) ?? [];
  report.load = kept.length > 0 ? mergeLoadReports([{ ...load, profiles: [...kept, ...load.profiles] }]) : load;
  // The writers read typed checks: a hand-made entry lacking fields is shown with placeholders.
  const checks = (report.checks as Array<Partial<CheckResult>>).map((c, i) => ({
    ...c,
    id: c.id ?? `check-${i + 1}`,
    requirement: c.requirement ?? 'UNKNOWN',
    level: c.level ?? 'MUST',
    class: c.class ?? 'errors',
    operation: c.operation ?? null,
    title: c.title ?? c.id ?? 'untitled',
    status: c.status ?? 'skipped',
  }));
  const { outcome } = finaliseReport({ ...(report as unknown as ConformanceReport), checks }, reportDir);
  for (const failure of outcome.failed) warn(`could not write ${failure.file}: ${failure.error}`);
  if (!outcome.written.includes(file))
    throw new Error(outcome.failed.find((f) => f.file === 'report.json')?.error ?? 'report.json was not written');
  return file;
}
