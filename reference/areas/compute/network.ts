/**
 * Addresses handed to instances when they finish booting. Public addresses come from the three
 * documentation ranges (RFC 5737), so nothing the reference server prints is a routable host;
 * private ones from 10.0.0.0/8. One pool for the whole server: no two live instances of any
 * account share an address until a pool wraps around (762 public, 16 million private).
 */
import type { ReferenceContext } from '../../core/context.ts';

const PUBLIC_RANGES = ['203.0.113', '198.51.100', '192.0.2'];

interface AddressPool {
  nextPublic: number;
  nextPrivate: number;
}

export function allocateAddresses(ctx: ReferenceContext): { publicIp: string; privateIp: string } {
  const pool = ctx.globalState<AddressPool>('compute-addresses', () => ({ nextPublic: 0, nextPrivate: 0 }));
  // Host numbers 2..255 of each /24 (.0 is the network, .1 the gateway).
  const publicIndex = pool.nextPublic++ % (PUBLIC_RANGES.length * 254);
  const range = PUBLIC_RANGES[Math.floor(publicIndex / 254)] ?? '203.0.113';
  const publicIp = `${range}.${(publicIndex % 254) + 2}`;
  const n = (pool.nextPrivate++ % 0xfffffd) + 2;
  const privateIp = `10.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}`;
  return { publicIp, privateIp };
}
