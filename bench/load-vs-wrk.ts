/**
 * Benchmark: cloudcheck's load generator vs wrk on GET /v1/regions of the reference server (with
 * an unlimited bench key), and the generator's peak RSS over a run of 1,000,000 requests. Goals:
 * ratio >= 0.8, RSS < 250 MB. Prints figures; asserts nothing (benchmarks never fail tests).
 *
 * Throughput method, for a noisy shared machine: one reference server (a child process, so
 * neither tool shares its event loop), the same URL, connections and duration for both tools.
 * After a warm-up of each, the tools alternate over several rounds, the order flipping every round
 * (wrk, gen | gen, wrk | wrk, gen ...) so a drift of the machine's load favours neither. The figures
 * are the median of each tool and the ratio of the medians; the spread is the min–max of each and
 * of the per-round ratios. The generator's CPU share and the server's are printed too: a generator
 * near 100 % of a core is the bottleneck, a server near 100 % means both tools measured the server.
 *
 * Memory method: a separate child process runs only the generator for exactly `rssRequests`
 * requests (bounded by `rssMaxSeconds`) and reports its peak RSS (`process.resourceUsage().maxRSS`,
 * kept by the kernel, not sampled) plus RSS samples along the run, so growth with the request count
 * shows. A separate process keeps the throughput rounds' heap (and, in `npm run bench`, the other
 * benchmarks') out of the figure. When the time cap stops the run first, no figure is given for
 * the full count: the result says how many requests were made.
 *
 *   node --import tsx bench/load-vs-wrk.ts [--seconds 10] [--rounds 3] [--connections 32]
 *     [--rss-requests 1000000] [--rss-max-seconds 300] [--skip-rss]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runGenerator } from '../load/run.ts';

export interface Spread {
  min: number;
  max: number;
}

export interface LoadVsWrkFigures {
  name: 'load-vs-wrk';
  rounds: number;
  seconds: number;
  connections: number;
  /** Median over the rounds, requests per second. */
  generator_rps: number;
  generator_spread: Spread;
  wrk_rps: number | null;
  wrk_spread: Spread | null;
  /** Median generator / median wrk; goal >= 0.8. Null when wrk is not installed. */
  ratio: number | null;
  /** Min–max of the per-round ratios (each generator round against the wrk round beside it). */
  ratio_spread: Spread | null;
  /** Median share of one core the generator used during its rounds, %. */
  generator_cpu_pct: number;
  /** Median share of one core the server used during each tool's rounds, %. */
  server_cpu_pct: { generator: number | null; wrk: number | null };
  /** Requests asked of the memory run (1,000,000 by default). */
  rss_requests_target: number;
  /** Requests the memory run completed; below the target when the time cap stopped it. */
  rss_requests: number;
  /** True when the memory run completed the target count within its time cap. */
  rss_complete: boolean;
  rss_seconds: number;
  /** Peak resident set size of the generator's process over the memory run, MB; goal < 250. */
  peak_rss_mb: number | null;
  /** RSS of that process once loaded, before the first request, MB. */
  rss_before_mb: number | null;
  /** RSS when a quarter of the requests were done and at the end: equal when memory stays flat. */
  rss_quarter_mb: number | null;
  rss_end_mb: number | null;
  notes: string[];
}

export interface LoadVsWrkOptions {
  /** Duration of each throughput round, per tool. */
  seconds?: number;
  /** Rounds per tool. */
  rounds?: number;
  warmupSeconds?: number;
  connections?: number;
  rssRequests?: number;
  /** Hard time cap of the memory run (seconds). */
  rssMaxSeconds?: number;
  /** Skip the memory run (throughput only). */
  skipRss?: boolean;
  log?: (line: string) => void;
}

interface ServerChild {
  baseUrl: string;
  child: ChildProcess;
  /** The server's CPU time so far (user + system), microseconds. */
  cpu: () => Promise<number>;
}

async function startServerChild(unlimitedKey: string): Promise<ServerChild> {
  const serverModule = pathToFileURL(fileURLToPath(new URL('../reference/server.ts', import.meta.url))).href;
  // Answers "cpu" on stdin with its CPU time, so a round can tell whether the server was saturated.
  const code = [
    `const { startReferenceServer } = await import(${JSON.stringify(serverModule)});`,
    `const s = await startReferenceServer({ host: '127.0.0.1', port: 0, s3Port: 0, unlimitedKey: process.env.BENCH_KEY });`,
    `process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl }) + '\\n');`,
    `process.stdin.on('data', () => { const u = process.cpuUsage(); process.stdout.write(JSON.stringify({ cpu: u.user + u.system }) + '\\n'); });`,
    `const stop = () => s.close().then(() => process.exit(0));`,
    `process.on('SIGTERM', stop); process.on('SIGINT', stop);`,
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_KEY: unlimitedKey },
  });
  const waiting: Array<(line: string) => void> = [];
  let buf = '';
  let started: ((baseUrl: string) => void) | undefined;
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      if (started) {
        started((JSON.parse(line) as { baseUrl: string }).baseUrl);
        started = undefined;
      } else waiting.shift()?.(line);
    }
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('reference server did not start within 30 s')), 30_000);
    started = (url) => {
      clearTimeout(timer);
      resolve(url);
    };
    child.on('exit', (c) => reject(new Error(`reference server exited with ${c}`)));
  });
  const cpu = () =>
    new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('reference server did not answer the cpu probe')), 5_000);
      waiting.push((line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { cpu: number }).cpu);
      });
      child.stdin?.write('cpu\n');
    });
  return { baseUrl, child, cpu };
}

function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

async function runWrk(url: string, key: string, seconds: number, connections: number): Promise<number> {
  const child = spawn('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '-H', `Authorization: Bearer ${key}`, url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // wrk stops itself after -d; the kill is a backstop against a hung run.
  const backstop = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(backstop);
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (code !== 0 || !m) throw new Error(`wrk failed (exit ${code}): ${out.slice(0, 300)}`);
  // Non-2xx answers would make the comparison meaningless; wrk reports them on their own line.
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  if (non2xx) throw new Error(`wrk saw ${non2xx[1]} non-2xx responses: ${out.slice(0, 300)}`);
  return Number(m[1]);
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const spreadOf = (values: readonly number[]): Spread => ({ min: Math.min(...values), max: Math.max(...values) });
const round2 = (n: number) => Math.round(n * 100) / 100;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

interface RssChildResult {
  requests: number;
  durationMs: number;
  byStatus: Record<string, number>;
  /** Kilobytes, from process.resourceUsage().maxRSS. */
  maxRssBeforeKb: number;
  maxRssKb: number;
  /** [completed requests, RSS, V8 heap total, external (Buffers included)] in bytes, about once a second. */
  samples: Array<[number, number, number, number]>;
}

/** The memory run, in a process of its own that loads only the generator. */
async function runRssChild(
  baseUrl: string,
  key: string,
  amount: number,
  seconds: number,
  connections: number,
): Promise<RssChildResult> {
  const self = fileURLToPath(import.meta.url);
  const args = ['--import', 'tsx', self, '--rss-child', baseUrl, String(amount), String(seconds), String(connections)];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_KEY: key },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // The generator's own cap is `seconds`; this backstop covers start-up and a stop that never comes.
  const backstop = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(backstop);
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !line) throw new Error(`memory run failed (exit ${code})`);
  return JSON.parse(line) as RssChildResult;
}

async function rssChildMain(baseUrl: string, amount: number, seconds: number, connections: number): Promise<void> {
  const apiKey = process.env.BENCH_KEY ?? '';
  const maxRssBeforeKb = process.resourceUsage().maxRSS;
  const samples: RssChildResult['samples'] = [];
  const sample = (completed: number) => {
    const m = process.memoryUsage();
    samples.push([completed, m.rss, m.heapTotal, m.external]);
  };
  const run = await runGenerator({
    baseUrl,
    apiKey,
    path: '/regions',
    connections,
    amount,
    seconds,
    onProgress: sample,
  });
  sample(run.requests);
  const result: RssChildResult = {
    requests: run.requests,
    durationMs: run.durationMs,
    byStatus: run.byStatus,
    maxRssBeforeKb,
    maxRssKb: process.resourceUsage().maxRSS,
    samples,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export async function run(options: LoadVsWrkOptions = {}): Promise<LoadVsWrkFigures> {
  const log = options.log ?? ((l: string) => void process.stderr.write(`${l}\n`));
  const seconds = options.seconds ?? 10;
  const rounds = Math.max(1, options.rounds ?? 3);
  const warmupSeconds = options.warmupSeconds ?? 3;
  const connections = options.connections ?? 32;
  const rssRequests = options.rssRequests ?? 1_000_000;
  const rssMaxSeconds = options.rssMaxSeconds ?? 300;
  const notes: string[] = [];
  const key = `bench-${randomBytes(12).toString('hex')}`;
  const server = await startServerChild(key);
  try {
    const url = `${server.baseUrl}/regions`;
    const haveWrk = wrkInstalled();
    if (!haveWrk) {
      log('wrk not installed — apt-get install wrk');
      notes.push('wrk not installed — apt-get install wrk; ratio skipped');
    }

    // Warm-up: JIT of the server and the generator, connection setup on both sides.
    log(`warm-up: ${warmupSeconds}s generator${haveWrk ? `, ${warmupSeconds}s wrk` : ''}`);
    await runGenerator({
      baseUrl: server.baseUrl,
      apiKey: key,
      path: '/regions',
      connections,
      amount: 10_000_000,
      seconds: warmupSeconds,
    });
    if (haveWrk) await runWrk(url, key, warmupSeconds, connections);

    const gen: number[] = [];
    const wrk: number[] = [];
    const genCpu: number[] = [];
    const serverCpuGen: number[] = [];
    const serverCpuWrk: number[] = [];
    const statuses: Record<string, number> = {};

    const generatorRound = async (r: number) => {
      const serverBefore = await server.cpu();
      const before = process.cpuUsage();
      const g = await runGenerator({
        baseUrl: server.baseUrl,
        apiKey: key,
        path: '/regions',
        connections,
        amount: 10_000_000,
        seconds,
      });
      const used = process.cpuUsage(before);
      serverCpuGen.push(((await server.cpu()) - serverBefore) / 10 / g.durationMs);
      genCpu.push((used.user + used.system) / 10 / g.durationMs);
      gen.push(g.requestsPerSecond);
      for (const [s, n] of Object.entries(g.byStatus)) statuses[s] = (statuses[s] ?? 0) + n;
      log(
        `round ${r + 1}/${rounds} generator: ${Math.round(g.requestsPerSecond)} req/s (generator CPU ${Math.round(genCpu.at(-1)!)} %, server CPU ${Math.round(serverCpuGen.at(-1)!)} %)`,
      );
    };
    const wrkRound = async (r: number) => {
      const serverBefore = await server.cpu();
      const started = Date.now();
      const w = await runWrk(url, key, seconds, connections);
      serverCpuWrk.push(((await server.cpu()) - serverBefore) / 10 / (Date.now() - started));
      wrk.push(w);
      log(
        `round ${r + 1}/${rounds} wrk:       ${Math.round(w)} req/s (server CPU ${Math.round(serverCpuWrk.at(-1)!)} %)`,
      );
    };

    for (let r = 0; r < rounds; r++) {
      // Flip the order every round so a trend in the machine's load does not favour one tool.
      if (!haveWrk) await generatorRound(r);
      else if (r % 2 === 0) {
        await wrkRound(r);
        await generatorRound(r);
      } else {
        await generatorRound(r);
        await wrkRound(r);
      }
    }
    if (Object.keys(statuses).some((s) => s !== '200'))
      notes.push(`generator saw statuses ${JSON.stringify(statuses)}`);

    const genMedian = median(gen);
    const wrkMedian = haveWrk ? median(wrk) : null;
    const ratios = haveWrk ? gen.map((g, i) => g / wrk[i]!) : [];

    let rss: RssChildResult | undefined;
    if (!options.skipRss) {
      log(`generator memory: ${rssRequests} requests in a process of its own, capped at ${rssMaxSeconds}s`);
      rss = await runRssChild(server.baseUrl, key, rssRequests, rssMaxSeconds, connections);
      if (Object.keys(rss.byStatus).some((s) => s !== '200'))
        notes.push(`memory run saw statuses ${JSON.stringify(rss.byStatus)}`);
    }
    const complete = rss !== undefined && rss.requests >= rssRequests;
    if (rss && !complete)
      notes.push(
        `memory run stopped at its ${rssMaxSeconds}s cap after ${rss.requests} of ${rssRequests} requests: no figure for ${rssRequests}`,
      );
    const quarter = rss?.samples.find(([n]) => n >= rssRequests / 4);
    const last = rss?.samples.at(-1);
    // Where the memory was at the highest sample: V8's heap (objects) or outside it (Buffers).
    const top = rss?.samples.reduce((a, b) => (b[1] > a[1] ? b : a));
    if (top)
      notes.push(
        `memory run: highest sampled RSS ${mb(top[1])} MB at ${top[0]} requests (V8 heap ${mb(top[2])} MB, external ${mb(top[3])} MB)`,
      );

    return {
      name: 'load-vs-wrk',
      rounds,
      seconds,
      connections,
      generator_rps: Math.round(genMedian),
      generator_spread: { min: Math.round(Math.min(...gen)), max: Math.round(Math.max(...gen)) },
      wrk_rps: wrkMedian === null ? null : Math.round(wrkMedian),
      wrk_spread: haveWrk ? { min: Math.round(Math.min(...wrk)), max: Math.round(Math.max(...wrk)) } : null,
      ratio: wrkMedian ? round2(genMedian / wrkMedian) : null,
      ratio_spread: ratios.length > 0 ? { min: round2(spreadOf(ratios).min), max: round2(spreadOf(ratios).max) } : null,
      generator_cpu_pct: Math.round(median(genCpu)),
      server_cpu_pct: {
        generator: Math.round(median(serverCpuGen)),
        wrk: haveWrk ? Math.round(median(serverCpuWrk)) : null,
      },
      rss_requests_target: rssRequests,
      rss_requests: rss?.requests ?? 0,
      rss_complete: complete,
      rss_seconds: rss ? Math.round(rss.durationMs / 100) / 10 : 0,
      peak_rss_mb: complete && rss ? Math.round(rss.maxRssKb / 1024) : null,
      rss_before_mb: rss ? Math.round(rss.maxRssBeforeKb / 1024) : null,
      rss_quarter_mb: quarter ? mb(quarter[1]) : null,
      rss_end_mb: last ? mb(last[1]) : null,
      notes,
    };
  } finally {
    server.child.kill('SIGTERM');
  }
}

function arg(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const child = process.argv.indexOf('--rss-child');
  if (child >= 0) {
    const [baseUrl, amount, seconds, connections] = process.argv.slice(child + 1);
    await rssChildMain(baseUrl ?? '', Number(amount), Number(seconds), Number(connections));
  } else {
    const f = await run({
      seconds: arg('--seconds'),
      rounds: arg('--rounds'),
      connections: arg('--connections'),
      rssRequests: arg('--rss-requests'),
      rssMaxSeconds: arg('--rss-max-seconds'),
      skipRss: process.argv.includes('--skip-rss'),
    });
    const range = (s: Spread | null) => (s ? `${s.min}–${s.max}` : 'n/a');
    console.log(
      `method    ${f.rounds} rounds of ${f.seconds}s per tool, alternating, ${f.connections} connections, medians`,
    );
    console.log(
      `generator ${f.generator_rps} req/s (rounds ${range(f.generator_spread)}; generator CPU ${f.generator_cpu_pct} %, server CPU ${f.server_cpu_pct.generator} %)`,
    );
    console.log(
      `wrk       ${f.wrk_rps === null ? 'n/a (wrk not installed — apt-get install wrk)' : `${f.wrk_rps} req/s (rounds ${range(f.wrk_spread)}; server CPU ${f.server_cpu_pct.wrk} %)`}`,
    );
    console.log(
      `ratio     ${f.ratio === null ? 'skipped' : `${f.ratio} of medians (per round ${range(f.ratio_spread)}; goal >= 0.8)`}`,
    );
    if (f.rss_requests === 0) console.log('RSS       skipped');
    else if (f.rss_complete) {
      console.log(
        `RSS       ${f.peak_rss_mb} MB peak over ${f.rss_requests} requests in ${f.rss_seconds}s (goal < 250 MB)`,
      );
    } else
      console.log(
        `RSS       no figure: the time cap stopped the run after ${f.rss_requests} of ${f.rss_requests_target} requests`,
      );
    if (f.rss_requests > 0)
      console.log(
        `          RSS ${f.rss_before_mb} MB loaded, ${f.rss_quarter_mb ?? '?'} MB at a quarter of the requests, ${f.rss_end_mb ?? '?'} MB at the end`,
      );
    for (const n of f.notes) console.log(`note: ${n}`);
  }
}
