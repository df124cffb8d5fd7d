/**
 * Every option of every command, in one table (design notes, section 3). One naming rule ties the
 * three sources together: flag `--alt-api-key` ↔ environment `CLOUDCHECK_ALT_API_KEY` ↔ config
 * key `alt_api_key`. Defaults and validation live here and in resolve.ts, apart from the commands
 * (as autocannon keeps defaultOptions/validate apart from its run loop).
 */
export type Command = 'run' | 'serve' | 'load' | 'sweep';

export type OptionType = 'string' | 'boolean' | 'integer' | 'list';

export interface OptionDef {
  /** Flag name without dashes, kebab-case. */
  name: string;
  type: OptionType;
  /** Repeatable flag (`--fault a --fault b`); env and config give a list. */
  multiple?: boolean;
  commands: Command[];
  description: string;
  placeholder?: string;
  /** The value is a secret: never printed (help shows the variable, not the value). */
  secret?: boolean;
  /** Not read from the config file (e.g. `--config` itself). */
  noConfig?: boolean;
}

export const OPTIONS: OptionDef[] = [
  { name: 'target', type: 'string', commands: ['run', 'load', 'sweep'], placeholder: 'URL', description: 'base URL of the API, including /v1 (default: start the embedded reference server)' },
  { name: 'api-key', type: 'string', commands: ['run', 'serve', 'load', 'sweep'], placeholder: 'KEY', secret: true, description: 'API key of the account under test (serve: fixes the bootstrap key of the first account)' },
  { name: 'alt-api-key', type: 'string', commands: ['run', 'serve'], placeholder: 'KEY', secret: true, description: 'API key of a second account (isolation checks; serve: fixes it)' },
  { name: 's3-url', type: 'string', commands: ['run'], placeholder: 'URL', description: 'S3-compatible endpoint of the target' },
  { name: 'classes', type: 'list', commands: ['run'], placeholder: 'a,b', description: 'conformance classes to check (default: all)' },
  { name: 'strict', type: 'boolean', commands: ['run'], description: 'SHOULD deviations fail the gate too' },
  { name: 'report-dir', type: 'string', commands: ['run', 'load'], placeholder: 'DIR', description: 'where to write the report (default: reports/<run-id>/)' },
  { name: 'async-timeout', type: 'integer', commands: ['run'], placeholder: 'SECONDS', description: 'deadline of every wait for an asynchronous change: VPS boot and actions, SMS delivery, webhooks, key expiry (default 300)' },
  { name: 'seed', type: 'integer', commands: ['run', 'serve'], placeholder: 'N', description: 'seed of generated data (same seed, same requests)' },
  { name: 'grep', type: 'string', commands: ['run'], placeholder: 'RE', description: 'only checks whose title, requirement, file or tags match (a flow step brings the steps before it, as setup)' },
  { name: 'grep-invert', type: 'string', commands: ['run'], placeholder: 'RE', description: 'leave out checks whose title, requirement, file or tags match' },
  { name: 'shard', type: 'string', commands: ['run'], placeholder: 'I/N', description: 'run shard I of N' },
  { name: 'baseline', type: 'string', commands: ['run'], placeholder: 'FILE', description: 'a previous report.json or a list of requirement ids: gate only on new failures' },
  { name: 'keep', type: 'boolean', commands: ['run'], description: 'keep what the run creates (listed at the end) so the report\'s curl lines can be replayed; remove it later with cloudcheck sweep' },
  { name: 'allow-charges', type: 'boolean', commands: ['run'], description: 'run operations that move money (implied with the embedded server)' },
  { name: 'live-sms', type: 'boolean', commands: ['run'], description: 'send real SMS (without it every send carries X-Test-Mode: true)' },
  { name: 'test-number-succeed', type: 'string', commands: ['run', 'serve'], placeholder: 'N', description: 'test number that always succeeds (default +15005550006)' },
  { name: 'test-number-fail', type: 'string', commands: ['run', 'serve'], placeholder: 'N', description: 'test number that always fails (default +15005550001)' },
  { name: 'test-number-random', type: 'string', commands: ['run', 'serve'], placeholder: 'N', description: 'test number that succeeds or fails at random (default +15005550009)' },
  { name: 'carrier-number-reject', type: 'string', commands: ['serve'], placeholder: 'N', description: 'number the simulated carrier rejects: ends rejected (default +15005550002)' },
  { name: 'carrier-number-expire', type: 'string', commands: ['serve'], placeholder: 'N', description: 'number the simulated carrier never confirms: ends expired (default +15005550003)' },
  { name: 'webhook-listen', type: 'string', commands: ['run'], placeholder: 'HOST:PORT', description: 'where the webhook receiver listens' },
  { name: 'webhook-url', type: 'string', commands: ['run'], placeholder: 'URL', description: 'the URL the target calls for webhooks (when it differs from --webhook-listen)' },
  { name: 'max-wait', type: 'integer', commands: ['load'], placeholder: 'SECONDS', description: 'longest wait for a fresh rate-limit window or to observe recovery (default 75)' },
  { name: 'host', type: 'string', commands: ['serve'], placeholder: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
  { name: 'port', type: 'integer', commands: ['serve'], placeholder: 'PORT', description: 'REST API port (default 8080; 0 picks a free port)' },
  { name: 's3-port', type: 'integer', commands: ['serve'], placeholder: 'PORT', description: 'S3-compatible endpoint port (default 8081; 0 picks a free port)' },
  { name: 'fault', type: 'string', multiple: true, commands: ['serve'], placeholder: 'NAME', description: 'switch on a deliberate non-conformance (repeatable; see --list-faults)' },
  { name: 'list-faults', type: 'boolean', commands: ['serve'], noConfig: true, description: 'print the available faults and exit' },
  { name: 'variant', type: 'string', multiple: true, commands: ['serve'], placeholder: 'NAME[=MS]', description: 'switch on a legal variant: another choice the specification allows where it is silent (repeatable; see --list-variants)' },
  { name: 'list-variants', type: 'boolean', commands: ['serve'], noConfig: true, description: 'print the available legal variants and exit' },
  { name: 'config', type: 'string', commands: ['run', 'serve', 'load', 'sweep'], placeholder: 'FILE', noConfig: true, description: 'config file (default: cloudcheck.config.yaml in the current directory)' },
];

export const DEFAULTS: Record<string, unknown> = {
  host: '127.0.0.1',
  port: 8080,
  's3-port': 8081,
  seed: 1,
  strict: false,
  'allow-charges': false,
  'live-sms': false,
  'test-number-succeed': '+15005550006',
  'test-number-fail': '+15005550001',
  'test-number-random': '+15005550009',
  'carrier-number-reject': '+15005550002',
  'carrier-number-expire': '+15005550003',
};

export function envName(option: OptionDef | string): string {
  const name = typeof option === 'string' ? option : option.name;
  return `CLOUDCHECK_${name.toUpperCase().replace(/-/g, '_')}`;
}

export function configKey(option: OptionDef | string): string {
  const name = typeof option === 'string' ? option : option.name;
  return name.replace(/-/g, '_');
}

export function optionsFor(command: Command): OptionDef[] {
  return OPTIONS.filter((o) => o.commands.includes(command));
}

export const CONFIG_FILE = 'cloudcheck.config.yaml';
