/**
 * `npm run bench`: every benchmark in one table, each figure beside the baseline measured in the
 * same run (a bare Fastify server, wrk). Benchmarks print; they never assert (targets live here,
 * not in tests). Machine size is printed with the figures so they can be compared.
 */
import { cpus, totalmem } from 'node:os';
import { run as exploreBench } from './explore.ts';
import { run as fieldBench } from './field.ts';
import { run as harnessVsRaw } from './harness-vs-raw.ts';
import { run as loadVsWrk } from './load-vs-wrk.ts';
import { run as referenceVsFastify } from './reference-vs-fastify.ts';

interface Row {
  benchmark: string;
  figure: string;
  baseline: string;
  ratio: string;
  goal: string;
}

const fmt = (n: number | null, digits = 0): string => (n === null ? 'n/a' : n.toFixed(digits));

const rows: Row[] = [];
const reference = await referenceVsFastify();
rows.push(
  {
    benchmark: `reference GET /v1/regions (median of ${reference.rounds} rounds)`,
    figure: `${fmt(reference.regions_rps)} req/s, ${fmt(reference.regions_cpu_us, 1)} µs CPU/req`,
    baseline: `bare fastify ${fmt(reference.bare_rps)} req/s, ${fmt(reference.bare_cpu_us, 1)} µs CPU/req`,
    ratio: `${fmt(reference.regions_ratio, 2)} (CPU ${fmt(reference.regions_cpu_ratio, 2)})`,
    goal: '>= 0.5',
  },
  {
    benchmark: `reference POST /v1/sms/send, test mode (median of ${reference.rounds} rounds)`,
    figure: `${fmt(reference.sms_send_rps)} req/s, ${fmt(reference.sms_send_cpu_us, 1)} µs CPU/req`,
    baseline: `bare fastify ${fmt(reference.bare_rps)} req/s, ${fmt(reference.bare_cpu_us, 1)} µs CPU/req`,
    ratio: `${fmt(reference.sms_send_ratio, 2)} (CPU ${fmt(reference.sms_send_cpu_ratio, 2)})`,
    goal: '>= 0.6',
  },
  {
    // The same send against Fastify's own POST floor: the share the reference server's work costs.
    benchmark: 'reference POST /v1/sms/send vs a bare Fastify POST of the same body',
    figure: `${fmt(reference.sms_send_rps)} req/s`,
    baseline: `bare fastify POST ${fmt(reference.bare_post_rps)} req/s, ${fmt(reference.bare_post_cpu_us, 1)} µs CPU/req (${fmt(reference.bare_post_ratio, 2)} of its GET)`,
    ratio: fmt(reference.sms_send_post_ratio, 2),
    goal: '-',
  },
  {
    benchmark: `reference RSS after ${reference.rss_after_requests} requests`,
    figure: `${fmt(reference.rss_mb)} MB`,
    baseline: '-',
    ratio: '-',
    goal: '-',
  },
);
const load = await loadVsWrk();
// Notes (a time cap hit, non-200 answers, where the memory was) go to stderr with the progress lines.
for (const note of load.notes) process.stderr.write(`load-vs-wrk: ${note}\n`);
const range = (s: { min: number; max: number } | null, digits = 0): string =>
  s ? `${fmt(s.min, digits)}–${fmt(s.max, digits)}` : 'n/a';
rows.push(
  {
    benchmark: `load generator GET /v1/regions (median of ${load.rounds} alternating ${load.seconds} s rounds)`,
    figure: `${fmt(load.generator_rps)} req/s (${range(load.generator_spread)})`,
    baseline:
      load.wrk_rps === null ? 'wrk not installed' : `wrk ${fmt(load.wrk_rps)} req/s (${range(load.wrk_spread)})`,
    ratio: load.ratio === null ? 'n/a' : `${fmt(load.ratio, 2)} (rounds ${range(load.ratio_spread, 2)})`,
    goal: '>= 0.8',
  },
  {
    benchmark: `load generator peak RSS (${load.rss_requests_target} requests)`,
    figure: load.rss_complete
      ? `${fmt(load.peak_rss_mb)} MB`
      : `no figure: time cap hit after ${load.rss_requests} requests`,
    baseline: '-',
    ratio: '-',
    goal: '<= 250 MB (was 170 MB at 1,000,000)',
  },
);
const harness = await harnessVsRaw();
rows.push(
  {
    benchmark: `cloudcheck run, all classes, embedded server (${harness.checks} checks; wall, server start included)`,
    figure: `${fmt(harness.run_seconds, 1)} s`,
    baseline: '-',
    ratio: '-',
    goal: '<= 10 s',
  },
  {
    benchmark: 'cloudcheck run, CPU of every process it starts',
    figure: harness.run_cpu_seconds === null ? 'n/a (no /proc)' : `${fmt(harness.run_cpu_seconds, 1)} s`,
    baseline: '-',
    ratio: '-',
    goal: '<= 15 s',
  },
  {
    benchmark: `fixed cost: a run of ${harness.fixed_checks} check (wall, median of ${harness.fixed_runs})`,
    figure: `${fmt(harness.fixed_seconds, 2)} s`,
    baseline: '-',
    ratio: '-',
    goal: '<= 2 s',
  },
  {
    benchmark: `external S3 tools (${harness.tools_ran} of aws, rclone, s3cmd installed): CPU of their checks beyond a one-check run`,
    figure: harness.tools_cpu_seconds === null ? 'n/a (no /proc)' : `${fmt(harness.tools_cpu_seconds, 1)} s`,
    baseline: '-',
    ratio: '-',
    goal: '< 20 s (a third of the 60 s they took before)',
  },
  {
    benchmark: 'waits for the target inside the run (VPS boot, delivery, key expiry: report.json waits)',
    figure: `${fmt(harness.wait_seconds, 1)} s`,
    baseline: '-',
    ratio: '-',
    goal: '-',
  },
  {
    benchmark: `harness cost: (run − waits) vs raw undici replay of its ${harness.requests} requests`,
    figure: `${fmt(harness.run_seconds - harness.wait_seconds, 1)} s`,
    baseline: `raw ${fmt(harness.raw_concurrent_seconds, 2)} s in ${harness.lanes} lanes (${fmt(harness.raw_sequential_seconds, 2)} s sequential)`,
    ratio: fmt(harness.harness_ratio, 1),
    goal: '<= 3',
  },
);
// The field: the same full run against a target that answers 80 ms later, and one whose VPSes
// take 45 s to boot, beside the loopback run of this benchmark (field.ts).
const field = await fieldBench();
for (const f of field) {
  rows.push({
    benchmark: `cloudcheck run, all classes, embedded server, ${f.label} (wall; critical path in round trips)`,
    figure: `${f.seconds} s, ${f.cpu_seconds ?? 'n/a'} s CPU, ${f.workers ?? '?'} workers, ${f.in_flight_average ?? '?'} in flight`,
    baseline: f.label === 'loopback' ? '-' : `loopback ${field[0]!.seconds} s`,
    ratio: `${f.ratio.toFixed(2)}; ${f.critical_path ? `${f.critical_path.round_trips} round trips (${f.critical_path.chain})` : 'n/a'}`,
    goal: f.goal,
  });
}
for (const { latencyMs, sequential, concurrent } of await exploreBench()) {
  rows.push({
    benchmark: `cloudcheck explore, reference server in process${latencyMs ? `, every answer ${latencyMs} ms late` : ''} (seed 1, ${concurrent.requests} requests in ${fmt(concurrent.seconds, 1)} s)`,
    figure: `${fmt(concurrent.sequences_per_second, 1)} sequences/s (${concurrent.sequences}), ${fmt(concurrent.requests_per_second)} req/s`,
    baseline: `one at a time: ${fmt(sequential.sequences_per_second, 1)} sequences/s (${sequential.sequences} in ${fmt(sequential.seconds, 1)} s)`,
    ratio: `${fmt(concurrent.sequences_per_second / sequential.sequences_per_second, 1)} (waits ${fmt(concurrent.waited_seconds, 1)} s summed over sequences)`,
    goal: latencyMs ? '>= 3' : '>= 1',
  });
}

const columns: Array<keyof Row> = ['benchmark', 'figure', 'baseline', 'ratio', 'goal'];
const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
const line = (cells: string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
console.log(
  `\nmachine: ${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GiB, node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log(line(columns));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(columns.map((c) => row[c])));
