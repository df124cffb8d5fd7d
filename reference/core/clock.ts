/**
 * One clock for the whole reference server. Every timestamp and every delayed state change goes
 * through it, so tests can use short delays (or a manual clock) instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` after `ms`; the handle lets the server cancel pending work on close. */
  schedule(ms: number, fn: () => void): { cancel(): void };
}

/** One scheduled job: the handle `schedule` returns. */
class ScheduledTask {
  cancelled = false;

  constructor(
    readonly batch: Batch,
    readonly fn: () => void,
  ) {}

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.batch.cancelOne();
  }
}

/**
 * Jobs with the same delay scheduled in the same millisecond, due together: one Node timer for
 * all of them. A busy server schedules one job per SMS send; a timer each (and each one living
 * through a garbage collection or two before it fires) was a measurable part of a send's cost.
 */
class Batch {
  readonly tasks: ScheduledTask[] = [];
  private live = 0;
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly owner: SystemClock,
    readonly delay: number,
  ) {}

  add(fn: () => void): ScheduledTask {
    const task = new ScheduledTask(this, fn);
    this.tasks.push(task);
    this.live++;
    return task;
  }

  cancelOne(): void {
    if (--this.live > 0) return;
    clearTimeout(this.timer);
    this.owner.forget(this);
  }

  static fire(this: void, batch: Batch): void {
    batch.owner.forget(batch);
    // A handle kept after its job ran must not keep the other jobs' closures alive.
    const tasks = batch.tasks.splice(0);
    let failure: { error: unknown } | undefined;
    for (const task of tasks) {
      if (task.cancelled) continue;
      task.cancelled = true;
      // One failing job must not swallow the others due with it; the first error still
      // surfaces as the uncaught exception it was when every job had its own timer.
      try {
        task.fn();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}

export class SystemClock implements Clock {
  private readonly pending = new Set<Batch>();
  /** Batches still accepting jobs: those opened during `openedAt`, by delay. */
  private readonly open = new Map<number, Batch>();
  private openedAt = -1;

  now(): number {
    return Date.now();
  }

  schedule(ms: number, fn: () => void): { cancel(): void } {
    const delay = Math.max(0, ms);
    // Node counts a timer from the loop's millisecond too: jobs joined here fire when their
    // own timers would have, give or take that millisecond.
    const tick = Math.floor(performance.now());
    if (tick !== this.openedAt) {
      this.open.clear();
      this.openedAt = tick;
    }
    let batch = this.open.get(delay);
    if (!batch) {
      batch = new Batch(this, delay);
      batch.timer = setTimeout(Batch.fire, delay, batch);
      // Pending deliveries and transitions must not keep a stopping process alive.
      batch.timer.unref();
      this.open.set(delay, batch);
      this.pending.add(batch);
    }
    return batch.add(fn);
  }

  /** Forgets a batch that fired or whose jobs were all cancelled (no job may join it any more). */
  forget(batch: Batch): void {
    this.pending.delete(batch);
    if (this.open.get(batch.delay) === batch) this.open.delete(batch.delay);
  }

  /** Cancels everything still scheduled (server close). */
  cancelAll(): void {
    for (const batch of this.pending) clearTimeout(batch.timer);
    this.pending.clear();
    this.open.clear();
  }
}

/**
 * A request stamps the same millisecond several times (auth `last_used`, the record, its event,
 * the request log): the last conversion is remembered, which takes `Date#toISOString` off the
 * server's profile.
 */
let lastMs = Number.NaN;
let lastIso = '';
export function isoTimestamp(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
