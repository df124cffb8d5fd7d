/**
 * `cloudcheck report merge DIR... [--out DIR]` and `cloudcheck report diff A B [--json]`.
 * The CLI calls `runReportCommand(argv)` with the arguments after `report`.
 *
 * Exit codes: merge: 0 when the merged gate passes, 1 when it fails (a defect, or an incomplete
 * merge: a shard missing or given twice, another target or version, unless --allow-partial);
 * diff: 0 whatever changed; both: 2 usage error or an unreadable input: missing file, bad JSON,
 * wrong schema_version (the message names the file).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { diffReports, formatDiff } from '../../report/diff.ts';
import { htmlWriter } from '../../report/html/index.ts';
import { mergeReportsWithNotes } from '../../report/merge.ts';
import { mergeLoadReports } from '../../../load/merge.ts';
import { WRITERS, type ReportWriter } from '../../report/writers.ts';
import { finaliseReport } from '../../report/finalise.ts';
import type { ConformanceReport } from '../../model/report.ts';
import { formatHelp } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';

export interface ReportCommandIO {
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** Directory relative paths resolve against (default process.cwd()). */
  cwd?: string;
}

const MERGE_HELP: HelpSpec = {
  synopsis: 'cloudcheck report merge DIR|FILE... [--out DIR] [--allow-partial]',
  summary:
    'Joins the report.json of --shard runs into one report (report.json, report.html, junit.xml, summary.md) and gates on it.',
  examples: [
    [
      'cloudcheck report merge shard-1 shard-2 shard-3 --out reports/merged',
      'the report of a run split in three shards',
    ],
  ],
  exitCodes: [
    ['0', 'the merged gate passed'],
    [
      '1',
      'the merged gate failed, also when a shard is missing or given twice, or the reports are of another target or version',
    ],
    [
      '2',
      'usage error or an unreadable report (missing file, bad JSON, wrong schema_version); an inconclusive merged verdict (MUST checks not judged, no failure)',
    ],
  ],
};

const DIFF_HELP: HelpSpec = {
  synopsis: 'cloudcheck report diff A B [--json]',
  summary:
    'Shows what changed from report A to report B (report.json files or report directories): new and fixed failures, checks added and removed.',
  examples: [
    ['cloudcheck report diff reports/<old-run> reports/<new-run>', 'what the new run fixed and broke'],
    ['cloudcheck report diff old/report.json new/report.json --json', 'the same as JSON, for scripts'],
  ],
  exitCodes: [
    ['0', 'compared (whatever changed)'],
    ['2', 'usage error or an unreadable report'],
  ],
};

const REPORT_HELP: HelpSpec = {
  synopsis: 'cloudcheck report merge|diff ...',
  summary:
    'Works on reports of earlier runs: merge joins shard reports, diff compares two runs (cloudcheck report merge --help, cloudcheck report diff --help).',
  examples: [...MERGE_HELP.examples, ...DIFF_HELP.examples],
  exitCodes: [
    ['0', 'merge: the merged gate passed; diff: compared'],
    ['1', 'merge: the merged gate failed'],
    ['2', 'usage error or an unreadable report'],
  ],
};

export const REPORT_USAGE = formatHelp(REPORT_HELP, [
  'subcommands:',
  '  merge DIR|FILE... [--out DIR] [--allow-partial]   join the report.json of --shard runs',
  '  diff A B [--json]                                 what changed from A to B',
]);

const MERGE_USAGE = formatHelp(MERGE_HELP, [
  'options:',
  `  ${'-o, --out DIR'.padEnd(30)} where to write the merged report (default: reports/<run-id>/)`,
  `  ${'--allow-partial'.padEnd(30)} judge what is there when shards are missing or doubled, and say so in the verdict`,
  `  ${'-h, --help'.padEnd(30)} this text`,
]);

const DIFF_USAGE = formatHelp(DIFF_HELP, [
  'options:',
  `  ${'--json'.padEnd(30)} print the difference as JSON`,
  `  ${'-h, --help'.padEnd(30)} this text`,
]);

/** An input problem the user can fix; becomes exit code 2 with this message. */
export class ReportInputError extends Error {
  override name = 'ReportInputError';
}

/** Reads and checks one report: DIR means DIR/report.json. */
export function readReport(path: string, cwd = process.cwd()): ConformanceReport {
  let file = resolve(cwd, path);
  try {
    if (statSync(file).isDirectory()) file = join(file, 'report.json');
  } catch {
    throw new ReportInputError(`${path}: no such file or directory`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReportInputError(
      code === 'ENOENT' ? `${file}: no report.json there` : `${file}: cannot read (${(error as Error).message})`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ReportInputError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new ReportInputError(`${file}: not a cloudcheck report (expected a JSON object)`);
  const r = data as Partial<ConformanceReport> & { schema_version?: unknown };
  if (r.schema_version !== 1) {
    throw new ReportInputError(
      `${file}: schema_version is ${JSON.stringify(r.schema_version ?? null)}; this cloudcheck reads schema_version 1`,
    );
  }
  const missing = (['run', 'summary', 'checks', 'coverage', 'leaks'] as const).filter(
    (k) => r[k] === undefined || r[k] === null,
  );
  if (missing.length)
    throw new ReportInputError(`${file}: not a cloudcheck report (missing ${missing.map((k) => `"${k}"`).join(', ')})`);
  if (!Array.isArray(r.checks)) throw new ReportInputError(`${file}: not a cloudcheck report ("checks" is not a list)`);
  if (!Array.isArray(r.leaks)) throw new ReportInputError(`${file}: not a cloudcheck report ("leaks" is not a list)`);
  if (!Array.isArray(r.coverage?.operations))
    throw new ReportInputError(`${file}: not a cloudcheck report ("coverage.operations" is not a list)`);
  return data as ConformanceReport;
}

/** The writers a merge runs: the harness's (json, junit, markdown) plus the HTML page. */
export function mergeWriters(): ReportWriter[] {
  return [...WRITERS.filter((w) => w.file !== htmlWriter.file), htmlWriter];
}

function parseMergeArgs(args: string[]): { inputs: string[]; out: string | null; allowPartial: boolean } {
  const inputs: string[] = [];
  let out: string | null = null;
  let allowPartial = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--out' || a === '-o') {
      const v = args[++i];
      if (!v) throw new ReportInputError(`report merge: ${a} needs a directory`);
      out = v;
    } else if (a.startsWith('--out=')) out = a.slice('--out='.length);
    else if (a === '--allow-partial') allowPartial = true;
    else if (a.startsWith('-')) throw new ReportInputError(`report merge: unknown option ${a}`);
    else inputs.push(a);
  }
  if (inputs.length === 0)
    throw new ReportInputError('report merge: name at least one report directory or report.json');
  return { inputs, out, allowPartial };
}

export async function runReportCommand(argv: string[], io: ReportCommandIO = {}): Promise<number> {
  const out = io.out ?? ((t: string) => void process.stdout.write(t));
  const err = io.err ?? ((t: string) => void process.stderr.write(t));
  const cwd = io.cwd ?? process.cwd();
  const [sub, ...rest] = argv;
  try {
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
      (sub === undefined ? err : out)(REPORT_USAGE);
      return sub === undefined ? 2 : 0;
    }
    if (sub === 'merge') {
      if (rest.includes('--help') || rest.includes('-h')) {
        out(MERGE_USAGE);
        return 0;
      }
      const { inputs, out: outDir, allowPartial } = parseMergeArgs(rest);
      const reports = inputs.map((p) => readReport(p, cwd));
      const { report, notes, problems } = mergeReportsWithNotes(reports, {
        allowPartial,
        mergeLoad: mergeLoadReports,
      });
      const dir = resolve(cwd, outDir ?? join('reports', report.run.id));
      const { outcome } = finaliseReport(report, dir, { writers: mergeWriters() });
      for (const n of notes) err(`note: ${n}\n`);
      for (const f of outcome.failed) err(`report merge: could not write ${f.file}: ${f.error}\n`);
      const s = report.summary;
      out(`merged ${reports.length} report${reports.length === 1 ? '' : 's'}: ${s.headline ?? s.verdict}\n`);
      out(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped\n`);
      out(`gate: ${s.gate?.passed ? 'passed' : 'FAILED'} (${s.gate?.reason ?? ''})\n`);
      out(`report: ${join(dir, 'report.html')}\n`);
      if (!outcome.written.some((w) => w.endsWith('report.json'))) return 2;
      if (s.gate?.passed) return 0;
      // As `cloudcheck run` exits: a whole merge with unjudged MUST checks and no failure is 2.
      const inconclusive = s.verdict === 'inconclusive' && !s.gate?.new_failures?.length && problems.length === 0;
      return inconclusive ? 2 : 1;
    }
    if (sub === 'diff') {
      if (rest.includes('--help') || rest.includes('-h')) {
        out(DIFF_USAGE);
        return 0;
      }
      const json = rest.includes('--json');
      const unknown = rest.filter((a) => a.startsWith('-') && a !== '--json');
      if (unknown.length) throw new ReportInputError(`report diff: unknown option ${unknown[0]}`);
      const paths = rest.filter((a) => !a.startsWith('-'));
      if (paths.length !== 2)
        throw new ReportInputError(`report diff: expected two reports (A B), got ${paths.length}`);
      const diff = diffReports(readReport(paths[0]!, cwd), readReport(paths[1]!, cwd));
      out(json ? `${JSON.stringify(diff, null, 2)}\n` : formatDiff(diff));
      return 0;
    }
    throw new ReportInputError(`expected "merge" or "diff", got "${sub}" (see cloudcheck report --help)`);
  } catch (error) {
    if (error instanceof ReportInputError) {
      // One error style, `cloudcheck <command>: ...`: messages of a subcommand name it already.
      const sub = /^report (merge|diff): (.*)$/s.exec(error.message);
      err(sub ? `cloudcheck report ${sub[1]}: ${sub[2]}` : `cloudcheck report: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
