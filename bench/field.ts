/**
 * Benchmark: a full `cloudcheck run` against the embedded server made to behave like a remote
 * cloud (its legal variants, CLOUDCHECK_EMBEDDED_VARIANTS): as it is (loopback), with every
 * answer 80 ms later (a staging server in another region: `latency=80`), and with new VPSes that
 * take 45 s to boot (`vps-boot-slow=45000`). Each wall time beside its ratio to loopback, measured
 * in the same run, and beside the run's critical path in round trips (report.json concurrency:
 * the longest chain of requests that had to follow each other), the requests in flight on
 * average and the workers the run chose. Prints; asserts nothing.
 *
 *   node --import tsx bench/field.ts [--rounds N]   (N rounds, the three runs alternating; medians, the lower of two)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { timedRun } from './harness-vs-raw.ts';

export interface FieldCase {
  label: string;
  /** CLOUDCHECK_EMBEDDED_VARIANTS of the run ('' for none). */
  variants: string;
  goal: string;
}

export const FIELD_CASES: readonly FieldCase[] = [
  { label: 'loopback', variants: '', goal: 'no slower than before (15-18 s)' },
  { label: 'latency=80', variants: 'latency=80', goal: '<= 30 s, ratio <= 2' },
  { label: 'vps-boot-slow=45000', variants: 'vps-boot-slow=45000', goal: '<= 80 s (one boot and the rest)' },
];

export interface FieldFigures {
  label: string;
  goal: string;
  /** Median wall time of the rounds (s), server start included. */
  seconds: number;
  /** Each round's wall time (s), in order. */
  rounds: number[];
  cpu_seconds: number | null;
  /** The median run's wall over the loopback median's. */
  ratio: number;
  exit_code: number | null;
  workers: number | null;
  round_trip_ms: number | null;
  in_flight_average: number | null;
  critical_path: { round_trips: number; chain: string } | null;
  wait_seconds: number;
}

interface Concurrency {
  workers: number | null;
  round_trip_ms: number | null;
  in_flight_average: number;
  critical_path: { round_trips: number; chain: string } | null;
}

function concurrencyOf(reportDir: string): Concurrency | null {
  try {
    return (
      (JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { concurrency?: Concurrency }).concurrency ??
      null
    );
  } catch {
    return null;
  }
}

/** Ids and first lines of the failed checks of a run's report.json. */
function failedChecks(reportDir: string): string[] {
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      checks: Array<{ id: string; status: string; failure?: { headline?: string } }>;
    };
    return report.checks
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.id} (${c.failure?.headline?.slice(0, 200) ?? 'no failure recorded'})`);
  } catch {
    return ['no report.json'];
  }
}

export async function run(options: { rounds?: number; log?: (line: string) => void } = {}): Promise<FieldFigures[]> {
  const rounds = Math.max(1, options.rounds ?? 1);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const work = mkdtempSync(join(tmpdir(), 'cloudcheck-bench-field-'));
  try {
    const runs = FIELD_CASES.map(() => [] as Array<Awaited<ReturnType<typeof timedRun>> & { dir: string }>);
    // The cases alternate round by round: a machine that gets busier slows each of them alike.
    for (let round = 0; round < rounds; round++) {
      for (const [i, c] of FIELD_CASES.entries()) {
        log(`field: cloudcheck run, ${c.label}${rounds > 1 ? ` (round ${round + 1} of ${rounds})` : ''}`);
        const dir = join(work, `${i}-${round}`);
        const env: Record<string, string> = { CLOUDCHECK_EMBEDDED_VARIANTS: c.variants };
        const timed = await timedRun(null, dir, [], env);
        // The report goes with the bench's temp dir: what failed is said now.
        if (timed.code === 1) log(`field: ${c.label} exited 1; failed: ${failedChecks(dir).join(', ')}`);
        runs[i]!.push({ ...timed, dir });
      }
    }
    const median = <T extends { seconds: number }>(list: T[]): T =>
      [...list].sort((a, b) => a.seconds - b.seconds)[Math.floor((list.length - 1) / 2)]!;
    const medians = runs.map(median);
    const loopback = medians[0]!.seconds;
    return FIELD_CASES.map((c, i) => {
      const m = medians[i]!;
      const concurrency = concurrencyOf(m.dir);
      return {
        label: c.label,
        goal: c.goal,
        seconds: Math.round(m.seconds * 10) / 10,
        rounds: runs[i]!.map((r) => Math.round(r.seconds * 10) / 10),
        cpu_seconds: m.cpuSeconds === null ? null : Math.round(m.cpuSeconds * 10) / 10,
        ratio: Math.round((m.seconds / loopback) * 100) / 100,
        exit_code: m.code,
        workers: concurrency?.workers ?? null,
        round_trip_ms: concurrency?.round_trip_ms ?? null,
        in_flight_average: concurrency?.in_flight_average ?? null,
        critical_path: concurrency?.critical_path ?? null,
        wait_seconds: Math.round(m.waitSeconds * 10) / 10,
      };
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** One line of figures per case, for the benchmark table and for a person. */
export function describe(f: FieldFigures): string {
  const path = f.critical_path ? `${f.critical_path.round_trips} round trips (${f.critical_path.chain})` : 'n/a';
  return `${f.seconds} s wall${f.rounds.length > 1 ? ` (rounds ${f.rounds.join(', ')})` : ''}, ${f.cpu_seconds ?? 'n/a'} s CPU, exit ${f.exit_code}; ${f.workers ?? '?'} workers (round trip ${f.round_trip_ms ?? '?'} ms), ${f.in_flight_average ?? '?'} in flight on average, waits ${f.wait_seconds} s; critical path ${path}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--rounds');
  const figures = await run({ rounds: i > 0 ? Number(process.argv[i + 1]) : 1 });
  for (const f of figures)
    console.log(`${f.label.padEnd(20)} ${f.ratio.toFixed(2)}x loopback  ${describe(f)}  (goal ${f.goal})`);
}
