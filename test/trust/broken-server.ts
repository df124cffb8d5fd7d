/**
 * A small misbehaving HTTP server for the trust tests (broken-target.test.ts): one mode per way a
 * target can be broken at the transport level. It listens on loopback, port 0.
 *
 * `probe: 'healthy'` answers an authenticated `GET /v1/account` correctly and nothing else (so `cloudcheck run`'s probe passes and the
 * checks themselves meet the misbehaviour: that is what exercises the client's timeouts and body
 * limits); `probe: 'broken'` misbehaves there too (so the probe must turn it into exit 2).
 *
 * Every loop is bounded: the trickle stops after TRICKLE_MAX_MS, hanging sockets are destroyed on
 * close(), the large body is written in chunks with back-pressure.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export const BROKEN_MODES = ['hang', 'reset', 'malformed-json', 'error-500', 'huge-body', 'trickle'] as const;
export type BrokenMode = (typeof BROKEN_MODES)[number];

/** 100 MB, written in 1 MB chunks. */
export const HUGE_BODY_BYTES = 100 * 1024 * 1024;
/** The trickle sends one byte every TRICKLE_INTERVAL_MS and gives up after TRICKLE_MAX_MS. */
export const TRICKLE_INTERVAL_MS = 200;
export const TRICKLE_MAX_MS = 120_000;

export interface BrokenServer {
  url: string;
  /** Requests seen, by mode handler (the probe's answers included). */
  requests: number;
  close(): Promise<void>;
}

const ACCOUNT = JSON.stringify({
  account: {
    id: 'acct_broken',
    email: 'x@example.com',
    name: 'broken',
    company: null,
    status: 'active',
    created_at: '2024-01-01T00:00:00Z',
    verified: true,
    currency: 'USD',
    timezone: 'UTC',
  },
});

export async function startBrokenServer(
  mode: BrokenMode,
  options: { probe: 'healthy' | 'broken' },
): Promise<BrokenServer> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const state = { requests: 0 };

  const misbehave = (req: IncomingMessage, res: ServerResponse): void => {
    switch (mode) {
      case 'hang':
        // Accept, read the request, never answer. close() destroys the socket.
        req.resume();
        return;
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'malformed-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"data": [1, 2, "unterminated');
        return;
      case 'error-500':
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'internal_error', message: 'broken on purpose' } }));
        return;
      case 'huge-body': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE_BODY_BYTES) });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = (): void => {
          while (sent < HUGE_BODY_BYTES && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end();
        };
        pump();
        return;
      }
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const started = Date.now();
        const timer = setInterval(() => {
          if (res.destroyed || Date.now() - started > TRICKLE_MAX_MS) {
            clearInterval(timer);
            timers.delete(timer);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(' ');
        }, TRICKLE_INTERVAL_MS);
        timers.add(timer);
        return;
      }
    }
  };

  const server = createServer((req, res) => {
    state.requests++;
    const path = (req.url ?? '').split('?')[0];
    if (
      options.probe === 'healthy' &&
      req.method === 'GET' &&
      path === '/v1/account' &&
      /^Bearer \S/.test(req.headers.authorization ?? '')
    ) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ACCOUNT);
      return;
    }
    misbehave(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-body is expected here; the error must not crash the test process.
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('broken server has no port');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    get requests() {
      return state.requests;
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
