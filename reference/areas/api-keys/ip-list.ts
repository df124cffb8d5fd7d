/** Validation of `ip_whitelist` entries: an IPv4/IPv6 address, or one with a CIDR prefix length. */
import { isIP } from 'node:net';

export function isIpOrCidr(entry: string): boolean {
  const parts = entry.split('/');
  if (parts.length > 2) return false;
  const [address = '', bits] = parts;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
