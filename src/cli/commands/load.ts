/**
 * `cloudcheck load [PROFILE...]`: options resolve exactly as for `run` (flag > env > config file),
 * then the load runner (load/command.ts) does the work and decides the exit code.
 */
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import { runLoadCommand } from '../../../load/command.ts';
import { builtinProfileNames, resolveProfile } from '../../../load/profile.ts';
import { addSecret } from '../../harness/redact.ts';
import { err, out } from '../output.ts';

export const LOAD_HELP: HelpSpec = {
  synopsis: 'cloudcheck load [PROFILE|FILE.yaml...] [options]',
  summary:
    'Runs load profiles (default: every built-in profile: see docs/load.md) against a target (default: the embedded reference server) and checks their thresholds and rate-limit invariants.',
  examples: [
    ['cloudcheck load --list', 'the built-in profiles, with the requirements each checks'],
    ['cloudcheck load smoke', 'the smoke profile against the embedded reference server'],
    [
      'cloudcheck load soak --connections 20 --rate 200 --duration 60',
      'the soak profile at 200 requests/s over 20 connections for a minute',
    ],
    [
      'CLOUDCHECK_API_KEY=... cloudcheck load burst-compute --target https://staging.example.net/v1',
      'the compute burst limit of a staging server',
    ],
    [
      'cloudcheck load my-profile.yaml --report-dir load-report',
      'a profile of your own, its report beside the conformance report',
    ],
  ],
  exitCodes: [
    ['0', 'every threshold and invariant held'],
    ['1', 'a threshold or invariant failed (the summary names it)'],
    ['2', 'usage error, unknown profile, unreachable target or rejected key'],
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
  out(lines.join('\n'));
  return 0;
}

export async function loadCommand(argv: string[]): Promise<number> {
  let options;
  try {
    options = resolveOptions('load', argv);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`cloudcheck load: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    out(
      `${helpText('load', LOAD_HELP)}\nBuilt-in profiles (details: cloudcheck load --list):\n  ${(await builtinProfileNames()).join(', ')}`,
    );
    return 0;
  }
  const values = options.values;
  if (values.list) return listProfiles();
  const target = values.target;
  const apiKey = values['api-key'];
  if (apiKey) addSecret(apiKey);
  if (target && !apiKey) {
    err('cloudcheck load: --target needs --api-key (or CLOUDCHECK_API_KEY)');
    return 2;
  }
  return runLoadCommand({
    profiles: options.positionals,
    target,
    apiKey,
    reportDir: values['report-dir'],
    maxWait: values['max-wait'],
    overrides: {
      ...(values.connections !== undefined ? { connections: values.connections } : {}),
      ...(values.rate !== undefined ? { rate: values.rate } : {}),
      ...(values.duration !== undefined ? { duration: values.duration } : {}),
    },
  });
}
