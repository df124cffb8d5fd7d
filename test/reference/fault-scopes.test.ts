/**
 * Faults limited to some checks (reference/core/faults.ts): a scoped fault bends the requests
 * whose check header names a check of its scope, and what they set going (a delivery decided in
 * a timer, an event), and nothing else: not a request without the header, not another check's,
 * not the next request on the same keep-alive connection. The fault matrix's shared runs rest on
 * this (test/trust/matrix.ts, planBatches).
 */
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { expect, test } from '../base.ts';
import { CHECK_HEADER as CLIENT_HEADER } from '../../src/harness/client.ts';
import { faultScopesFromEnv } from '../../src/harness/embedded.ts';
import { ActiveFaults, CHECK_HEADER, inUnit } from '../../reference/core/faults.ts';
import { type RunningReference, listFaults, startReferenceServer } from '../../reference/server.ts';
import { type Api, NUMBERS, TEST_MODE, api, finalStatus, obj, startMessagingServer } from './messaging-helpers.ts';
import { accessKey, s3Client, uniqueBucket } from './s3-support.ts';

const SENDS = 'contract.sendSms';
const NUMBERS_FLOW = 'flow.test-mode-numbers';

let server: RunningReference;
let a: Api;

test.beforeAll(async () => {
  server = await startMessagingServer({
    faults: ['msg-send-204', 'msg-fail-number-delivered'],
    faultScopes: { 'msg-send-204': [SENDS], 'msg-fail-number-delivered': [NUMBERS_FLOW] },
  });
  // Faulty on purpose for some checks: no OpenAPI check here.
  a = api(server, undefined, () => true);
});
test.afterAll(async () => server?.close());

const as = (check?: string): Record<string, string> => ({
  ...TEST_MODE,
  ...(check !== undefined && { [CHECK_HEADER]: check }),
});

test('the client names its checks with the header the reference server reads', () => {
  expect(CLIENT_HEADER).toBe(CHECK_HEADER);
});

test('a scoped fault bends the requests of its checks only (a check id or a prefix of whole segments)', async () => {
  const statusAs = async (check?: string): Promise<number> =>
    (await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'scoped' }, as(check))).status;
  // Alternating on one keep-alive connection: what a request sets never reaches the next one.
  const checks = [
    `${SENDS}.positive`,
    undefined,
    SENDS,
    'contract.sendSmsTemplate.positive',
    `${SENDS}.positive-status`,
    '',
    'flow.webhooks.send',
    `${SENDS}.auth-bad-key`,
  ];
  const statuses: number[] = [];
  for (const check of checks) statuses.push(await statusAs(check));
  expect(statuses).toEqual([204, 201, 204, 201, 204, 201, 201, 204]);
});

test('repetition k of a check (`<id>#k`) is in repetition k of its unit only, a plain id in plain units only', () => {
  const cases: Array<[string, string, boolean]> = [
    [`${SENDS}.positive#2`, `${SENDS}#2`, true],
    [`${SENDS}#3`, `${SENDS}#3`, true],
    [`${SENDS}.positive#2`, SENDS, false],
    [`${SENDS}.positive`, `${SENDS}#2`, false],
    [`${SENDS}.positive#12`, `${SENDS}#1`, false],
    [`${SENDS}.positive#1`, `${SENDS}#12`, false],
    ['contract.sendSmsTemplate.positive#2', `${SENDS}#2`, false],
    [`${SENDS}.positive`, SENDS, true],
  ];
  expect(cases.map(([check, unit]) => inUnit(check, unit))).toEqual(cases.map(([, , inside]) => inside));
});

test('a scoped fault reaches a body read in many chunks', async () => {
  // Half a megabyte arrives in many reads: the handler runs after the last one, still the check's.
  const padding = 'x'.repeat(512 * 1024);
  const send = (check?: string) =>
    a.call('POST /sms/send', '/sms/send', { to: NUMBERS.succeed, message: 'long body', padding }, as(check));
  expect((await send(`${SENDS}.positive`)).status).toBe(204);
  expect((await send()).status).toBe(201);
});

test('a scoped fault follows its request into the delivery it schedules', async () => {
  const send = async (check?: string) =>
    obj((await a.call('POST /sms/send', '/sms/send', { to: NUMBERS.fail, message: 'delivery' }, as(check))).body)
      .message_id as string;
  const inFlow = await send(`${NUMBERS_FLOW}.fail-number`);
  const outside = await send('flow.webhooks.fail-number');
  // The status read carries no check header: the delivery was decided when it was scheduled.
  expect((await finalStatus(a, inFlow)).status).toBe('delivered');
  expect((await finalStatus(a, outside)).status).toBe('failed');
});

test('an S3 request is the check that made its access key (the SDK sends no check header), signed in a header or in the URL', async () => {
  const s3Server = await startReferenceServer({
    faults: ['s3-list-buckets-empty', 's3-presigned-refused'],
    faultScopes: { 's3-list-buckets-empty': ['s3.buckets'], 's3-presigned-refused': ['s3.buckets'] },
  });
  try {
    const scoped = s3Client(s3Server, await accessKey(s3Server, { headers: { [CHECK_HEADER]: 's3.buckets.list' } }));
    const other = s3Client(s3Server, await accessKey(s3Server, { headers: { [CHECK_HEADER]: 's3.objects.list' } }));
    const bucket = uniqueBucket('scoped');
    await other.send(new CreateBucketCommand({ Bucket: bucket }));
    await other.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'v' }));
    expect((await scoped.send(new ListBucketsCommand({}))).Buckets ?? []).toEqual([]);
    expect((await other.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toContain(bucket);
    const presignedBy = async (s3: typeof scoped) =>
      (await fetch(await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: 'k' }), { expiresIn: 60 })))
        .status;
    expect(await presignedBy(scoped)).toBe(403);
    expect(await presignedBy(other)).toBe(200);
  } finally {
    await s3Server.close();
  }
});

test('a scope is refused for a fault that is off, or one that bends the whole server', () => {
  const known = listFaults();
  expect(() => new ActiveFaults([], known, { 'msg-send-204': [SENDS] })).toThrow(/not switched on/);
  expect(() => new ActiveFaults(['api-unversioned'], known, { 'api-unversioned': [SENDS] })).toThrow(/whole server/);
  const unscoped = new ActiveFaults(['msg-send-204'], known);
  expect(unscoped.has('msg-send-204')).toBe(true);
  expect(unscoped.scoped).toBe(false);
});

test('CLOUDCHECK_EMBEDDED_FAULT_SCOPES: a JSON object of fault → check ids, anything else refused with what it must be', () => {
  expect(faultScopesFromEnv({})).toBeUndefined();
  expect(faultScopesFromEnv({ CLOUDCHECK_EMBEDDED_FAULT_SCOPES: ' ' })).toBeUndefined();
  expect(faultScopesFromEnv({ CLOUDCHECK_EMBEDDED_FAULT_SCOPES: '{"msg-send-204":["contract.sendSms"]}' })).toEqual({
    'msg-send-204': ['contract.sendSms'],
  });
  for (const bad of [
    '["msg-send-204"]',
    '{"msg-send-204":"contract.sendSms"}',
    '{"msg-send-204":[""]}',
    '{"msg-send-204":[1]}',
    'null',
  ]) {
    expect(() => faultScopesFromEnv({ CLOUDCHECK_EMBEDDED_FAULT_SCOPES: bad }), bad).toThrow(
      /must be a JSON object of fault name/,
    );
  }
  expect(() => faultScopesFromEnv({ CLOUDCHECK_EMBEDDED_FAULT_SCOPES: '{bad' })).toThrow(
    /CLOUDCHECK_EMBEDDED_FAULT_SCOPES is not JSON/,
  );
});
