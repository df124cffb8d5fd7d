/**
 * Load profiles: YAML files validated by load/profile.schema.json. Validation is kept apart from
 * the run loop (as autocannon keeps defaultOptions/validate apart from run). Every error names the
 * file and the key.
 */
import { readFile, readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import schema from './profile.schema.json' with { type: 'json' };
import type { InvariantName, WindowName } from '../src/rules/rate-limits.ts';
import { unknownPlaceholders } from './template.ts';
import type { StatusClass } from '../src/model/load.ts';

export type KeyRef = 'main' | 'round-robin' | number;

/** One stage of a ramping arrival rate (load/arrival.ts). */
export interface ArrivalStage {
  /** Seconds. */
  duration: number;
  /** Requests per second reached at the end of the stage (linearly from the previous rate). */
  target: number;
}

export interface RequestTemplate {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export type Executor = 'closed' | 'constant-arrival-rate' | 'ramping-arrival-rate';

export interface LoadModel {
  executor?: Executor;
  stages?: ArrivalStage[];
  connections?: number;
  amount?: number;
  duration?: number;
  rate?: number;
  timeout?: number;
}

export interface Percentiles {
  p50?: number;
  p95?: number;
  p99?: number;
}

export interface RateLimitSpec {
  phase?: string;
  limit: number;
  window: WindowName;
  counter?: 'requests' | 'sms';
  area?: 'messaging' | 'compute' | 'storage' | 'billing' | 'projects';
  ordering?: 'sequential' | 'concurrent';
  invariants?: InvariantName[];
  sms_limit?: number;
  recovery?: boolean;
  require_429?: boolean;
}

export interface Profile {
  name: string;
  description?: string;
  /** Requirement ids this profile verifies. */
  requirements?: string[];
  keys?: { fresh?: number; permissions?: ('read' | 'write')[] };
  align?: { window: WindowName; min_seconds_left: number };
  model?: LoadModel;
  requests?: RequestTemplate[];
  phases?: { name: string; key?: KeyRef; model?: LoadModel; requests?: RequestTemplate[] }[];
  key?: KeyRef;
  side_effects?: { probe: string; pages?: number };
  expectations: {
    latency?: Partial<Record<StatusClass, Percentiles>>;
    max_error_rate?: number;
    max_5xx?: number;
    max_429?: number;
    latency_drift?: number;
    headers?: boolean;
    rate_limit?: RateLimitSpec;
    isolation?: { phase: string };
  };
}

/** A phase after defaults and hard caps. */
export interface ResolvedPhase {
  name: string;
  executor: Executor;
  /** ramping-arrival-rate: the rate's stages (the start rate is `rate`). */
  stages?: ArrivalStage[];
  key: KeyRef;
  connections: number;
  /** Requests to send; always set (hard cap). */
  amount: number;
  /** Whether the profile gave `amount` (else the phase is duration-driven, amount is only a cap). */
  amountGiven: boolean;
  /** Seconds; always set (hard cap). */
  duration: number;
  rate?: number;
  timeout: number;
  requests: RequestTemplate[];
}

export interface LoadedProfile {
  file: string;
  profile: Profile;
  phases: ResolvedPhase[];
  /** Notes about caps applied, shown in the summary. */
  notes: string[];
}

/** Hard caps: every run is bounded in time and count whatever the profile says. */
export const HARD_CAPS = { requestsPerPhase: 20_000, secondsPerPhase: 120, connections: 500 } as const;

export class ProfileError extends Error {
  constructor(
    readonly file: string,
    readonly key: string,
    message: string,
  ) {
    super(`${file}: ${key ? `${key}: ` : ''}${message}`);
    this.name = 'ProfileError';
  }
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validate = ajv.compile(schema);

function keyOf(error: ErrorObject): string {
  const base = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  const extra = params.additionalProperty ?? params.missingProperty;
  return extra ? (base ? `${base}.${extra}` : extra) : base || '(root)';
}

function describe(error: ErrorObject): string {
  const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'additionalProperties') return `unknown key "${params.additionalProperty}"`;
  if (error.keyword === 'enum')
    return `${error.message} (${(params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')})`;
  return error.message ?? error.keyword;
}

/** Validates parsed YAML. Throws ProfileError naming the file and the first offending key. */
export function validateProfile(data: unknown, file: string): LoadedProfile {
  if (!validate(data)) {
    const errors = validate.errors ?? [];
    // oneOf errors repeat the branch errors; the most specific (deepest) error reads best.
    const best = [...errors].sort((a, b) => keyOf(b).split('.').length - keyOf(a).split('.').length)[0];
    const all = errors.filter((e) => e.keyword !== 'oneOf').map((e) => `${keyOf(e)}: ${describe(e)}`);
    const msg = best ? describe(best) : 'invalid';
    const err = new ProfileError(file, best ? keyOf(best) : '', msg);
    err.message += all.length > 1 ? ` (also: ${[...new Set(all)].slice(1, 4).join('; ')})` : '';
    throw err;
  }
  const profile = data as unknown as Profile;
  const notes: string[] = [];
  if (!profile.phases && !profile.requests)
    throw new ProfileError(file, 'requests', 'a profile needs requests (or phases with requests)');
  const freshCount = profile.keys?.fresh ?? 0;
  const rawPhases = profile.phases ?? [{ name: 'main' }];
  const phases: ResolvedPhase[] = rawPhases.map((p, i) => {
    const where = profile.phases ? `phases.${i}` : '';
    const requests = p.requests ?? profile.requests;
    if (!requests) throw new ProfileError(file, `${where}.requests`.replace(/^\./, ''), 'no requests for this phase');
    requests.forEach((r, j) => {
      const bad = unknownPlaceholders([r.path, r.headers ?? {}, r.body ?? null]);
      if (bad.length > 0) {
        const base = p.requests ? `${where}.requests.${j}` : `requests.${j}`;
        throw new ProfileError(
          file,
          base,
          `unknown placeholder {{${bad[0]}}} (known: uuid, e164, e164List:N, runPrefix, requestId, index, faker.<module>.<method>)`,
        );
      }
    });
    const model = { ...profile.model, ...p.model };
    const key = p.key ?? profile.key ?? (freshCount > 0 ? 'round-robin' : 'main');
    if (typeof key === 'number' && key >= freshCount) {
      throw new ProfileError(
        file,
        `${where ? `${where}.` : ''}key`,
        `fresh key ${key} does not exist (keys.fresh is ${freshCount})`,
      );
    }
    if (key === 'round-robin' && freshCount === 0)
      throw new ProfileError(file, 'key', 'round-robin needs keys.fresh > 0');
    let amount = model.amount ?? HARD_CAPS.requestsPerPhase;
    if (amount > HARD_CAPS.requestsPerPhase) {
      notes.push(`phase ${p.name}: amount ${amount} capped at ${HARD_CAPS.requestsPerPhase}`);
      amount = HARD_CAPS.requestsPerPhase;
    }
    const executor = model.executor ?? 'closed';
    const at = `${where ? `${where}.` : ''}model`;
    if (executor === 'constant-arrival-rate' && model.rate === undefined)
      throw new ProfileError(file, `${at}.rate`, 'constant-arrival-rate needs a rate (requests per second)');
    if (executor === 'ramping-arrival-rate' && !model.stages)
      throw new ProfileError(file, `${at}.stages`, 'ramping-arrival-rate needs stages');
    if (executor !== 'ramping-arrival-rate' && model.stages)
      throw new ProfileError(file, `${at}.stages`, 'stages belong to the ramping-arrival-rate executor');
    const staged = model.stages?.reduce((sum, s) => sum + s.duration, 0);
    let duration = staged ?? model.duration ?? (model.amount ? HARD_CAPS.secondsPerPhase : 10);
    if (duration > HARD_CAPS.secondsPerPhase) {
      notes.push(`phase ${p.name}: duration ${duration}s capped at ${HARD_CAPS.secondsPerPhase}s`);
      duration = HARD_CAPS.secondsPerPhase;
    }
    // An arrival-rate phase needs room for requests in flight; a closed one sends one at a time by default.
    const connections = Math.min(model.connections ?? (executor === 'closed' ? 1 : 100), HARD_CAPS.connections, amount);
    return {
      name: p.name,
      executor,
      ...(model.stages ? { stages: model.stages } : {}),
      key,
      connections,
      amount,
      amountGiven: model.amount !== undefined,
      duration,
      rate: model.rate,
      timeout: model.timeout ?? 10,
      requests,
    };
  });
  const phaseNames = new Set(phases.map((p) => p.name));
  const rl = profile.expectations.rate_limit;
  if (rl?.phase && !phaseNames.has(rl.phase))
    throw new ProfileError(file, 'expectations.rate_limit.phase', `no phase named "${rl.phase}"`);
  const iso = profile.expectations.isolation;
  if (iso && !phaseNames.has(iso.phase))
    throw new ProfileError(file, 'expectations.isolation.phase', `no phase named "${iso.phase}"`);
  return { file, profile, phases, notes };
}

/** Reads and validates one profile file. */
export async function loadProfileFile(file: string): Promise<LoadedProfile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new ProfileError(file, '', `cannot read: ${(e as Error).message}`);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ProfileError(file, '', `invalid YAML: ${doc.errors[0]?.message ?? ''}`);
  return validateProfile(doc.toJS(), file);
}

export const BUILTIN_PROFILE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'profiles');

export async function builtinProfileNames(): Promise<string[]> {
  const files = await readdir(BUILTIN_PROFILE_DIR);
  return files
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => basename(f, '.yaml'))
    .sort();
}

/** A name of a built-in profile (`burst-compute`) or a path to a YAML file. */
export async function resolveProfile(nameOrPath: string): Promise<LoadedProfile> {
  if (/[\\/]|\.ya?ml$/.test(nameOrPath)) return loadProfileFile(resolve(nameOrPath));
  const names = await builtinProfileNames();
  if (!names.includes(nameOrPath)) {
    throw new ProfileError(nameOrPath, '', `no built-in profile of that name (built-in: ${names.join(', ')})`);
  }
  const loaded = await loadProfileFile(join(BUILTIN_PROFILE_DIR, `${nameOrPath}.yaml`));
  // Show built-in profiles by their repository path, not this machine's.
  return { ...loaded, file: `load/profiles/${nameOrPath}.yaml` };
}

/** `cloudcheck load --connections/--rate/--duration`: one value for every phase of every profile. */
export interface PhaseOverrides {
  connections?: number;
  /** Requests per second, all connections together. */
  rate?: number;
  /** Seconds. */
  duration?: number;
}

/**
 * The profile with the command line's values in every phase, within the hard caps, each change
 * in the notes the summary prints (k6's `--vus`/`--duration` habit). A phase that sends a fixed
 * number of requests still stops at that number: the overrides change how, not how much.
 */
export function applyOverrides(loaded: LoadedProfile, overrides: PhaseOverrides): LoadedProfile {
  const notes = [...loaded.notes];
  const phases = loaded.phases.map((phase) => {
    const next = { ...phase };
    if (overrides.connections !== undefined)
      next.connections = Math.min(overrides.connections, HARD_CAPS.connections, phase.amount);
    if (overrides.rate !== undefined) next.rate = overrides.rate;
    if (overrides.duration !== undefined) next.duration = Math.min(overrides.duration, HARD_CAPS.secondsPerPhase);
    const changed = [
      next.connections !== phase.connections ? `connections ${phase.connections} → ${next.connections}` : '',
      next.rate !== phase.rate ? `rate ${phase.rate ?? 'unlimited'} → ${next.rate}/s` : '',
      next.duration !== phase.duration ? `duration ${phase.duration} s → ${next.duration} s` : '',
    ].filter(Boolean);
    if (changed.length) notes.push(`phase ${phase.name}: ${changed.join(', ')} (command line)`);
    return next;
  });
  return { ...loaded, phases, notes };
}
