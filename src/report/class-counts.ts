/**
 * Checks per class, counted one way for every output (console progress, report.json, JUnit,
 * Markdown, HTML): a check counts under its own class (its requirement's, see selection.ts) by
 * its status, whatever the classification of a failure.
 */
import type { CheckResult } from '../model/finding.ts';

export interface StatusCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export function emptyCounts(): StatusCounts {
  return { passed: 0, failed: 0, skipped: 0 };
}

export function classCounts(checks: readonly Pick<CheckResult, 'class' | 'status'>[]): Map<string, StatusCounts> {
  const byClass = new Map<string, StatusCounts>();
  for (const check of checks) {
    const counts = byClass.get(check.class) ?? emptyCounts();
    counts[check.status]++;
    byClass.set(check.class, counts);
  }
  return byClass;
}
