/**
 * What every benchmark child answers on stdin, one JSON line per question: "rss" (resident set
 * size, bytes) and "cpu" (user + system CPU time so far, microseconds). CPU time per request is
 * far less sensitive to a busy machine than requests per second. SIGTERM closes the server.
 */
export function answerProbes(close: () => Promise<void>): void {
  process.stdin.on('data', (data) => {
    const text = data.toString();
    if (text.includes('rss')) process.stdout.write(`${JSON.stringify({ rss: process.memoryUsage().rss })}\n`);
    if (text.includes('cpu')) {
      const usage = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpu: usage.user + usage.system })}\n`);
    }
  });
  process.on('SIGTERM', () => void close().then(() => process.exit(0)));
}
