// The run step of the composite GitHub Action (action.yml): `cloudcheck run` with the step's inputs,
// then the step's outputs (verdict, exit code, report path) in $GITHUB_OUTPUT, and cloudcheck's exit
// code as the step's. The `args` input is split as a shell splits words (quotes, backslashes), and
// nothing in it runs: `--grep 'GET /vps'` is two arguments, `$(...)` is text.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('./cloudcheck.mjs', import.meta.url));

/** The words of a command line, as a POSIX shell splits them without expanding anything. */
export function shellWords(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (quote) throw new Error(`args: a ${quote === "'" ? 'single' : 'double'} quote is not closed`);
  if (word !== null) words.push(word);
  return words;
}

/** `cloudcheck-report`, or `cloudcheck-report-shard-2-of-3` for a shard: artifact names hold no `/`. */
export function artifactName(base, shard) {
  return shard ? `${base}-shard-${shard.replace('/', '-of-')}` : base;
}

/** The report's verdict ("conformant", "non-conformant"), or "none" when the run wrote no report. */
function verdictOf(reportFile) {
  if (!existsSync(reportFile)) return 'none';
  try {
    return JSON.parse(readFileSync(reportFile, 'utf8')).summary?.verdict ?? 'none';
  } catch {
    return 'none';
  }
}

function setOutput(name, value) {
  const file = process.env.GITHUB_OUTPUT;
  if (file) appendFileSync(file, `${name}=${value}\n`);
}

async function main() {
  const env = process.env;
  const reportDir = resolve(env.INPUT_REPORT_DIR || 'cloudcheck-report');
  const shard = env.INPUT_SHARD || '';
  setOutput('artifact-name', artifactName(env.INPUT_ARTIFACT_NAME || 'cloudcheck-report', shard));
  let args;
  try {
    args = shellWords(env.INPUT_ARGS ?? '');
  } catch (error) {
    process.stderr.write(`cloudcheck action: ${error.message}\n`);
    setOutput('exit-code', '2');
    setOutput('verdict', 'none');
    return 2;
  }
  const argv = [CLI, 'run', '--report-dir', reportDir, ...(shard ? ['--shard', shard] : []), ...args];
  const code = await new Promise((done) => {
    const child = spawn(process.execPath, argv, { stdio: 'inherit' });
    child.on('exit', (exit, signal) => done(exit ?? (signal === 'SIGINT' ? 130 : 143)));
  });
  const report = join(reportDir, 'report.json');
  setOutput('exit-code', String(code));
  setOutput('verdict', verdictOf(report));
  setOutput('report', existsSync(report) ? report : '');
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) process.exitCode = await main();
