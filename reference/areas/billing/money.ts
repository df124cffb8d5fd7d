/**
 * Money is kept as integer ten-thousandths of a currency unit ("units"), never as floats, so
 * balances do not drift after thousands of charges. Cents would not do: an SMS costs 0.0075 USD
 * (messaging), and rounding each such charge to a cent would overcharge by a third.
 * Amounts leave the server as JSON numbers with at most four decimals.
 */
export const UNITS_PER_MAJOR = 10_000;

export function toUnits(amount: number): number {
  return Math.round(amount * UNITS_PER_MAJOR);
}

export function fromUnits(units: number): number {
  return units / UNITS_PER_MAJOR;
}

/** Rounds a float total (for example a provider's cost) to the money grid. */
export function roundMoney(amount: number): number {
  return fromUnits(toUnits(amount));
}

/** True when the amount has at most two decimals (top-ups are paid in whole cents). */
export function isWholeCents(amount: number): boolean {
  return Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}

/** Currencies a wallet can hold (top-up accepts these). */
export const CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
export type Currency = (typeof CURRENCIES)[number];
