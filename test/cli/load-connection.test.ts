/**
 * `cloudcheck load` reaches a target as `cloudcheck run` does (issue 37): one session, the same
 * connection options. The target here is the reference server behind an HTTPS gateway with a
 * certificate of a private CA (the CLI tests' TLS material) that refuses any request without its
 * gateway header: the smoke profile passes with --ca-cert and -H, its side requests follow the proxy
 * variables and --retries, and a hanging target stops at CLOUDCHECK_REQUEST_TIMEOUT_MS.
 */
import { expect, test } from '../base.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/server.ts';
import type { LoadReport } from '../../src/model/load.ts';
import { TLS, cli, closedPort } from './helpers.ts';

const SECRET = 'gw-secret-value-0123456789';

interface Gateway {
  url: string;
  apiKey: string;
  /** Requests that reached the gateway, by path, and whether each carried the gateway header. */
  seen: Array<{ method: string; path: string; header: boolean }>;
  close(): Promise<void>;
}

/**
 * The reference server behind HTTPS (test CA) and a gateway header. `drop(method, path, n)` says
 * whether the gateway cuts the connection of the n-th such request without an answer.
 */
async function gateway(drop: (method: string, path: string, n: number) => boolean = () => false): Promise<Gateway> {
  const upstream = await startReferenceServer({ port: 0, s3Port: 0 });
  const origin = new URL(upstream.baseUrl);
  const seen: Gateway['seen'] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createHttpsServer(
    { key: readFileSync(TLS.key), cert: readFileSync(TLS.cert) },
    (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const header = req.headers['x-gateway-key'] === SECRET;
      seen.push({ method: req.method ?? '', path, header });
      const id = `${req.method} ${path}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
      if (drop(req.method ?? '', path, counts.get(id)!)) return req.socket.destroy();
      if (!header) {
        res.writeHead(403, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { code: 'forbidden', message: 'gateway key missing' } }));
      }
      const forward = httpRequest(
        { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    },
  );
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}${origin.pathname}`,
    apiKey: upstream.apiKey,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
    },
  };
}

function loadSection(dir: string): LoadReport | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { load?: LoadReport }).load;
  } catch {
    return undefined;
  }
}

test('load smoke passes against an HTTPS target with a private CA (--ca-cert) behind a gateway header (-H), as run reaches it', async () => {
  test.setTimeout(120_000);
  const gw = await gateway();
  const dir = mkdtempSync(join(tmpdir(), 'cc-load-tls-'));
  const dead = `http://127.0.0.1:${await closedPort()}`;
  try {
    // A proxy variable that points nowhere, with NO_PROXY for the loopback target: reached directly.
    const r = await cli(
      ['load', 'smoke', '--target', gw.url, '--ca-cert', TLS.ca, '-H', `X-Gateway-Key: ${SECRET}`, '--report-dir', dir],
      { CLOUDCHECK_API_KEY: gw.apiKey, HTTPS_PROXY: dead, HTTP_PROXY: dead, NO_PROXY: '127.0.0.1' },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('load: all 1 profile(s) passed');
    const load = loadSection(dir);
    expect(load?.profiles[0]?.profile).toBe('smoke');
    expect(load?.profiles[0]?.requests.completed).toBe(80);
    // Every request carried the header: the probe, the key creation and revocation, the window
    // probe, and each of the 80 generated requests.
    expect(gw.seen.length).toBeGreaterThan(80);
    expect(gw.seen.filter((s) => !s.header)).toEqual([]);
    expect(gw.seen.some((s) => s.method === 'POST' && s.path === '/v1/account/api-keys')).toBe(true);
    expect(r.stdout + r.stderr + readFileSync(join(dir, 'report.json'), 'utf8')).not.toContain(SECRET);

    // Without --ca-cert the certificate is not trusted; without -H the gateway refuses the key's probe.
    const untrusted = await cli(['load', 'smoke', '--target', gw.url, '-H', `X-Gateway-Key: ${SECRET}`], {
      CLOUDCHECK_API_KEY: gw.apiKey,
    });
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toMatch(/cannot reach .*(UNABLE_TO_VERIFY|SELF_SIGNED|unable to verify)/i);
    const noHeader = await cli(['load', 'smoke', '--target', gw.url, '--ca-cert', TLS.ca], {
      CLOUDCHECK_API_KEY: gw.apiKey,
    });
    expect(noHeader.code).toBe(2);
    expect(noHeader.stderr).toContain('the API key was rejected');
    // The proxy variable without NO_PROXY: the side requests go to the dead proxy, and the message says so.
    const viaProxy = await cli(
      ['load', 'smoke', '--target', gw.url, '--ca-cert', TLS.ca, '-H', `X-Gateway-Key: ${SECRET}`],
      { CLOUDCHECK_API_KEY: gw.apiKey, HTTPS_PROXY: dead },
    );
    expect(viaProxy.code).toBe(2);
    expect(viaProxy.stderr).toContain('a proxy variable is set');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await gw.close();
  }
});

test('load --retries: a side request that got no answer is sent again; with --retries 0 the profile cannot run (exit 2)', async () => {
  test.setTimeout(120_000);
  // The first GET /regions is the profile's window probe (smoke aligns to a fresh minute): cut it.
  const gw = await gateway((method, path, n) => method === 'GET' && path === '/v1/regions' && n === 1);
  const args = ['load', 'smoke', '--target', gw.url, '--ca-cert', TLS.ca, '-H', `X-Gateway-Key: ${SECRET}`];
  const dirs = [mkdtempSync(join(tmpdir(), 'cc-load-retry-')), mkdtempSync(join(tmpdir(), 'cc-load-noretry-'))];
  try {
    const retried = await cli([...args, '--retries', '1', '--report-dir', dirs[0]!], { CLOUDCHECK_API_KEY: gw.apiKey });
    // The profile ran (its latency thresholds, which a busy machine can miss, are not this test's point).
    expect(loadSection(dirs[0]!)?.profiles[0]?.error, retried.stdout + retried.stderr).toBeUndefined();
    expect(loadSection(dirs[0]!)?.profiles[0]?.requests.completed).toBe(80);
    // The window probe cut and sent again, then the profile's 20 of its 80 requests (4 paths in turn).
    expect(gw.seen.filter((s) => s.method === 'GET' && s.path === '/v1/regions')).toHaveLength(22);
    const cut = await gateway((method, path, n) => method === 'GET' && path === '/v1/regions' && n === 1);
    try {
      const r = await cli(
        [
          'load',
          'smoke',
          '--target',
          cut.url,
          '--ca-cert',
          TLS.ca,
          '-H',
          `X-Gateway-Key: ${SECRET}`,
          '--retries',
          '0',
          '--report-dir',
          dirs[1]!,
        ],
        { CLOUDCHECK_API_KEY: cut.apiKey },
      );
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stdout).toMatch(/ERROR {2}smoke/);
      expect(r.stdout).toMatch(/error: GET \/v1\/regions failed without a response/);
    } finally {
      await cut.close();
    }
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await gw.close();
  }
});

test('load: a target that never answers stops at CLOUDCHECK_REQUEST_TIMEOUT_MS, as run does', async () => {
  const sockets = new Set<Socket>();
  const silent = createHttpsServer({ key: readFileSync(TLS.key), cert: readFileSync(TLS.cert) }, () => undefined);
  silent.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    const r = await cli(['load', 'smoke', '--target', url, '--ca-cert', TLS.ca], {
      CLOUDCHECK_API_KEY: 'cck_some_key_123456',
      CLOUDCHECK_REQUEST_TIMEOUT_MS: '700',
    });
    expect(r.code).toBe(2);
    // The variable's deadline, not the probe's own 10 s.
    expect(r.stderr).toContain('no answer within 700 ms');
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});
