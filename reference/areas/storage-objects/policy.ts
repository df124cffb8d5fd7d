/**
 * Bucket policy documents (S3-style). The specification names Version and Statement with
 * Effect, Principal, Action and Resource; the accepted values are S3's. The document is stored
 * as sent, so GET returns exactly what PUT accepted.
 */
import { isPlainObject } from '../../core/validation.ts';

export interface PolicyDocument {
  Version: string;
  Statement: Array<Record<string, unknown>>;
  [extra: string]: unknown;
}

export const POLICY_VERSIONS = ['2012-10-17', '2008-10-17'] as const;

/** Before any PUT a bucket has this policy: nothing granted beyond the owner's keys. */
export function emptyPolicy(): PolicyDocument {
  return { Version: '2012-10-17', Statement: [] };
}

export interface PolicyProblem {
  field: string;
  message: string;
}

const isStringOrStringList = (value: unknown): boolean =>
  (typeof value === 'string' && value.length > 0) ||
  (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.length > 0));

/** The first problem of a policy body for `bucket`, or the document when it is valid. */
export function checkPolicy(bucket: string, body: unknown): PolicyDocument | PolicyProblem {
  if (!isPlainObject(body)) return { field: 'body', message: 'The policy must be a JSON object.' };
  const version = body.Version;
  if (version === undefined || version === null) return { field: 'Version', message: 'Version is required.' };
  if (typeof version !== 'string' || !(POLICY_VERSIONS as readonly string[]).includes(version)) {
    return { field: 'Version', message: `Version must be one of ${POLICY_VERSIONS.join(', ')}.` };
  }
  const statements = body.Statement;
  if (statements === undefined || statements === null) return { field: 'Statement', message: 'Statement is required.' };
  if (!Array.isArray(statements) || statements.length === 0)
    return { field: 'Statement', message: 'Statement must be a non-empty array.' };
  const arn = `arn:aws:s3:::${bucket}`;
  for (const [index, statement] of statements.entries()) {
    const at = `Statement[${index}]`;
    if (!isPlainObject(statement)) return { field: at, message: `${at} must be an object.` };
    if (statement.Effect !== 'Allow' && statement.Effect !== 'Deny')
      return { field: `${at}.Effect`, message: 'Effect must be Allow or Deny.' };
    const principal = statement.Principal;
    if (!((typeof principal === 'string' && principal.length > 0) || isPlainObject(principal))) {
      return { field: `${at}.Principal`, message: 'Principal must be a string or an object.' };
    }
    if (!isStringOrStringList(statement.Action))
      return { field: `${at}.Action`, message: 'Action must be a string or a non-empty array of strings.' };
    const resource = statement.Resource;
    if (!isStringOrStringList(resource))
      return { field: `${at}.Resource`, message: 'Resource must be a string or a non-empty array of strings.' };
    // A bucket's policy may only speak about that bucket and its objects.
    const resources = typeof resource === 'string' ? [resource] : (resource as string[]);
    const foreign = resources.find((r) => r !== arn && !r.startsWith(`${arn}/`));
    if (foreign !== undefined) {
      return { field: `${at}.Resource`, message: `Resource must be ${arn} or ${arn}/<key pattern>, not ${foreign}.` };
    }
    if (statement.Sid !== undefined && typeof statement.Sid !== 'string')
      return { field: `${at}.Sid`, message: 'Sid must be a string.' };
  }
  return body as PolicyDocument;
}

export function isPolicyProblem(value: PolicyDocument | PolicyProblem): value is PolicyProblem {
  return 'field' in value && 'message' in value && !('Statement' in value);
}
