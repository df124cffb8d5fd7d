import type { CheckResult, CheckStatus, FailureKind } from './finding.ts';
import type { LoadReport } from './load.ts';
import type { ConformanceClass, Level } from '../../spec/classes.ts';

export interface ShardInfo {
  index: number;
  total: number;
}

export interface LevelCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** A resource the run created and could not delete. */
export interface Leak {
  kind: string;
  id: string;
  /** The operation that should have deleted it, e.g. `DELETE /vps/{vps_id}`. */
  delete_operation: string | null;
  reason: string;
}

export interface OperationCoverage {
  operation: string;
  checks: number;
  statuses_seen: number[];
  /** Statuses the OpenAPI document declares for the operation that no response of the run showed. */
  statuses_unexercised?: string[];
  passed?: number;
  failed?: number;
}

/** report.json, schema_version 1: fields are only ever added (readers of older reports keep working). */
export interface ConformanceReport {
  schema_version: 1;
  run: {
    id: string;
    target: string;
    s3_url?: string | null;
    started_at: string;
    finished_at: string;
    seed: number;
    classes: ConformanceClass[];
    strict?: boolean;
    /** The `--shard` of the run (`"I/N"` in reports of older versions); null when unsharded. */
    shard?: ShardInfo | string | null;
    /** What the run selected, so a merge can tell whether its shards belong together. */
    selection?: { classes: string[]; grep: string | null; grep_invert: string | null };
    embedded?: boolean;
    cloudcheck_version?: string;
    /** `--max-failures N` stopped the run after N failures that fail the gate; the rest did not run. */
    stopped_after_failures?: number;
    /** The run was stopped by a signal (SIGINT, SIGTERM): what did not run was not judged, and the gate fails. */
    interrupted?: boolean;
    /** The classes were named (`--classes`), not left to the default: each must run for a verdict. */
    classes_named?: boolean;
    /** `--allow-inconclusive`: MUST checks left unjudged for want of an answer do not fail the gate. */
    allow_inconclusive?: boolean;
    /** `--rerun-unanswered N`: how often a check that got no answer was run again at the end of the run. */
    reruns?: number;
  };
  summary: {
    /**
     * `conformant`: every selected MUST check judged, none failed. `non-conformant`: a MUST defect.
     * `inconclusive`: no defect, but MUST checks stayed unjudged (`unjudged` says which and why).
     */
    verdict: Verdict;
    /** One line for people: "conformant (MUST), 3 SHOULD deviations". */
    headline?: string;
    passed: number;
    failed: number;
    skipped: number;
    must: LevelCounts;
    should: LevelCounts;
    /** Failures classified as `environment` (not the target's fault; never fail the gate). */
    environment?: number;
    /** Failures classified `cloudcheck-error` (the suite's own): never fail the gate, make the run exit 2. */
    cloudcheck_errors?: number;
    gate?: { passed: boolean; reason: string; baseline?: string | null; new_failures?: string[] };
    /** What the run could not judge at MUST level (absent when it judged every selected MUST check). */
    unjudged?: Unjudged;
  };
  checks: CheckResult[];
  /**
   * The causes of the target's failures (defects and deviations): failed checks grouped by a
   * signature of their failure data, MUST first, largest first (src/report/clusters.ts). Absent
   * in reports written before causes were computed.
   */
  clusters?: Cluster[];
  coverage: { operations: OperationCoverage[] };
  leaks: Leak[];
  /**
   * Requirements of the run's classes that `cloudcheck run` cannot check (catalogue
   * `not_checkable`): listed so a reader never takes them for passed; `checked_by` names the
   * load profile that checks them, if one does.
   */
  not_checkable?: Array<{
    requirement: string;
    level: 'MUST' | 'SHOULD';
    class: ConformanceClass;
    reason: string;
    checked_by: string | null;
  }>;
  /** What `--keep` left in place on purpose (`cloudcheck sweep` removes it later). */
  kept?: Leak[];
  /**
   * Time spent waiting for asynchronous changes (VPS boot, SMS delivery, ...) per class, in ms:
   * what a slow target costs a run, apart from the checks' own work.
   */
  waits?: Partial<Record<ConformanceClass, number>>;
  /**
   * How busy the run kept the target: its workers, the round trip it was sized for, and the
   * requests of the API client (not the S3 SDK's or tools'): how many, how many were in flight on
   * average while the checks ran, and the longest chain of round trips that had to follow each
   * other (a flow's steps add up; a check's requests sent together count once).
   */
  concurrency?: {
    workers: number | null;
    round_trip_ms: number | null;
    requests: number;
    in_flight_average: number;
    span_seconds: number;
    critical_path: { round_trips: number; chain: string } | null;
  };
  /** Results of `cloudcheck load`, when a load stage wrote into the same report. */
  load?: LoadReport;
  /**
   * What third-party code (libraries, Node itself) printed in the workers during the run:
   * warnings and notices, kept out of the console and here instead, each distinct line once with
   * how often it came and the first check it came in.
   */
  third_party_output?: ThirdPartyLine[];
}

/**
 * One cause: the target's failed checks whose failures have the same signature, the level and the
 * failure's kind, subject, keyword, expected and actual in normalised terms (leaving out the
 * operation, so a cause spans operations and requirements). Its id is derived from the signature
 * alone: the same failure has the same id in every run.
 */
export interface Cluster {
  id: string;
  signature: string;
  level: Level;
  /** The cause in words, without counts ("answered 400, convention 422"). */
  cause: string;
  /** The signature's parts: what the target did (normalised; see src/model/failure.ts for each kind's terms). */
  kind: FailureKind | 'untyped';
  subject: string;
  keyword?: string;
  actual?: string;
  /** What the cause's checks demanded, each distinct value with its level, MUST first (not part of the signature). */
  expectations: Array<{ level: Level; expected: string }>;
  /** The failed checks of the cause (ids), the representative first. */
  checks: string[];
  /** Flow steps skipped because a step of this cause failed before them: not causes of their own. */
  cascaded: string[];
  /** Requirements and operations of the failed checks, sorted. */
  requirements: string[];
  operations: string[];
  /** The check whose failure the report shows for the cause (its exchange and curl line). */
  representative: string;
}

export type Verdict = 'conformant' | 'non-conformant' | 'inconclusive';

/** The MUST checks a run could not judge, and why (report.json `summary.unjudged`). */
export interface Unjudged {
  /** MUST checks judged (passed, or failed on the target's answer), of all the run's MUST checks. */
  must_judged: number;
  must_total: number;
  /** The MUST checks without a verdict: no answer, cloudcheck's own error, not run, or skipped after such a flow step. */
  checks: string[];
  /** Their requirements, sorted. */
  requirements: string[];
  /** Why, one line each: "interrupted", "no selected check ran", "class s3 could not run: ...". */
  reasons: string[];
}

export interface ThirdPartyLine {
  stream: 'stdout' | 'stderr';
  text: string;
  count: number;
  /** The check during which it was first printed, when one was running. */
  check: string | null;
}

export type { CheckResult, CheckStatus };
