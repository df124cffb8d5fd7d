/**
 * Field readers shared by the messaging routes, on top of the core `Fields` helper. Each throws
 * the code docs/conventions.md assigns (`invalid_phone_number`, `message_too_long`, ...) with an
 * object `details`, as the specification shows for messaging.
 */
import { fieldError } from '../../core/errors.ts';
import type { Fields } from '../../core/validation.ts';
import { isE164 } from './catalog.ts';

/** The specification's message limit, counted in characters (code points), not UTF-16 units. */
export const MAX_MESSAGE_LENGTH = 1600;

export function phoneError(field: string, value: string) {
  return fieldError(
    'messaging',
    field,
    `${field} must be a phone number in international (E.164) format, e.g. +14155550123.`,
    'invalid_phone_number',
    { value },
  );
}

/** A phone number: a string in E.164, else `invalid_phone_number` with {field, value}. */
export function readPhone(fields: Fields, field: string): string {
  const value = fields.string(field, { required: true });
  if (!isE164(value)) throw phoneError(field, value);
  return value;
}

/** Message text: required, 1..1600 characters; longer is `message_too_long` with {field, length, max}. */
export function readMessageText(fields: Fields, field = 'message', max = MAX_MESSAGE_LENGTH): string {
  const value = fields.string(field, { required: true });
  checkMessageLength(value, field, max);
  return value;
}

export function checkMessageLength(text: string, field: string, max = MAX_MESSAGE_LENGTH): void {
  // A string never has more code points than UTF-16 units: short texts need no counting.
  if (text.length <= max) return;
  const length = codePoints(text);
  if (length > max) {
    throw fieldError(
      'messaging',
      field,
      `${field} is ${length} characters long; the limit is ${MAX_MESSAGE_LENGTH}.`,
      'message_too_long',
      { length, max: MAX_MESSAGE_LENGTH },
    );
  }
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point (what `[...text].length` counts).
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** An absolute http(s) URL (callback_url, webhook url). */
export function readHttpUrl(fields: Fields, field: string, opts: { required?: boolean } = {}): string | undefined {
  const value = opts.required
    ? fields.string(field, { required: true, max: 2048 })
    : fields.string(field, { max: 2048 });
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    fields.fail(field, `${field} must be an absolute http or https URL.`, { value });
  return value;
}

/** `from`: optional sender id string (its approval is checked against the account's sender ids). */
export function readFrom(fields: Fields): string | undefined {
  return fields.string('from', { min: 1 });
}
