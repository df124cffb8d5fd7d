import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes for ids, drawn from the CSPRNG in blocks: one `randomFillSync` call per 512 ids
 * instead of one per id (a per-request call was ~5% of the server's CPU on POST /sms/send).
 * Every byte is used once, so ids stay exactly as unpredictable as before.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/**
 * Resource ids: a type prefix and 16 random hex characters (docs/conventions.md, "Ids").
 * Random rather than sequential so one account cannot guess another's ids.
 */
export function newId(prefix: string): string {
  if (idStyle === 'uuid') return uuidFrom(randomHex(16));
  const hex = randomHex(8);
  return barePrefix?.(prefix) ? hex : `${prefix}_${hex}`;
}

/**
 * The faults of the `*-ID-001` conventions (one per area): while this says so for a prefix, its
 * ids are minted bare. Process-wide like the id style below (server.ts sets it and clears it).
 */
let barePrefix: ((prefix: string) => boolean) | undefined;

export function setBarePrefix(test: ((prefix: string) => boolean) | undefined): void {
  barePrefix = test;
}

/**
 * Variant `ids-other-format` (core-variants.ts): UUIDs with no type prefix. A process-wide switch
 * rather than a context field because ids are minted deep inside stores that have no context;
 * one reference server per process (serve, the embedded server) is the only supported use.
 */
let idStyle: 'prefixed' | 'uuid' = 'prefixed';

export function setIdStyle(style: 'prefixed' | 'uuid'): void {
  idStyle = style;
}

function uuidFrom(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A secret token (API keys, storage secret keys, signing keys). Not pooled: secrets are rare. */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
