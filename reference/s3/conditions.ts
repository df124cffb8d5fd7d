/**
 * Conditional requests as S3 evaluates them (RFC 9110 section 13 with S3's codes):
 * reads (GetObject/HeadObject), copy sources (`x-amz-copy-source-if-*`) and writes
 * (PutObject/CompleteMultipartUpload with If-Match / If-None-Match).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { S3Error } from './errors.ts';

export interface Current {
  etag: string;
  lastModified: string;
}

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** `"a", b, *` → matches when any listed tag (quotes optional, weak prefix ignored) is the ETag. */
export function etagMatches(list: string, etag: string): boolean {
  const bare = etag.replace(/^"|"$/g, '');
  return list.split(',').some((item) => {
    const tag = item.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return tag === '*' || tag === bare;
  });
}

/** An HTTP date, or undefined when unparsable (an invalid date makes the condition absent, as RFC 9110 says). */
function dateOf(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Last-Modified as HTTP carries it: whole seconds. */
const seconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000) * 1000;

/**
 * GET/HEAD: If-Match (else If-Unmodified-Since) failing is 412; then If-None-Match (else
 * If-Modified-Since) failing is 304. A passing If-Match overrides a failing If-Unmodified-Since,
 * and If-None-Match present makes If-Modified-Since ignored, as S3 documents.
 */
export function checkRead(
  headers: IncomingHttpHeaders,
  current: Current,
  prefix = '',
): 'ok' | 'not-modified' | 'failed' {
  const ifMatch = one(headers, `${prefix}if-match`);
  const ifNoneMatch = one(headers, `${prefix}if-none-match`);
  const modified = seconds(current.lastModified);
  if (ifMatch !== undefined) {
    if (!etagMatches(ifMatch, current.etag)) return 'failed';
  } else {
    const since = dateOf(one(headers, `${prefix}if-unmodified-since`));
    if (since !== undefined && modified > since) return 'failed';
  }
  if (ifNoneMatch !== undefined) {
    if (etagMatches(ifNoneMatch, current.etag)) return 'not-modified';
  } else {
    const since = dateOf(one(headers, `${prefix}if-modified-since`));
    if (since !== undefined && modified <= since) return 'not-modified';
  }
  return 'ok';
}

export function requireRead(headers: IncomingHttpHeaders, current: Current): void {
  const outcome = checkRead(headers, current);
  if (outcome === 'failed')
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
      Condition: 'If-Match',
    });
  if (outcome === 'not-modified') throw new S3Error('NotModified', 'Not Modified');
}

/** CopyObject / UploadPartCopy: every failing `x-amz-copy-source-if-*` condition is 412. */
export function requireCopySource(headers: IncomingHttpHeaders, current: Current): void {
  if (checkRead(headers, current, 'x-amz-copy-source-') !== 'ok') {
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
      Condition: 'x-amz-copy-source-If-Match',
    });
  }
}

/**
 * PutObject / CompleteMultipartUpload: If-None-Match `*` (or the current ETag) refuses to
 * overwrite, If-Match needs the object to exist (NoSuchKey otherwise) with a listed ETag.
 */
export function requireWrite(headers: IncomingHttpHeaders, current: Current | undefined): void {
  const ifMatch = one(headers, 'if-match');
  const ifNoneMatch = one(headers, 'if-none-match');
  if (ifMatch !== undefined) {
    if (!current) throw new S3Error('NoSuchKey', 'The specified key does not exist.');
    if (!etagMatches(ifMatch, current.etag))
      throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
        Condition: 'If-Match',
      });
  }
  if (ifNoneMatch !== undefined && current && etagMatches(ifNoneMatch, current.etag)) {
    throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
      Condition: 'If-None-Match',
    });
  }
}
