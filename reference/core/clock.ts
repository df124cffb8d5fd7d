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

export class SystemClock implements Clock {
  private readonly pending = new Set<NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  schedule(ms: number, fn: () => void): { cancel(): void } {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, Math.max(0, ms));
    // Pending deliveries and transitions must not keep a stopping process alive.
    timer.unref();
    this.pending.add(timer);
    return {
      cancel: () => {
        clearTimeout(timer);
        this.pending.delete(timer);
      },
    };
  }

  /** Cancels everything still scheduled (server close). */
  cancelAll(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}

export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
