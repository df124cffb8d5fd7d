/**
 * `--retries N`: a request that got no answer is sent again, an answer never is, a POST only when
 * it cannot have reached the target, and every attempt stays visible (recorded and counted).
 */
import { expect, test } from '../base.ts';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resolveOptions, UsageError } from '../../src/config/resolve.ts';
import { planRun, runnerEnv } from '../../src/cli/commands/run.ts';
import { connectionOf } from '../../src/cli/connection.ts';
import { Budget } from '../../src/harness/budget.ts';
import { ApiClient, mayResend } from '../../src/harness/client.ts';
import { NetworkError } from '../../src/harness/errors.ts';
import { createDispatcher } from '../../src/harness/transport.ts';
import type { Exchange } from '../../src/model/finding.ts';

const KEY = 'cck_main_key_0123456789';

function client(target: string, retries: number, record: (e: Exchange) => void): ApiClient {
  return new ApiClient({
    settings: { target, keys: { main: KEY, alt: null }, liveSms: false, allowCharges: false, timeoutScale: 1, retries },
    budgets: { main: new Budget([KEY], { maxWaitMs: 1000 }) },
    dispatcher: createDispatcher({ env: {}, caCertFile: null }),
    record,
  });
}

/** A raw TCP server: drops the first `drops` connections without a byte, then answers 500 (or 200). */
async function droppingServer(
  drops: number,
  status = 500,
): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    if (connections <= drops) {
      socket.destroy();
      return;
    }
    socket.once('data', () => {
      const body = JSON.stringify({ error: { code: 'internal', message: 'x' } });
      socket.end(
        `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// The client stops sending to a target that never answered anything (client.ts, targetSilent):
// one answer in this worker first, so the dropped connections below are judged on their own.
test.beforeAll(async () => {
  const healthy = await droppingServer(0, 200);
  try {
    await client(healthy.url, 0, () => undefined).get('/regions');
  } finally {
    await healthy.close();
  }
});

test('a GET that got no answer is sent again and its attempts are recorded; the answer that comes is judged as is', async () => {
  const server = await droppingServer(2, 500);
  try {
    const exchanges: Exchange[] = [];
    const res = await client(server.url, 3, (e) => exchanges.push(e)).get('/regions');
    // The 500 is returned to the check (never retried: an answer is what the check judges).
    expect(res.status).toBe(500);
    expect(server.connections()).toBe(3);
    expect(exchanges.map((e) => [e.attempt ?? 1, e.error ? 'no answer' : e.response?.status])).toEqual([
      [1, 'no answer'],
      [2, 'no answer'],
      [3, 500],
    ]);
  } finally {
    await server.close();
  }
});

test('without --retries, and past N, a request with no answer fails as a network problem', async () => {
  const server = await droppingServer(5, 200);
  try {
    await expect(client(server.url, 0, () => undefined).get('/regions')).rejects.toBeInstanceOf(NetworkError);
    expect(server.connections()).toBe(1);
    await expect(client(server.url, 2, () => undefined).get('/regions')).rejects.toBeInstanceOf(NetworkError);
    expect(server.connections()).toBe(4);
  } finally {
    await server.close();
  }
});

test('a POST that may have reached the target is never sent again', async () => {
  const server = await droppingServer(1, 200);
  try {
    const exchanges: Exchange[] = [];
    await expect(client(server.url, 3, (e) => exchanges.push(e)).post('/vps', { name: 'x' })).rejects.toBeInstanceOf(
      NetworkError,
    );
    expect(server.connections()).toBe(1);
    expect(exchanges).toHaveLength(1);
  } finally {
    await server.close();
  }
  // A refused connection never reached anything: that one may be retried, whatever the method.
  expect(
    mayResend(
      'POST',
      Object.assign(new Error('refused'), { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }),
    ),
  ).toBe(true);
  expect(mayResend('POST', Object.assign(new Error('reset'), { code: 'UND_ERR_SOCKET' }))).toBe(false);
  // A DELETE or PUT that reached the target answers otherwise the second time (404, 200): the
  // check runs again whole instead; GET and HEAD are sent again.
  expect(mayResend('DELETE', new Error('reset'))).toBe(false);
  expect(mayResend('PUT', new Error('reset'))).toBe(false);
  expect(mayResend('GET', new Error('reset'))).toBe(true);
  expect(mayResend('HEAD', new Error('reset'))).toBe(true);
});

test('--retries resolves from flag, variable and config, is bounded, and reaches the workers', () => {
  expect(resolveOptions('run', ['--retries', '2'], {}, process.cwd()).values.retries).toBe(2);
  // Unset, a run resends safe requests twice (settings.ts, DEFAULT_RETRIES).
  const unsetValues = resolveOptions('run', [], {}, process.cwd()).values;
  const unset = planRun(
    unsetValues,
    { target: 'http://127.0.0.1:1/v1', s3Url: null, apiKey: 'k', altApiKey: null, embedded: false },
    { runId: 'r', cwd: process.cwd(), configPath: 'c', connection: connectionOf(unsetValues, {}), env: {} },
  );
  expect(unset.settings.retries).toBe(2);
  expect(resolveOptions('run', [], { CLOUDCHECK_RETRIES: '1' }, process.cwd()).values.retries).toBe(1);
  let message = '';
  try {
    resolveOptions('run', ['--retries', '9'], {}, process.cwd());
  } catch (error) {
    if (error instanceof UsageError) message = error.message;
  }
  expect(message).toContain('--retries');
  const values = resolveOptions('run', ['--retries', '2'], {}, process.cwd()).values;
  const plan = planRun(
    values,
    { target: 'http://127.0.0.1:1/v1', s3Url: null, apiKey: 'k', altApiKey: null, embedded: false },
    { runId: 'r', cwd: process.cwd(), configPath: 'c', connection: connectionOf(values, {}), env: {} },
  );
  expect(plan.settings.retries).toBe(2);
  expect(runnerEnv(plan, {}).CLOUDCHECK_RETRIES).toBe('2');
});
