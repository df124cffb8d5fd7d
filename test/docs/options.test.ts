/**
 * The option documentation holds to the code: docs/options.md has one row per option of
 * src/config/options.ts with its variable, config key and commands; every CLOUDCHECK_* variable the
 * code reads that a person may set is documented there; and every command line the README and
 * the guides show uses commands and flags the CLI has (read from its own --help).
 */
import { expect, test } from '../base.ts';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OPTIONS, configKey, envName } from '../../src/config/options.ts';
import { ROOT, markdownFiles, read, rel, splitMarkdown } from './markdown.ts';

const OPTIONS_PAGE = join(ROOT, 'docs', 'options.md');
const OPTION_TABLE_HEADER = '| flag | variable | config key | commands | meaning |';

/**
 * Variables cloudcheck sets for its own processes (the run contract of src/harness/settings.ts
 * beyond the options), and hidden switches of the project's own tests. A variable a person may
 * set belongs in docs/options.md instead.
 */
const INTERNAL_VARIABLES = new Set([
  'CLOUDCHECK_RUN_ID',
  'CLOUDCHECK_EMBEDDED',
  'CLOUDCHECK_RUN_TMP',
  'CLOUDCHECK_BUDGET_KEYS',
  'CLOUDCHECK_DRIVEN',
  'CLOUDCHECK_PROGRESS',
  'CLOUDCHECK_STARTED_AT',
  'CLOUDCHECK_ONLY_IDS',
  'CLOUDCHECK_TARGET_FILE',
  'CLOUDCHECK_SUITE_INDEX_OUT',
  'CLOUDCHECK_ROUND_TRIP_MS',
  'CLOUDCHECK_SELECTED_WORK',
  'CLOUDCHECK_SELFTEST',
]);

/** Where the code that reads variables lives (the project's tests and benchmarks set them, not read them). */
const SOURCE_ROOTS = ['src', 'load', 'reference', 'bin', 'suites', 'spec', 'playwright.config.ts'];

interface Row {
  cells: string[];
  line: number;
}

/** The rows of docs/options.md's option tables (those with the flag/variable/config key/commands header). */
function optionRows(): Row[] {
  const rows: Row[] = [];
  let inTable = false;
  read(OPTIONS_PAGE)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === OPTION_TABLE_HEADER) inTable = true;
      else if (!line.startsWith('|')) inTable = false;
      else if (inTable && !/^\|[-| ]+\|$/.test(line)) {
        // Cells split at pipes that are not escaped (`DIR\|FILE`).
        const cells = line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((c) => c.trim());
        rows.push({ cells, line: i + 1 });
      }
    });
  return rows;
}

const flagsOf = (cell: string): string[] => [...cell.matchAll(/--([a-z0-9-]+)/g)].map((m) => m[1]!);

test('docs/options.md has one row per option, with its variable, config key and commands', () => {
  const rows = optionRows();
  expect(rows.length).toBeGreaterThan(0);
  const problems: string[] = [];
  for (const option of OPTIONS) {
    const found = rows.filter((r) => flagsOf(r.cells[0]!).includes(option.name));
    if (found.length !== 1) {
      problems.push(`--${option.name}: ${found.length} rows in docs/options.md (expected 1)`);
      continue;
    }
    const [flag, variable, key, commands] = found[0]!.cells;
    const at = `--${option.name} (docs/options.md:${found[0]!.line})`;
    if (option.short && !flag!.includes(`-${option.short}`)) problems.push(`${at}: -${option.short} not named`);
    if (!option.noConfig) {
      if (!variable!.includes(`\`${envName(option)}\``)) problems.push(`${at}: variable ${envName(option)} not named`);
      if (!key!.includes(`\`${configKey(option)}\``)) problems.push(`${at}: config key ${configKey(option)} not named`);
    }
    const listed = commands!
      .split(',')
      .map((c) => c.trim())
      .sort();
    if (listed.join(',') !== [...option.commands].sort().join(','))
      problems.push(`${at}: commands "${listed.join(', ')}", the option table says "${option.commands.join(', ')}"`);
  }
  for (const row of rows)
    for (const name of flagsOf(row.cells[0]!))
      if (!OPTIONS.some((o) => o.name === name)) problems.push(`docs/options.md:${row.line}: --${name} is no option`);
  expect(problems).toEqual([]);
});

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mts|cts|js|mjs|cjs)$/.test(f) && !f.includes('node_modules'))
    .map((f) => join(full, f));
}

test('every CLOUDCHECK_* variable the code reads is documented in docs/options.md or internal', () => {
  const page = read(OPTIONS_PAGE);
  const named = new Set<string>();
  for (const file of SOURCE_ROOTS.flatMap(sourceFiles))
    for (const m of readFileSync(file, 'utf8').matchAll(/\bCLOUDCHECK_[A-Z0-9_]*[A-Z0-9]\b/g)) named.add(m[0]);
  expect(named.size).toBeGreaterThan(10);
  const undocumented = [...named].filter((v) => !INTERNAL_VARIABLES.has(v) && !page.includes(`\`${v}`)).sort();
  expect(undocumented).toEqual([]);
});

const COMMANDS = ['run', 'serve', 'load', 'sweep', 'explore', 'report merge', 'report diff'] as const;

/** Each command's flags as its --help lists them (the CLI is the judge, not the option table). */
async function flagsFromHelp(): Promise<Map<string, Set<string>>> {
  const run = promisify(execFile);
  const helps = await Promise.all(
    COMMANDS.map((command) =>
      run(process.execPath, [join(ROOT, 'bin', 'cloudcheck.mjs'), ...command.split(' '), '--help'], { cwd: ROOT }),
    ),
  );
  return new Map(
    COMMANDS.map((command, i) => [
      command,
      new Set([...helps[i]!.stdout.matchAll(/(?<![\w-])(--?[a-zA-Z][a-z0-9-]*)/g)].map((m) => m[1]!)),
    ]),
  );
}

interface CommandLine {
  where: string;
  command: string;
  flags: string[];
}

/** The cloudcheck command lines of the pages' code blocks: `cloudcheck <command> ...`, and the Action's `args:`. */
function commandLines(): CommandLine[] {
  const lines: CommandLine[] = [];
  for (const file of markdownFiles()) {
    for (const block of splitMarkdown(read(file)).blocks) {
      block.lines.forEach((text, i) => {
        const where = `${rel(file)}:${block.line + 1 + i}`;
        const code = text.replace(/(^|\s)#.*$/, '');
        const args = /^\s*args:\s*(.*)$/.exec(code);
        if (args && block.lang === 'yaml') {
          lines.push({ where, command: 'run', flags: flagTokens(args[1]!) });
          return;
        }
        for (const m of code.matchAll(/\bcloudcheck\s+(report\s+\w+|[a-z]+)([^|;&]*)/g))
          lines.push({ where, command: m[1]!.replace(/\s+/, ' '), flags: flagTokens(m[2]!) });
      });
    }
  }
  return lines;
}

function flagTokens(text: string): string[] {
  return text
    .split(/\s+/)
    .filter((t) => /^--?[a-zA-Z]/.test(t))
    .map((t) => t.replace(/=.*$/, ''));
}

test("every command line of the README and the guides uses the CLI's commands and flags", async () => {
  const help = await flagsFromHelp();
  const lines = commandLines();
  expect(lines.length).toBeGreaterThan(20);
  const problems: string[] = [];
  for (const { where, command, flags } of lines) {
    const known = help.get(command);
    if (!known) {
      problems.push(`${where}: cloudcheck ${command} is no command`);
      continue;
    }
    for (const flag of flags) if (!known.has(flag)) problems.push(`${where}: cloudcheck ${command} has no ${flag}`);
  }
  expect(problems).toEqual([]);
});

test("the README's option table names options of cloudcheck run", () => {
  const readme = read(join(ROOT, 'README.md'));
  const section = readme.slice(
    readme.indexOf('\n## Options'),
    readme.indexOf('\n## ', readme.indexOf('\n## Options') + 1),
  );
  const named = section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => flagsOf(l.split('|')[1]!));
  expect(named.length).toBeGreaterThan(10);
  const runOptions = new Set(OPTIONS.filter((o) => o.commands.includes('run')).map((o) => o.name));
  expect(named.filter((n) => !runOptions.has(n))).toEqual([]);
});

test('every npm script the pages name exists in package.json', () => {
  const scripts = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
  );
  const missing: string[] = [];
  for (const file of markdownFiles())
    for (const m of read(file).matchAll(/\bnpm (?:run ([\w:-]+)|(start|test)\b)/g)) {
      const script = m[1] ?? m[2]!;
      if (!scripts.includes(script)) missing.push(`${rel(file)}: npm ${m[1] ? 'run ' : ''}${script}`);
    }
  expect(missing).toEqual([]);
});
