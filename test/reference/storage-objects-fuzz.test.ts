/**
 * Fuzz-style robustness of every object-storage operation: malformed bodies (invalid JSON, an
 * array, scalars, wrong types in every field, huge strings, odd unicode), odd query values and
 * odd headers. Never a 5xx; every 4xx carries the `{"error": {"code", "message"}}` envelope.
 */
import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { createBucket, errorOf, objectUrl, putObject, rawRequest, uniqueBucket } from './storage-objects-support.ts';

let server: RunningReference;
let bucket: string;
test.beforeAll(async () => {
  server = await startReferenceServer();
  bucket = uniqueBucket('fuzz');
  await createBucket(server, bucket);
  await putObject(server, bucket, 'exists.txt', 'x');
  await rawRequest(`${server.baseUrl}/storage/buckets/${bucket}/cdn`, {
    method: 'POST',
    apiKey: server.apiKey,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
});
test.afterAll(async () => {
  await server.close();
});

const HUGE = 'x'.repeat(200_000);
const ODD = '\u202e\u0000\ud800💥\uFEFF';
const WRONG_VALUES: unknown[] = [
  1e300,
  Number.MAX_SAFE_INTEGER + 2,
  -1,
  1.5,
  true,
  [],
  [1, 2],
  {},
  { nested: { deep: [] } },
  HUGE,
  ODD,
  '',
];
const MALFORMED_BODIES = [
  '{',
  '{"a":',
  '[]',
  '[{"name":"x"}]',
  '"string"',
  '42',
  'true',
  'not json at all',
  '\u0000\u0001',
  `{"name":"${'x'.repeat(1_100_000)}"}`,
  '{"a":1}{"b":2}',
];

interface JsonOperation {
  label: string;
  method: string;
  path: () => string;
  valid: () => Record<string, unknown>;
}

const JSON_OPERATIONS: JsonOperation[] = [
  {
    label: 'POST /storage/buckets',
    method: 'POST',
    path: () => '/storage/buckets',
    valid: () => ({ name: uniqueBucket('f'), region: 'nyc1', public: false, versioning: false, encryption: 'AES256' }),
  },
  {
    label: 'POST cdn',
    method: 'POST',
    path: () => `/storage/buckets/${bucket}/cdn`,
    valid: () => ({ custom_domain: 'cdn.example.com', cache_ttl: 60 }),
  },
  {
    label: 'POST cdn/purge',
    method: 'POST',
    path: () => `/storage/buckets/${bucket}/cdn/purge`,
    valid: () => ({ paths: ['/a'] }),
  },
  {
    label: 'PUT policy',
    method: 'PUT',
    path: () => `/storage/buckets/${bucket}/policy`,
    valid: () => ({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${bucket}/*` }],
    }),
  },
  {
    label: 'POST access-keys',
    method: 'POST',
    path: () => '/storage/access-keys',
    valid: () => ({ name: 'fuzz', permissions: ['read'], bucket_access: [bucket] }),
  },
  {
    label: 'POST presigned-url',
    method: 'POST',
    path: () => `/storage/buckets/${bucket}/objects/exists.txt/presigned-url`,
    valid: () => ({ method: 'GET', expires_in: 60 }),
  },
];

async function send(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return rawRequest(`${server.baseUrl}${path}`, { method, apiKey: server.apiKey, headers, body });
}

function expectClientError(response: { status: number; json: unknown }, what: string): void {
  expect(response.status, what).toBeGreaterThanOrEqual(400);
  expect(response.status, what).toBeLessThan(500);
  const error = errorOf(response.json);
  expect(typeof error.code, what).toBe('string');
  expect(typeof error.message, what).toBe('string');
}

function expectNoServerError(response: { status: number; json: unknown }, what: string): void {
  expect(response.status, what).toBeLessThan(500);
  if (response.status >= 400) expectClientError(response, what);
}

for (const operation of JSON_OPERATIONS) {
  test(`${operation.label}: malformed bodies are 4xx with the envelope`, async () => {
    for (const body of MALFORMED_BODIES) {
      for (const contentType of ['application/json', 'text/plain']) {
        expectClientError(
          await send(operation.method, operation.path(), body, { 'content-type': contentType }),
          `${contentType} ${body.slice(0, 30)}`,
        );
      }
    }
    // The valid body works, so the refusals above are about the body.
    const ok = await send(operation.method, operation.path(), JSON.stringify(operation.valid()));
    expect(ok.status).toBeLessThan(300);
  });

  test(`${operation.label}: wrong types in every field never cause a 5xx`, async () => {
    const valid = operation.valid();
    for (const field of Object.keys(valid)) {
      for (const value of WRONG_VALUES) {
        const body = { ...operation.valid(), [field]: value };
        const response = await send(operation.method, operation.path(), JSON.stringify(body));
        expectNoServerError(response, `${field}=${JSON.stringify(value).slice(0, 30)}`);
      }
    }
    // Unknown extra fields and nested junk are not a server error either.
    expectNoServerError(
      await send(
        operation.method,
        operation.path(),
        JSON.stringify({ ...valid, extra: { [ODD]: [HUGE.slice(0, 1000)] } }),
      ),
      'extra',
    );
  });
}

test('multipart completion: malformed XML bodies are 4xx with the envelope', async () => {
  const url = objectUrl(server, bucket, 'mp.bin');
  const init = await rawRequest(`${url}?uploads`, { method: 'POST', apiKey: server.apiKey });
  const uploadId = (init.json as { upload_id: string }).upload_id;
  const part = await rawRequest(`${url}?partNumber=1&uploadId=${uploadId}`, {
    method: 'PUT',
    apiKey: server.apiKey,
    body: 'p',
  });
  const etag = part.headers.get('etag') ?? '';
  const bodies = [
    '',
    '<',
    '<CompleteMultipartUpload>',
    '<CompleteMultipartUpload><Part></Part></CompleteMultipartUpload>',
    `<CompleteMultipartUpload><Part><PartNumber>${HUGE}</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`,
    `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${ODD}</ETag></Part></CompleteMultipartUpload>`,
    `<CompleteMultipartUpload><Part><PartNumber>1.5</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`,
    `<CompleteMultipartUpload><Part><PartNumber><x/></PartNumber><ETag><y/></ETag></Part></CompleteMultipartUpload>`,
    '{"Part": [{"PartNumber": 1}]}',
    '[]',
    `<a>${'<b>'.repeat(5000)}</a>`,
    'x'.repeat(2 * 1024 * 1024),
  ];
  for (const body of bodies) {
    const response = await rawRequest(`${url}?uploadId=${uploadId}`, {
      method: 'POST',
      apiKey: server.apiKey,
      headers: { 'content-type': 'application/xml' },
      body,
    });
    expectClientError(response, body.slice(0, 40));
  }
});

test('object routes: odd query values and headers never cause a 5xx', async () => {
  const url = objectUrl(server, bucket, 'odd.bin');
  const queries = [
    '?partNumber=1',
    '?uploadId=x',
    `?partNumber=${'9'.repeat(400)}&uploadId=x`,
    '?partNumber=1&uploadId=x&partNumber=2',
    '?uploads&uploadId=x',
    '?uploadId=%00',
    '?signature=abc',
    '?signature=&method=PUT&expires=-1&account=',
  ];
  for (const query of queries) {
    for (const method of ['PUT', 'POST', 'GET', 'DELETE', 'HEAD']) {
      const response = await rawRequest(`${url}${query}`, {
        method,
        apiKey: server.apiKey,
        body: method === 'PUT' || method === 'POST' ? 'body' : undefined,
      });
      expect(response.status, `${method} ${query}`).toBeLessThan(500);
    }
  }
  const oddHeaders: Array<Record<string, string>> = [
    { 'x-cloud-acl': ODD.replace(/[^\u0020-\u007e]/g, '?') },
    { 'content-type': 'a/b; charset=💥'.replace(/[^\u0020-\u007e]/g, '?') },
    { 'content-type': '???' },
    { 'content-type': '' },
  ];
  for (const headers of oddHeaders) {
    const response = await rawRequest(url, { method: 'PUT', apiKey: server.apiKey, headers, body: 'abcde' });
    expectNoServerError(response, JSON.stringify(headers));
  }
});

test('GET listing and usage: odd query values never cause a 5xx', async () => {
  const listing = `/storage/buckets/${bucket}/objects`;
  const queries = [
    `${listing}?max_keys=${'9'.repeat(400)}`,
    `${listing}?max_keys=1e3`,
    `${listing}?prefix=${encodeURIComponent(HUGE.slice(0, 5000))}`,
    `${listing}?marker=${encodeURIComponent('\uFFFF💥')}&delimiter=${encodeURIComponent('💥')}`,
    `${listing}?prefix=a&prefix=b`,
    `${listing}?delimiter=`,
    '/storage/usage?from_date=9999-99-99',
    '/storage/usage?from_date=2024-02-30',
    '/storage/usage?to_date=0',
    '/storage/usage?from_date=-271821-04-20',
    `/storage/usage?bucket=${encodeURIComponent(ODD.replace('\ud800', ''))}`,
    '/storage/usage?bucket=a&bucket=b',
  ];
  for (const path of queries) expectNoServerError(await send('GET', path, undefined, {}), path.slice(0, 60));
});
