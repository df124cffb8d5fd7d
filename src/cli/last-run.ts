/**
 * `run --last-failed` reads the report of the last `cloudcheck run` of a directory. `reports/latest`
 * mirrors whichever command wrote last (`explore`, `load` and a merge write there too), so it is
 * read only when it holds a run's report; otherwise the newest run report under `reports/` is.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UsageError } from '../config/resolve.ts';
import type { ConformanceReport } from '../model/report.ts';

/** A report `cloudcheck run` wrote (not explore's, a load run's or a merge's). */
export function isRunReport(report: ConformanceReport): boolean {
  return (
    Array.isArray(report.checks) && report.run.selection !== undefined && !/^(explore|load|merged)-/.test(report.run.id)
  );
}

function readReport(file: string): ConformanceReport | null {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
    return report && typeof report === 'object' && report.run ? report : null;
  } catch {
    return null;
  }
}

/** The last run's report under `<cwd>/reports` and where it was read; a usage error when there is none. */
export function lastRunReport(cwd: string): { file: string; report: ConformanceReport } {
  const reports = join(cwd, 'reports');
  const latestFile = join(reports, 'latest', 'report.json');
  if (!existsSync(latestFile))
    throw new UsageError(`--last-failed: no earlier run here (${relative(cwd, latestFile)} does not exist)`);
  const latest = readReport(latestFile);
  if (latest && isRunReport(latest)) return { file: latestFile, report: latest };
  const runs = readdirSync(reports, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'latest')
    .map((entry) => {
      const file = join(reports, entry.name, 'report.json');
      return { file, report: existsSync(file) ? readReport(file) : null };
    })
    .filter((r): r is { file: string; report: ConformanceReport } => r.report !== null && isRunReport(r.report))
    .sort((a, b) => b.report.run.finished_at.localeCompare(a.report.run.finished_at));
  if (runs[0]) return runs[0];
  throw new UsageError(
    latest
      ? `--last-failed: ${relative(cwd, latestFile)} is not a run's report (${latest.run.id}), and no run's report is under ${relative(cwd, reports)}/`
      : `--last-failed: ${relative(cwd, latestFile)} is not a report`,
  );
}
