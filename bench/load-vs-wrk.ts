/**
 * Benchmark: cloudcheck's load generator vs wrk on GET /v1/regions of the reference server (with
 * an unlimited bench key), ~10 s each, and the generator's peak RSS over a run of 1,000,000
 * requests (bounded in time too). Goals: ratio >= 0.8, RSS < 250 MB. Prints figures; asserts
 * nothing (benchmarks never fail tests).
 *
 * The reference server runs in a child process so that the generator and wrk each get the same
 * server and neither shares an event loop with it.
 *
 *   node --import tsx bench/load-vs-wrk.ts [--seconds 10] [--rss-requests 1000000]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runGenerator } from '../load/run.ts';

export interface LoadVsWrkFigures {
  name: 'load-vs-wrk';
  generator_rps: number;
  wrk_rps: number | null;
  /** generator / wrk; goal >= 0.8. Null when wrk is not installed. */
  ratio: number | null;
  rss_requests: number;
  rss_seconds: number;
  /** Peak resident set size of this process during the long run, MB; goal < 250. */
  peak_rss_mb: number;
  notes: string[];
}

export interface LoadVsWrkOptions {
  seconds?: number;
  rssRequests?: number;
  /** Hard time cap of the RSS run (seconds). */
  rssMaxSeconds?: number;
  connections?: number;
  log?: (line: string) => void;
}

interface ChildServer {
  baseUrl: string;
  child: ChildProcess;
}

async function startServerChild(unlimitedKey: string): Promise<ChildServer> {
  const serverModule = pathToFileURL(fileURLToPath(new URL('../reference/server.ts', import.meta.url))).href;
  const code = [
    `const { startReferenceServer } = await import(${JSON.stringify(serverModule)});`,
    `const s = await startReferenceServer({ host: '127.0.0.1', port: 0, s3Port: 0, unlimitedKey: ${JSON.stringify(unlimitedKey)} });`,
    `process.stdout.write(JSON.stringify({ baseUrl: s.baseUrl }) + '\\n');`,
    `const stop = () => s.close().then(() => process.exit(0));`,
    `process.on('SIGTERM', stop); process.on('SIGINT', stop);`,
  ].join('\n');
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('reference server did not start within 30 s')), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { baseUrl: string }).baseUrl);
      }
    });
    child.on('exit', (c) => reject(new Error(`reference server exited with ${c}`)));
  });
  return { baseUrl, child };
}

function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;
}

async function runWrk(url: string, key: string, seconds: number, connections: number): Promise<number> {
  const child = spawn('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '-H', `Authorization: Bearer ${key}`, url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (code !== 0 || !m) throw new Error(`wrk failed (exit ${code}): ${out.slice(0, 300)}`);
  return Number(m[1]);
}

export async function run(options: LoadVsWrkOptions = {}): Promise<LoadVsWrkFigures> {
  const log = options.log ?? ((l: string) => void process.stderr.write(`${l}\n`));
  const seconds = options.seconds ?? 10;
  const rssRequests = options.rssRequests ?? 1_000_000;
  const connections = options.connections ?? 32;
  const notes: string[] = [];
  const key = `bench-${randomBytes(12).toString('hex')}`;
  const server = await startServerChild(key);
  try {
    const url = `${server.baseUrl}/regions`;
    // Warm-up: JIT and connection setup on both sides.
    await runGenerator({ baseUrl: server.baseUrl, apiKey: key, path: '/regions', connections, amount: 2_000_000, seconds: 2 });

    log(`generator: ${seconds}s on GET /v1/regions with ${connections} connections`);
    const gen = await runGenerator({ baseUrl: server.baseUrl, apiKey: key, path: '/regions', connections, amount: 10_000_000, seconds });
    if (Object.keys(gen.byStatus).some((s) => s !== '200')) notes.push(`generator saw statuses ${JSON.stringify(gen.byStatus)}`);

    let wrkRps: number | null = null;
    if (wrkInstalled()) {
      log(`wrk: ${seconds}s on the same URL`);
      wrkRps = await runWrk(url, key, seconds, connections);
    } else {
      log('wrk not installed — apt-get install wrk');
      notes.push('wrk not installed — apt-get install wrk; ratio skipped');
    }

    log(`generator RSS: up to ${rssRequests} requests`);
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
    const rssMaxSeconds = options.rssMaxSeconds ?? 180;
    const long = await runGenerator({ baseUrl: server.baseUrl, apiKey: key, path: '/regions', connections, amount: rssRequests, seconds: rssMaxSeconds });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (long.requests < rssRequests) notes.push(`RSS run stopped at its ${rssMaxSeconds}s cap after ${long.requests} requests`);

    return {
      name: 'load-vs-wrk',
      generator_rps: Math.round(gen.requestsPerSecond),
      wrk_rps: wrkRps === null ? null : Math.round(wrkRps),
      ratio: wrkRps ? Math.round((gen.requestsPerSecond / wrkRps) * 100) / 100 : null,
      rss_requests: long.requests,
      rss_seconds: Math.round(long.durationMs / 100) / 10,
      peak_rss_mb: Math.round(peak / 1024 / 1024),
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
  const f = await run({ seconds: arg('--seconds'), rssRequests: arg('--rss-requests') });
  console.log(`generator ${f.generator_rps} req/s`);
  console.log(`wrk       ${f.wrk_rps === null ? 'n/a (wrk not installed — apt-get install wrk)' : `${f.wrk_rps} req/s`}`);
  console.log(`ratio     ${f.ratio === null ? 'skipped' : `${f.ratio} (goal >= 0.8)`}`);
  console.log(`RSS       ${f.peak_rss_mb} MB peak over ${f.rss_requests} requests in ${f.rss_seconds}s (goal < 250 MB)`);
  for (const n of f.notes) console.log(`note: ${n}`);
}
