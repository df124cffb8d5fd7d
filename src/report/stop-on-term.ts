/**
 * Playwright's runner stops gracefully on SIGINT (running checks end, workers tear down what they
 * created, the reporter writes its report) but dies on SIGTERM, which CI timeouts, `docker stop`
 * and `timeout` send, often to the whole process group: no report then, and the CLI removed a
 * temp dir its orphaned workers were still writing. The reporter, loaded in the runner, turns a
 * SIGTERM into that SIGINT. Playwright takes two SIGINTs within a second as one (the CLI forwards
 * one too), and a later one as "stop now", as a second Ctrl-C.
 */
let installed = false;

export function stopGracefullyOnSigterm(): void {
  if (installed) return;
  installed = true;
  process.on('SIGTERM', () => process.kill(process.pid, 'SIGINT'));
}
