/**
 * The embedded reference server: a small, stateful, in-memory implementation of the whole API
 * (REST on one port, S3-compatible endpoint on another). `cloudcheck serve` runs it; `run` and
 * `load` start it when no target is given; the project's own tests start it on port 0.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildRestApp } from './app.ts';
import { AREAS } from './areas/index.ts';
import { AccountStore } from './core/accounts.ts';
import { SystemClock } from './core/clock.ts';
import {
  type CarrierNumbers,
  type Delays,
  type ReferenceContext,
  type TestNumbers,
  createStateMaps,
} from './core/context.ts';
import { EVENT_FAULTS, EventDispatcher, eventFaultMutation } from './core/events.ts';
import { ActiveFaults, type FaultDefinition, type FaultScopes } from './core/faults.ts';
import { CORE_FAULTS } from './core/http.ts';
import { PAGINATION_FAULTS } from './core/pagination.ts';
import { newSecret } from './core/ids.ts';
import { SeededRandom } from './core/random.ts';
import { FixedWindowLimiter } from './core/rate-limit.ts';
import { ServiceRegistry } from './core/services.ts';
import { buildS3App } from './s3/app.ts';
import { S3_FAULTS } from './s3/faults.ts';
import { S3_VARIANTS } from './s3/variants.ts';
import { CORE_VARIANTS } from './core/core-variants.ts';
import { setBarePrefix, setIdStyle } from './core/ids.ts';
import type { FaultName } from './core/faults.ts';
import { ActiveVariants, type VariantDefinition } from './core/variants.ts';

export interface ReferenceOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  s3Port?: number;
  apiKey?: string;
  altApiKey?: string;
  /** A key of the first account that is never rate limited (benchmarks only). */
  unlimitedKey?: string;
  faults?: readonly string[];
  /** Faults limited to some checks (core/faults.ts); the others bend every request. */
  faultScopes?: FaultScopes;
  /** Legal variants, `NAME` or `NAME=MS` (core/variants.ts). */
  variants?: readonly string[];
  seed?: number;
  testNumbers?: Partial<TestNumbers>;
  /** Numbers the simulated carrier rejects or never confirms (reference behaviour only). */
  carrierNumbers?: Partial<CarrierNumbers>;
  /** Unset `smsValidityMs` follows `smsDeliveryMs` (see resolveDelays). */
  delays?: Partial<Delays>;
  dataDir?: string;
  /** Call webhooks on non-loopback hosts too (off: the server only calls back to loopback). */
  allowRemoteWebhooks?: boolean;
  /**
   * Keep `context.requestLog` (the project's trust tests read it). Off by default: the hook that
   * fills it cost a fifth of the CPU of a test-mode send (bench/reference-vs-fastify.ts).
   */
  recordRequests?: boolean;
}

export interface RunningReference {
  baseUrl: string;
  s3Url: string;
  apiKey: string;
  altApiKey: string;
  /** The live state, for the project's own tests (request log, deliveries, ...). */
  context: ReferenceContext;
  close(): Promise<void>;
}

export const DEFAULT_TEST_NUMBERS: TestNumbers = {
  succeed: '+15005550006',
  fail: '+15005550001',
  random: '+15005550009',
};

/** Beside the test numbers; +15005550002 is the number Twilio's test credentials cannot route. */
export const DEFAULT_CARRIER_NUMBERS: CarrierNumbers = { reject: '+15005550002', expire: '+15005550003' };

/** The default validity period, in delivery delays: an expiring message is visibly `sent` first. */
export const SMS_VALIDITY_FACTOR = 4;

/** Short enough for a test run, long enough that `creating` and `sent` are observable. */
export const DEFAULT_DELAYS: Delays = {
  vpsBootMs: 300,
  smsDeliveryMs: 150,
  smsValidityMs: SMS_VALIDITY_FACTOR * 150,
  senderApprovalMs: 300,
  webhookRetryMs: 200,
};

/**
 * An unset validity period is SMS_VALIDITY_FACTOR delivery delays, so a caller that shortens the
 * delivery delay (every test does) shortens expiry with it and never waits for the default.
 */
export function resolveDelays(given: Partial<Delays> = {}, variants?: ActiveVariants): Delays {
  const delays = { ...DEFAULT_DELAYS, ...given };
  // The slow variants stand for a real cloud: they win over the short test delays.
  if (variants?.has('vps-boot-slow')) delays.vpsBootMs = variants.ms('vps-boot-slow', delays.vpsBootMs);
  if (variants?.has('sms-delivery-slow')) delays.smsDeliveryMs = variants.ms('sms-delivery-slow', delays.smsDeliveryMs);
  if (given.smsValidityMs === undefined) delays.smsValidityMs = SMS_VALIDITY_FACTOR * delays.smsDeliveryMs;
  return delays;
}

/** The fault of each id prefix: its area's `ids-unprefixed-*` (the `*-ID-001` conventions). */
const ID_FAULTS: Readonly<Record<string, FaultName>> = {
  msg: 'ids-unprefixed-messaging',
  cmp: 'ids-unprefixed-messaging',
  tpl: 'ids-unprefixed-messaging',
  cl: 'ids-unprefixed-messaging',
  wh: 'ids-unprefixed-messaging',
  vps: 'ids-unprefixed-compute',
  act: 'ids-unprefixed-compute',
  ssh: 'ids-unprefixed-compute',
  snap: 'ids-unprefixed-compute',
  vol: 'ids-unprefixed-volumes',
  vsnap: 'ids-unprefixed-volumes',
  txn: 'ids-unprefixed-billing',
  pm: 'ids-unprefixed-billing',
  inv: 'ids-unprefixed-billing',
  alert: 'ids-unprefixed-billing',
  proj: 'ids-unprefixed-projects',
  key: 'ids-unprefixed-api-keys',
};

export function listFaults(): FaultDefinition[] {
  return [...CORE_FAULTS, ...PAGINATION_FAULTS, ...EVENT_FAULTS, ...AREAS.flatMap((area) => area.faults), ...S3_FAULTS];
}

/**
 * Where each fault lives: an area plugin's name, `s3`, or `core` for the shared pipeline
 * (authentication, limits, errors, pagination, events), whose faults touch every area.
 */
export function faultOrigins(): Map<string, string> {
  const origins = new Map<string, string>();
  for (const f of [...CORE_FAULTS, ...PAGINATION_FAULTS, ...EVENT_FAULTS]) origins.set(f.name, 'core');
  for (const area of AREAS) for (const f of area.faults) origins.set(f.name, area.name);
  for (const f of S3_FAULTS) origins.set(f.name, 's3');
  return origins;
}

export function listVariants(): VariantDefinition[] {
  return [...CORE_VARIANTS, ...AREAS.flatMap((area) => area.variants ?? []), ...S3_VARIANTS];
}

export async function createReferenceContext(
  options: ReferenceOptions = {},
): Promise<{ ctx: ReferenceContext; ownsDataDir: boolean }> {
  const clock = new SystemClock();
  const faults = new ActiveFaults(options.faults ?? [], listFaults(), options.faultScopes);
  const variants = new ActiveVariants(options.variants ?? [], listVariants());
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'cloudcheck-reference-')));
  const seed = options.seed ?? 1;
  const ctx: ReferenceContext = {
    options: {
      seed,
      delays: resolveDelays(options.delays, variants),
      testNumbers: { ...DEFAULT_TEST_NUMBERS, ...options.testNumbers },
      carrierNumbers: { ...DEFAULT_CARRIER_NUMBERS, ...options.carrierNumbers },
      dataDir,
      bodyLimit: 1024 * 1024,
      recordRequests: options.recordRequests ?? false,
      objectLimit: 5 * 1024 * 1024 * 1024,
      signingSecret: newSecret(32),
    },
    clock,
    rng: new SeededRandom(seed),
    faults,
    variants,
    accounts: new AccountStore(() => clock.now()),
    limiter: new FixedWindowLimiter(() => clock.now()),
    events: new EventDispatcher(clock, {
      retryBaseMs: options.delays?.webhookRetryMs ?? DEFAULT_DELAYS.webhookRetryMs,
      maxAttempts: 5,
      timeoutMs: 5000,
      allowRemote: options.allowRemoteWebhooks ?? false,
      otherSignature: variants.has('webhook-signature-other'),
      noRetry: () => faults.has('webhook-no-retry') || variants.has('webhook-single-attempt'),
      mutatePayload: eventFaultMutation(faults),
    }),
    services: new ServiceRegistry(),
    requestLog: [],
    ...createStateMaps(),
  };
  return { ctx, ownsDataDir };
}

export async function startReferenceServer(options: ReferenceOptions = {}): Promise<RunningReference> {
  const host = options.host ?? '127.0.0.1';
  const { ctx, ownsDataDir } = await createReferenceContext(options);
  // One id style per process (ids.ts): a server with ids-other-format sets it until it closes.
  if (ctx.variants.has('ids-other-format')) setIdStyle('uuid');
  const bare = Object.values(ID_FAULTS).some((fault) => ctx.faults.switchedOn(fault));
  if (bare)
    setBarePrefix((prefix) => {
      const fault = ID_FAULTS[prefix];
      return fault !== undefined && ctx.faults.has(fault);
    });

  const primary = ctx.accounts.createAccount({
    email: 'owner@example.com',
    name: 'Primary account',
    company: 'Example Corp',
  });
  const secondary = ctx.accounts.createAccount({
    email: 'other@example.org',
    name: 'Alternate account',
    company: null,
  });
  const everything = ['read', 'write'];
  const apiKey = ctx.accounts.createKey(primary.id, {
    name: 'bootstrap',
    permissions: everything,
    key: options.apiKey,
  }).key;
  const altApiKey = ctx.accounts.createKey(secondary.id, {
    name: 'bootstrap',
    permissions: everything,
    key: options.altApiKey,
  }).key;
  if (options.unlimitedKey)
    ctx.accounts.createKey(primary.id, {
      name: 'bench',
      permissions: everything,
      key: options.unlimitedKey,
      unlimited: true,
    });

  const rest = await buildRestApp(ctx, AREAS);
  const s3 = await buildS3App(ctx);
  const apps: FastifyInstance[] = [rest, s3];
  try {
    await rest.listen({ host, port: options.port ?? 0 });
    await s3.listen({ host, port: options.s3Port ?? 0 });
  } catch (error) {
    await Promise.allSettled(apps.map((app) => app.close()));
    throw error;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const portOf = (app: FastifyInstance): number => {
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('server has no port');
    return address.port;
  };
  return {
    baseUrl: `http://${urlHost}:${portOf(rest)}${ctx.faults.has('api-unversioned') ? '' : '/v1'}`,
    s3Url: `http://${urlHost}:${portOf(s3)}`,
    apiKey,
    altApiKey,
    context: ctx,
    async close() {
      ctx.clock.cancelAll();
      if (ctx.variants.has('ids-other-format')) setIdStyle('prefixed');
      if (bare) setBarePrefix(undefined);
      await Promise.allSettled(apps.map((app) => app.close()));
      if (ownsDataDir) await rm(ctx.options.dataDir, { recursive: true, force: true });
    },
  };
}
