/**
 * The one catalogue of error codes the reference server answers with, and the envelope they travel
 * in. Codes and statuses follow docs/conventions.md; the specification names the codes marked (spec).
 */
import type { Area } from './areas.ts';

export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, message: 'The request body is not a valid JSON object.' },
  unauthorized: { status: 401, message: 'A valid API key is required.' },
  forbidden: { status: 403, message: 'This API key may not perform this request.' },
  not_found: { status: 404, message: 'The resource does not exist.' },
  bucket_already_exists: { status: 409, message: 'A bucket with this name already exists.' }, // (spec)
  bucket_not_empty: { status: 409, message: 'The bucket still holds objects.' },
  volume_in_use: { status: 409, message: 'The volume is attached.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  validation_error: { status: 422, message: 'The request could not be processed.' }, // (spec)
  invalid_phone_number: { status: 422, message: 'The phone number is not in international format.' }, // (spec)
  message_too_long: { status: 422, message: 'The message exceeds 1600 characters.' }, // (spec)
  sender_id_not_approved: { status: 422, message: 'The sender ID is not approved for this destination.' }, // (spec)
  invalid_template: { status: 422, message: 'The template does not exist or cannot be filled.' }, // (spec)
  insufficient_balance: { status: 422, message: 'The account balance is too low.' }, // (spec)
  recipient_opted_out: { status: 422, message: 'The recipient has opted out.' },
  invalid_state: { status: 422, message: 'The action is not allowed in the current state.' },
  rate_limit_exceeded: { status: 429, message: 'Too many requests.' }, // (spec)
  internal_error: { status: 500, message: 'Internal error.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export type ErrorDetails = Record<string, unknown> | Array<{ field: string; message: string }>;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetails,
    readonly resource?: string,
    status?: number,
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.status = status ?? ERROR_CATALOGUE[code].status;
  }

  toBody(renameEnvelope = false): Record<string, unknown> {
    const error: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    if (this.resource !== undefined) error.resource = this.resource;
    // Fault `errors-envelope-renamed` puts the envelope under another name.
    return renameEnvelope ? { err: error } : { error };
  }
}

/**
 * A field problem. The specification shows `details` as an object in messaging and billing and
 * as an array of {field, message} in compute; storage follows compute (docs/conventions.md).
 */
export function fieldError(
  area: Area,
  field: string,
  message: string,
  code: ErrorCode = 'validation_error',
  extra: Record<string, unknown> = {},
): ApiError {
  const details: ErrorDetails =
    area === 'compute' || area === 'storage' ? [{ field, message }] : { field, message, ...extra };
  return new ApiError(code, message, details);
}

export function notFound(resource: string, message?: string): ApiError {
  return new ApiError('not_found', message ?? `No ${resource} with that id.`, undefined, resource);
}
