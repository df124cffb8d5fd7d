/**
 * Everything an area plugin gets: options, clock, randomness, faults, accounts and keys, the
 * limiter, events and the service registry. Per-account state lives in `accountState`, keyed by
 * area name, so the core never knows the shape of an area's data.
 */
import type { AccountStore } from './accounts.ts';
import type { SystemClock } from './clock.ts';
import type { EventDispatcher } from './events.ts';
import type { ActiveFaults } from './faults.ts';
import type { SeededRandom } from './random.ts';
import type { FixedWindowLimiter } from './rate-limit.ts';
import type { ServiceRegistry } from './services.ts';
import type { ActiveVariants } from './variants.ts';

export interface Delays {
  /** POST /vps `creating` → `running`. */
  vpsBootMs: number;
  /** `sent` → final message state. */
  smsDeliveryMs: number;
  /** `sent` → `expired` for a message the carrier never confirms, counted from sending. */
  smsValidityMs: number;
  /** Sender id registration `pending` → `approved`. */
  senderApprovalMs: number;
  /** First webhook retry; doubles each attempt. */
  webhookRetryMs: number;
}

export interface TestNumbers {
  succeed: string;
  fail: string;
  random: string;
}

/** Reserved numbers of the simulated carrier (reference-server behaviour, docs/conventions.md). */
export interface CarrierNumbers {
  /** The carrier refuses the message: `rejected` after the delivery delay. */
  reject: string;
  /** The carrier never confirms: `expired` once the validity period has passed. */
  expire: string;
}

export interface ResolvedOptions {
  seed: number;
  delays: Delays;
  testNumbers: TestNumbers;
  carrierNumbers: CarrierNumbers;
  /** Folder for object bytes (a fresh temp folder by default). */
  dataDir: string;
  /** Largest JSON body accepted (bytes). */
  bodyLimit: number;
  /** Fill `requestLog` (trust tests); off, no hook runs after each response. */
  recordRequests: boolean;
  /** Largest object or part upload accepted (bytes). */
  objectLimit: number;
  /** Secret used to sign presigned URLs. */
  signingSecret: string;
}

export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  keyPrefix: string | null;
  testMode: boolean;
}

export interface ReferenceContext {
  options: ResolvedOptions;
  clock: SystemClock;
  rng: SeededRandom;
  faults: ActiveFaults;
  /** Legal variants switched on (core/variants.ts): other choices where the specification is silent. */
  variants: ActiveVariants;
  accounts: AccountStore;
  limiter: FixedWindowLimiter;
  events: EventDispatcher;
  services: ServiceRegistry;
  /** Every request the server answered, oldest first (bounded), when `options.recordRequests`; trust tests read it. */
  requestLog: RequestLogEntry[];
  accountState<T>(accountId: string, area: string, init: () => T): T;
  globalState<T>(name: string, init: () => T): T;
}

export function createStateMaps(): Pick<ReferenceContext, 'accountState' | 'globalState'> {
  // Area, then account: nested maps, so the lookup every request makes builds no key string.
  const perArea = new Map<string, Map<string, unknown>>();
  const global = new Map<string, unknown>();
  return {
    accountState<T>(accountId: string, area: string, init: () => T): T {
      let accounts = perArea.get(area);
      if (!accounts) perArea.set(area, (accounts = new Map()));
      if (!accounts.has(accountId)) accounts.set(accountId, init());
      return accounts.get(accountId) as T;
    },
    globalState<T>(name: string, init: () => T): T {
      if (!global.has(name)) global.set(name, init());
      return global.get(name) as T;
    },
  };
}
