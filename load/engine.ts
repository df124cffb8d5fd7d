/**
 * The load engine that `cloudcheck load` drives (src/cli/commands/load.ts holds its options,
 * printing and exit codes): the profiles run one after another against a target the command's
 * session opened (they would otherwise share the limits they measure), and their results become
 * the `load` section of report.json (src/model/load.ts).
 */
import type { ApiClient } from '../src/harness/client.ts';
import type { LoadReport, ProfileResult } from '../src/model/load.ts';
import type { LoadedProfile } from './profile.ts';
import { newRunPrefix, runProfile } from './run.ts';

export interface LoadTarget {
  /** Base URL including `/v1`, without a trailing slash. */
  baseUrl: string;
  /** The key the profiles use as `main`, and with which they create and revoke their fresh keys. */
  apiKey: string;
  /** Side requests (keys, window and side-effect probes, recovery): the session's client. */
  client: ApiClient;
  /** `-H`: on every generated request too. */
  headers: Record<string, string>;
  /** `--ca-cert`, for the arrival-rate executor's TLS. */
  caCertFile: string | null;
  /** What the report names as the target ('embedded reference server' for the one the command started). */
  label: string;
}

export interface LoadRunOptions {
  /** Longest total wait (ms) for a fresh window and for recovery in one profile. */
  maxWaitMs: number;
  /** Progress lines; `final` ends a profile. */
  progress?: (line: string, final?: boolean) => void;
}

export interface LoadRun {
  report: LoadReport;
  /** `cc-<hex>`: what the names of everything the run created start with. */
  runPrefix: string;
}

export async function runLoad(
  profiles: readonly LoadedProfile[],
  target: LoadTarget,
  options: LoadRunOptions,
): Promise<LoadRun> {
  const startedAt = new Date().toISOString();
  const runPrefix = newRunPrefix();
  const results: ProfileResult[] = [];
  for (const profile of profiles) {
    results.push(
      await runProfile(profile, {
        baseUrl: target.baseUrl,
        apiKey: target.apiKey,
        headers: target.headers,
        caCertFile: target.caCertFile,
        client: target.client,
        runPrefix,
        maxWaitMs: options.maxWaitMs,
        ...(options.progress ? { progress: options.progress } : {}),
      }),
    );
  }
  const report: LoadReport = {
    schema_version: 1,
    target: target.label,
    started_at: startedAt,
    finished_at: new Date().toISOString(),
    passed: results.every((r) => r.passed),
    profiles: results,
  };
  return { report, runPrefix };
}
