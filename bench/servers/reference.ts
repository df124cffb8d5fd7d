/**
 * Child process of the reference-server benchmark: the reference server with an unlimited bench
 * key. Prints its base URL (and S3 URL, alt key) as one JSON line; answers "rss" on stdin with its resident set size.
 */
import { startReferenceServer } from '../../reference/server.ts';

const server = await startReferenceServer({ host: '127.0.0.1', port: 0, s3Port: 0, unlimitedKey: process.env.BENCH_KEY });
// The alt key and S3 URL serve the harness benchmark's replay (bench/harness-vs-raw.ts).
reportReady({ baseUrl: server.baseUrl, s3Url: server.s3Url, altApiKey: server.altApiKey });

function reportReady(facts: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(facts)}\n`);
  process.stdin.on('data', (data) => {
    if (data.toString().includes('rss')) process.stdout.write(`${JSON.stringify({ rss: process.memoryUsage().rss })}\n`);
  });
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
