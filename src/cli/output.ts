/** Printing for the CLI: everything passes through the one redaction function. */
import { redactString } from '../harness/redact.ts';

export function out(line = ''): void {
  process.stdout.write(`${redactString(line)}\n`);
}

export function err(line: string): void {
  process.stderr.write(`${redactString(line)}\n`);
}

/**
 * Text cloudcheck wrote itself: help, and the lists of faults, variants and profiles. It holds no
 * secret, and redaction would bend it ("api_key= [REDACTED]" where help names a field).
 */
export function outText(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** The only output that prints secrets on purpose: `serve` tells its caller the keys it generated. */
export function outUnredacted(line: string): void {
  process.stdout.write(`${line}\n`);
}
