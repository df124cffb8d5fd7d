import type { ConformanceClass, Level } from '../../spec/classes.ts';
import type { CheckFailure } from './failure.ts';

export type { CheckFailure, FailureFinding, FailureKind } from './failure.ts';

/**
 * Who is at fault when a check does not pass. Only defects (and, with --strict, spec-gaps) can
 * fail the gate; a `cloudcheck-error` is the suite's own failure (an exception in check code, a
 * value an earlier step should have made): the requirement was not checked, and the run exits 2.
 */
export type Classification = 'defect' | 'spec-gap' | 'environment' | 'cloudcheck-error';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

/** One HTTP request and its response as recorded by the harness, secrets already redacted. */
export interface Exchange {
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** Text bodies as text (truncated past a limit), binary bodies as a note. */
    body?: string;
  };
  response?: {
    status: number;
    headers: Record<string, string>;
    body?: string;
  };
  /** Network-level failure instead of a response. */
  error?: string;
  /** 2 for the first retry of a request that got no answer (`--retries`), 3 for the second... */
  attempt?: number;
  started_at: string;
  duration_ms: number;
  /** A copy-pasteable curl line; the API key appears as `$CLOUDCHECK_API_KEY`. */
  curl: string;
}

/** The outcome of one check, as report.json stores it (README, Reading the report). */
export interface CheckResult {
  id: string;
  requirement: string;
  level: Level;
  class: ConformanceClass;
  /** `METHOD /path` as the specification writes it, or null for checks not tied to one operation. */
  operation: string | null;
  title: string;
  status: CheckStatus;
  classification?: Classification;
  message?: string;
  /** What the check expected and what came, in one line each: the failure's normalised terms. */
  expected?: string;
  actual?: string;
  /**
   * The failure as data (src/model/failure.ts): kind, subject, expected and actual in normalised
   * terms, the operation and request judged, a headline in words, and which of `exchanges` show it.
   */
  failure?: CheckFailure;
  exchanges?: Exchange[];
  /** Where the suite's own code failed, for `cloudcheck-error` findings only. */
  stack?: string;
  duration_ms?: number;
  /** Time this check spent waiting for asynchronous changes of the target (ctx.poll). */
  waited_ms?: number;
  /** Requests of this check sent again after getting no answer (`--retries`). */
  retried_requests?: number;
  /** Playwright's shard, file and line, for people who want to run one check alone. */
  location?: string;
  /** The flow (its id) this check is a step of. */
  flow?: string;
  /** A flow step skipped because an earlier step failed: that step's id (its cause is this check's). */
  skipped_after?: string;
  /**
   * The cause (report.json `clusters[].id`) this check belongs to: a failed check of the target's,
   * or a flow step skipped after one (src/report/clusters.ts).
   */
  cluster?: string;
  /**
   * `--rerun-unanswered`: the attempt that gave this result (2: the first re-run), and what the
   * earlier attempts gave (each got no answer). Absent for a check judged on its first attempt.
   */
  attempt?: number;
  earlier_attempts?: EarlierAttempt[];
}

/** An attempt of a check that was run again: what it gave. */
export interface EarlierAttempt {
  status: CheckStatus;
  classification?: Classification;
  message?: string;
  duration_ms?: number;
}
