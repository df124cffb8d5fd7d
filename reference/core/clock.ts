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

/**
 * One scheduled job. A class rather than closures: every send schedules one, and a per-call
 * `cancel` arrow costs an allocation plus, under tsx, a name helper call each time.
 */
class ScheduledTask {
  readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pending: Set<NodeJS.Timeout>,
    fn: () => void,
    ms: number,
  ) {
    this.timer = setTimeout(ScheduledTask.fire, Math.max(0, ms), this, fn);
    // Pending deliveries and transitions must not keep a stopping process alive.
    this.timer.unref();
  }

  private static fire(this: void, task: ScheduledTask, fn: () => void): void {
    task.pending.delete(task.timer);
    fn();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.pending.delete(this.timer);
  }
}

export class SystemClock implements Clock {
  private readonly pending = new Set<NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  schedule(ms: number, fn: () => void): { cancel(): void } {
    const task = new ScheduledTask(this.pending, fn, ms);
    this.pending.add(task.timer);
    return task;
  }

  /** Cancels everything still scheduled (server close). */
  cancelAll(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
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
