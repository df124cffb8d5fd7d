/** Shared helpers of the harness and CLI tests: sample reports, tiny servers on port 0. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CheckResult, Exchange } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';

export function check(partial: Partial<CheckResult> & { id: string }): CheckResult {
  return {
    requirement: 'REQ-001',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: partial.id,
    status: 'passed',
    ...partial,
  };
}

export function report(checks: CheckResult[], extra: Partial<ConformanceReport> = {}): ConformanceReport {
  return {
    schema_version: 1,
    run: {
      id: 'r1',
      target: 'http://127.0.0.1:1/v1',
      started_at: '2025-01-01T00:00:00.000Z',
      finished_at: '2025-01-01T00:01:00.000Z',
      seed: 1,
      classes: ['messaging'],
    },
    summary: {
      verdict: 'conformant',
      passed: 0,
      failed: 0,
      skipped: 0,
      must: { passed: 0, failed: 0, skipped: 0 },
      should: { passed: 0, failed: 0, skipped: 0 },
    },
    checks,
    coverage: { operations: [] },
    leaks: [],
    ...extra,
  };
}

export function exchange(partial: Partial<Exchange> = {}): Exchange {
  return {
    request: { method: 'GET', url: 'http://127.0.0.1:1/v1/account', headers: {} },
    response: { status: 200, headers: {}, body: '{}' },
    started_at: '2025-01-01T00:00:00.000Z',
    duration_ms: 1,
    curl: 'curl',
    ...partial,
  };
}

export interface TinyServer {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port that answers with `handler`. */
export async function tinyServer(
  handler: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<TinyServer> {
  const requests: TinyServer['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
