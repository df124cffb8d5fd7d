/**
 * The run's own API keys. They are created once, in the Playwright runner process (global setup),
 * before any worker starts: N = workers × keys-per-worker keys, with the run's key. Workers take
 * their share by parallel index from CLOUDCHECK_BUDGET_KEYS (with the more keys of the account a
 * person gave, --api-key repeated) and never create keys themselves.
 *
 * Why here and not in each worker: key creation is a billing-area request (POST
 * /account/api-keys), and the billing window is 100/h per key. Workers creating keys lazily, with
 * the run's key, spent that window while billing checks were using it too; a run could exhaust it
 * and wait for minutes. Created up front, the run's key spends exactly N creations and N
 * revocations in its billing window, and the budget keeps it out of billing traffic
 * (`keptOut` in budget.ts), so checks never compete with key management.
 *
 * Every key is recorded in a ledger journal the moment it exists; the global teardown revokes
 * them (also after Ctrl-C: Playwright runs the teardown when interrupted), and `cloudcheck run`
 * revokes whatever a killed runner left, from the journal (recover.ts).
 */
import type { Dispatcher } from 'undici';
import { Budget } from './budget.ts';
import { ApiClient } from './client.ts';
import type { ClientSettings } from './client.ts';
import { Ledger } from './ledger.ts';
import { addSecret } from './redact.ts';

/** Keys created (and revoked) at once: few enough for any target, enough to hide the round trips. */
const KEYS_IN_FLIGHT = 6;

/** Keys expire on their own after this long, in case revocation never happens (a killed runner). */
export const RUN_KEY_LIFETIME_MS = 3 * 3_600_000;

/**
 * The keys of one worker: every `workers`-th key from its parallel index (0..workers-1), so that
 * the keys the run created and the more keys a person gave (--api-key) spread evenly, however many
 * there are. A worker restarted after a failure has the same parallel index and gets the same
 * keys; no two live workers share one, so each worker's own counts stay right.
 */
export function keysForWorker(all: readonly string[], parallelIndex: number, workers: number): string[] {
  if (workers <= 0 || parallelIndex < 0) return [];
  return all.filter((_, i) => i % workers === parallelIndex);
}

export interface RunKeys {
  keys: string[];
  /** Why fewer keys than asked were created (the target refused, an error), or null. */
  shortfall: string | null;
  /** Revokes every key created (idempotent); returns how many could not be revoked. */
  revoke(): Promise<number>;
}

export interface CreateRunKeysOptions {
  settings: ClientSettings;
  count: number;
  /** Names the keys `<prefix>budget-<n>`: the run prefix, so `cloudcheck sweep` recognises them. */
  namePrefix: string;
  /** The run's temp dir: the ledger journal goes there (null: in memory only, unit tests). */
  journalDir: string | null;
  /** How the requests connect (the CLI's session); default: the process's pool (client.ts processAgent). */
  dispatcher?: Dispatcher;
  now?: () => number;
}

/**
 * Creates up to `count` keys with the run's key, a few at a time; stops at the first refusal (no
 * key, no error: the run falls back to its own key).
 */
export async function createRunKeys(options: CreateRunKeysOptions): Promise<RunKeys> {
  const { settings } = options;
  const now = options.now ?? Date.now;
  // Only the run's key, with a generous wait: key management is the one use of its billing window.
  const client = new ApiClient({
    settings,
    budgets: { main: new Budget([settings.keys.main], { maxWaitMs: 30_000 * settings.timeoutScale }) },
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const ledger = new Ledger('run-keys', options.journalDir);
  // By index, so the keys keep their names' order whatever order they are created in.
  const created: Array<string | undefined> = [];
  let shortfall: string | null = null;
  let next = 1;
  const createOne = async (n: number): Promise<string | null> => {
    const res = await client.request({
      method: 'POST',
      path: '/account/api-keys',
      key: settings.keys.main,
      json: {
        name: `${options.namePrefix}budget-${n}`,
        permissions: ['read', 'write'],
        expires_at: new Date(now() + RUN_KEY_LIFETIME_MS).toISOString(),
      },
    });
    if (res.status < 200 || res.status >= 300) return `POST /account/api-keys answered ${res.status}`;
    const body = res.body as { api_key?: { id?: unknown; key?: unknown }; id?: unknown; key?: unknown } | undefined;
    const record = body?.api_key ?? body;
    if (typeof record?.id !== 'string' || typeof record.key !== 'string')
      return 'POST /account/api-keys answered without a key id and secret';
    addSecret(record.key);
    ledger.track('api-key', record.id);
    created[n - 1] = record.key;
    return null;
  };
  // A few at a time (each is a round trip: a dozen in a row took a second across a network);
  // after the first refusal no more are asked for.
  const creator = async (): Promise<void> => {
    while (shortfall === null && next <= options.count) {
      const n = next++;
      try {
        shortfall = (await createOne(n)) ?? shortfall;
      } catch (error) {
        shortfall = error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(KEYS_IN_FLIGHT, options.count) }, creator));
  const keys = created.filter((key): key is string => key !== undefined);
  let revoked: Promise<number> | null = null;
  return {
    keys,
    shortfall,
    revoke() {
      revoked ??= ledger
        .teardown((account) => (account === 'main' ? client : null), { inFlight: KEYS_IN_FLIGHT })
        .then((leaks) => leaks.length);
      return revoked;
    },
  };
}
