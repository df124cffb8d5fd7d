/**
 * Deliberate non-conformances, switched on with `--fault NAME`. Each one breaks exactly one MUST
 * requirement so the suite can prove it notices. Areas declare their own faults next to the code
 * they bend; the server collects the lists and rejects unknown names.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface FaultDefinition {
  name: string;
  /** The requirement id (spec/requirements.yaml) the fault breaks. */
  requirement: string;
  description: string;
  /** Set at start for the whole server (its base URL): it cannot be limited to some checks. */
  serverWide?: true;
}

/**
 * The header a cloudcheck client names the check of each request with (src/harness/client.ts
 * sends it; the two are held together by test/reference/fault-scopes.test.ts).
 */
export const CHECK_HEADER = 'x-cloudcheck-check';

/**
 * Every fault name of the server. Each catalogue adds its own by declaration merging
 * (`declare module '…/core/faults.ts' { interface FaultNames extends Record<Name, true> {} }`
 * beside the list), so the core knows the names without importing the areas, and
 * `faults.has('a-misspelt-fault')` fails to compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here: the catalogues' augmentations fill it
export interface FaultNames {}
export type FaultName = keyof FaultNames;

/**
 * Faults limited to some checks: fault → the checks it bends, each a check id or the prefix of
 * several (a flow id, `contract.<operation>`), `#k` after it for repetition k (inUnit). A request
 * bends when its check header names one of them, and so does what it sets going (deliveries,
 * events): the fault matrix puts several faults of one plugin in one run this way, each seen
 * only by its own checks.
 */
export type FaultScopes = Readonly<Record<string, readonly string[]>>;

/**
 * Whether a check belongs to a scope's unit: the unit is its id, or a prefix of whole segments.
 * A run that repeats its checks names repetition k of a check `<id>#k` (the suite's own tests;
 * src/harness/selection.ts writes them, and the server imports nothing of the suite), which
 * belongs to the units written `<unit>#k` only; a plain id to plain units only.
 */
export function inUnit(check: string, unit: string): boolean {
  const [checkId, checkRepetition] = splitRepetition(check);
  const [unitId, unitRepetition] = splitRepetition(unit);
  return checkRepetition === unitRepetition && (checkId === unitId || checkId.startsWith(`${unitId}.`));
}

function splitRepetition(id: string): [string, string] {
  const at = id.search(/#\d+$/);
  return at < 0 ? [id, ''] : [id.slice(0, at), id.slice(at)];
}

export class ActiveFaults {
  private readonly active: ReadonlySet<string>;
  private readonly scopes: ReadonlyMap<string, readonly string[]>;
  /** The check of the request being served, carried into the timers and events it starts. */
  private readonly requestCheck = new AsyncLocalStorage<string>();
  /** Credentials made by a check's request (S3 access keys), which name no check when used. */
  private readonly checkOfCredential = new Map<string, string>();

  constructor(requested: readonly string[], known: readonly FaultDefinition[], scopes: FaultScopes = {}) {
    const byName = new Map(known.map((fault) => [fault.name, fault]));
    const unknown = requested.filter((name) => !byName.has(name));
    if (unknown.length > 0) {
      throw new Error(
        `unknown fault ${unknown.map((n) => `"${n}"`).join(', ')}; list them with: cloudcheck serve --list-faults`,
      );
    }
    this.active = new Set(requested);
    for (const name of Object.keys(scopes)) {
      if (!this.active.has(name)) throw new Error(`fault "${name}" has a scope but is not switched on`);
      if (byName.get(name)!.serverWide)
        throw new Error(`fault "${name}" bends the whole server: it cannot be limited to some checks`);
    }
    this.scopes = new Map(Object.entries(scopes));
  }

  /** Whether the fault bends what is being served now (the current request, or what it started). */
  has(name: FaultName): boolean {
    if (!this.active.has(name)) return false;
    const scope = this.scopes.get(name);
    if (scope === undefined) return true;
    const check = this.requestCheck.getStore();
    return check !== undefined && check !== '' && scope.some((unit) => inUnit(check, unit));
  }

  /** Whether the fault is on for any request: what is set up once at start (a hook) asks this. */
  switchedOn(name: FaultName): boolean {
    return this.active.has(name);
  }

  /** Whether some fault is limited to some checks, so every request must say its check. */
  get scoped(): boolean {
    return this.scopes.size > 0;
  }

  /**
   * The rest of the current request (and everything it starts) belongs to the check its header
   * names, or else to the check that made the credential it is signed with (madeForCurrentCheck).
   * Called first thing in a request's first hook: the store goes with the request's own async
   * resource, which Node keeps for the body's events and the handler, where `run` would lose it
   * at the body.
   */
  enterRequest(checkHeader: string | string[] | undefined, credential?: string): void {
    const named = Array.isArray(checkHeader) ? checkHeader[0] : checkHeader;
    this.requestCheck.enterWith(
      named ?? (credential === undefined ? undefined : this.checkOfCredential.get(credential)) ?? '',
    );
  }

  /**
   * A credential made now (an S3 access key) belongs to the current request's check: the S3
   * clients that sign with it (the SDK, the command-line tools) send no check header, and their
   * requests are that check's (enterRequest).
   */
  madeForCurrentCheck(credential: string): void {
    const check = this.requestCheck.getStore();
    if (this.scoped && check) this.checkOfCredential.set(credential, check);
  }

  get names(): string[] {
    return [...this.active];
  }
}
