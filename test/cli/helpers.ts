/** Shared by the CLI tests: the binary run as a child process, a closed port, the private-CA material. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));
// A CA and a certificate for 127.0.0.1 it signed, made for these tests only (valid for a century).
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const TLS = {
  ca: join(FIXTURES, 'test-ca.pem'),
  key: join(FIXTURES, 'server.key'),
  cert: join(FIXTURES, 'server.pem'),
};

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `cloudcheck ARGS` without the caller's CLOUDCHECK_* and proxy variables, plus `env`. */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) =>
          !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)/.test(k),
      ),
    );
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, ...env }, cwd: tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on (a proxy variable pointing there breaks every request that uses it). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
