/**
 * OpenSSH public key text (`<type> <base64 blob> [comment]`, as in authorized_keys). The blob is
 * a sequence of length-prefixed strings whose first one repeats the key type, so a key whose
 * text says `ssh-ed25519` but carries an RSA blob (or random base64) is refused. The fingerprint
 * is what `ssh-keygen -l` prints: `SHA256:` and the unpadded base64 of the blob's SHA-256.
 */
import { createHash } from 'node:crypto';

export type ParsedKey =
  | { ok: true; type: string; fingerprint: string; normalized: string }
  | { ok: false; reason: string };

/** Key types accepted, with the check of the fields that follow the type string. */
const KEY_TYPES: ReadonlyMap<string, (fields: Buffer[]) => boolean> = new Map([
  // ed25519: one 32-byte public point.
  ['ssh-ed25519', (fields: Buffer[]) => fields.length === 1 && fields[0]?.length === 32],
  // RSA: exponent and modulus (mpints); a modulus under 1024 bits is not a usable key.
  [
    'ssh-rsa',
    (fields: Buffer[]) => fields.length === 2 && (fields[0]?.length ?? 0) > 0 && (fields[1]?.length ?? 0) >= 128,
  ],
  // ECDSA P-256: the curve name and an uncompressed point (0x04 || X || Y).
  [
    'ecdsa-sha2-nistp256',
    (fields: Buffer[]) =>
      fields.length === 2 &&
      fields[0]?.toString('latin1') === 'nistp256' &&
      fields[1]?.length === 65 &&
      fields[1][0] === 0x04,
  ],
]);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Splits an SSH wire-format blob into its length-prefixed strings; undefined when malformed. */
function readStrings(blob: Buffer): Buffer[] | undefined {
  const out: Buffer[] = [];
  let offset = 0;
  while (offset < blob.length) {
    if (offset + 4 > blob.length) return undefined;
    const length = blob.readUInt32BE(offset);
    offset += 4;
    if (offset + length > blob.length) return undefined;
    out.push(blob.subarray(offset, offset + length));
    offset += length;
    if (out.length > 8) return undefined;
  }
  return out;
}

export function parsePublicKey(text: string): ParsedKey {
  const parts = text.trim().split(/\s+/);
  const [type = '', encoded = ''] = parts;
  const check = KEY_TYPES.get(type);
  if (!check) return { ok: false, reason: `public_key must start with one of ${[...KEY_TYPES.keys()].join(', ')}.` };
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0)
    return { ok: false, reason: 'public_key must carry the key as base64 after its type.' };
  const blob = Buffer.from(encoded, 'base64');
  const strings = readStrings(blob);
  if (!strings || strings.length === 0) return { ok: false, reason: 'public_key is not a valid OpenSSH public key.' };
  const [embedded, ...fields] = strings;
  if (embedded?.toString('latin1') !== type)
    return { ok: false, reason: `public_key says ${type} but its data is another kind of key.` };
  if (!check(fields)) return { ok: false, reason: `public_key is not a valid ${type} key.` };
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { ok: true, type, fingerprint, normalized: parts.join(' ') };
}
