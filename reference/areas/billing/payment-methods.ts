/**
 * What a payment token tells us. The token stands for card or bank details collected by a
 * client-side form; the server never sees a card number, so brand and last4 are derived from the
 * token itself: the well-known test tokens map to their usual test cards, any other token to a
 * stable last4 from its hash (the same token always shows the same digits).
 */
import { createHash } from 'node:crypto';

const KNOWN_CARDS: Record<string, { brand: string; last4: string }> = {
  tok_visa: { brand: 'visa', last4: '4242' },
  tok_mastercard: { brand: 'mastercard', last4: '4444' },
  tok_amex: { brand: 'amex', last4: '8431' },
};

export function describeToken(type: 'card' | 'bank_account', token: string): { brand: string | null; last4: string } {
  const known = type === 'card' ? KNOWN_CARDS[token] : undefined;
  if (known) return known;
  const digits = BigInt(`0x${createHash('sha256').update(token).digest('hex').slice(0, 12)}`) % 10_000n;
  return { brand: type === 'card' ? 'visa' : null, last4: digits.toString().padStart(4, '0') };
}
