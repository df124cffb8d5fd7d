/**
 * `cloudcheck load [PROFILE...]`: options resolve exactly as for `run` (flag > env > config file),
 * the session opens the target as for every command (the same connection options), the load engine
 * (load/engine.ts) runs the profiles, and this command prints their summary, writes the report
 * and decides the exit code: 0 every expectation held, 1 a threshold or invariant failed, 2 a
 * profile could not run, a bad profile, a usage error or an unusable target.
 */
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import { join, resolve } from 'node:path';
import { ProfileError, applyOverrides, builtinProfileNames, resolveProfile } from '../../../load/profile.ts';
import type { LoadedProfile, PhaseOverrides } from '../../../load/profile.ts';
import { writeLoadReport } from '../../../load/report.ts';
import { formatSummary } from '../../../load/summary.ts';
import { TargetError } from '../../harness/probe.ts';
import { redactString } from '../../harness/redact.ts';
import { openSession } from '../../harness/session.ts';
import type { ConnectionOptions } from '../../harness/session.ts';
import { connectionOf } from '../connection.ts';
import { err, outText } from '../output.ts';

/**
 * What `cloudcheck load` runs when no profile is named: the short mix of reads, well under every
 * limit. The others wait for windows, spend an hour's quota or send 10,000 test SMS: each is
 * named to run (`cloudcheck load --list`).
 */
export const DEFAULT_PROFILE = 'smoke';

export const LOAD_HELP: HelpSpec = {
  synopsis: 'cloudcheck load [PROFILE|FILE.yaml...] [options]',
  summary: `Runs load profiles (default: ${DEFAULT_PROFILE}, a short mix of reads; cloudcheck load --list shows every built-in profile, docs/load.md what each proves) against a target (default: the embedded reference server) and checks their thresholds and rate-limit invariants.`,
  examples: [
    ['cloudcheck load --list', 'the built-in profiles, with the requirements each checks'],
    ['cloudcheck load', `the ${DEFAULT_PROFILE} profile against the embedded reference server`],
    [
      'cloudcheck load soak --connections 20 --rate 200 --duration 60',
      'the soak profile at 200 requests/s over 20 connections for a minute',
    ],
    [
      'CLOUDCHECK_API_KEY=... cloudcheck load burst-compute --target https://staging.example.net/v1',
      'the compute burst limit of a staging server',
    ],
    [
      "cloudcheck load smoke --target https://staging.example.net/v1 -H 'X-Gateway-Key: ...' --ca-cert internal-ca.pem",
      'through a gateway with an internal certificate, as cloudcheck run reaches it',
    ],
    [
      'cloudcheck load my-profile.yaml --report-dir load-report',
      'a profile of your own, its report beside the conformance report',
    ],
  ],
  exitCodes: [
    ['0', 'every threshold and invariant held'],
    ['1', 'a threshold or invariant failed (the summary names it)'],
    ['2', 'usage error, unknown profile, a profile that could not run, unreachable target or rejected key'],
  ],
};

/** `load --list`: every built-in profile with the requirements it checks and what it does. */
async function listProfiles(): Promise<number> {
  const lines: string[] = [];
  for (const name of await builtinProfileNames()) {
    const { profile } = await resolveProfile(name);
    const requirements = profile.requirements?.length ? ` [${profile.requirements.join(', ')}]` : '';
    lines.push(`${name}${requirements}`, `    ${(profile.description ?? '').replace(/\s+/g, ' ').trim()}`);
  }
  lines.push('', `with no profile named, cloudcheck load runs ${DEFAULT_PROFILE}`);
  outText(lines.join('\n'));
  return 0;
}

export interface LoadCommandOptions {
  /** Built-in profile names or YAML paths; empty: DEFAULT_PROFILE. */
  profiles: string[];
  /** The connection options (connection.ts); what is left out: none (no target: the embedded server). */
  connection?: Partial<ConnectionOptions>;
  /** Where report.json is created or merged into (default `reports/load-<run id>`). */
  reportDir?: string;
  /** Seconds the run may wait for a fresh rate-limit window or to observe recovery (default 75). */
  maxWait?: number;
  /** `--connections`, `--rate`, `--duration`: the same value in every phase of every profile. */
  overrides?: PhaseOverrides;
  /** Faults of the embedded reference server (only without a target; for the project's tests). */
  faults?: string[];
  /** Where progress and the summary go (default stderr / stdout). */
  out?: (text: string) => void;
  err?: (text: string) => void;
}

const NO_CONNECTION: ConnectionOptions = {
  target: undefined,
  apiKeys: [],
  altApiKey: null,
  s3Url: null,
  headers: {},
  caCertFile: null,
  retries: 0,
  requestTimeoutMs: null,
  timeoutScale: 1,
};

/** The named profiles with the overrides applied; a ProfileError names the file and the key. */
async function loadedProfiles(names: readonly string[], overrides: PhaseOverrides): Promise<LoadedProfile[]> {
  const loaded: LoadedProfile[] = [];
  for (const name of names) {
    try {
      loaded.push(applyOverrides(await resolveProfile(name), overrides));
    } catch (e) {
      throw e instanceof ProfileError ? e : new ProfileError(name, '', (e as Error).message);
    }
  }
  return loaded;
}

/** Progress on one line on a terminal; in a log, a line every 5 s and each profile's last. */
function progressPrinter(write: (text: string) => void, tty: boolean): (line: string, final?: boolean) => void {
  let last = 0;
  return (line, final) => {
    if (tty) write(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    else if (final || Date.now() - last > 5000) {
      last = Date.now();
      write(`${line}\n`);
    }
  };
}

/** The load run itself, apart from argv: the CLI's entry below and the project's tests call it. */
export async function runLoadCommand(options: LoadCommandOptions): Promise<number> {
  const write = options.out ?? ((t: string) => void process.stdout.write(redactString(t)));
  const warn = options.err ?? ((t: string) => void process.stderr.write(redactString(t)));
  const say = (line: string): void => warn(`cloudcheck load: ${line}\n`);
  const names = options.profiles.length > 0 ? options.profiles : [DEFAULT_PROFILE];
  if (options.profiles.length === 0)
    say(`no profile named: running ${DEFAULT_PROFILE} (the others, with what each costs: cloudcheck load --list)`);
  let profiles: LoadedProfile[];
  try {
    profiles = await loadedProfiles(names, options.overrides ?? {});
  } catch (e) {
    say((e as Error).message);
    return 2;
  }
  const connection = { ...NO_CONNECTION, ...options.connection };
  let session;
  try {
    session = await openSession({
      connection,
      command: 'cloudcheck load',
      embedded: { ...(connection.apiKeys[0] ? { apiKey: connection.apiKeys[0] } : {}), faults: options.faults },
      env: process.env,
      log: (line) => warn(`${line}\n`),
    });
  } catch (e) {
    if (!(e instanceof TargetError)) throw e;
    say(e.message);
    return 2;
  }
  try {
    // The generator (autocannon, histograms) loads once the target answered: a wrong one fails fast.
    const { runLoad } = await import('../../../load/engine.ts');
    const { report, runPrefix } = await runLoad(
      profiles,
      {
        baseUrl: session.target,
        apiKey: session.keys.main,
        client: session.client(),
        headers: connection.headers,
        caCertFile: connection.caCertFile,
        label: session.server ? 'embedded reference server' : session.target,
      },
      {
        maxWaitMs: (options.maxWait ?? 75) * 1000,
        progress: progressPrinter(warn, options.err === undefined && process.stderr.isTTY === true),
      },
    );
    const reportDir = resolve(options.reportDir ?? join('reports', `load-${runPrefix.slice(3)}`));
    let reportPath: string | undefined;
    try {
      reportPath = await writeLoadReport(reportDir, report, say);
    } catch (e) {
      say(`cannot write the report: ${(e as Error).message}`);
    }
    write(formatSummary(report, reportPath));
    if (report.profiles.some((r) => r.error)) return 2;
    return report.passed ? 0 : 1;
  } finally {
    await session.close();
  }
}

export async function loadCommand(argv: string[]): Promise<number> {
  let options;
  try {
    options = resolveOptions('load', argv, process.env, process.cwd());
  } catch (error) {
    if (error instanceof UsageError) {
      err(`cloudcheck load: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    outText(
      `${helpText('load', LOAD_HELP)}\nBuilt-in profiles (details: cloudcheck load --list):\n  ${(await builtinProfileNames()).join(', ')}`,
    );
    return 0;
  }
  const values = options.values;
  if (values.list) return listProfiles();
  if (values['max-wait'] !== undefined && values['max-wait'] < 0)
    throw new UsageError('--max-wait must be a number of seconds >= 0');
  return runLoadCommand({
    profiles: options.positionals,
    connection: connectionOf(values, process.env),
    reportDir: values['report-dir'],
    maxWait: values['max-wait'],
    overrides: {
      ...(values.connections !== undefined ? { connections: values.connections } : {}),
      ...(values.rate !== undefined ? { rate: values.rate } : {}),
      ...(values.duration !== undefined ? { duration: values.duration } : {}),
    },
  });
}
