/**
 * Child process of the reference-server benchmark: the reference server with an unlimited bench
 * key. Prints its base URL (and S3 URL, alt key) as one JSON line; answers on stdin: "rss" with
 * its resident set size, "cpu" with its CPU time so far (process.cpuUsage, microseconds).
 */
import { startReferenceServer } from '../../reference/server.ts';
import { answerProbes } from './probes.ts';

const server = await startReferenceServer({
  host: '127.0.0.1',
  port: 0,
  s3Port: 0,
  unlimitedKey: process.env.BENCH_KEY,
});
// The alt key and S3 URL serve the harness benchmark's replay (bench/harness-vs-raw.ts).
process.stdout.write(
  `${JSON.stringify({ baseUrl: server.baseUrl, s3Url: server.s3Url, altApiKey: server.altApiKey })}\n`,
);
answerProbes(() => server.close());
