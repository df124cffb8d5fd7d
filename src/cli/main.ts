/**
 * `cloudcheck` command line (docs/architecture.md). Exit codes: 0 gate passed, 1 gate failed,
 * 2 usage error, bad config or unreachable target. Usage problems print one line, no stack.
 */
import { UsageError, suggest } from '../config/resolve.ts';
import { TargetError } from '../harness/probe.ts';
import { redactString } from '../harness/redact.ts';
import { err, out, outText } from './output.ts';
import { cloudcheckVersion } from './version.ts';

const COMMANDS = ['run', 'explore', 'serve', 'load', 'sweep', 'report'] as const;

const OVERVIEW = `usage: cloudcheck <command> [options]

commands:
  run      check a target (default: the embedded reference server) and write a conformance report
  explore  random sequences of operations checked against a model of the specification
  serve    run the embedded reference server
  load     run load profiles against a target
  sweep    delete resources left behind by earlier runs (names starting with cc-)
  report   merge shard reports (report merge DIR...) or compare two runs (report diff A B)

cloudcheck <command> --help shows the options, examples and exit codes of a command.

examples:
  cloudcheck run
      check the embedded reference server
  CLOUDCHECK_API_KEY=... cloudcheck run --target https://staging.example.net/v1
      check a target
  cloudcheck run --list --classes pagination
      show which checks a selection would run

exit codes:
  0    success (run: the gate passed)
  1    the gate failed (run, load, report merge) or a delete failed (sweep)
  2    usage error, bad configuration, unreachable target or rejected key; run: an inconclusive
       verdict (MUST checks not judged)
  130  interrupted by SIGINT (143: SIGTERM); the report says "interrupted"
`;

/** `cloudcheck ... | head` closes the pipe early; that is not an error. */
function ignoreBrokenPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  ignoreBrokenPipes();
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await (await import('./commands/run.ts')).runCommand(rest);
      case 'explore':
        return await (await import('./commands/explore.ts')).exploreCommand(rest);
      case 'serve':
        return await (await import('./commands/serve.ts')).serveCommand(rest);
      case 'load':
        return await (await import('./commands/load.ts')).loadCommand(rest);
      case 'sweep':
        return await (await import('./commands/sweep.ts')).sweepCommand(rest);
      case 'report':
        return await (await import('./commands/report.ts')).runReportCommand(rest);
      case '--version':
      case '-v':
        out(cloudcheckVersion());
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        outText(OVERVIEW);
        return command === undefined ? 2 : 0;
      default: {
        const hint = suggest(command, COMMANDS);
        throw new UsageError(
          `unknown command "${command}"${hint ? `; did you mean "${hint}"?` : ''} (commands: ${COMMANDS.join(', ')})`,
        );
      }
    }
  } catch (error) {
    // One error style: `cloudcheck <command>: ...`, one line, exit 2.
    const label = (COMMANDS as readonly string[]).includes(command ?? '') ? `cloudcheck ${command}` : 'cloudcheck';
    // A target that cannot be used as given (unreachable, not the API, a key refused) is told the same way.
    if (error instanceof UsageError || error instanceof TargetError) {
      err(`${label}: ${error.message}`);
      return 2;
    }
    const e = error as Error;
    err(`${label}: internal error: ${e?.message ?? String(error)}`);
    if (process.env.CLOUDCHECK_DEBUG) err(redactString(e?.stack ?? ''));
    return 2;
  }
}
