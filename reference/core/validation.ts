/**
 * Hand-written request validation. The reference server deliberately does not validate with the
 * OpenAPI document: it is an independent implementation of the specification, so a mistake in
 * the document shows up as a disagreement instead of being copied into both sides.
 */
import type { Area } from './areas.ts';
import { ApiError, fieldError } from './errors.ts';

interface Common {
  required?: boolean;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isIsoDateTime(value: string): boolean {
  return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** ISO 8601 date or date-time, as query parameters take them. */
export function isIsoDateOrDateTime(value: string): boolean {
  return (ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))) || isIsoDateTime(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads fields from a JSON body (or a query object), throwing the area's field error on the first problem. */
export class Fields {
  private readonly data: Record<string, unknown>;

  constructor(
    private readonly area: Area,
    body: unknown,
  ) {
    // No body at all reads as no fields; a JSON `null` body is "not a JSON object" (conventions.md).
    if (body === undefined) {
      this.data = {};
    } else if (isPlainObject(body)) {
      this.data = body;
    } else {
      throw new ApiError('invalid_json', 'The request body must be a JSON object.');
    }
  }

  has(field: string): boolean {
    return this.data[field] !== undefined;
  }

  raw(field: string): unknown {
    return this.data[field];
  }

  fail(field: string, message: string, extra: Record<string, unknown> = {}): never {
    throw fieldError(this.area, field, message, 'validation_error', extra);
  }

  string(
    field: string,
    opts: Common & { min?: number; max?: number; pattern?: RegExp; oneOf?: readonly string[] } & { required: true },
  ): string;
  string(
    field: string,
    opts?: Common & { min?: number; max?: number; pattern?: RegExp; oneOf?: readonly string[] },
  ): string | undefined;
  string(
    field: string,
    opts: Common & { min?: number; max?: number; pattern?: RegExp; oneOf?: readonly string[] } = {},
  ): string | undefined {
    const value = this.data[field];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, `${field} is required.`);
      return undefined;
    }
    if (typeof value !== 'string') this.fail(field, `${field} must be a string.`);
    const min = opts.min ?? (opts.required ? 1 : 0);
    if (value.length < min) this.fail(field, `${field} must be at least ${min} characters.`);
    if (opts.max !== undefined && value.length > opts.max)
      this.fail(field, `${field} must be at most ${opts.max} characters.`);
    if (opts.pattern && !opts.pattern.test(value)) this.fail(field, `${field} is not in the expected format.`);
    if (opts.oneOf && !opts.oneOf.includes(value))
      this.fail(field, `${field} must be one of ${opts.oneOf.join(', ')}.`);
    return value;
  }

  integer(field: string, opts: Common & { min?: number; max?: number } & { required: true }): number;
  integer(field: string, opts?: Common & { min?: number; max?: number }): number | undefined;
  integer(field: string, opts: Common & { min?: number; max?: number } = {}): number | undefined {
    const value = this.number(field, opts);
    if (value !== undefined && !Number.isInteger(value)) this.fail(field, `${field} must be an integer.`);
    return value;
  }

  number(
    field: string,
    opts: Common & { min?: number; max?: number; exclusiveMin?: number } & { required: true },
  ): number;
  number(field: string, opts?: Common & { min?: number; max?: number; exclusiveMin?: number }): number | undefined;
  number(field: string, opts: Common & { min?: number; max?: number; exclusiveMin?: number } = {}): number | undefined {
    const value = this.data[field];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, `${field} is required.`);
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(field, `${field} must be a number.`);
    if (opts.min !== undefined && value < opts.min) this.fail(field, `${field} must be at least ${opts.min}.`);
    if (opts.exclusiveMin !== undefined && value <= opts.exclusiveMin)
      this.fail(field, `${field} must be greater than ${opts.exclusiveMin}.`);
    if (opts.max !== undefined && value > opts.max) this.fail(field, `${field} must be at most ${opts.max}.`);
    return value;
  }

  boolean(field: string, opts: Common = {}): boolean | undefined {
    const value = this.data[field];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, `${field} is required.`);
      return undefined;
    }
    if (typeof value !== 'boolean') this.fail(field, `${field} must be a boolean.`);
    return value;
  }

  stringArray(
    field: string,
    opts: Common & { minItems?: number; maxItems?: number; oneOf?: readonly string[]; itemPattern?: RegExp } & {
      required: true;
    },
  ): string[];
  stringArray(
    field: string,
    opts?: Common & { minItems?: number; maxItems?: number; oneOf?: readonly string[]; itemPattern?: RegExp },
  ): string[] | undefined;
  stringArray(
    field: string,
    opts: Common & { minItems?: number; maxItems?: number; oneOf?: readonly string[]; itemPattern?: RegExp } = {},
  ): string[] | undefined {
    const value = this.data[field];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, `${field} is required.`);
      return undefined;
    }
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      this.fail(field, `${field} must be an array of strings.`);
    const items = value as string[];
    const minItems = opts.minItems ?? (opts.required ? 1 : 0);
    if (items.length < minItems) this.fail(field, `${field} must have at least ${minItems} item(s).`);
    if (opts.maxItems !== undefined && items.length > opts.maxItems)
      this.fail(field, `${field} must have at most ${opts.maxItems} items.`);
    const bad = items.find(
      (item) => (opts.oneOf && !opts.oneOf.includes(item)) || (opts.itemPattern && !opts.itemPattern.test(item)),
    );
    if (bad !== undefined) this.fail(field, `${field} contains an invalid value.`, { value: bad });
    return items;
  }

  object(field: string, opts: Common = {}): Record<string, unknown> | undefined {
    const value = this.data[field];
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, `${field} is required.`);
      return undefined;
    }
    if (!isPlainObject(value)) this.fail(field, `${field} must be an object.`);
    return value;
  }

  /** An ISO 8601 timestamp (body fields) or date/date-time (query parameters, `dateOnly`). */
  timestamp(field: string, opts: Common & { allowDate?: boolean } = {}): string | undefined {
    const value = this.string(field, { required: opts.required });
    if (value === undefined) return undefined;
    const ok = opts.allowDate ? isIsoDateOrDateTime(value) : isIsoDateTime(value);
    if (!ok) this.fail(field, `${field} must be an ISO 8601 ${opts.allowDate ? 'date or date-time' : 'date-time'}.`);
    return value;
  }

  /** A query flag: `true`/`false` strings. */
  queryBoolean(field: string): boolean | undefined {
    const value = this.data[field];
    if (value === undefined || value === '') return undefined;
    if (value === 'true' || value === true) return true;
    if (value === 'false' || value === false) return false;
    this.fail(field, `${field} must be true or false.`);
  }
}
