/**
 * The conditional-request rules of the S3 endpoint (reference/s3/conditions.ts), on their own:
 * ETag lists, the If-Match / If-Unmodified-Since and If-None-Match / If-Modified-Since
 * precedence of reads, copy-source conditions, and create-only / compare-and-swap writes.
 */
import { expect, test } from '../base.ts';
import { checkRead, etagMatches, requireCopySource, requireWrite } from '../../reference/s3/conditions.ts';
import { S3Error } from '../../reference/s3/errors.ts';

const current = { etag: '"abc"', lastModified: '2026-01-02T03:04:05.678Z' };
const before = 'Thu, 01 Jan 2026 00:00:00 GMT';
const at = 'Fri, 02 Jan 2026 03:04:05 GMT';
const after = 'Sat, 03 Jan 2026 00:00:00 GMT';

function codeOf(run: () => void): string {
  try {
    run();
  } catch (error) {
    return error instanceof S3Error ? error.code : 'other';
  }
  return 'ok';
}

test('ETag lists: quotes optional, weak prefix ignored, * matches', () => {
  expect(etagMatches('"abc"', current.etag)).toBe(true);
  expect(etagMatches('abc', current.etag)).toBe(true);
  expect(etagMatches('"x", W/"abc"', current.etag)).toBe(true);
  expect(etagMatches('*', current.etag)).toBe(true);
  expect(etagMatches('"x"', current.etag)).toBe(false);
});

test('reads: 412 and 304 with S3 precedence, seconds granularity of Last-Modified', () => {
  expect(checkRead({}, current)).toBe('ok');
  expect(checkRead({ 'if-match': '"x"' }, current)).toBe('failed');
  expect(checkRead({ 'if-unmodified-since': before }, current)).toBe('failed');
  expect(checkRead({ 'if-unmodified-since': at }, current)).toBe('ok');
  expect(checkRead({ 'if-match': '"abc"', 'if-unmodified-since': before }, current)).toBe('ok');
  expect(checkRead({ 'if-none-match': '"abc"' }, current)).toBe('not-modified');
  expect(checkRead({ 'if-modified-since': at }, current)).toBe('not-modified');
  expect(checkRead({ 'if-modified-since': after }, current)).toBe('not-modified');
  expect(checkRead({ 'if-modified-since': before }, current)).toBe('ok');
  // If-None-Match present: If-Modified-Since is not looked at.
  expect(checkRead({ 'if-none-match': '"x"', 'if-modified-since': after }, current)).toBe('ok');
  expect(checkRead({ 'if-none-match': '"abc"', 'if-modified-since': before }, current)).toBe('not-modified');
  // 412 wins over 304.
  expect(checkRead({ 'if-match': '"x"', 'if-none-match': '"abc"' }, current)).toBe('failed');
  // An unparsable date is no condition.
  expect(checkRead({ 'if-modified-since': 'yesterday-ish' }, current)).toBe('ok');
});

test('copy sources: every failing x-amz-copy-source-if-* is PreconditionFailed', () => {
  expect(codeOf(() => requireCopySource({ 'x-amz-copy-source-if-match': '"abc"' }, current))).toBe('ok');
  expect(codeOf(() => requireCopySource({ 'x-amz-copy-source-if-match': '"x"' }, current))).toBe('PreconditionFailed');
  expect(codeOf(() => requireCopySource({ 'x-amz-copy-source-if-none-match': '"abc"' }, current))).toBe(
    'PreconditionFailed',
  );
  expect(codeOf(() => requireCopySource({ 'x-amz-copy-source-if-modified-since': after }, current))).toBe(
    'PreconditionFailed',
  );
  expect(codeOf(() => requireCopySource({ 'if-match': '"x"' }, current))).toBe('ok');
});

test('writes: If-None-Match refuses an existing object, If-Match needs one with a listed ETag', () => {
  expect(codeOf(() => requireWrite({ 'if-none-match': '*' }, undefined))).toBe('ok');
  expect(codeOf(() => requireWrite({ 'if-none-match': '*' }, current))).toBe('PreconditionFailed');
  expect(codeOf(() => requireWrite({ 'if-none-match': '"abc"' }, current))).toBe('PreconditionFailed');
  expect(codeOf(() => requireWrite({ 'if-none-match': '"x"' }, current))).toBe('ok');
  expect(codeOf(() => requireWrite({ 'if-match': '*' }, undefined))).toBe('NoSuchKey');
  expect(codeOf(() => requireWrite({ 'if-match': '"abc"' }, current))).toBe('ok');
  expect(codeOf(() => requireWrite({ 'if-match': '"x"' }, current))).toBe('PreconditionFailed');
});
