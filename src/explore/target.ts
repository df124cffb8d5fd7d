/**
 * The target side of exploration. `ExploreTarget` is the exploration's: the harness's client
 * (budgets, redaction), the request budget and deadline, what every sequence exercised. Each run
 * of a sequence (a first run, a shrinking attempt, a replay) gets a `SequenceTarget` of its own: a
 * fresh namespace (object keys under `s<n>/`, names `<run prefix>x<n>-<label>`), its exchanges,
 * its steps and the clean-up of what it created (every family registers a clean-up for what it
 * creates, undone in reverse order at the sequence's end). Sequences of several families run at
 * once, each through its own `SequenceTarget`; every name starts with the run prefix, so
 * `cloudcheck sweep` finds whatever an interrupted exploration left.
 */
import type { ApiClient, ApiResponse } from '../harness/client.ts';
import type { Exchange } from '../model/finding.ts';
import { DEFAULT_TEST_NUMBERS } from '../harness/settings.ts';
import type { ModelViolation, StepRecord } from './model.ts';

/** The specification's three test-mode numbers (Limits, "Test mode"): the only recipients explore ever sends to. */
export interface TestNumbers {
  succeed: string;
  fail: string;
  random: string;
}

export interface ExploreLimits {
  /**
   * Requests the exploration may spend exploring (sequences and their clean-up). Shrinking a
   * finding and confirming it on replay are bounded by time instead: one family's finding does
   * not take the other families' share.
   */
  budget: number;
  /** Wall-clock deadline (ms since epoch) after which no new sequence starts. */
  deadline: number;
}

export interface SendOptions {
  json?: unknown;
  body?: string;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** Exactly that key (an API key the sequence created), outside the budget's keys. */
  key?: string;
}

/** The check a family's requests name (the client's check header): a target's logs, and the reference server's fault scopes, can tell the families apart. */
export const familyCheck = (family: string): string => `explore.${family}`;

export class ExploreTarget {
  private sent = 0;
  /** Of `sent`: requests of shrinking and confirming runs, outside the budget. */
  private sentForFindings = 0;
  private sequences = 0;
  private stopped = false;
  /** One client per family, naming the family in its check header. */
  private readonly clients = new Map<string, ApiClient>();
  /** What the families' set-up sent (the bucket), the first lines of a reproduction script. */
  setUpExchanges: Exchange[] = [];
  /** Exchanges of the last replay (`cloudcheck explore --replay`), for its report. */
  exchanges: Exchange[] = [];
  /** Requirements whose rules some step exercised (a passed rule is only as good as this). */
  readonly exercised = new Set<string>();
  /** What went wrong outside the model (a clean-up refused): printed by the command, never a finding. */
  readonly warnings: string[] = [];
  /** Milliseconds spent waiting on purpose (a message to settle, a listing to catch up), summed over sequences. */
  waitedMs = 0;
  /** Steps the model agreed with, over every sequence. */
  stepsPassed = 0;
  /** SHOULD requirements a finding reports already (or a shrinking is after): a deviation from them is no news. */
  readonly deviations = new Set<string>();

  constructor(
    readonly api: ApiClient,
    /** The exploration's bucket, created by the objects family's set-up. */
    readonly bucket: string,
    readonly runPrefix: string,
    private readonly limits: ExploreLimits,
    readonly testNumbers: TestNumbers = DEFAULT_TEST_NUMBERS,
  ) {}

  get requestsSent(): number {
    return this.sent;
  }

  /** Whether another sequence may start: within the request budget, before the deadline, not stopped. */
  canStart(): boolean {
    return !this.stopped && this.sent - this.sentForFindings < this.limits.budget && Date.now() < this.limits.deadline;
  }

  /** SIGINT: no new sequence starts (the running ones finish and are cleaned up). */
  stop(): void {
    this.stopped = true;
  }

  /** A fresh namespace for one run of a sequence of `family`. */
  sequence(family: string): SequenceTarget {
    return new SequenceTarget(this, family, ++this.sequences);
  }

  /**
   * One request, counted against the budget. A subclass may stand between the model and the
   * target (the tests' double of a target whose deletions lag).
   */
  async request(family: string, method: string, path: string, options: SendOptions = {}): Promise<ApiResponse> {
    this.sent++;
    return this.clientOf(family).request({ method, path, ...options });
  }

  private clientOf(family: string): ApiClient {
    let client = this.clients.get(family);
    if (!client) {
      client = this.api.forCheck(familyCheck(family), () => undefined);
      this.clients.set(family, client);
    }
    return client;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** A request of a shrinking or confirming run: sent, but outside the budget. */
  countForFinding(): void {
    this.sentForFindings++;
  }
}

/** One run of one sequence: its namespace, exchanges, steps and clean-ups. */
export class SequenceTarget {
  /** Exchanges of this run, in order (a failed sequence's go into the report). */
  readonly exchanges: Exchange[] = [];
  /** The steps of this run, as they ran (a failing one's become the finding's). */
  readonly ranSteps: StepRecord[] = [];
  /** What the sequence created and did not delete (key → how to remove it), undone at its end, newest first. */
  private readonly cleanUps = new Map<string, () => Promise<unknown>>();
  readonly keyPrefix: string;
  /** A run that shrinks a finding: waits for what may take a moment are cut short (the finding's own runs wait in full). */
  shrinking = false;
  /** A run that shrinks or confirms a finding: its requests are outside the exploration's budget. */
  forFinding = false;
  /** The requirement the fast-check run of this sequence pursues (its first violation), once it has one. */
  pursuing: string | null = null;
  /** The first deviation from a SHOULD rule the running step met, thrown once the step is done. */
  private deviated: ModelViolation | null = null;

  constructor(
    /** The exploration this run belongs to (what its families read once: catalogues, keys). */
    readonly exploration: ExploreTarget,
    readonly family: string,
    private readonly number: number,
  ) {
    this.keyPrefix = `s${number}/`;
  }

  get bucket(): string {
    return this.exploration.bucket;
  }

  get runPrefix(): string {
    return this.exploration.runPrefix;
  }

  get testNumbers(): TestNumbers {
    return this.exploration.testNumbers;
  }

  /** The object key on the target for a key of the model (the model never sees the namespace). */
  objectKey(key: string): string {
    return `${this.keyPrefix}${key}`;
  }

  /** A resource name of this run: run prefix (sweep finds it), sequence number, the model's label. */
  resourceName(label: string): string {
    return `${this.runPrefix}x${this.number}-${label}`;
  }

  /** A request of the sequence, recorded as its exchange. */
  async send(method: string, path: string, options: SendOptions = {}): Promise<ApiResponse> {
    if (this.forFinding) this.exploration.countForFinding();
    const res = await this.exploration.request(this.family, method, path, options);
    this.exchanges.push(res.exchange);
    return res;
  }

  /** The REST path of a key of the model (inside the sequence's namespace), each segment encoded (keys hold `/`). */
  objectPath(key: string): string {
    return `${this.listingPath}/${this.objectKey(key).split('/').map(encodeURIComponent).join('/')}`;
  }

  /** GET of the bucket's listing. */
  get listingPath(): string {
    return `/storage/buckets/${encodeURIComponent(this.bucket)}/objects`;
  }

  /** A step ran and the model agreed: its rules count as exercised. */
  stepPassed(rules: readonly string[]): void {
    this.exploration.stepsPassed++;
    for (const rule of rules) this.exploration.exercised.add(rule);
  }

  /** Waits `ms` on purpose, counted in the exploration's `waitedMs`. */
  async pause(ms: number): Promise<void> {
    this.exploration.waitedMs += ms;
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  warn(message: string): void {
    this.exploration.warn(message);
  }

  /**
   * A deviation from a SHOULD rule: the step goes on with the rules it has left (a convention the
   * target does not follow must not hide a MUST finding after it), and fails at its end. One a
   * finding reports already is no news: the sequence goes on as if it had not been met.
   */
  deviation(violation: ModelViolation): void {
    const known = this.exploration.deviations.has(violation.requirement) && violation.requirement !== this.pursuing;
    if (!known) this.deviated ??= violation;
  }

  /** The step's deviation, if it met one (and forgets it). */
  takeDeviation(): ModelViolation | null {
    const deviated = this.deviated;
    this.deviated = null;
    return deviated;
  }

  /** Something the sequence created: removed at the sequence's end unless `untrack`ed (deleted by a step) before. */
  track(key: string, remove: () => Promise<unknown>): void {
    this.cleanUps.delete(key);
    this.cleanUps.set(key, remove);
  }

  untrack(key: string): void {
    this.cleanUps.delete(key);
  }

  /** DELETE of `path` as a clean-up (its answer is not the model's business). */
  trackPath(path: string): void {
    this.track(path, () => this.send('DELETE', path));
  }

  /** Removes what the sequence left, newest first (a volume before the VPS it is attached to), so the next sequence starts from the same account. */
  async end(): Promise<void> {
    const removals = [...this.cleanUps.values()].reverse();
    this.cleanUps.clear();
    for (const remove of removals) await remove().catch(() => undefined);
  }
}
