/**
 * SIGINT and SIGTERM during `cloudcheck run`: what CI timeouts, `docker stop` and `timeout` send,
 * to the process or to its whole process group. Watched from the moment the runner starts until
 * the report is written, so a signal between two Playwright runs (the re-runs) or while the
 * report is finalised is recorded rather than killing the process half-way; the run then stops,
 * reports what it has (headed "interrupted") and exits 130 (SIGINT) or 143 (SIGTERM).
 *
 * The runner gets one SIGINT, its graceful stop (workers tear down what they created); a second
 * signal kills it. The runner turns a SIGTERM of its own (sent to the group) into the same SIGINT
 * (src/report/stop-on-term.ts), and Playwright takes two SIGINTs within a second as one.
 */
import type { ChildProcess } from 'node:child_process';
import { onInterrupt } from '../harness/session.ts';

export const EXIT_OF_SIGNAL: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

export interface Interruption {
  /** The first signal that asked the run to stop, or null. */
  readonly signal: 'SIGINT' | 'SIGTERM' | null;
  /** The exit code of an interrupted run: 130 (SIGINT) or 143 (SIGTERM). */
  readonly exitCode: number;
  /** Forwards a stop to this child while it runs (Playwright's runner). */
  follow(child: ChildProcess): void;
  dispose(): void;
}

export function watchInterruption(say: (line: string) => void): Interruption {
  let signal: 'SIGINT' | 'SIGTERM' | null = null;
  let child: ChildProcess | null = null;
  const running = (): boolean => child !== null && child.exitCode === null && child.signalCode === null;
  const onSignal = (received: NodeJS.Signals): void => {
    if (signal === null) {
      signal = received === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
      say(`cloudcheck: ${received}: stopping the suite, cleaning up and reporting what ran (again to force)`);
      // From a terminal or a group signal the runner got it too (and forwards its own SIGTERM as
      // SIGINT); from `kill <pid>` it did not. Playwright merges two SIGINTs within a second.
      if (running()) child!.kill('SIGINT');
      return;
    }
    if (running()) child!.kill('SIGKILL');
    else process.exit(EXIT_OF_SIGNAL[signal]);
  };
  // The session's one listener of SIGINT and SIGTERM delivers them (src/harness/session.ts).
  const stopListening = onInterrupt(onSignal);
  return {
    get signal() {
      return signal;
    },
    get exitCode() {
      return EXIT_OF_SIGNAL[signal ?? 'SIGINT'];
    },
    follow(next) {
      child = next;
      if (signal !== null && running()) next.kill('SIGINT');
    },
    dispose() {
      stopListening();
    },
  };
}
