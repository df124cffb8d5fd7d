/**
 * The target side of exploration: the harness's client (budgets, redaction, recorded exchanges),
 * a fresh namespace per sequence, and the clean-up of what each sequence created (every family
 * registers a clean-up for what it creates, undone in reverse order at the sequence's end). Every
 * name starts with the run prefix (`cc-<run id>-`), so `cloudcheck sweep` finds whatever an
 * interrupted exploration left.
 */
import type { ApiClient, ApiResponse } from '../harness/client.ts';
import type { Exchange } from '../model/finding.ts';
import { DEFAULT_TEST_NUMBERS } from '../harness/settings.ts';
import type { StepRecord } from './model.ts';

/** The specification's three test-mode numbers (Limits, "Test mode"): the only recipients explore ever sends to. */
export interface TestNumbers {
  succeed: string;
  fail: string;
  random: string;
}

export interface ExploreLimits {
  /** Requests the exploration may send (sequences, clean-up and shrinking together). */
  budget: number;
  /** Wall-clock deadline (ms since epoch) after which no new sequence starts. */
  deadline: number;
}

export class ExploreTarget {
  private sent = 0;
  private sequence = 0;
  /** Exchanges of the sequence running now (a failed sequence's go into the report). */
  exchanges: Exchange[] = [];
  /** What the families' set-up sent (the bucket), the first lines of a reproduction script. */
  setUpExchanges: Exchange[] = [];
  /** What the sequence created and did not delete (key → how to remove it), undone at its end, newest first. */
  private readonly cleanUps = new Map<string, () => Promise<unknown>>();
  private prefix = '';
  /** The steps of the sequence running now, as they ran (a failing one's become the finding's). */
  ranSteps: StepRecord[] = [];
  /** Requirements whose rules some step exercised (a passed rule is only as good as this). */
  readonly exercised = new Set<string>();
  /** What went wrong outside the model (a clean-up refused): printed by the command, never a finding. */
  readonly warnings: string[] = [];

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

  private stopped = false;

  /** Whether another sequence may start: within the request budget, before the deadline, not stopped. */
  canStart(): boolean {
    return !this.stopped && this.sent < this.limits.budget && Date.now() < this.limits.deadline;
  }

  /** SIGINT: no new sequence starts (the running one finishes and is cleaned up). */
  stop(): void {
    this.stopped = true;
  }

  /** Starts a sequence: an empty exchange log and a key prefix no earlier sequence used. */
  beginSequence(): void {
    this.sequence++;
    this.prefix = `s${this.sequence}/`;
    this.exchanges = [];
    this.ranSteps = [];
  }

  /** The object key on the target for a key of the model (the model never sees the namespace). */
  objectKey(key: string): string {
    return `${this.prefix}${key}`;
  }

  get keyPrefix(): string {
    return this.prefix;
  }

  /** A resource name of this sequence: run prefix (sweep finds it), sequence number, the model's label. */
  resourceName(label: string): string {
    return `${this.runPrefix}x${this.sequence}-${label}`;
  }

  /** A request of the sequence; `key` sends exactly that key (an API key the sequence created), outside the budget's keys. */
  async send(
    method: string,
    path: string,
    options: {
      json?: unknown;
      body?: string;
      query?: Record<string, string | number>;
      headers?: Record<string, string>;
      key?: string;
    } = {},
  ): Promise<ApiResponse> {
    this.sent++;
    const res = await this.api.request({ method, path, ...options });
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
    for (const rule of rules) this.exercised.add(rule);
  }

  /** Milliseconds spent waiting on purpose (a message to settle): the target's time, not the model's. */
  waitedMs = 0;

  /** Waits `ms` on purpose, counted in `waitedMs`. */
  async pause(ms: number): Promise<void> {
    this.waitedMs += ms;
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  warn(message: string): void {
    this.warnings.push(message);
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
  async endSequence(): Promise<void> {
    const removals = [...this.cleanUps.values()].reverse();
    this.cleanUps.clear();
    for (const remove of removals) await remove().catch(() => undefined);
  }
}
