/**
 * The S3 error catalogue of the endpoint: code → HTTP status, and the XML error body. Store
 * errors (transport-neutral) are mapped here to their S3 codes.
 */
import { StoreError } from '../areas/storage-objects/store.ts';

export const S3_ERRORS = {
  AccessDenied: 403,
  // A CORS preflight the bucket's (absent) CORS configuration does not allow.
  AccessForbidden: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  BadRequest: 400,
  BadDigest: 400,
  BucketAlreadyExists: 409,
  BucketAlreadyOwnedByYou: 409,
  BucketNotEmpty: 409,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  IncompleteBody: 400,
  InternalError: 500,
  InvalidAccessKeyId: 403,
  InvalidArgument: 400,
  InvalidBucketName: 400,
  InvalidDigest: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  InvalidRange: 416,
  InvalidRequest: 400,
  InvalidURI: 400,
  MalformedACLError: 400,
  MalformedXML: 400,
  MethodNotAllowed: 405,
  MissingContentLength: 411,
  MissingSecurityHeader: 400,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NoSuchVersion: 404,
  NotImplemented: 501,
  // Not an error to S3 clients: a conditional read whose object did not change (no body).
  NotModified: 304,
  PreconditionFailed: 412,
  RequestTimeTooSkewed: 403,
  SignatureDoesNotMatch: 403,
  UnexpectedContent: 400,
  UnresolvableGrantByEmailAddress: 400,
  XAmzContentSHA256Mismatch: 400,
} as const;

export type S3ErrorCode = keyof typeof S3_ERRORS;

export class S3Error extends Error {
  constructor(
    readonly code: S3ErrorCode,
    message: string,
    /** Extra elements of the <Error> body (S3 adds e.g. BucketName, Key). */
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return S3_ERRORS[this.code];
  }
}

export function s3ErrorOf(error: unknown): S3Error | undefined {
  if (error instanceof S3Error) return error;
  if (!(error instanceof StoreError)) return undefined;
  switch (error.kind) {
    case 'no_such_bucket':
      return new S3Error('NoSuchBucket', 'The specified bucket does not exist.');
    case 'no_such_key':
      return new S3Error('NoSuchKey', 'The specified key does not exist.');
    case 'no_such_version':
      return new S3Error('NoSuchVersion', 'The specified version does not exist.');
    case 'no_such_upload':
      return new S3Error('NoSuchUpload', 'The specified multipart upload does not exist.');
    case 'bucket_already_exists':
      return new S3Error('BucketAlreadyExists', 'The requested bucket name is not available.');
    case 'bucket_not_empty':
      return new S3Error('BucketNotEmpty', 'The bucket you tried to delete is not empty.');
    case 'too_large':
      return new S3Error('EntityTooLarge', error.message);
    case 'invalid_part':
      return new S3Error('InvalidPart', error.message);
    case 'invalid_part_order':
      return new S3Error('InvalidPartOrder', error.message);
    case 'entity_too_small':
      return new S3Error('EntityTooSmall', error.message);
    case 'cdn_not_enabled':
      return new S3Error('InvalidRequest', error.message);
  }
}
