/**
 * The running options of `cloudcheck run` (issue 20): --list, --workers, -x/--max-failures,
 * -H/--header, --ca-cert and the proxy variables; and the one help pattern of every command.
 * The end-to-end runs use small selections against the embedded server (a few seconds each).
 */
import { expect, test } from '../base.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect as netConnect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError, resolveOptions } from '../../src/config/resolve.ts';
import { planRun, runnerEnv } from '../../src/cli/commands/run.ts';
import { probeTarget } from '../../src/harness/probe.ts';
import { connectionOf } from '../../src/cli/connection.ts';
import { Budget } from '../../src/harness/budget.ts';
import { ApiClient } from '../../src/harness/client.ts';
import { createDispatcher } from '../../src/harness/transport.ts';
import type { Exchange } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { json, tinyServer } from '../harness/helpers.ts';
import { BIN, TLS, cli, closedPort } from './helpers.ts';

const CA = TLS.ca;

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

/** An HTTP proxy on loopback that tunnels CONNECT and forwards plain requests, counting both. */
async function countingProxy(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    count++;
    const target = new URL(req.url ?? '/');
    const upstream = netConnect(Number(target.port), target.hostname, () => {
      upstream.write(
        `${req.method} ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(req.headers)
          .map(([k, v]) => `${k}: ${String(v)}`)
          .join('\r\n')}\r\nconnection: close\r\n\r\n`,
      );
      req.pipe(upstream);
      upstream.pipe(res.socket!);
    });
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    count++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTPS API stub with a certificate signed by the test CA: an account, empty lists, every request recorded. */
async function httpsApi(): Promise<{
  url: string;
  requests: IncomingMessage['headers'][];
  close: () => Promise<void>;
}> {
  const requests: IncomingMessage['headers'][] = [];
  const server = createHttpsServer(
    { key: readFileSync(TLS.key), cert: readFileSync(TLS.cert) },
    (req: IncomingMessage, res: ServerResponse) => {
      requests.push(req.headers);
      if (req.url === '/v1/account') return json(res, 200, { account: { id: 'acc_1', email: 'a@example.net' } });
      return json(res, 200, { items: [], meta: { page: 1, per_page: 100, total: 0 } });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function client(
  target: string,
  options: {
    headers?: Record<string, string>;
    record?: (e: Exchange) => void;
    env?: NodeJS.ProcessEnv;
    caCertFile?: string;
  } = {},
): ApiClient {
  return new ApiClient({
    settings: {
      target,
      keys: { main: 'cck_main_key_0123456789', alt: null },
      liveSms: false,
      allowCharges: false,
      timeoutScale: 1,
      headers: options.headers ?? {},
    },
    budgets: { main: new Budget(['cck_main_key_0123456789'], { maxWaitMs: 1000 }) },
    dispatcher: createDispatcher({ env: options.env ?? {}, caCertFile: options.caCertFile ?? null }),
    record: options.record,
  });
}

test('the new options resolve from flag, variable and config, and bad values are one-line usage errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-opts-'));
  try {
    expect(resolveOptions('run', ['-x'], {}, dir).values['max-failures']).toBe(1);
    expect(resolveOptions('run', ['--max-failures', '3', '--workers', '4', '--list'], {}, dir).values).toMatchObject({
      'max-failures': 3,
      workers: 4,
      list: true,
    });
    expect(
      resolveOptions('run', [], { CLOUDCHECK_WORKERS: '3', CLOUDCHECK_MAX_FAILURES: '2' }, dir).values,
    ).toMatchObject({ workers: 3, 'max-failures': 2 });
    // A header value keeps its commas; the variable takes one header a line.
    expect(
      resolveOptions('run', ['-H', 'X-Gateway-Key: a,b', '--header', 'X-Other: c'], {}, dir).values.header,
    ).toEqual(['X-Gateway-Key: a,b', 'X-Other: c']);
    expect(resolveOptions('run', [], { CLOUDCHECK_HEADER: 'X-A: 1, 2\nX-B: 3' }, dir).values.header).toEqual([
      'X-A: 1, 2',
      'X-B: 3',
    ]);
    expect(resolveOptions('run', ['--ca-cert', CA], {}, dir).values['ca-cert']).toBe(CA);
    const values = resolveOptions(
      'run',
      ['--workers', '3', '-x', '-H', 'X-A: 1', '-H', 'X-B: 2', '--ca-cert', CA],
      {},
      dir,
    ).values;
    const plan = planRun(
      values,
      { target: 'http://127.0.0.1:1/v1', s3Url: null, apiKey: 'k', altApiKey: null, embedded: false },
      { runId: 'r', cwd: dir, configPath: 'c', connection: connectionOf(values, {}), env: {} },
    );
    expect(runnerEnv(plan, {})).toMatchObject({
      CLOUDCHECK_WORKERS: '3',
      CLOUDCHECK_MAX_FAILURES: '1',
      CLOUDCHECK_HEADER: 'x-a: 1\nx-b: 2',
      CLOUDCHECK_CA_CERT: CA,
    });
    // Keys per worker: chosen by the global setup from the workers (concurrency.ts), unless the
    // variable says; the probe's round trip travels with the settings.
    expect(plan.settings.keysPerWorker).toBeNull();
    expect(plan.settings.roundTripMs).toBeNull();
    const embedded = planRun(
      values,
      { target: '', s3Url: null, apiKey: '', altApiKey: null, embedded: true },
      {
        runId: 'r',
        cwd: dir,
        configPath: 'c',
        connection: connectionOf(values, {}),
        env: { CLOUDCHECK_KEYS_PER_WORKER: '4' },
      },
    );
    expect(embedded.settings.keysPerWorker).toBe(4);
    const probed = planRun(
      values,
      { target: 'http://127.0.0.1:1/v1', s3Url: null, apiKey: 'k', altApiKey: null, embedded: false, roundTripMs: 81 },
      { runId: 'r', cwd: dir, configPath: 'c', connection: connectionOf(values, {}), env: {} },
    );
    expect(runnerEnv(probed, {})).toMatchObject({ CLOUDCHECK_ROUND_TRIP_MS: '81' });
    expect(usageError(() => resolveOptions('run', ['--workers', '0'], {}, dir))).toContain('--workers');
    expect(usageError(() => resolveOptions('run', [], { CLOUDCHECK_MAX_FAILURES: '0' }, dir))).toContain(
      'CLOUDCHECK_MAX_FAILURES',
    );
    expect(usageError(() => resolveOptions('run', ['-H', 'no colon'], {}, dir))).toContain("expected 'Name: value'");
    expect(usageError(() => resolveOptions('run', ['-H', 'Authorization: Bearer x'], {}, dir))).toContain(
      'Authorization cannot be set with --header',
    );
    expect(usageError(() => resolveOptions('run', ['--ca-cert', join(dir, 'none.pem')], {}, dir))).toContain(
      'cannot read',
    );
    expect(usageError(() => resolveOptions('run', ['--ca-cert', BIN], {}, dir))).toContain('holds no PEM certificate');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every command that reaches a target takes the same connection options, resolved into one session input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-conn-'));
  try {
    const argv = ['--target', 'https://staging.example.net/v1/', '--api-key', 'k1', '--api-key', 'k2'];
    argv.push('-H', 'X-Gateway-Key: gw', '--ca-cert', CA, '--retries', '2');
    const env = { CLOUDCHECK_REQUEST_TIMEOUT_MS: '1500', CLOUDCHECK_TIMEOUT_SCALE: '2' };
    for (const command of ['run', 'load', 'sweep', 'explore'] as const) {
      expect(connectionOf(resolveOptions(command, argv, env, dir).values, env), command).toEqual({
        target: 'https://staging.example.net/v1',
        apiKeys: ['k1', 'k2'],
        altApiKey: null,
        s3Url: null,
        headers: { 'x-gateway-key': 'gw' },
        caCertFile: CA,
        retries: 2,
        requestTimeoutMs: 1500,
        timeoutScale: 2,
      });
    }
    // The variable takes the keys as a comma list.
    expect(resolveOptions('load', [], { CLOUDCHECK_API_KEY: 'k1,k2' }, dir).values['api-key']).toEqual(['k1', 'k2']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--header goes on every request, under the check's own headers and never over Authorization, and is recorded as [REDACTED]", async () => {
  const server = await tinyServer((_req, _body, res) => json(res, 200, {}));
  try {
    const exchanges: Exchange[] = [];
    const api = client(`${server.url}/v1`, {
      headers: { 'x-gateway-key': 'gw', 'x-trace': 'from-run' },
      record: (e) => exchanges.push(e),
    });
    await api.get('/regions');
    await api.get('/regions', { headers: { 'X-Trace': 'from-check' } });
    await api.get('/account', { key: null });
    expect(server.requests.map((r) => r.headers['x-gateway-key'])).toEqual(['gw', 'gw', 'gw']);
    expect(server.requests.map((r) => r.headers['x-trace'])).toEqual(['from-run', 'from-check', 'from-run']);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer cck_main_key_0123456789',
      'Bearer cck_main_key_0123456789',
      undefined,
    ]);
    // Even a value too short for redaction by value is never recorded (nor in the curl line).
    for (const e of exchanges) {
      expect(e.request.headers['x-gateway-key']).toBe('[REDACTED]');
      expect(e.curl).toContain("'x-gateway-key: [REDACTED]'");
    }
  } finally {
    await server.close();
  }
});

test('proxy variables: requests go through HTTP_PROXY, and NO_PROXY hosts are reached directly', async () => {
  const server = await tinyServer((_req, _body, res) => json(res, 200, { account: { id: 'acc_1' } }));
  const proxy = await countingProxy();
  const closed = `http://127.0.0.1:${await closedPort()}`;
  try {
    const proxied = client(`${server.url}/v1`, { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
    expect((await proxied.get('/regions')).status).toBe(200);
    expect(proxy.count()).toBeGreaterThan(0);
    // A proxy that is down breaks the request, so the proxy really is in the way...
    await expect(client(`${server.url}/v1`, { env: { HTTP_PROXY: closed } }).get('/regions')).rejects.toThrow(
      /failed without a response/,
    );
    // ...unless NO_PROXY names the host.
    const before = server.requests.length;
    expect(
      (
        await client(`${server.url}/v1`, {
          env: { HTTP_PROXY: closed, https_proxy: closed, NO_PROXY: '127.0.0.1' },
        }).get('/regions')
      ).status,
    ).toBe(200);
    expect(server.requests.length).toBe(before + 1);
  } finally {
    await proxy.close();
    await server.close();
  }
});

test('--ca-cert: a target with a certificate of an internal CA is trusted with it, refused without it', async () => {
  const api = await httpsApi();
  try {
    await expect(probeTarget(api.url, 'cck_main_key_0123456789', { direct: true, timeoutMs: 5000 })).rejects.toThrow(
      /cannot reach .*(UNABLE_TO_VERIFY|SELF_SIGNED|unable to verify)/i,
    );
    const probed = await probeTarget(api.url, 'cck_main_key_0123456789', {
      direct: true,
      timeoutMs: 5000,
      caCertFile: CA,
      headers: { 'x-gateway-key': 'gw-probe' },
    });
    expect(api.requests.at(-1)!['x-gateway-key']).toBe('gw-probe');
    // The round trip the run is sized for, only when asked (a few more requests: GET /regions).
    expect(probed.roundTripMs).toBeNull();
    const sent = api.requests.length;
    const timed = await probeTarget(api.url, 'cck_main_key_0123456789', {
      direct: true,
      timeoutMs: 5000,
      caCertFile: CA,
      roundTrip: true,
    });
    expect(timed.roundTripMs).toBeGreaterThanOrEqual(0);
    expect(api.requests.length).toBeGreaterThan(sent + 1);
    expect((await client(api.url, { caCertFile: CA }).get('/regions')).status).toBe(200);
  } finally {
    await api.close();
  }
});

test('end to end: sweep with -H, --ca-cert and a proxy variable plus NO_PROXY for a loopback target', async () => {
  const api = await httpsApi();
  const closed = `http://127.0.0.1:${await closedPort()}`;
  try {
    const secret = 'gw-secret-value-0123456789';
    const r = await cli(['sweep', '--target', api.url, '-H', `X-Gateway-Key: ${secret}`, '--ca-cert', CA], {
      CLOUDCHECK_API_KEY: 'cck_some_key_123456',
      HTTPS_PROXY: closed,
      HTTP_PROXY: closed,
      NO_PROXY: 'localhost,127.0.0.1',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(api.requests.length).toBeGreaterThan(1);
    expect(api.requests.every((h) => h['x-gateway-key'] === secret)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(secret);
    // Without NO_PROXY the dead proxy is used, and the message says a proxy variable is set.
    const viaProxy = await cli(['sweep', '--target', api.url, '--ca-cert', CA], {
      CLOUDCHECK_API_KEY: 'cck_some_key_123456',
      HTTPS_PROXY: closed,
    });
    expect(viaProxy.code).toBe(2);
    expect(viaProxy.stderr).toContain('a proxy variable is set');
  } finally {
    await api.close();
  }
});

test('end to end: the embedded server is reached directly with a dead proxy set; --header and --workers reach the run, redacted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-run-opts-'));
  try {
    const secret = 'gw-secret-value-9876543210';
    // A fault makes the check fail, so that the report keeps its exchanges.
    const r = await cli(
      ['run', '--grep', '\\[PAGE-NUM-001\\]', '--workers', '1', '-H', `X-Gateway-Key: ${secret}`, '--report-dir', dir],
      {
        HTTP_PROXY: `http://127.0.0.1:${await closedPort()}`,
        CLOUDCHECK_EMBEDDED_FAULTS: 'page-zero-based-default',
      },
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('[PAGE-NUM-001]');
    const text = readFileSync(join(dir, 'report.json'), 'utf8');
    expect(text).not.toContain(secret);
    expect(r.stdout + r.stderr).not.toContain(secret);
    const report = JSON.parse(text) as ConformanceReport;
    const sent = report.checks.flatMap((c) => c.exchanges ?? []).map((e) => e.request.headers['x-gateway-key']);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent)).toEqual(new Set(['[REDACTED]']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('end to end: -x stops the run at the first failure that fails the gate, says so, and exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-x-'));
  try {
    const r = await cli(['run', '--classes', 'auth', '-x', '--workers', '1', '--report-dir', dir], {
      CLOUDCHECK_EMBEDDED_FAULTS: 'auth-missing-header-served',
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('stopped after 1 failure (--max-failures)');
    expect(r.stdout).toContain('gate: FAILED');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    expect(report.run.stopped_after_failures).toBe(1);
    expect(report.summary.gate?.passed).toBe(false);
    expect(report.summary.headline).toContain('stopped after 1 failure');
    // It stopped: most of the class never ran.
    expect(report.summary.skipped).toBeGreaterThan(report.summary.passed + report.summary.failed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('end to end: --list prints the selected checks with id, requirement, level and class, runs nothing; an empty selection exits 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-list-'));
  try {
    const r = await cli(['run', '--list', '--classes', 'pagination', '--report-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^check\s+requirement\s+level\s+class\s+title$/m);
    expect(r.stdout).toMatch(/^pagination\.page-walk\s+PAGE-NUM-002\s+MUST\s+pagination\s+\S/m);
    expect(r.stdout).toMatch(/\d+ checks \(\d+ MUST, \d+ SHOULD\) in 1 class.*nothing was run/);
    expect(r.stderr).not.toContain('started the embedded reference server');
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
    const none = await cli(['run', '--list', '--grep', 'no-check-has-this-title']);
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every command's --help exits 0 with usage, its own options, examples and exit codes", async () => {
  const commands = [['run'], ['serve'], ['load'], ['sweep'], ['report'], ['report', 'merge'], ['report', 'diff']];
  for (const command of commands) {
    for (const flag of ['--help', '-h']) {
      const r = await cli([...command, flag]);
      const name = [...command, flag].join(' ');
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toContain(`usage: cloudcheck ${command.join(' ')}`);
      expect(r.stdout, name).toContain('examples:');
      expect(r.stdout, name).toMatch(/exit codes:\n {2}0 /);
      expect(r.stdout, name).not.toContain('(repeatable) (repeatable)');
      expect(r.stdout, name).not.toContain('(repeatable;');
      if (command[0] !== 'serve') expect(r.stdout, name).not.toContain('serve:');
    }
  }
  for (const command of ['load', 'sweep', 'explore']) {
    const help = (await cli([command, '--help'])).stdout;
    for (const flag of ["-H, --header 'NAME: VALUE'", '--ca-cert FILE', '--retries N', '--api-key KEY'])
      expect(help, `${command} ${flag}`).toContain(flag);
  }
  const run = (await cli(['run', '--help'])).stdout;
  for (const flag of [
    '--list',
    '--workers N',
    '-x, --max-failures N',
    "-H, --header 'NAME: VALUE'",
    '--ca-cert FILE',
    'CLOUDCHECK_MAX_FAILURES',
  ])
    expect(run).toContain(flag);
  // Only the command's own options: serve's listening options are not in run's help, nor run's in serve's.
  expect(run).not.toContain('--s3-port');
  expect((await cli(['serve', '--help'])).stdout).not.toContain('--baseline');
  expect((await cli(['sweep', '--help'])).stdout).toContain('(required)');
});
