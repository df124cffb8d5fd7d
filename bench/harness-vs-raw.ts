/**
 * Benchmark: a full `cloudcheck run` against the embedded server (wall time, server start
 * included; goal < 60 s on a 2-core machine) beside the same request sequence replayed raw with
 * undici in the same run (goal: run / raw <= 2). Prints figures; asserts nothing.
 *
 * How "the same request sequence" is obtained: the run is started with a preload
 * (bench/harness-recorder.mjs, NODE_OPTIONS) that records every request undici sends to the
 * target or its S3 endpoint, in every process (runner and workers), from undici's diagnostics
 * channel: method, path, headers, body, and a marker instead of the key. report.json is not used:
 * it keeps the exchanges of failed checks only, with bodies cut at 8 KiB.
 *
 * The replay goes to a FRESH reference server (child process). Ids are not rewritten: a path
 * naming a VPS or message of the recorded run answers 404 there. Rewriting would need the replay
 * to read responses and map ids, which is the harness's own work, the very thing measured; a 404
 * costs the server about what a hit does, so the raw figure stays a fair floor. Keys: the run's
 * key and the run's own keys → the server's unlimited bench key (the limiter must not turn the
 * replay into 429s); alt → the fresh server's alt key; keys created by checks (unknown to a
 * fresh server) → an invalid key (401). Streamed bodies (SDK uploads) are sent empty; requests
 * made with node:http (the AWS SDK) are not seen by the recorder and so not replayed.
 *
 * Replayed twice: sequentially (one request at a time, recorded order) and with the run's
 * concurrency (each recording process, i.e. each worker and the runner, as its own lane).
 *
 *   node --import tsx bench/harness-vs-raw.ts [--classes a,b]
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';

/** A single cheap check: its run is the fixed cost of any run (start-up, server, report). */
const ONE_CHECK = '\\[ERR-ENVELOPE-001\\] an unknown route';
/** The external S3 tools' checks (aws CLI, rclone, s3cmd; suites/s3/tools.spec.ts). */
const TOOL_CHECKS = 'copy in and out \\(small and 10 MiB multipart\\)';

export interface HarnessBenchFigures {
  name: 'harness-vs-raw';
  /** Wall time of `cloudcheck run`, process start to exit, server start included (s). */
  run_seconds: number;
  /** CPU of the run and everything it started (s); null where /proc is not there. */
  run_cpu_seconds: number | null;
  /** Waits for asynchronous changes inside the run (report.json waits), apart from the harness's own cost. */
  wait_seconds: number;
  checks: number;
  /** Wall time of a run of one check (the median of fixed_runs). */
  fixed_seconds: number;
  /** CPU of a run of one check (s). */
  fixed_cpu_seconds: number | null;
  /** CPU of a run of the external S3 tools' checks beyond the one-check run's (tools and the server's side of their traffic). */
  tools_cpu_seconds: number | null;
  /** Tool checks that ran (not skipped: the tool is installed). */
  tools_ran: number;
  fixed_checks: number;
  /** Runs of one check behind fixed_seconds (the median's). */
  fixed_runs: number;
  /** (run − waits) / raw with the run's concurrency: the harness's own cost. */
  harness_ratio: number;
  run_exit_code: number | null;
  requests: number;
  /** Raw replay, one request at a time (s). */
  raw_sequential_seconds: number;
  /** Raw replay with the run's concurrency: one lane per recording process (s). */
  raw_concurrent_seconds: number;
  lanes: number;
  /** run / raw with the run's concurrency; goal <= 2. */
  ratio: number;
  ratio_sequential: number;
  notes: string[];
}

interface Recorded {
  seq: number;
  at: number;
  pid: number;
  role: 'api' | 's3';
  method: string;
  path: string;
  headers: Record<string, string>;
  auth: 'main' | 'run-key' | 'alt' | 'other' | 'none';
  bodyKind: 'none' | 'bytes' | 'stream';
  body: string | null;
}

interface Prepared {
  origin: string;
  method: Dispatcher.HttpMethod;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function readRecording(dir: string): Recorded[] {
  const all: Recorded[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('requests-')) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n'))
      if (line.trim()) all.push(JSON.parse(line) as Recorded);
  }
  return all.sort((a, b) => a.at - b.at || a.pid - b.pid || a.seq - b.seq);
}

/**
 * CPU seconds (user + system) of this process's children that have ended and been waited for,
 * grandchildren included (Linux /proc/self/stat cutime + cstime); null elsewhere. The difference
 * around a run is the CPU of the run: its runner, its Playwright workers, the embedded server.
 */
function childrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), counted here from field 3 (state) on.
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / 100 : null;
  } catch {
    return null;
  }
}

export interface TimedRun {
  seconds: number;
  cpuSeconds: number | null;
  code: number | null;
  /** Time the run's checks spent waiting for the target's asynchronous changes (report.json waits). */
  waitSeconds: number;
  checks: number;
  /** Checks that ran (not skipped). */
  ran: number;
}

/** Runs of one check behind the fixed-cost figure: one run of two seconds moves by a tenth with the machine. */
const FIXED_RUNS = 3;

/** The run of median wall time among `count` (one after the other). */
async function medianRun(count: number, runOnce: (index: number) => Promise<TimedRun>): Promise<TimedRun> {
  const runs: TimedRun[] = [];
  for (let i = 0; i < count; i++) runs.push(await runOnce(i));
  return runs.sort((a, b) => a.seconds - b.seconds)[Math.floor(count / 2)]!;
}

export async function timedRun(
  recordDir: string | null,
  reportDir: string,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<TimedRun> {
  const preload = pathToFileURL(join(ROOT, 'bench', 'harness-recorder.mjs')).href;
  const args = [join(ROOT, 'bin', 'cloudcheck.mjs'), 'run', '--report-dir', reportDir, ...extraArgs];
  const env: NodeJS.ProcessEnv = recordDir
    ? {
        ...process.env,
        CLOUDCHECK_BENCH_RECORD: recordDir,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim(),
      }
    : { ...process.env };
  Object.assign(env, extraEnv);
  const cpuBefore = childrenCpuSeconds();
  for (const name of ['CLOUDCHECK_TARGET', 'CLOUDCHECK_API_KEY', 'CLOUDCHECK_ALT_API_KEY', 'CLOUDCHECK_S3_URL'])
    delete env[name];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000)));
  // Bounded: a run that hangs is stopped after 10 minutes.
  const timer = setTimeout(() => child.kill('SIGINT'), 600_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = childrenCpuSeconds();
  if (code !== 0 && code !== 1) process.stderr.write(`cloudcheck run exited ${code}:\n${tail}\n`);
  let waitSeconds = 0;
  let checks = 0;
  let ran = 0;
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      waits?: Record<string, number>;
      checks: Array<{ status: string }>;
    };
    waitSeconds = Object.values(report.waits ?? {}).reduce((a, b) => a + b, 0) / 1000;
    checks = report.checks.length;
    ran = report.checks.filter((c) => c.status !== 'skipped').length;
  } catch {
    // No report: the figures say so through the exit code.
  }
  return {
    seconds,
    cpuSeconds: cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null,
    code,
    waitSeconds,
    checks,
    ran,
  };
}

interface FreshServer {
  baseUrl: string;
  s3Url: string;
  altApiKey: string;
  stop(): Promise<void>;
}

async function startFresh(benchKey: string): Promise<FreshServer> {
  const file = join(ROOT, 'bench', 'servers', 'reference.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_KEY: benchKey },
  });
  const facts = await new Promise<{ baseUrl: string; s3Url: string; altApiKey: string }>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('reference server did not start in 30 s')), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as { baseUrl: string; s3Url: string; altApiKey: string });
    });
    child.on('exit', (c) => reject(new Error(`reference server exited with ${c}`)));
  });
  return {
    ...facts,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

function prepare(recorded: Recorded[], server: FreshServer, benchKey: string): Prepared[] {
  const apiOrigin = new URL(server.baseUrl).origin;
  const s3Origin = new URL(server.s3Url).origin;
  return recorded.map((r) => {
    const headers = { ...r.headers };
    // The recorded host names the old server; undici sets the right one.
    delete headers.host;
    if (r.auth === 'main' || r.auth === 'run-key') headers.authorization = `Bearer ${benchKey}`;
    else if (r.auth === 'alt') headers.authorization = `Bearer ${server.altApiKey}`;
    else if (r.auth === 'other') headers.authorization = 'Bearer cc_replay_unknown_key';
    const body = r.bodyKind === 'bytes' && r.body !== null ? Buffer.from(r.body, 'base64') : undefined;
    if (body === undefined) delete headers['content-length'];
    else headers['content-length'] = String(body.byteLength);
    delete headers['transfer-encoding'];
    return { origin: r.role === 's3' ? s3Origin : apiOrigin, method: r.method, path: r.path, headers, body };
  });
}

async function send(dispatcher: Dispatcher, p: Prepared): Promise<number> {
  try {
    const res = await request(`${p.origin}${p.path}`, {
      method: p.method,
      headers: p.headers,
      body: p.body,
      dispatcher,
      signal: AbortSignal.timeout(30_000),
    });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 0;
  }
}

async function replay(lanes: Prepared[][]): Promise<{ seconds: number; statuses: Map<number, number> }> {
  const dispatcher = new Agent({ keepAliveTimeout: 4_000, connections: 16 });
  const statuses = new Map<number, number>();
  const t0 = performance.now();
  await Promise.all(
    lanes.map(async (lane) => {
      for (const p of lane) {
        const status = await send(dispatcher, p);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await dispatcher.close();
  return { seconds, statuses };
}

export async function run(
  options: { classes?: string; log?: (line: string) => void } = {},
): Promise<HarnessBenchFigures> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const work = mkdtempSync(join(tmpdir(), 'cloudcheck-bench-harness-'));
  const notes: string[] = [];
  try {
    log(`harness: cloudcheck run against the embedded server${options.classes ? ` (classes ${options.classes})` : ''}`);
    const classArgs = options.classes ? ['--classes', options.classes] : [];
    // The recorded run only lists the requests (its recorder costs CPU in every process); the
    // figures come from a plain run of the same selection.
    const recordedRun = await timedRun(work, join(work, 'report'), classArgs);
    if (recordedRun.code !== 0) notes.push(`the recorded run exited ${recordedRun.code}`);
    log('harness: the same run without the recorder, for its wall and CPU time');
    const timed = await timedRun(null, join(work, 'plain'), classArgs);
    log(`fixed cost: ${FIXED_RUNS} runs of one check (the median)`);
    const one = await medianRun(FIXED_RUNS, (i) => timedRun(null, join(work, `one-${i}`), ['--grep', ONE_CHECK]));
    log('external S3 tools: a run of their checks alone');
    const tools = await timedRun(null, join(work, 'tools'), ['--grep', TOOL_CHECKS]);
    const recorded = readRecording(work);
    const streamed = recorded.filter((r) => r.bodyKind === 'stream').length;
    if (streamed) notes.push(`${streamed} streamed request bodies replayed empty`);
    const other = recorded.filter((r) => r.auth === 'other').length;
    if (other)
      notes.push(`${other} requests with keys created by checks (or invalid on purpose) replayed with an unknown key`);

    const benchKey = `bench_${randomBytes(12).toString('hex')}`;
    // A fresh server per replay: the second must not find what the first created.
    let server = await startFresh(benchKey);
    log(`raw: ${recorded.length} requests, one at a time`);
    const sequential = await replay([prepare(recorded, server, benchKey)]);
    await server.stop();

    server = await startFresh(benchKey);
    const byPid = new Map<number, Recorded[]>();
    for (const r of recorded) byPid.set(r.pid, [...(byPid.get(r.pid) ?? []), r]);
    const lanes = [...byPid.values()].map((lane) => prepare(lane, server, benchKey));
    log(`raw: the same requests in ${lanes.length} lanes (one per recording process)`);
    const concurrent = await replay(lanes);
    await server.stop();
    notes.push(
      `replay statuses: ${[...concurrent.statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );

    return {
      name: 'harness-vs-raw',
      run_seconds: Math.round(timed.seconds * 10) / 10,
      run_cpu_seconds: timed.cpuSeconds === null ? null : Math.round(timed.cpuSeconds * 10) / 10,
      wait_seconds: Math.round(timed.waitSeconds * 10) / 10,
      checks: timed.checks,
      fixed_seconds: Math.round(one.seconds * 100) / 100,
      fixed_checks: one.checks,
      fixed_runs: FIXED_RUNS,
      fixed_cpu_seconds: one.cpuSeconds === null ? null : Math.round(one.cpuSeconds * 10) / 10,
      tools_cpu_seconds:
        tools.cpuSeconds === null || one.cpuSeconds === null
          ? null
          : Math.round((tools.cpuSeconds - one.cpuSeconds) * 10) / 10,
      tools_ran: tools.ran,
      harness_ratio: Math.round(((timed.seconds - timed.waitSeconds) / concurrent.seconds) * 10) / 10,
      run_exit_code: timed.code,
      requests: recorded.length,
      raw_sequential_seconds: Math.round(sequential.seconds * 100) / 100,
      raw_concurrent_seconds: Math.round(concurrent.seconds * 100) / 100,
      lanes: lanes.length,
      ratio: Math.round((timed.seconds / concurrent.seconds) * 10) / 10,
      ratio_sequential: Math.round((timed.seconds / sequential.seconds) * 10) / 10,
      notes,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const i = process.argv.indexOf('--classes');
  const f = await run({ classes: i > 0 ? process.argv[i + 1] : undefined });
  console.log(`run        ${f.run_seconds} s wall (server start included; exit ${f.run_exit_code}; goal < 60 s)`);
  console.log(`requests   ${f.requests}`);
  console.log(`raw        ${f.raw_sequential_seconds} s sequential, ${f.raw_concurrent_seconds} s in ${f.lanes} lanes`);
  console.log(
    `ratio      ${f.ratio} run/raw with the run's concurrency (goal <= 2); ${f.ratio_sequential} against sequential`,
  );
  for (const n of f.notes) console.log(`note: ${n}`);
}
