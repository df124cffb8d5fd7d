/**
 * Facts about phone numbers and prices the messaging area needs: E.164 validation, the country
 * of a number (from its calling code), a simulated carrier network, and SMS segment pricing.
 */

/** E.164 (docs/conventions.md, Messaging): `+`, then 8 to 15 digits, the first not 0. */
export const E164 = /^\+[1-9]\d{7,14}$/;

export function isE164(value: string): boolean {
  return E164.test(value);
}

/**
 * Calling code → ISO 3166-1 alpha-2 country. A small table is enough for a reference server;
 * codes shared by several countries (+1, +7) map to the largest one. Longest prefix wins.
 */
const CALLING_CODES: Record<string, string> = {
  '1': 'US',
  '7': 'RU',
  '20': 'EG',
  '27': 'ZA',
  '30': 'GR',
  '31': 'NL',
  '32': 'BE',
  '33': 'FR',
  '34': 'ES',
  '36': 'HU',
  '39': 'IT',
  '40': 'RO',
  '41': 'CH',
  '43': 'AT',
  '44': 'GB',
  '45': 'DK',
  '46': 'SE',
  '47': 'NO',
  '48': 'PL',
  '49': 'DE',
  '51': 'PE',
  '52': 'MX',
  '54': 'AR',
  '55': 'BR',
  '56': 'CL',
  '57': 'CO',
  '60': 'MY',
  '61': 'AU',
  '62': 'ID',
  '63': 'PH',
  '64': 'NZ',
  '65': 'SG',
  '66': 'TH',
  '81': 'JP',
  '82': 'KR',
  '84': 'VN',
  '86': 'CN',
  '90': 'TR',
  '91': 'IN',
  '92': 'PK',
  '234': 'NG',
  '254': 'KE',
  '351': 'PT',
  '353': 'IE',
  '358': 'FI',
  '420': 'CZ',
  '852': 'HK',
  '966': 'SA',
  '971': 'AE',
  '972': 'IL',
};

/** `ZZ` is the ISO 3166 user-assigned code commonly used for "unknown country". */
export const UNKNOWN_COUNTRY = 'ZZ';

export function countryOf(phone: string): string {
  const digits = phone.startsWith('+') ? phone.slice(1) : phone;
  for (let length = 3; length >= 1; length--) {
    const country = CALLING_CODES[digits.slice(0, length)];
    if (country) return country;
  }
  return UNKNOWN_COUNTRY;
}

/** Simulated carriers per country; the number picks one deterministically (no shared RNG draw). */
const NETWORKS: Record<string, readonly string[]> = {
  US: ['Verizon Wireless', 'AT&T Mobility', 'T-Mobile US'],
  GB: ['EE', 'Vodafone UK', 'O2 UK', 'Three UK'],
  DE: ['Telekom', 'Vodafone DE', 'O2 DE'],
  FR: ['Orange', 'SFR', 'Bouygues Telecom', 'Free Mobile'],
};

/** The network test numbers report: they never reach a real carrier. */
export const TEST_NETWORK = 'Test Network';

export function networkOf(phone: string, country: string): string {
  const options = NETWORKS[country];
  if (!options) return `${country} Mobile`;
  let hash = 0;
  for (const char of phone) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return options[hash % options.length] ?? `${country} Mobile`;
}

/** Price of one SMS segment. Every account is billed in USD (the reference has one price list). */
export const SEGMENT_PRICE = 0.0075;
export const CURRENCY = 'USD';

/**
 * Characters of the GSM 03.38 default alphabet (and its extension table). A message made only of
 * them travels as GSM-7 (160 characters per segment, 153 when split); anything else forces UCS-2
 * (70, or 67 when split) — that is how carriers count and charge segments.
 */
const GSM_7 = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà^{}\\[~]|€',
);

export function segmentsOf(text: string): number {
  // One pass over the code points, without the array a spread would allocate on every send.
  let length = 0;
  let gsm = true;
  for (const char of text) {
    length++;
    if (gsm && !GSM_7.has(char)) gsm = false;
  }
  const single = gsm ? 160 : 70;
  const multi = gsm ? 153 : 67;
  if (length <= single) return 1;
  return Math.ceil(length / multi);
}

/** Money is rounded to 6 decimals so sums of many 0.0075s stay exact in JSON. */
export function roundMoney(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

export function priceOf(text: string): number {
  return roundMoney(segmentsOf(text) * SEGMENT_PRICE);
}
