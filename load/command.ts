/**
 * `cloudcheck load [PROFILE...]`: the CLI (src/cli/commands/load.ts) parses options and calls
 * `runLoadCommand`. Exit codes: 0 every expectation passed, 1 a threshold or invariant failed
 * (the summary names the invariant), 2 bad profile, usage error or unreachable target.
 */
import { finaliseReport } from '../src/report/finalise.ts';
import type { CheckResult, ConformanceReport } from '../src/model/report.ts';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { mergeLoadReports } from './merge.ts';
import {
  ProfileError,
  applyOverrides,
  builtinProfileNames,
  resolveProfile,
  type LoadedProfile,
  type PhaseOverrides,
} from './profile.ts';
import type { LoadReport, ProfileResult } from '../src/model/load.ts';
import { probeTarget } from '../src/cli/probe.ts';
import { startEmbedded } from '../src/harness/embedded.ts';
import { addSecret } from '../src/harness/redact.ts';
import { newRunPrefix, runProfile } from './run.ts';
import { formatSummary } from './summary.ts';

export interface LoadCommandOptions {
  /** Built-in profile names or YAML paths; empty means every built-in profile. */
  profiles: string[];
  /** Base URL including `/v1`, normalised at resolution (no trailing slash); without it the embedded reference server is started. */
  target?: string;
  apiKey?: string;
  /** Where report.json is created or merged into (default `reports/load-<run id>`). */
  reportDir?: string;
  /** Seconds the run may wait for a fresh rate-limit window or to observe recovery (default 75). */
  maxWait?: number;
  /** `--connections`, `--rate`, `--duration`: the same value in every phase of every profile. */
  overrides?: PhaseOverrides;
  /** Faults of the embedded reference server (only without `target`; for the project's tests). */
  faults?: string[];
  /** Where progress and the summary go (default process.stderr / process.stdout). */
  out?: (text: string) => void;
  err?: (text: string) => void;
}

export const DEFAULT_PROFILES_ORDER = [
  'smoke',
  'burst-compute',
  'burst-messaging',
  'key-isolation',
  'concurrency-race',
  'hourly-quota',
  'billing-hourly',
  'projects-hourly',
  'sms-volume',
  'soak',
];

interface Target {
  baseUrl: string;
  apiKey: string;
  close?: () => Promise<void>;
}

/** The embedded reference server as `cloudcheck run` starts it (src/harness/embedded.ts), with the given key. */
async function embeddedTarget(apiKey: string | undefined, faults: string[] | undefined): Promise<Target> {
  const server = await startEmbedded({ ...(apiKey ? { apiKey } : {}), ...(faults ? { faults } : {}) });
  return { baseUrl: server.target, apiKey: server.apiKey, close: () => server.close() };
}

/**
 * Fills what a schema_version 1 report must hold and a load-only (or hand-made) report.json may
 * lack, so that every writer can read it; fields already there are kept as they are.
 */
function completeReport(report: Record<string, unknown>, load: LoadReport): void {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  report.schema_version ??= 1;
  report.run ??= {
    id: `load-${load.started_at}`,
    target: load.target,
    started_at: load.started_at,
    finished_at: load.finished_at,
    seed: 0,
    classes: [],
  };
  const summary = (report.summary ??= {}) as Record<string, unknown>;
  summary.verdict ??= load.passed ? 'conformant' : 'non-conformant';
  summary.headline ??= load.passed ? 'load profiles passed' : 'load profiles failed';
  for (const key of ['passed', 'failed', 'skipped'] as const) summary[key] ??= 0;
  summary.must ??= { ...counts };
  summary.should ??= { ...counts };
  report.checks ??= [];
  report.coverage ??= { operations: [] };
  report.leaks ??= [];
}

/**
 * Writes the `load` section into report.json (creating a minimal schema_version 1 report if none),
 * and every other report file beside it, through the one end of every report (finalise.ts):
 * redacted, each file written once.
 */
export async function writeLoadReport(reportDir: string, load: LoadReport): Promise<string> {
  const file = join(reportDir, 'report.json');
  let report: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) report = parsed as Record<string, unknown>;
  } catch {
    report = undefined;
  }
  if (report) {
    completeReport(report, load);
    // Same-named profiles of an earlier load run are replaced (not merged: that would count them twice).
    const prev = report.load as LoadReport | undefined;
    const kept = prev?.profiles?.filter((p) => !load.profiles.some((q) => q.profile === p.profile)) ?? [];
    report.load = kept.length > 0 ? mergeLoadReports([{ ...load, profiles: [...kept, ...load.profiles] }]) : load;
  } else {
    report = { load };
    completeReport(report, load);
  }
  // The writers read typed checks: a hand-made entry lacking fields is shown with placeholders.
  const checks = (report.checks as Array<Partial<CheckResult>>).map((c, i) => ({
    ...c,
    id: c.id ?? `check-${i + 1}`,
    requirement: c.requirement ?? 'UNKNOWN',
    level: c.level ?? 'MUST',
    class: c.class ?? 'errors',
    operation: c.operation ?? null,
    title: c.title ?? c.id ?? 'untitled',
    status: c.status ?? 'skipped',
  }));
  const { outcome } = finaliseReport({ ...(report as unknown as ConformanceReport), checks }, reportDir);
  for (const failure of outcome.failed)
    process.stderr.write(`cloudcheck load: could not write ${failure.file}: ${failure.error}\n`);
  if (!outcome.written.includes(file))
    throw new Error(outcome.failed.find((f) => f.file === 'report.json')?.error ?? 'report.json was not written');
  return file;
}

export async function runLoadCommand(options: LoadCommandOptions): Promise<number> {
  const out = options.out ?? ((t: string) => void process.stdout.write(t));
  const err = options.err ?? ((t: string) => void process.stderr.write(t));
  const isTty = options.err === undefined && process.stderr.isTTY === true;
  let lastProgress = 0;
  const progress = (line: string, final?: boolean) => {
    if (isTty) {
      err(`\r\x1b[2K${line}${final ? '\n' : ''}`);
    } else if (final || Date.now() - lastProgress > 5000) {
      lastProgress = Date.now();
      err(`${line}\n`);
    }
  };

  // 1. Profiles (exit 2 on any problem, before touching the target).
  const names =
    options.profiles.length > 0
      ? options.profiles
      : await builtinProfileNames().then((n) =>
          DEFAULT_PROFILES_ORDER.filter((p) => n.includes(p)).concat(
            n.filter((p) => !DEFAULT_PROFILES_ORDER.includes(p)),
          ),
        );
  const loaded: LoadedProfile[] = [];
  for (const name of names) {
    try {
      loaded.push(applyOverrides(await resolveProfile(name), options.overrides ?? {}));
    } catch (e) {
      err(`cloudcheck load: ${e instanceof ProfileError ? e.message : `${name}: ${(e as Error).message}`}\n`);
      return 2;
    }
  }
  if (options.maxWait !== undefined && (!Number.isFinite(options.maxWait) || options.maxWait < 0)) {
    err('cloudcheck load: --max-wait must be a number of seconds >= 0\n');
    return 2;
  }

  // 2. Target. Its key is a secret of every output from here on.
  addSecret(options.apiKey);
  let target: Target;
  if (options.target) {
    if (!options.apiKey) {
      err('cloudcheck load: --api-key (or CLOUDCHECK_API_KEY) is required with --target\n');
      return 2;
    }
    target = { baseUrl: options.target, apiKey: options.apiKey };
  } else {
    try {
      target = await embeddedTarget(options.apiKey, options.faults);
      addSecret(target.apiKey);
    } catch (e) {
      err(`cloudcheck load: cannot start the embedded reference server: ${(e as Error).message}\n`);
      return 2;
    }
    err(`cloudcheck load: embedded reference server at ${target.baseUrl}\n`);
  }

  try {
    try {
      // The same probe as `cloudcheck run`, with the key: a wrong key or a base URL that is not the
      // API stops here, before any window is waited for.
      await probeTarget(target.baseUrl, target.apiKey);
    } catch (e) {
      err(`cloudcheck load: ${(e as Error).message}\n`);
      return 2;
    }

    // 3. Run, one profile after another (they would otherwise share the limits they measure).
    const startedAt = new Date().toISOString();
    const runPrefix = newRunPrefix();
    const results: ProfileResult[] = [];
    for (const profile of loaded) {
      results.push(
        await runProfile(profile, {
          baseUrl: target.baseUrl,
          apiKey: target.apiKey,
          runPrefix,
          maxWaitMs: (options.maxWait ?? 75) * 1000,
          progress,
        }),
      );
    }
    const report: LoadReport = {
      schema_version: 1,
      target: options.target ? target.baseUrl : 'embedded reference server',
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      passed: results.every((r) => r.passed),
      profiles: results,
    };
    const reportDir = resolve(options.reportDir ?? join('reports', `load-${runPrefix.slice(3)}`));
    let reportPath: string | undefined;
    try {
      reportPath = await writeLoadReport(reportDir, report);
    } catch (e) {
      err(`cloudcheck load: cannot write the report: ${(e as Error).message}\n`);
    }
    out(formatSummary(report, reportPath));
    if (results.some((r) => r.error)) return 2;
    return report.passed ? 0 : 1;
  } finally {
    await target.close?.();
  }
}
