/** report.json writer: the report as pretty JSON (redacted already: finalise.ts). Pure. */
import type { ConformanceReport } from '../model/report.ts';

export function writeJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
