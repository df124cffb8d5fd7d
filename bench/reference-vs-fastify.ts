/**
 * Benchmark: requests per second of the reference server on GET /v1/regions and on POST
 * /v1/sms/send in test mode (with a bench-only unlimited key), driven by autocannon, beside a
 * bare Fastify hello-world measured in the same run; the ratio (goal >= 0.5) and the server's
 * memory after 100,000 requests. Servers run in child processes so autocannon does not share
 * their event loop. Prints figures; asserts nothing.
 *
 *   node --import tsx bench/reference-vs-fastify.ts [--seconds 8]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface ReferenceBenchFigures {
  name: 'reference-vs-fastify';
  bare_rps: number;
  regions_rps: number;
  sms_send_rps: number;
  /** regions / bare; goal >= 0.5. */
  regions_ratio: number;
  sms_send_ratio: number;
  rss_after_requests: number;
  rss_mb: number;
}

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
  const child = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const lines = readLines(child);
  const first = await Promise.race([
    lines.next(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${script} did not start in 30 s`)), 30_000).unref()),
  ]);
  const facts = JSON.parse(String(first.value)) as { baseUrl: string };
  return { baseUrl: facts.baseUrl, process: child, lines };
}

async function stopChild(child: Child): Promise<void> {
  child.process.kill('SIGTERM');
  await new Promise((resolve) => child.process.once('exit', resolve));
}

async function rps(options: autocannon.Options): Promise<{ rps: number; requests: number; errors: number }> {
  const result = await autocannon({ connections: 50, pipelining: 1, ...options });
  const non2xx = result.non2xx + result.errors;
  return { rps: result.requests.average, requests: result.requests.total, errors: non2xx };
}

export async function run(options: { seconds?: number; log?: (line: string) => void } = {}): Promise<ReferenceBenchFigures> {
  const seconds = options.seconds ?? 8;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const key = `bench_${randomBytes(12).toString('hex')}`;

  const bare = await startChild('bare-fastify.ts');
  log(`bare fastify: GET /v1/regions for ${seconds} s`);
  const bareResult = await rps({ url: `${bare.baseUrl}/regions`, duration: seconds });
  await stopChild(bare);

  const reference = await startChild('reference.ts', { BENCH_KEY: key });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  log(`reference: GET /v1/regions for ${seconds} s`);
  const regions = await rps({ url: `${reference.baseUrl}/regions`, headers, duration: seconds });
  log(`reference: POST /v1/sms/send (X-Test-Mode) for ${seconds} s`);
  const sms = await rps({
    url: `${reference.baseUrl}/sms/send`,
    method: 'POST',
    headers: { ...headers, 'x-test-mode': 'true' },
    body: JSON.stringify({ to: '+15005550006', message: 'cloudcheck bench' }),
    duration: seconds,
  });
  const done = regions.requests + sms.requests;
  if (done < 100_000) {
    log(`reference: ${100_000 - done} more GET /v1/regions to reach 100,000 requests`);
    await rps({ url: `${reference.baseUrl}/regions`, headers, amount: 100_000 - done });
  }
  reference.process.stdin?.write('rss\n');
  const rssLine = await reference.lines.next();
  const rss = (JSON.parse(String(rssLine.value)) as { rss: number }).rss;
  await stopChild(reference);

  if (regions.errors || sms.errors) log(`warning: ${regions.errors + sms.errors} non-2xx responses or errors during the reference runs`);
  return {
    name: 'reference-vs-fastify',
    bare_rps: bareResult.rps,
    regions_rps: regions.rps,
    sms_send_rps: sms.rps,
    regions_ratio: regions.rps / bareResult.rps,
    sms_send_ratio: sms.rps / bareResult.rps,
    rss_after_requests: Math.max(100_000, done),
    rss_mb: rss / 1024 / 1024,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secondsFlag = process.argv.indexOf('--seconds');
  const figures = await run({ seconds: secondsFlag > 0 ? Number(process.argv[secondsFlag + 1]) : undefined });
  console.log(JSON.stringify(figures, null, 2));
}
