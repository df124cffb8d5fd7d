/**
 * Slow provisioning started early. On a real cloud a new VPS takes tens of seconds to boot; a run
 * whose flows each create theirs when they reach that step waits out one boot after the other.
 * A check (or flow step) that needs something slow declares it as a Provision (`provisions` in
 * its meta, check.ts): a function that makes it, with the same client, names and ledger a check
 * has. In a run, the Playwright runner starts every provision the selected checks declare as soon
 * as it knows them (scheduler.ts, before any worker starts), so they all boot at once and while
 * the rest of the run goes on; the check then takes what was made for it (`take`). Run alone or
 * without a runner that provisions (a bare `npx playwright test --shard`, a unit test), `take`
 * makes it there and then, as the check always did.
 *
 * A provision belongs to the one check that takes it (named by the check's id, repetition
 * included): flows keep their own resources. Its requests carry that check's id (client.ts
 * CHECK_HEADER), as if the check had sent them, and are recorded into the check when it takes
 * them; what they created moves into the check's ledger. A pool (`pool: true`) is made once per
 * worker that will want one (the contract checks' running VPS, cached per worker): any of those
 * checks takes the first one ready, and it is the worker's from then on.
 *
 * Between the runner and the workers, one file per provision in the run's temp dir: `.pending`
 * while it is made, `.json` when made (or `.failed`), renamed to `.taken` by the taker. What no
 * check took is torn down by the runner's global teardown.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from '../model/finding.ts';
import { Budget } from './budget.ts';
import { ApiClient, apiResponse } from './client.ts';
import type { ApiResponse } from './client.ts';
import type { CheckContext } from './fixtures.ts';
import { Ledger } from './ledger.ts';
import type { LedgerEntry } from './ledger.ts';
import type { CheckSettings, RunSettings } from './settings.ts';

/** What a provision's maker gets: a check's tools, without a test around them. */
export interface ProvisionEnv {
  api: ApiClient;
  ledger: Ledger;
  /** A unique name with the run prefix, as `ctx.name` makes them. */
  name(label: string): string;
  /** What a check sees of the run (its `ctx`). */
  settings: CheckSettings;
}

/**
 * What a provision makes: JSON, and responses (ApiResponse), which travel whole: the check judges
 * them as if it had sent the request itself.
 */
export type ProvisionMaker<T> = (env: ProvisionEnv) => Promise<T>;

interface Registered {
  name: string;
  pool: boolean;
  late: boolean;
  make: ProvisionMaker<unknown>;
}

/** The provisions of every loaded suite file, by name (one registry per process, whatever loaded the module). */
const REGISTRY = Symbol.for('cloudcheck.provisions');
function registry(): Map<string, Registered> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Registered> };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

export class Provision<T> {
  /**
   * `name`: unique in the suite (`flow.vps-lifecycle.vps`). `pool`: made once per worker that will
   * want one, taken by the first check of the worker that asks (a resource the worker caches).
   * `late`: what it makes takes long to be ready (a VPS boots): the checks that take it are
   * scheduled last (scheduler.ts), so that a worker does not wait for it doing nothing else.
   */
  constructor(
    readonly name: string,
    private readonly make: ProvisionMaker<T>,
    readonly options: { pool?: boolean; late?: boolean } = {},
  ) {
    registry().set(name, { name, pool: options.pool ?? false, late: options.late ?? false, make });
  }

  /**
   * In the check that needs it: what the runner made for this check (its exchanges recorded as
   * the check's, what it created moved into `ledger`), waiting for it when it is still being
   * made; otherwise it is made now, by the check.
   */
  async take(env: { api: ApiClient; ledger: Ledger; ctx: CheckContext }): Promise<T> {
    const made = await this.takeMade(env);
    if (made !== null) return made;
    return this.make({
      api: env.api,
      ledger: env.ledger,
      name: (label) => env.ctx.name(label),
      settings: env.ctx,
    });
  }

  /** What the runner made for this check (as `take`), or null when it made nothing for it. */
  async takeMade(env: { api: ApiClient; ledger: Ledger; ctx: CheckContext }): Promise<T | null> {
    const made = await takeMade(this, env.ctx);
    if (!made) return null;
    env.api.recordShared(made.exchanges);
    for (const entry of made.created)
      env.ledger.track(entry.kind, entry.id, {
        account: entry.account,
        deletePath: entry.deletePath,
        deleteOperation: entry.deleteOperation,
        rank: entry.rank,
      });
    return thaw(made.value) as T;
  }
}

/** Whether the checks that take the provision `name` are scheduled last (its `late` option). */
export function isLate(name: string): boolean {
  return registry().get(name)?.late ?? false;
}

/** A provision as made in the runner and handed to its check through the run's temp dir. */
interface Made {
  value: unknown;
  exchanges: Exchange[];
  created: LedgerEntry[];
}

export function provisionsDir(runTmp: string): string {
  return join(runTmp, 'provisions');
}

/** The file stem of a provision for a check (or of a pool's member `n`). */
function stemOf(name: string, owner: string): string {
  return `${name}@${owner}`.replace(/[^a-zA-Z0-9._@#-]/g, '_');
}

// ---------------------------------------------------------------------------------------------
// The worker's side

/** How long a check waits for a provision the runner is still making, at most. */
function waitLimitMs(ctx: CheckContext): number {
  return ctx.asyncTimeoutMs;
}

async function takeMade(provision: Provision<unknown>, ctx: CheckContext): Promise<Made | null> {
  if (!ctx.runTmp) return null;
  const dir = provisionsDir(ctx.runTmp);
  if (!existsSync(dir)) return null;
  const deadline = Date.now() + waitLimitMs(ctx);
  if (!provision.options.pool) {
    const stem = join(dir, stemOf(provision.name, ctx.checkId));
    if (!existsSync(`${stem}.pending`)) return null;
    const settled = (): boolean => ['json', 'failed', 'taken'].some((end) => existsSync(`${stem}.${end}`));
    while (!settled() && Date.now() < deadline) await pause();
    return claim(stem);
  }
  // A pool: the first member ready that no other worker took; none left (all taken): make one.
  const prefix = stemOf(provision.name, 'pool');
  for (;;) {
    const files = new Set(readdirSync(dir).filter((f) => f.startsWith(prefix)));
    let making = false;
    for (const pending of [...files].filter((f) => f.endsWith('.pending'))) {
      const stem = pending.slice(0, -'.pending'.length);
      if (files.has(`${stem}.json`)) {
        const made = claim(join(dir, stem));
        if (made) return made;
      } else if (!files.has(`${stem}.taken`) && !files.has(`${stem}.failed`)) making = true;
    }
    if (!making || Date.now() >= deadline) return null;
    await pause();
  }
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/** Takes a made provision (the rename is atomic: one taker only); null when it failed or another took it. */
function claim(stem: string): Made | null {
  try {
    renameSync(`${stem}.json`, `${stem}.taken`);
  } catch {
    return null;
  }
  return JSON.parse(readFileSync(`${stem}.taken`, 'utf8')) as Made;
}

// ---------------------------------------------------------------------------------------------
// The runner's side

/** Makes the run's provisions in the Playwright runner (global setup creates it, scheduler.ts uses it). */
export class Provisioner {
  private readonly dir: string;
  private readonly client: ApiClient;
  private readonly budgets: { main: Budget; alt: Budget | null };
  private readonly made: Array<{ stem: string; ledger: Ledger; done: Promise<void> }> = [];

  constructor(private readonly settings: RunSettings & { runTmp: string }) {
    this.dir = provisionsDir(settings.runTmp);
    mkdirSync(this.dir, { recursive: true });
    this.budgets = {
      main: new Budget([settings.keys.main]),
      alt: settings.keys.alt ? new Budget([settings.keys.alt]) : null,
    };
    this.client = new ApiClient({ settings, budgets: this.budgets });
  }

  /** Whether `name` is a pool (made per worker that wants one, not per check). */
  isPool(name: string): boolean {
    return registry().get(name)?.pool ?? false;
  }

  /** Starts making `name` for the check `owner` (not awaited: everything provisions at once). */
  start(name: string, owner: string): void {
    const provision = registry().get(name);
    if (!provision || provision.pool) return;
    this.begin(provision, stemOf(name, owner), owner);
  }

  /** Starts `count` members of the pool `name`; their requests name no check (any check may take one). */
  startPool(name: string, count: number): void {
    const provision = registry().get(name);
    if (!provision?.pool) return;
    for (let n = 1; n <= count; n++) this.begin(provision, `${stemOf(name, 'pool')}#${n}`, null);
  }

  private begin(provision: Registered, stem: string, owner: string | null): void {
    const path = join(this.dir, stem);
    writeFileSync(`${path}.pending`, '');
    const ledger = new Ledger(`provision:${stem}`, this.settings.runTmp, { keep: this.settings.keep });
    const exchanges: Exchange[] = [];
    const record = (exchange: Exchange): void => {
      exchanges.push(exchange);
    };
    const api =
      owner === null
        ? new ApiClient({ settings: this.settings, budgets: this.budgets, record })
        : this.client.forCheck(owner, record);
    let counter = 0;
    const name = (label: string): string =>
      `${this.settings.runPrefix}${label}-p${++counter}${Math.random().toString(36).slice(2, 6)}`
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 63)
        .replace(/-+$/, '');
    const done = provision
      .make({ api, ledger, name, settings: this.settings })
      .then((value) => {
        const made: Made = { value: freeze(value), exchanges, created: ledger.pending() };
        writeFileSync(`${path}.partial`, JSON.stringify(made));
        renameSync(`${path}.partial`, `${path}.json`);
      })
      .catch((error: unknown) => {
        // The check makes it itself then, and reports what goes wrong; what this attempt created
        // is torn down with the rest.
        writeFileSync(`${path}.failed`, error instanceof Error ? error.message : String(error));
      });
    this.made.push({ stem: path, ledger, done });
  }

  /**
   * After the run: what no check took is deleted (a check that took one owns what it created).
   * Waits for provisions still being made first.
   */
  async teardown(): Promise<void> {
    await Promise.all(this.made.map((m) => m.done));
    for (const m of this.made) {
      if (existsSync(`${m.stem}.taken`)) continue;
      await m.ledger.teardown(() => this.client);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Responses across processes

const RESPONSE = '__cloudcheckResponse';

interface FrozenResponse {
  status: number;
  headers: Record<string, string>;
  bytes: string;
  exchange: Exchange;
  durationMs: number;
  requestLine: string;
}

function isResponse(value: unknown): value is ApiResponse {
  const r = value as Partial<ApiResponse> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.status === 'number' &&
    typeof r.json === 'function' &&
    Buffer.isBuffer(r.bytes) &&
    typeof r.exchange === 'object'
  );
}

/** JSON of a made value, its responses included. */
export function freeze(value: unknown): unknown {
  if (isResponse(value)) {
    const frozen: FrozenResponse = {
      status: value.status,
      headers: value.headers,
      bytes: value.bytes.toString('base64'),
      exchange: value.exchange,
      durationMs: value.durationMs,
      requestLine: value.requestLine,
    };
    return { [RESPONSE]: frozen };
  }
  if (Array.isArray(value)) return value.map(freeze);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, freeze(v)]));
  return value;
}

/** A frozen value back, its responses as the client gives them. */
export function thaw(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(thaw);
  if (typeof value !== 'object' || value === null) return value;
  const frozen = (value as { [RESPONSE]?: FrozenResponse })[RESPONSE];
  if (frozen) return responseOf(frozen);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, thaw(v)]));
}

function responseOf(frozen: FrozenResponse): ApiResponse {
  return apiResponse({ ...frozen, bytes: Buffer.from(frozen.bytes, 'base64') });
}
