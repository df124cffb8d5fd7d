/**
 * Benchmark: requests per second of the reference server on GET /v1/regions and on POST
 * /v1/sms/send in test mode (with a bench-only unlimited key), driven by autocannon, beside a
 * bare Fastify hello-world measured in the same run; the ratio (goal >= 0.5) and the server's
 * memory after 100,000 requests. Servers run in child processes so autocannon does not share
 * their event loop. Prints figures; asserts nothing.
 *
 * Method, so the ratio compares servers and not moments of a shared machine:
 * - every target is warmed up (unmeasured) first: the reference server's handlers start cold
 *   (tsx-compiled modules, no JIT yet), the hello-world has almost nothing to warm;
 * - both servers stay up for the whole run and the targets take turns in short rounds
 *   (bare, regions, send, bare, ...); a ratio is taken within each round and the median of
 *   the rounds is reported, so a burst of load from elsewhere hits one round, not one target;
 * - each server also reports the CPU time it spent per request (process.cpuUsage in the child),
 *   which depends far less on what else the machine is doing than requests per second;
 * - the memory figure comes from a fresh reference server after exactly 100,000 requests (half
 *   GET /v1/regions, half sends), not after however many the timed runs managed.
 *
 *   node --import tsx bench/reference-vs-fastify.ts [--seconds 8] [--rounds 4]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface ReferenceBenchFigures {
  name: 'reference-vs-fastify';
  /** Medians over the rounds. */
  bare_rps: number;
  /** Bare Fastify answering the same POST (body parsed, small 201): the floor of the send path. */
  bare_post_rps: number;
  regions_rps: number;
  sms_send_rps: number;
  /** regions / bare, median of the per-round ratios; goal >= 0.5. */
  regions_ratio: number;
  sms_send_ratio: number;
  /** send / bare POST: what the reference server's own work costs on top of Fastify's POST floor. */
  sms_send_post_ratio: number;
  /** bare POST / bare GET: the share of the send ratio no handler can win back. */
  bare_post_ratio: number;
  /** Server CPU time per request (user + system, microseconds), medians over the rounds. */
  bare_cpu_us: number;
  bare_post_cpu_us: number;
  regions_cpu_us: number;
  sms_send_cpu_us: number;
  /** bare CPU per request / reference CPU per request: the same ratio, measured in CPU time. */
  regions_cpu_ratio: number;
  sms_send_cpu_ratio: number;
  rounds: number;
  rss_after_requests: number;
  rss_mb: number;
}

/** The memory figure: RSS of a fresh reference server after this many requests (half GET, half sends). */
const RSS_REQUESTS = 100_000;
/** Requests each target gets before anything is measured. */
const WARM_UP_REQUESTS = 20_000;
const CONNECTIONS = 50;

interface Child {
  baseUrl: string;
  process: ChildProcess;
  lines: AsyncIterator<string>;
}

async function* readLines(child: ChildProcess): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
}

async function startChild(script: string, env: Record<string, string> = {}): Promise<Child> {
  const file = fileURLToPath(new URL(`./servers/${script}`, import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = readLines(child);
  const first = await Promise.race([
    lines.next(),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${script} did not start in 30 s`)), 30_000).unref(),
    ),
  ]);
  const facts = JSON.parse(String(first.value)) as { baseUrl: string };
  return { baseUrl: facts.baseUrl, process: child, lines };
}

/** Asks a child one of its probes (bench/servers/probes.ts) and reads the answer. */
async function probe<K extends 'rss' | 'cpu'>(child: Child, question: K): Promise<number> {
  child.process.stdin?.write(`${question}\n`);
  const line = await child.lines.next();
  return (JSON.parse(String(line.value)) as Record<K, number>)[question];
}

async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  await new Promise((resolve) => child.process.once('exit', resolve));
}

interface Target {
  name: string;
  child: Child;
  request: autocannon.Options;
  rps: number[];
  cpuUs: number[];
  errors: number;
}

/** The two reference requests of the benchmark, against a server at `baseUrl`. */
function referenceRequests(baseUrl: string, key: string): { regions: autocannon.Options; sms: autocannon.Options } {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return {
    regions: { url: `${baseUrl}/regions`, headers },
    sms: {
      url: `${baseUrl}/sms/send`,
      method: 'POST',
      headers: { ...headers, 'x-test-mode': 'true' },
      body: JSON.stringify({ to: '+15005550006', message: 'cloudcheck bench' }),
    },
  };
}

/** One measured turn of a target: requests per second and the server's CPU per request. */
async function measure(target: Target, seconds: number): Promise<void> {
  const cpuBefore = await probe(target.child, 'cpu');
  const result = await autocannon({ connections: CONNECTIONS, pipelining: 1, ...target.request, duration: seconds });
  const cpuAfter = await probe(target.child, 'cpu');
  target.rps.push(result.requests.total / seconds);
  target.cpuUs.push((cpuAfter - cpuBefore) / Math.max(1, result.requests.total));
  target.errors += result.non2xx + result.errors;
}

async function warmUp(target: Target): Promise<void> {
  const result = await autocannon({
    connections: CONNECTIONS,
    pipelining: 1,
    ...target.request,
    amount: WARM_UP_REQUESTS,
  });
  target.errors += result.non2xx + result.errors;
}

/**
 * RSS of a fresh reference server after exactly RSS_REQUESTS requests (half GET /v1/regions, half
 * sends). A fresh one because the measured server has served as many requests as the machine
 * allowed, and every send stays in the message store by design: its memory would measure the
 * machine's speed.
 */
async function freshServerRss(key: string, log: (line: string) => void): Promise<number> {
  const fresh = await startChild('reference.ts', { BENCH_KEY: key });
  try {
    const { regions, sms } = referenceRequests(fresh.baseUrl, key);
    log(
      `memory: a fresh reference server, ${RSS_REQUESTS / 2} GET /v1/regions then ${RSS_REQUESTS / 2} POST /v1/sms/send`,
    );
    let failed = 0;
    for (const request of [regions, sms]) {
      const result = await autocannon({
        connections: CONNECTIONS,
        pipelining: 1,
        ...request,
        amount: RSS_REQUESTS / 2,
      });
      failed += result.non2xx + result.errors;
    }
    if (failed) log(`warning: ${failed} non-2xx responses or errors during the memory run`);
    return await probe(fresh, 'rss');
  } finally {
    await stopChild(fresh);
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Median of the ratios taken round by round (each pair measured seconds apart). */
function roundRatio(target: Target, baseline: Target): number {
  return median(target.rps.map((rps, round) => rps / (baseline.rps[round] ?? Number.NaN)));
}

export async function run(
  options: { seconds?: number; rounds?: number; log?: (line: string) => void } = {},
): Promise<ReferenceBenchFigures> {
  const seconds = options.seconds ?? 8;
  const rounds = Math.max(1, options.rounds ?? 4);
  const turn = seconds / rounds;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const key = `bench_${randomBytes(12).toString('hex')}`;

  const bareChild = await startChild('bare-fastify.ts');
  const reference = await startChild('reference.ts', { BENCH_KEY: key });
  const target = (name: string, child: Child, request: autocannon.Options): Target => ({
    name,
    child,
    request,
    rps: [],
    cpuUs: [],
    errors: 0,
  });
  const requests = referenceRequests(reference.baseUrl, key);
  const bare = target('bare fastify GET /v1/regions', bareChild, { url: `${bareChild.baseUrl}/regions` });
  const barePost = target('bare fastify POST /v1/sms/send', bareChild, {
    ...referenceRequests(bareChild.baseUrl, key).sms,
  });
  const regions = target('reference GET /v1/regions', reference, requests.regions);
  const sms = target('reference POST /v1/sms/send (X-Test-Mode)', reference, requests.sms);
  const targets = [bare, barePost, regions, sms];
  try {
    log(`warm-up: ${WARM_UP_REQUESTS} requests per target`);
    for (const t of targets) await warmUp(t);
    log(`${rounds} rounds of ${turn.toFixed(1)} s per target (${targets.map((t) => t.name).join(', ')})`);
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) await measure(t, turn);
    }
  } finally {
    await Promise.all([stopChild(bareChild), stopChild(reference)]);
  }
  for (const t of targets)
    log(
      `${t.name}: ${median(t.rps).toFixed(0)} req/s, ${median(t.cpuUs).toFixed(1)} µs CPU per request (rounds: ${t.rps.map((r) => r.toFixed(0)).join(', ')})`,
    );
  if (regions.errors || sms.errors)
    log(`warning: ${regions.errors + sms.errors} non-2xx responses or errors during the reference runs`);
  const rss = await freshServerRss(key, log);

  const bareCpu = median(bare.cpuUs);
  return {
    name: 'reference-vs-fastify',
    bare_rps: median(bare.rps),
    bare_post_rps: median(barePost.rps),
    regions_rps: median(regions.rps),
    sms_send_rps: median(sms.rps),
    regions_ratio: roundRatio(regions, bare),
    sms_send_ratio: roundRatio(sms, bare),
    sms_send_post_ratio: roundRatio(sms, barePost),
    bare_post_ratio: roundRatio(barePost, bare),
    bare_cpu_us: bareCpu,
    bare_post_cpu_us: median(barePost.cpuUs),
    regions_cpu_us: median(regions.cpuUs),
    sms_send_cpu_us: median(sms.cpuUs),
    regions_cpu_ratio: bareCpu / median(regions.cpuUs),
    sms_send_cpu_ratio: bareCpu / median(sms.cpuUs),
    rounds,
    rss_after_requests: RSS_REQUESTS,
    rss_mb: rss / 1024 / 1024,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = (name: string): number | undefined => {
    const at = process.argv.indexOf(name);
    return at > 0 ? Number(process.argv[at + 1]) : undefined;
  };
  const figures = await run({ seconds: flag('--seconds'), rounds: flag('--rounds') });
  console.log(JSON.stringify(figures, null, 2));
}
