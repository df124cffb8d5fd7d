/**
 * Resolving a command's options from flags, environment, config file and defaults
 * (precedence in that order), validated by the one JSON Schema of the config file.
 *
 * Flags are parsed with `node:util` parseArgs in strict mode: it is built into Node (no
 * dependency to audit or update), rejects unknown flags and missing values instead of guessing,
 * and is enough for a flat option set. Help text, suggestions and repeatable flags are our small
 * layer on top.
 */
import { parsePattern } from '../harness/selection.ts';
import { normaliseBaseUrl } from '../harness/settings.ts';
import { parseHeaderLine } from '../harness/headers.ts';
import { readCaCert } from '../harness/transport.ts';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import type * as Yaml from 'yaml';
import { CONFORMANCE_CLASSES } from '../../spec/classes.ts';
import { CONFIG_FILE, DEFAULTS, configKey, descriptionOf, envName, optionsFor } from './options.ts';
import type { OptionValues } from './options.ts';
import type { Command, OptionDef } from './options.ts';

/** The one schema of the config file; flags and environment values are validated by it too. */
export const CONFIG_SCHEMA = JSON.parse(
  readFileSync(new URL('./cloudcheck.config.schema.json', import.meta.url), 'utf8'),
) as {
  properties: Record<string, unknown>;
  definitions: Record<string, unknown>;
};
const schema = CONFIG_SCHEMA;

/** Bad usage or bad configuration: the CLI prints the message on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Source = 'flag' | 'env' | 'config' | 'default';

export interface ResolvedOptions<C extends Command = Command> {
  /** Keyed by flag name (`api-key`), typed from the option table (options.ts OptionValues). */
  values: OptionValues<C>;
  sources: Record<string, Source>;
  positionals: string[];
  configFile: string | null;
  help: boolean;
  version: boolean;
}

let ajv: Ajv | null = null;
const validators = new Map<string, ValidateFunction>();
/**
 * The validator of the whole schema (a config file), or of the part for one key (a flag's or
 * environment variable's value), compiled on first use. Compiling all 45 keys cost 40–50 ms of
 * every command, which mostly gets two or three values. The schema itself is not checked against
 * its meta-schema here (another 13 ms): test/cli/config.test.ts does that once, and holds each
 * key's part to the verdicts of the whole.
 */
export function validatorFor(key: string | null): ValidateFunction {
  const part = key !== null && key in schema.properties ? key : null;
  let fn = validators.get(part ?? '');
  if (!fn) {
    ajv ??= new Ajv({ allErrors: true, strict: false, verbose: true, validateSchema: false });
    fn = ajv.compile(
      part === null
        ? schema
        : { definitions: schema.definitions, type: 'object', properties: { [part]: schema.properties[part] } },
    );
    validators.set(part ?? '', fn);
  }
  return fn;
}

/** "did you mean" only when the closest candidate is reasonably close. */
export function suggest(word: string, candidates: readonly string[]): string | null {
  if (candidates.length === 0) return null;
  const best = closest(word, candidates);
  return distance(word, best) <= Math.max(2, Math.floor(best.length / 3)) ? best : null;
}

function ajvMessage(error: ErrorObject, where: (key: string) => string): string {
  const key = error.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty: string }).additionalProperty);
    const valid = Object.keys(schema.properties);
    const hint = suggest(extra, valid) ?? closest(extra, valid);
    return `${where(extra)}: unknown key "${extra}"; the closest valid key is "${hint}"`;
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: string[] }).allowedValues;
    const hint = typeof error.data === 'string' ? suggest(error.data, allowed) : null;
    const value = typeof error.data === 'string' ? `unknown value "${error.data}"; ` : '';
    return `${where(key)}: ${value}${hint ? `did you mean "${hint}"? ` : ''}(one of ${allowed.join(', ')})`;
  }
  if (error.keyword === 'pattern') return `${where(key)}: has the wrong format (${describePattern(key)})`;
  return `${where(key)}: ${error.message ?? 'is invalid'}`;
}

function describePattern(key: string): string {
  if (key === 'shard') return 'expected I/N, e.g. 1/4';
  if (key.startsWith('test_number') || key.startsWith('carrier_number'))
    return 'expected an E.164 number, e.g. +15005550006';
  if (key === 'webhook_listen') return 'expected HOST:PORT';
  if (key === 'header') return "expected 'Name: value'";
  if (key.endsWith('url') || key === 'target') return 'expected an http:// or https:// URL';
  return 'see cloudcheck.config.schema.json';
}

/**
 * Validates an object of config keys (all of them, or only `key`'s value); throws UsageError with
 * the first problem (oneOf noise skipped).
 */
function check(object: Record<string, unknown>, where: (key: string) => string, key: string | null = null): void {
  const fn = validatorFor(key);
  if (fn(object)) return;
  const errors = (fn.errors ?? []).filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'if');
  // With oneOf, report the alternative that fits the value's JSON type.
  const first = errors.find((e) => e.keyword !== 'type') ?? errors[0] ?? fn.errors?.[0];
  if (first) throw new UsageError(ajvMessage(first, where));
}

/** Reads and validates a config file. Unknown keys name the file, the key and the closest valid key. */
export function loadConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let data: unknown;
  try {
    // The YAML parser loads only when there is a config file (about 30 ms of every command otherwise).
    data = (createRequire(import.meta.url)('yaml') as typeof Yaml).parse(text);
  } catch (error) {
    // The parser's first line ends with a colon that introduces a code frame on the next lines.
    throw new UsageError(`${path}: not valid YAML: ${(error as Error).message.split('\n')[0]!.replace(/:\s*$/, '')}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new UsageError(`${path}: expected a mapping of option names to values`);
  const object = data as Record<string, unknown>;
  check(object, (key) => `${path}: "${key}"`);
  return object;
}

function convert(option: OptionDef, raw: string, where: string): unknown {
  switch (option.type) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
      throw new UsageError(`${where}: expected true or false, got "${raw}"`);
    }
    case 'integer':
      if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`${where}: expected an integer, got "${raw}"`);
      return Number(raw.trim());
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return option.multiple ? splitValues(option, raw) : raw;
  }
}

function splitValues(option: OptionDef, raw: string): string[] {
  return raw
    .split(option.separator ?? ',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Extra checks the schema cannot say well: class names with suggestions, shard bounds, regexps. */
function checkValues(
  values: Record<string, unknown>,
  sources: Record<string, Source>,
  describe: (name: string) => string,
  cwd: string,
  configFile: string | null,
): void {
  const classes = values.classes;
  if (Array.isArray(classes)) {
    for (const c of classes as string[]) {
      if (!(CONFORMANCE_CLASSES as readonly string[]).includes(c)) {
        const hint = suggest(c, CONFORMANCE_CLASSES);
        throw new UsageError(
          `${describe('classes')}: unknown class "${c}"${hint ? `; did you mean "${hint}"?` : ''} (classes: ${CONFORMANCE_CLASSES.join(', ')})`,
        );
      }
    }
  }
  if (typeof values.shard === 'string') {
    const [i, n] = values.shard.split('/').map(Number);
    if (!i || !n || i > n)
      throw new UsageError(`${describe('shard')}: expected I/N with 1 <= I <= N, got "${values.shard}"`);
  }
  for (const name of ['grep', 'grep-invert']) {
    const pattern = values[name];
    if (typeof pattern !== 'string') continue;
    try {
      parsePattern(pattern);
    } catch (error) {
      throw new UsageError(`${describe(name)}: not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (Array.isArray(values.header)) {
    for (const line of values.header as string[]) {
      try {
        parseHeaderLine(line);
      } catch (error) {
        throw new UsageError(`${describe('header')}: ${(error as Error).message}`);
      }
    }
  }
  if (typeof values['ca-cert'] === 'string') {
    // A path in the config file is relative to the file; from a flag or variable, to the current directory.
    values['ca-cert'] = resolvePath(
      sources['ca-cert'] === 'config' && configFile ? dirname(configFile) : cwd,
      values['ca-cert'],
    );
    try {
      readCaCert(values['ca-cert'] as string);
    } catch (error) {
      throw new UsageError(`${describe('ca-cert')}: ${(error as Error).message}`);
    }
  }
  void sources;
}

export function resolveOptions<C extends Command>(
  command: C,
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): ResolvedOptions<C> {
  const defs = optionsFor(command);
  const parseOptions: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const d of defs) {
    parseOptions[d.name] = {
      type: d.type === 'boolean' ? 'boolean' : 'string',
      ...(d.multiple ? { multiple: true } : {}),
      ...(d.short && !d.shortMeans ? { short: d.short } : {}),
    };
  }
  // A one-letter flag that stands for a value (`-x`: `--max-failures 1`) is rewritten before parsing.
  const rewritten = argv.map((arg) => {
    const d = defs.find((o) => o.short && o.shortMeans && arg === `-${o.short}`);
    return d ? `--${d.name}=${d.shortMeans}` : arg;
  });
  // A negative number after an integer flag (`--examples -3`) is its value, not a flag: joined here,
  // the schema then says what is wrong with it ("must be >= 1") instead of parseArgs' "ambiguous".
  const args: string[] = [];
  for (let i = 0; i < rewritten.length; i++) {
    const arg = rewritten[i]!;
    const next = rewritten[i + 1];
    if (next !== undefined && /^-\d/.test(next) && defs.some((d) => d.type === 'integer' && arg === `--${d.name}`)) {
      args.push(`${arg}=${next}`);
      i++;
    } else {
      args.push(arg);
    }
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: parseOptions, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(explainParseError(error as Error & { code?: string }, command, defs));
  }
  const flags = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const values: Record<string, unknown> = {};
  const sources: Record<string, Source> = {};

  // Config file: --config, then CLOUDCHECK_CONFIG, then ./cloudcheck.config.yaml if present.
  let configFile: string | null = null;
  let config: Record<string, unknown> = {};
  const explicitConfig = (flags.config as string | undefined) ?? env.CLOUDCHECK_CONFIG;
  if (explicitConfig) {
    configFile = resolvePath(cwd, explicitConfig);
    if (!existsSync(configFile)) throw new UsageError(`config file ${explicitConfig} does not exist`);
  } else if (existsSync(resolvePath(cwd, CONFIG_FILE))) {
    configFile = resolvePath(cwd, CONFIG_FILE);
  }
  if (configFile) config = loadConfigFile(configFile);

  for (const d of defs) {
    const flag = flags[d.name];
    const envValue = env[envName(d)];
    const key = configKey(d);
    if (flag !== undefined && !(Array.isArray(flag) && flag.length === 0)) {
      if (d.type === 'boolean') values[d.name] = flag;
      // A repeated flag gives one value each; only a comma list splits (headers never: a value may hold commas).
      else if (d.multiple)
        values[d.name] = d.separator
          ? (flag as string[]).map((f) => f.trim()).filter(Boolean)
          : (flag as string[]).flatMap((f) => splitValues(d, f));
      else values[d.name] = convert(d, flag as string, `--${d.name}`);
      sources[d.name] = 'flag';
    } else if (envValue !== undefined && envValue !== '') {
      values[d.name] = convert(d, envValue, envName(d));
      sources[d.name] = 'env';
    } else if (!d.noConfig && config[key] !== undefined) {
      let v = config[key];
      if ((d.type === 'list' || d.multiple) && typeof v === 'string') v = splitValues(d, v);
      values[d.name] = v;
      sources[d.name] = 'config';
    } else if (d.name in DEFAULTS) {
      values[d.name] = DEFAULTS[d.name as keyof typeof DEFAULTS];
      sources[d.name] = 'default';
    }
  }
  // Flags and environment go through the same schema as the file, naming where the value came from.
  const describe = (name: string): string => {
    const s = sources[name];
    if (s === 'env') return envName(name);
    if (s === 'config') return `${configFile}: "${configKey(name)}"`;
    return `--${name}`;
  };
  for (const d of defs) {
    if (d.noConfig || values[d.name] === undefined || sources[d.name] === 'config' || sources[d.name] === 'default')
      continue;
    check({ [configKey(d)]: values[d.name] }, () => describe(d.name), configKey(d));
  }
  checkValues(values, sources, describe, cwd, configFile);
  for (const d of defs)
    if (d.url && typeof values[d.name] === 'string') values[d.name] = normaliseBaseUrl(values[d.name] as string);
  return {
    // The one cast of resolution: each value was converted by its type (convert) and checked by the schema.
    values: values as OptionValues<C>,
    sources,
    positionals: parsed.positionals,
    configFile,
    help: flags.help === true,
    version: flags.version === true,
  };
}

function explainParseError(error: Error & { code?: string }, command: Command, defs: OptionDef[]): string {
  const names = defs.map((d) => d.name).concat(['help', 'version']);
  const flag = /'(-{1,2}[^'\s]+)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const bare = flag.replace(/^-+/, '').split('=')[0]!;
    const hint = suggest(bare, names);
    return `unknown option ${flag} for "cloudcheck ${command}"${hint ? `; did you mean --${hint}?` : ''} (see cloudcheck ${command} --help)`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return `${error.message.split('\n')[0]} (see cloudcheck ${command} --help)`;
  }
  return `${error.message.split('\n')[0]} (see cloudcheck ${command} --help)`;
}

export interface HelpSpec {
  synopsis: string;
  /** One line of what the command does. */
  summary: string;
  /** `[command line, what it does]`. */
  examples: Array<[string, string]>;
  /** `[code, meaning]`. */
  exitCodes: Array<[string, string]>;
}

/** One help pattern for every command: usage, what it does, its own options, examples, exit codes. */
export function formatHelp(spec: HelpSpec, optionRows: string[], footer: string[] = []): string {
  return [
    `usage: ${spec.synopsis}`,
    '',
    spec.summary,
    '',
    ...optionRows,
    '',
    'examples:',
    ...spec.examples.map(([line, what]) => `  ${line}\n      ${what}`),
    '',
    'exit codes:',
    ...spec.exitCodes.map(([code, meaning]) => `  ${code.padEnd(4)} ${meaning}`),
    ...(footer.length ? ['', ...footer] : []),
    '',
  ].join('\n');
}

/** Help text of a command, its options generated from the option table. */
export function helpText(command: Command, spec: HelpSpec): string {
  const defs = optionsFor(command);
  const rows = defs.map((d) => {
    const flag = `${d.short ? `-${d.short}, ` : ''}--${d.name}${d.type === 'boolean' ? '' : ` ${d.placeholder ?? 'VALUE'}`}`;
    const more = d.noConfig ? '' : ` [${envName(d)}]`;
    return `  ${flag.padEnd(30)} ${descriptionOf(d, command)}${d.multiple ? ' (repeatable)' : ''}${more}`;
  });
  return formatHelp(
    spec,
    [
      'options (each also reads the variable in brackets and the key of the same name, with _ for -,',
      `in ${CONFIG_FILE}; precedence: flag > environment > config file > default):`,
      ...rows,
      `  ${'-h, --help'.padEnd(30)} this text`,
    ],
    [
      'Variables read only from the environment (CLOUDCHECK_REQUEST_TIMEOUT_MS, HTTPS_PROXY, NO_PROXY, ...) are listed in docs/options.md.',
    ],
  );
}
