/**
 * Every option of every command, in one table (docs/options.md documents each). One naming rule ties the
 * three sources together: flag `--alt-api-key` ↔ environment `CLOUDCHECK_ALT_API_KEY` ↔ config
 * key `alt_api_key`. Defaults and validation live here and in resolve.ts, apart from the commands
 * (as autocannon keeps defaultOptions/validate apart from its run loop).
 */
export type Command = 'run' | 'serve' | 'load' | 'sweep' | 'explore';

export type OptionType = 'string' | 'boolean' | 'integer' | 'list';

export interface OptionDef {
  /** Flag name without dashes, kebab-case. */
  name: string;
  type: OptionType;
  /** Repeatable flag (`--fault a --fault b`); env and config give a list. */
  multiple?: boolean;
  commands: readonly Command[];
  description: string;
  placeholder?: string;
  /** The value is a secret: never printed (help shows the variable, not the value). */
  secret?: boolean;
  /** Not read from the config file (e.g. `--config` itself). */
  noConfig?: boolean;
  /** One-letter flag (`H` for `-H`). */
  short?: string;
  /** The value the one-letter flag stands for when it takes none (`-x` is `--max-failures 1`). */
  shortMeans?: string;
  /** What separates the values of a repeatable option in its variable or a config string (default `,`). */
  separator?: string;
  /** The description where it differs for a command (serve fixes a key that run only uses). */
  descriptionFor?: Partial<Record<Command, string>>;
  /** A base URL: trailing slashes go at resolution, so every reader gets it normalised. */
  url?: boolean;
}

const TABLE = [
  {
    name: 'target',
    type: 'string',
    url: true,
    commands: ['run', 'load', 'sweep', 'explore'],
    placeholder: 'URL',
    description: 'base URL of the API, including /v1 (default: start the embedded reference server)',
    descriptionFor: { sweep: 'base URL of the API, including /v1 (required)' },
  },
  {
    name: 'api-key',
    type: 'string',
    multiple: true,
    commands: ['run', 'serve', 'load', 'sweep', 'explore'],
    placeholder: 'KEY',
    secret: true,
    description:
      'API key of the account under test. Repeat it (the variable: a comma list) to give more keys of the same account: the run spreads its request budget over them, for an account whose key may not create keys',
    descriptionFor: {
      serve: 'bootstrap key of the first account (default: generated, printed at start)',
      load: 'API key of the account under test (the profiles use the first; more are probed and unused)',
    },
  },
  {
    name: 'alt-api-key',
    type: 'string',
    commands: ['run', 'serve'],
    placeholder: 'KEY',
    secret: true,
    description: 'API key of a second account (isolation checks)',
    descriptionFor: { serve: 'bootstrap key of the second account (default: generated, printed at start)' },
  },
  {
    name: 's3-url',
    type: 'string',
    url: true,
    commands: ['run'],
    placeholder: 'URL',
    description: 'S3-compatible endpoint of the target',
  },
  {
    name: 'classes',
    type: 'list',
    commands: ['run'],
    placeholder: 'a,b',
    description: 'conformance classes to check (default: all)',
  },
  { name: 'strict', type: 'boolean', commands: ['run', 'explore'], description: 'SHOULD deviations fail the gate too' },
  {
    name: 'report-dir',
    type: 'string',
    commands: ['run', 'load', 'explore'],
    placeholder: 'DIR',
    description: 'where to write the report (default: reports/<run-id>/)',
  },
  {
    name: 'async-timeout',
    type: 'integer',
    commands: ['run'],
    placeholder: 'SECONDS',
    description:
      'deadline of every wait for an asynchronous change: VPS boot and actions, SMS delivery, webhooks, key expiry (default 300)',
  },
  {
    name: 'seed',
    type: 'integer',
    commands: ['run', 'serve', 'explore'],
    placeholder: 'N',
    description: 'seed of generated data (same seed, same requests)',
    descriptionFor: { serve: "seed of the server's generated ids and simulated outcomes" },
  },
  {
    name: 'examples',
    type: 'integer',
    commands: ['run'],
    placeholder: 'N',
    description:
      "valid requests per operation in the generated positive checks (default 1: today's single example). Above 1, the check also sends N-1 requests drawn from the operation's schema (boundaries first: 1600-character messages, per_page 100, unicode names, object keys with /), seeded by --seed, and shrinks a failure to a minimal input",
  },
  {
    name: 'grep',
    type: 'string',
    commands: ['run'],
    placeholder: 'RE',
    description:
      'only checks whose title, requirement, file or tags match (a flow step brings the steps before it, as setup)',
  },
  {
    name: 'grep-invert',
    type: 'string',
    commands: ['run'],
    placeholder: 'RE',
    description: 'leave out checks whose title, requirement, file or tags match',
  },
  {
    name: 'last-failed',
    type: 'boolean',
    commands: ['run'],
    description:
      'run only the checks that failed in the last run of this directory (reports/latest/report.json), with the flow steps they need',
  },
  { name: 'shard', type: 'string', commands: ['run'], placeholder: 'I/N', description: 'run shard I of N' },
  {
    name: 'baseline',
    type: 'string',
    commands: ['run'],
    placeholder: 'FILE',
    description: 'a previous report.json or a list of requirement ids: gate only on new failures',
  },
  {
    name: 'list',
    type: 'boolean',
    commands: ['run', 'load'],
    descriptionFor: { load: 'print the built-in profiles (name, requirements checked, description) and exit' },
    description:
      'print the checks the selection would run (check id, requirement, level, class, title) and exit without running any; exit 2 when it selects none',
  },
  {
    name: 'workers',
    type: 'integer',
    commands: ['run'],
    placeholder: 'N',
    description:
      'parallel worker processes (default: from the round trip, 2 on loopback, fewer for a few checks); each creates its own API keys of the account',
  },
  {
    name: 'max-failures',
    type: 'integer',
    commands: ['run'],
    short: 'x',
    shortMeans: '1',
    placeholder: 'N',
    description:
      'stop after N failures that fail the gate (MUST defects not in --baseline; SHOULD deviations too with --strict), then exit 1 "stopped after N failures"; -x is --max-failures 1',
  },
  {
    name: 'retries',
    type: 'integer',
    commands: ['run', 'load', 'sweep', 'explore'],
    placeholder: 'N',
    description:
      "send a GET, HEAD or OPTIONS request that got no answer (connection refused, reset or timed out) again, up to N times, with backoff (default 2; 0: never). Never a request that got an answer: an answer is what a check judges. Other methods only when the connection was refused (the request never reached the target); a check whose POST, PUT or DELETE got no answer runs again whole (--rerun-unanswered). The report counts each check's retried requests",
    descriptionFor: {
      load: 'send a side request (key creation and revocation, window and side-effect probes) that got no answer again, up to N times (default 2; 0: never), a GET, HEAD or OPTIONS only unless the connection was refused; the generated load is never resent: a lost request is what it measures',
      sweep:
        'send a GET, HEAD or OPTIONS request that got no answer again, up to N times, with backoff (default 2; 0: never); other methods only when the connection was refused',
      explore:
        'send a GET, HEAD or OPTIONS request that got no answer again, up to N times, with backoff (default 2; 0: never); other methods only when the connection was refused',
    },
  },
  {
    name: 'rerun-unanswered',
    type: 'integer',
    commands: ['run'],
    placeholder: 'N',
    description:
      "run a check that got no answer (connection refused, reset or timed out; the run's own request budget ran out) again, whole, at the end of the run, up to N times (default 2; 0: never). A flow step runs again with its flow. A check makes its own resources under new names, so this is safe where resending a POST is not. The report keeps every attempt",
  },
  {
    name: 'allow-inconclusive',
    type: 'boolean',
    commands: ['run'],
    description:
      'let an inconclusive run pass the gate (exit 0): MUST checks that got no answer, or a class named with --classes that could not run. The verdict still says inconclusive; an interrupted run never passes',
  },
  {
    name: 'har',
    type: 'string',
    commands: ['run'],
    placeholder: 'WHICH',
    description:
      'which exchanges the report keeps (report.json and exchanges.har): failed (default: those of the failed checks) or all (every request of the run, passing checks too; a bigger report, a slower run)',
  },
  {
    name: 'header',
    type: 'string',
    multiple: true,
    separator: '\n',
    short: 'H',
    commands: ['run', 'load', 'sweep', 'explore'],
    placeholder: "'NAME: VALUE'",
    secret: true,
    description:
      'extra header on every request to the target, e.g. the key of a gateway (never Authorization; values are shown as [REDACTED]; the variable takes one header a line)',
  },
  {
    name: 'ca-cert',
    type: 'string',
    commands: ['run', 'load', 'sweep', 'explore'],
    placeholder: 'FILE',
    description: 'PEM file of a CA to trust besides the usual ones (a target with an internal certificate)',
  },
  {
    name: 'keep',
    type: 'boolean',
    commands: ['run'],
    description:
      "keep what the run creates (listed at the end) so the report's curl lines can be replayed; remove it later with cloudcheck sweep",
  },
  {
    name: 'dry-run',
    type: 'boolean',
    commands: ['sweep'],
    noConfig: true,
    description:
      'list the cc- resources the sweep would delete (and those the API cannot delete), delete nothing; exit 0',
  },
  {
    name: 'allow-charges',
    type: 'boolean',
    commands: ['run'],
    description: 'run operations that move money (implied with the embedded server)',
  },
  {
    name: 'live-sms',
    type: 'boolean',
    commands: ['run'],
    description: 'send real SMS (without it every send carries X-Test-Mode: true)',
  },
  {
    name: 'test-number-succeed',
    type: 'string',
    commands: ['run', 'serve', 'explore'],
    placeholder: 'N',
    description: 'test number that always succeeds (default +15005550006)',
  },
  {
    name: 'test-number-fail',
    type: 'string',
    commands: ['run', 'serve', 'explore'],
    placeholder: 'N',
    description: 'test number that always fails (default +15005550001)',
  },
  {
    name: 'test-number-random',
    type: 'string',
    commands: ['run', 'serve', 'explore'],
    placeholder: 'N',
    description: 'test number that succeeds or fails at random (default +15005550009)',
  },
  {
    name: 'carrier-number-reject',
    type: 'string',
    commands: ['serve'],
    placeholder: 'N',
    description: 'number the simulated carrier rejects: ends rejected (default +15005550002)',
  },
  {
    name: 'carrier-number-expire',
    type: 'string',
    commands: ['serve'],
    placeholder: 'N',
    description: 'number the simulated carrier never confirms: ends expired (default +15005550003)',
  },
  {
    name: 'webhook-listen',
    type: 'string',
    commands: ['run'],
    placeholder: 'HOST:PORT',
    description: 'where the webhook receiver listens',
  },
  {
    name: 'webhook-url',
    type: 'string',
    commands: ['run'],
    placeholder: 'URL',
    description: 'the URL the target calls for webhooks (when it differs from --webhook-listen)',
  },
  {
    name: 'connections',
    type: 'integer',
    commands: ['load'],
    placeholder: 'N',
    description:
      "concurrent connections in every phase of the selected profiles (at most 500), instead of the profiles' own",
  },
  {
    name: 'rate',
    type: 'integer',
    commands: ['load'],
    placeholder: 'N',
    description: "requests per second in every phase, all connections together, instead of the profiles' own",
  },
  {
    name: 'duration',
    type: 'integer',
    commands: ['load'],
    placeholder: 'SECONDS',
    description:
      'seconds of every phase (at most 120); a phase that sends a fixed number of requests still stops at it',
  },
  {
    name: 'max-wait',
    type: 'integer',
    commands: ['load'],
    placeholder: 'SECONDS',
    description: 'longest wait for a fresh rate-limit window or to observe recovery (default 75)',
  },
  {
    name: 'host',
    type: 'string',
    commands: ['serve'],
    placeholder: 'HOST',
    description: 'address to listen on (default 127.0.0.1)',
  },
  {
    name: 'port',
    type: 'integer',
    commands: ['serve'],
    placeholder: 'PORT',
    description: 'REST API port (default 8080; 0 picks a free port)',
  },
  {
    name: 's3-port',
    type: 'integer',
    commands: ['serve'],
    placeholder: 'PORT',
    description: 'S3-compatible endpoint port (default 8081; 0 picks a free port)',
  },
  {
    name: 'fault',
    type: 'string',
    multiple: true,
    commands: ['serve'],
    placeholder: 'NAME',
    description: 'switch on a deliberate non-conformance (see --list-faults)',
  },
  {
    name: 'list-faults',
    type: 'boolean',
    commands: ['serve'],
    noConfig: true,
    description: 'print the available faults and exit',
  },
  {
    name: 'variant',
    type: 'string',
    multiple: true,
    commands: ['serve'],
    placeholder: 'NAME[=MS]',
    description:
      'switch on a legal variant: another choice the specification allows where it is silent (see --list-variants)',
  },
  {
    name: 'list-variants',
    type: 'boolean',
    commands: ['serve'],
    noConfig: true,
    description: 'print the available legal variants and exit',
  },
  {
    name: 'budget',
    type: 'integer',
    commands: ['explore'],
    placeholder: 'N',
    description:
      'requests the exploration may send, clean-up and shrinking included (default 2000); no new sequence starts past it',
  },
  {
    name: 'time',
    type: 'integer',
    commands: ['explore'],
    placeholder: 'SECONDS',
    description:
      'no new sequence starts after this many seconds (default 60); a running one finishes and is cleaned up',
  },
  {
    name: 'families',
    type: 'list',
    commands: ['explore'],
    placeholder: 'a,b',
    description:
      'the families of operations sequences draw from, taking turns (default: all; listed at the end of this help and in docs/explore.md, Families)',
  },
  {
    name: 'replay',
    type: 'string',
    commands: ['explore'],
    placeholder: 'FILE',
    description:
      'run the steps of a replay file (explore-replay.json of an earlier report) once, instead of exploring; against the target it came from (give its --target), unless --replay-any-target',
  },
  {
    name: 'replay-any-target',
    type: 'boolean',
    commands: ['explore'],
    description:
      'replay a file against another target than the one it came from (another --target, or the embedded server for a file of a --target)',
  },
  {
    name: 'config',
    type: 'string',
    commands: ['run', 'serve', 'load', 'sweep', 'explore'],
    placeholder: 'FILE',
    noConfig: true,
    description: 'config file (default: cloudcheck.config.yaml in the current directory)',
  },
] as const satisfies readonly OptionDef[];

/** The table as plain definitions, for the code that walks it; its literal types give OptionValues. */
export const OPTIONS: readonly OptionDef[] = TABLE;

type Option = (typeof TABLE)[number];
/** The flag names of one command's options. */
export type OptionName<C extends Command> = Option extends infer O
  ? O extends { name: infer N; commands: readonly (infer K)[] }
    ? C extends K
      ? N
      : never
    : never
  : never;
/** What resolution makes of an option's value (resolve.ts convert). */
type ValueOf<O> = O extends { multiple: true }
  ? string[]
  : O extends { type: 'list' }
    ? string[]
    : O extends { type: 'boolean' }
      ? boolean
      : O extends { type: 'integer' }
        ? number
        : string;
type ValueNamed<N> = ValueOf<Extract<Option, { name: N }>>;

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8080,
  's3-port': 8081,
  seed: 1,
  examples: 1,
  strict: false,
  'allow-charges': false,
  'live-sms': false,
  'test-number-succeed': '+15005550006',
  'test-number-fail': '+15005550001',
  'test-number-random': '+15005550009',
  'carrier-number-reject': '+15005550002',
  'carrier-number-expire': '+15005550003',
} as const satisfies { readonly [N in Option['name']]?: ValueNamed<N> };

/**
 * The resolved values of one command, typed from the table: an option with a default is always
 * there, the others when given (flag, variable or config file).
 */
export type OptionValues<C extends Command> = {
  [N in OptionName<C> as N extends keyof typeof DEFAULTS ? N : never]: ValueNamed<N>;
} & {
  [N in OptionName<C> as N extends keyof typeof DEFAULTS ? never : N]?: ValueNamed<N>;
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

export function descriptionOf(option: OptionDef, command: Command): string {
  return option.descriptionFor?.[command] ?? option.description;
}

export const CONFIG_FILE = 'cloudcheck.config.yaml';
