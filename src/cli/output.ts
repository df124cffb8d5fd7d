/** Printing for the CLI: everything passes through the one redaction function. */
import { redactString } from '../harness/redact.ts';

export function out(line = ''): void {
  process.stdout.write(`${redactString(line)}\n`);
}

export function err(line: string): void {
  process.stderr.write(`${redactString(line)}\n`);
}

/** The only output that prints secrets on purpose: `serve` tells its caller the keys it generated. */
export function outUnredacted(line: string): void {
  process.stdout.write(`${line}\n`);
}
