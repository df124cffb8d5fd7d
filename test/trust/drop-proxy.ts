/**
 * A load balancer that loses connections, for the trust tests: a loopback TCP proxy in front of a
 * target that drops every Nth connection it accepts before its request reaches the server (it
 * reads the request's first bytes, forwards nothing and resets the connection), and passes every
 * other one through untouched. What a real network does to a run now and then, made countable:
 * the proxy remembers the request of each dropped connection (its request line and the check it
 * named, `x-cloudcheck-check`), so a test can say what a run must have survived.
 */
import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';

export interface DroppedRequest {
  /** `GET /v1/account HTTP/1.1` */
  line: string;
  /** The check the request named (the client's check header), or null (the probe, the run's keys). */
  check: string | null;
}

export interface DropProxy {
  /** `http://127.0.0.1:<port>` plus the upstream URL's path (`/v1`). */
  url: string;
  /** Connections accepted. */
  readonly connections: number;
  readonly dropped: readonly DroppedRequest[];
  close(): Promise<void>;
}

export interface DropOptions {
  /** Drop every Nth counted connection (40: the 40th, the 80th, ...). */
  every: number;
  /** Which connections count, by their first request (default: all). */
  counts?: (request: DroppedRequest) => boolean;
  /** Drop at most this many (default: no limit). */
  limit?: number;
}

function requestOf(head: Buffer): DroppedRequest {
  const text = head.toString('latin1');
  const check = /^x-cloudcheck-check:\s*(\S+)/im.exec(text)?.[1] ?? null;
  return { line: text.split('\r\n')[0] ?? '', check };
}

export async function startDropProxy(upstream: string, options: DropOptions): Promise<DropProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const dropped: DroppedRequest[] = [];
  const state = { connections: 0, counted: 0 };
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    state.connections++;
    track(client);
    client.on('error', () => client.destroy());
    client.once('data', (head: Buffer) => {
      const request = requestOf(head);
      const counted = options.counts?.(request) ?? true;
      if (counted) state.counted++;
      if (counted && state.counted % options.every === 0 && dropped.length < (options.limit ?? Infinity)) {
        dropped.push(request);
        // Nothing was forwarded: a reset, as a balancer that lost its backend sends.
        client.resetAndDestroy();
        return;
      }
      const server = connect({ host: target.hostname, port: Number(target.port) });
      track(server);
      const end = (): void => {
        client.destroy();
        server.destroy();
      };
      server.on('error', end);
      client.on('close', end);
      server.on('close', end);
      server.write(head);
      client.pipe(server);
      server.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('drop proxy: no address');
  return {
    url: `http://127.0.0.1:${address.port}${target.pathname.replace(/\/+$/, '')}`,
    get connections() {
      return state.connections;
    },
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
