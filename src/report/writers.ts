/**
 * The report writers and how they are run. A writer is a leaf: a pure `(report) => string` with
 * its file name, fed the finished, redacted report by finaliseReport (finalise.ts), the one
 * caller. Each writer runs in isolation: one that throws is reported and the others still write
 * (as Playwright's reporter multiplexer does).
 */
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ConformanceReport } from '../model/report.ts';
import { writeJson } from './json.ts';
import { writeJunit } from './junit.ts';
import { writeMarkdown } from './markdown.ts';
import { htmlWriter } from './html/index.ts';
import { writeHar } from './har.ts';

export interface ReportWriter {
  file: string;
  write(report: ConformanceReport): string;
}

export const WRITERS: ReportWriter[] = [
  { file: 'report.json', write: writeJson },
  { file: 'junit.xml', write: writeJunit },
  { file: 'summary.md', write: writeMarkdown },
  htmlWriter,
  { file: 'exchanges.har', write: writeHar },
];

export interface WriteOutcome {
  written: string[];
  failed: Array<{ file: string; error: string }>;
  latest: string | null;
}

/**
 * Writes every writer's file into `dir`, then mirrors the directory to `<parent>/latest` when the
 * directory sits in a `reports` folder (the default layout `reports/<run-id>/`).
 */
export function writeReportFiles(
  report: ConformanceReport,
  dir: string,
  writers: ReportWriter[] = WRITERS,
): WriteOutcome {
  mkdirSync(dir, { recursive: true });
  const outcome: WriteOutcome = { written: [], failed: [], latest: null };
  for (const writer of writers) {
    try {
      // Written aside, then renamed: a reader (or a CI step) never sees half a file.
      const file = join(dir, writer.file);
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, writer.write(report));
      renameSync(partial, file);
      outcome.written.push(join(dir, writer.file));
    } catch (error) {
      outcome.failed.push({ file: writer.file, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const parent = dirname(dir);
  if (basename(parent) === 'reports' && basename(dir) !== 'latest') {
    const latest = join(parent, 'latest');
    try {
      rmSync(latest, { recursive: true, force: true });
      cpSync(dir, latest, { recursive: true });
      outcome.latest = latest;
    } catch (error) {
      outcome.failed.push({ file: 'latest/', error: error instanceof Error ? error.message : String(error) });
    }
  }
  return outcome;
}
