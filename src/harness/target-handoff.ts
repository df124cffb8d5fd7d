/**
 * The embedded server's address and keys, handed from `cloudcheck run` to Playwright's global
 * setup through a file: the CLI starts the runner and the server at the same time, and the runner
 * learns the target only once the server listens and answered the probe. The file holds keys:
 * it is written with mode 0600, whole (written aside, then renamed), and removed once read.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export type Handoff =
  | { target: string; s3Url: string | null; apiKey: string; altApiKey: string | null }
  | { error: string };

export function writeHandoff(file: string, handoff: Handoff): void {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(handoff), { mode: 0o600 });
  renameSync(partial, file);
}

/** Waits for the hand-off (the CLI writes it within seconds, or an error), reads it and removes it. */
export async function awaitHandoff(file: string, timeoutMs = 120_000): Promise<Exclude<Handoff, { error: string }>> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(`the embedded server's address did not arrive within ${timeoutMs / 1000} s (${file})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const handoff = JSON.parse(readFileSync(file, 'utf8')) as Handoff;
  rmSync(file, { force: true });
  if ('error' in handoff) throw new Error(`the embedded server did not start: ${handoff.error}`);
  return handoff;
}
