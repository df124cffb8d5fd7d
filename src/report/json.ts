/** report.json writer: the report as pretty JSON, redacted. Pure; no runner imports. */
import { redact } from '../harness/redact.ts';
import type { ConformanceReport } from '../model/report.ts';

export function writeJson(report: ConformanceReport): string {
  return `${JSON.stringify(redact(report), null, 2)}\n`;
}
