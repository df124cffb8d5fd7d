/**
 * The `load` section of report.json, as `cloudcheck load` writes it (load/result.ts builds it) and
 * every reader takes it (the writers, `report merge`, `report diff`). The wire shape only: names
 * that load/ narrows (invariants, windows) are plain strings here, so that the report layer
 * needs nothing of load/ or of the rules to read it.
 */

/** The status classes latency is kept apart by: a burst of fast 429s must not flatter the 2xx figures. */
export const STATUS_CLASSES = ['2xx', '4xx', '429', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export interface LatencySummary {
  count: number;
  /** Milliseconds. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface SerializedHistograms {
  unit: 'us';
  /** Compressed base64 HdrHistogram per status class; absent when nothing was recorded. */
  classes: Partial<Record<StatusClass, string>>;
}

export interface ThresholdLine {
  name: string;
  expected: string;
  actual: string;
  passed: boolean;
  /** Set on invariant lines: the stable invariant name. */
  invariant?: string;
}

/** 2xx latency per second of the run (for the drift expectation); merges by summing. */
export interface TimelineBucket {
  t: number;
  count: number;
  sum_ms: number;
}

/** A rate-limit invariant a response broke (src/rules/rate-limits.ts names them). */
export interface LoadViolation {
  invariant: string;
  /** The 0-based index of the response concerned in its key's request order; -1 for the whole sequence. */
  index: number;
  message: string;
  /** The key's label (`main`, `fresh-0`), never the key. */
  key?: string;
}

export interface LatencyLimits {
  p50?: number;
  p95?: number;
  p99?: number;
}

/** What a profile expected (its YAML's `expectations`), kept with its result. */
export interface LoadExpectations {
  latency?: Partial<Record<StatusClass, LatencyLimits>>;
  max_error_rate?: number;
  max_5xx?: number;
  max_429?: number;
  latency_drift?: number;
  headers?: boolean;
  rate_limit?: {
    phase?: string;
    limit: number;
    window: string;
    counter?: 'requests' | 'sms';
    area?: string;
    ordering?: 'sequential' | 'concurrent';
    invariants?: string[];
    sms_limit?: number;
    recovery?: boolean;
    require_429?: boolean;
  };
  isolation?: { phase: string };
}

/** X-RateLimit-Remaining (X-SMS-Remaining for SMS-volume profiles) against request index, per rate-limited key. */
export interface RateLimitSeries {
  /** The key's label (`main`, `fresh-0`), never the key. */
  label: string;
  header: string;
  points: Array<[index: number, remaining: number]>;
}

export interface ProfileResult {
  profile: string;
  file: string;
  description?: string;
  target: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** How many runs were merged into this one (1 for a single machine). */
  runs: number;
  /** `dropped`: arrivals an arrival-rate phase did not send because every connection was busy. */
  requests: {
    sent: number;
    completed: number;
    network_errors: number;
    by_status: Record<string, number>;
    bytes_received?: number;
    dropped?: number;
  };
  latency_ms: Partial<Record<StatusClass, LatencySummary>>;
  histograms: SerializedHistograms;
  timeline: TimelineBucket[];
  expectations: LoadExpectations;
  /** The invariants this profile evaluated (stable names), whether violated or not. */
  invariants_checked: string[];
  violations: LoadViolation[];
  thresholds: ThresholdLine[];
  passed: boolean;
  /** Caps applied, waits, unobserved checks. */
  notes: string[];
  /** Set when the profile could not run at all (bad target, key creation failed). */
  error?: string;
  rate_limit_series?: RateLimitSeries[];
}

/** report.json `load`. */
export interface LoadReport {
  schema_version: 1;
  target: string;
  started_at: string;
  finished_at: string;
  passed: boolean;
  profiles: ProfileResult[];
}
