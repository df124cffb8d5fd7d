/**
 * The target side of exploration: the harness's client (budgets, redaction, recorded exchanges),
 * one bucket for the whole exploration, a fresh namespace per sequence, and the clean-up of what
 * each sequence created. Every name starts with the run prefix (`cc-<run id>-`), so
 * `cloudcheck sweep` finds whatever an interrupted exploration left.
 */
import type { ApiClient, ApiResponse } from '../harness/client.ts';
import type { Exchange } from '../model/finding.ts';
import { isObject, listOf, resourceOf } from '../harness/body-shape.ts';
import type { StepRecord } from './model.ts';

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
  /** Projects created and not yet deleted by their sequence: removed at the sequence's end. */
  private readonly projectsToRemove = new Set<string>();
  private prefix = '';
  /** The steps of the sequence running now, as they ran (a failing one's become the finding's). */
  ranSteps: StepRecord[] = [];
  /** Requirements whose rules some step exercised (a passed rule is only as good as this). */
  readonly exercised = new Set<string>();

  constructor(
    readonly api: ApiClient,
    readonly bucket: string,
    readonly runPrefix: string,
    private readonly limits: ExploreLimits,
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

  projectName(label: string): string {
    return `${this.runPrefix}x${this.sequence}-${label}`;
  }

  async send(method: string, path: string, options: { json?: unknown; body?: string; query?: Record<string, string | number>; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    this.sent++;
    const res = await this.api.request({ method, path, ...options });
    this.exchanges.push(res.exchange);
    return res;
  }

  /** The REST path of a key of the model (inside the sequence's namespace). */
  objectPath(key: string): string {
    return this.pathOfStoredKey(this.objectKey(key));
  }

  /** The REST path of a key as the bucket stores it, each segment encoded (keys hold `/`). */
  private pathOfStoredKey(storedKey: string): string {
    return `${this.listingPath}/${storedKey.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** GET of the bucket's listing. */
  get listingPath(): string {
    return `/storage/buckets/${encodeURIComponent(this.bucket)}/objects`;
  }

  /** A step ran and the model agreed: its rules count as exercised. */
  stepPassed(step: StepRecord, rules: readonly string[]): void {
    for (const rule of rules) this.exercised.add(rule);
  }

  trackProject(id: string): void {
    this.projectsToRemove.add(id);
  }

  forgetProject(id: string): void {
    this.projectsToRemove.delete(id);
  }

  /** Deletes what the sequence left (its objects, its projects), so the next one starts from the same account. */
  async endSequence(): Promise<void> {
    for (const id of this.projectsToRemove) {
      await this.send('DELETE', `/projects/${encodeURIComponent(id)}`).catch(() => undefined);
    }
    this.projectsToRemove.clear();
    let marker: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await this.send('GET', this.listingPath, { query: { prefix: this.prefix, ...(marker ? { marker } : {}) } });
      const objects = isObject(res.body) && Array.isArray(res.body.objects) ? (res.body.objects as Array<{ key?: unknown }>) : [];
      for (const o of objects) if (typeof o.key === 'string' && o.key.startsWith(this.prefix)) await this.send('DELETE', this.pathOfStoredKey(o.key)).catch(() => undefined);
      const last = objects.at(-1)?.key;
      if (!(isObject(res.body) && res.body.is_truncated === true) || typeof last !== 'string') break;
      marker = last;
    }
  }
}

/** A project record from a create, get or update answer (flat, under `project`, or under a generic envelope). */
export function projectOf(body: unknown): Record<string, unknown> | undefined {
  return resourceOf(body, 'project');
}

export function projectsOf(body: unknown): Array<Record<string, unknown>> | undefined {
  return listOf(body, 'projects');
}
