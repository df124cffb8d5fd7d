import { expect, test } from '../base.ts';
import { addSecret, clearSecrets, redact, redactString } from '../../src/harness/redact.ts';
import { curlLine } from '../../src/harness/client.ts';
import { WRITERS } from '../../src/report/writers.ts';
import { finaliseReport } from '../../src/report/finalise.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, exchange, report } from './helpers.ts';

test.afterEach(() => clearSecrets());

test('headers: Authorization keeps its scheme, other secret headers go whole', () => {
  const out = redact({
    authorization: 'Bearer sk_live_abcdef123456',
    'x-api-key': 'k-123456789',
    'x-webhook-signature': 't=1,v1=abcdef',
    accept: 'application/json',
  });
  expect(out).toEqual({
    authorization: 'Bearer [REDACTED]',
    'x-api-key': '[REDACTED]',
    'x-webhook-signature': '[REDACTED]',
    accept: 'application/json',
  });
});

test('JSON text: key, secret, secret_access_key and signature fields, even in a truncated body', () => {
  const body =
    '{"api_key":{"id":"key_1","key":"cck_SECRETVALUE123","prefix":"cck_SECRETVA"},"secret_access_key":"AbCd/123+xyz","signature":"deadbeef","webhook":{"secret":"whsec_1234567","url":"http://x"},"trunc":"…';
  const out = redactString(body);
  for (const secret of ['cck_SECRETVALUE123', 'AbCd/123+xyz', 'deadbeef', 'whsec_1234567'])
    expect(out).not.toContain(secret);
  expect(out).toContain('"id":"key_1"');
});

test('object keys in storage listings and key labels of load results are not mistaken for secrets', () => {
  expect(redactString('{"key":"photos/cat.jpg","size":3}')).toBe('{"key":"photos/cat.jpg","size":3}');
  expect(redact({ invariant: 'onset', key: 'fresh-0' })).toEqual({ invariant: 'onset', key: 'fresh-0' });
  expect(redactString('{"key":"main","count":3}')).toBe('{"key":"main","count":3}');
  // A key value that merely starts like a label is still a secret.
  expect(redactString('{"key":"fresh-0abcdef1234"}')).toBe('{"key":"[REDACTED]"}');
});

test('query parameters: presigned signature, S3 signature, key', () => {
  const url =
    'http://h/v1/storage/buckets/b/objects/k?method=GET&expires=1&signature=abc123&X-Amz-Signature=ff00&key=zzz';
  const out = redactString(url);
  expect(out).toContain('expires=1');
  for (const secret of ['abc123', 'ff00', 'zzz']) expect(out).not.toContain(secret);
});

test('known secrets are replaced wherever they appear, and Bearer tokens in free text', () => {
  addSecret('cck_registered_key_42');
  expect(redactString('error: key cck_registered_key_42 unknown')).toBe('error: key [REDACTED] unknown');
  expect(redactString('sent Authorization: Bearer abc.def-ghi')).toBe('sent Authorization: Bearer [REDACTED]');
});

test('curl line uses the variable, never the key', () => {
  const line = curlLine(
    'POST',
    'http://h/v1/sms/send',
    { authorization: 'Bearer cck_real_key_999', 'content-type': 'application/json' },
    '{"to":"+1"}',
    'CLOUDCHECK_API_KEY',
  );
  expect(line).toContain('"Authorization: Bearer $CLOUDCHECK_API_KEY"');
  expect(line).not.toContain('cck_real_key_999');
});

test('no secret survives in any report file (finaliseReport redacts before the writers)', () => {
  const secrets = [
    'cck_main_key_0123456789',
    'cck_created_key_abcdef',
    'S3SECRETabcdef012345',
    'sig0123456789abcdef',
    'whsec_webhook_987654',
  ];
  addSecret(secrets[0]);
  const leaky = exchange({
    request: {
      method: 'POST',
      url: `http://h/v1/storage/buckets/b/objects/k/presigned-url?signature=${secrets[3]}`,
      headers: { authorization: `Bearer ${secrets[0]}` },
      body: `{"secret":"${secrets[4]}"}`,
    },
    response: {
      status: 201,
      headers: {},
      body: `{"api_key":{"key":"${secrets[1]}"},"secret_access_key":"${secrets[2]}","url":"http://h/o?signature=${secrets[3]}"}`,
    },
    curl: `curl -H "Authorization: Bearer ${secrets[0]}"`,
  });
  const r = report([
    check({ id: 'a', status: 'failed', message: `rejected key ${secrets[0]}`, exchanges: [leaky] }),
    check({ id: 'b', level: 'SHOULD', status: 'failed', message: 'x', exchanges: [leaky] }),
  ]);
  clearSecrets(); // the writers must not depend on the process having seen the key…
  addSecret(secrets[0]); // …except the run's own key, which the reporter knows from its environment
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-redact-'));
  try {
    const { outcome } = finaliseReport(r, dir);
    expect(outcome.written).toHaveLength(WRITERS.length);
    for (const writer of WRITERS) {
      const text = readFileSync(join(dir, writer.file), 'utf8');
      for (const secret of secrets) expect(text, `${writer.file} leaks ${secret}`).not.toContain(secret);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a HEAD request is reproduced with curl -I (with -X HEAD curl would wait for a body)', () => {
  const line = curlLine(
    'HEAD',
    'http://h/v1/storage/buckets/b/objects/k',
    { authorization: 'Bearer x' },
    undefined,
    'CLOUDCHECK_API_KEY',
  );
  expect(line.startsWith("curl -sS -I 'http://h/v1/storage/buckets/b/objects/k'")).toBe(true);
  expect(line).not.toContain('-X HEAD');
});
