/**
 * The data generator: deterministic per seed, valid against every JSON request body schema of
 * the document, and safe domain values (E.164 test numbers, S3 bucket names, OpenSSH keys,
 * loopback URLs, future expiries).
 */
import { expect, test } from '../base.ts';
import { Faker, base, en } from '@faker-js/faker';
import {
  BUCKET_NAME,
  E164,
  LOOPBACK_HOOK_URL,
  generateValue,
  parseSshEd25519,
  senderId,
  spareNumber,
  sshEd25519PublicKey,
} from '../../src/generate/data.ts';
import type { DataContext } from '../../src/generate/data.ts';
import { loadContractModel, validateAgainst } from '../../src/generate/model.ts';
import { bodyCases } from '../../src/generate/negative.ts';

const NOW = new Date('2030-01-01T00:00:00Z');
const SUCCEED = '+15005550006';

function context(seed: number, unique?: string): DataContext {
  const faker = new Faker({ locale: [en, base] });
  faker.seed(seed);
  let n = 0;
  return {
    faker,
    testNumbers: { succeed: SUCCEED },
    name: (label = 'r') => `cc-20300101-000000-abcd-${label}-${n++}`,
    catalogue: { regions: ['nyc1', 'ams3'], images: ['ubuntu-22-04'], sizes: ['s-1vcpu-1gb'] },
    refs: {},
    now: NOW,
    ...(unique !== undefined ? { unique } : {}),
  };
}

async function jsonBodies() {
  const model = await loadContractModel();
  return model.operations.flatMap((op) =>
    (op.requestBody?.content ?? [])
      .filter((c) => /json/.test(c.contentType) && c.schema)
      .map((c) => ({ key: op.key, schema: c.schema! })),
  );
}

test('the same seed gives the same data; another seed other data', async () => {
  const bodies = await jsonBodies();
  const run = (seed: number) => {
    const ctx = context(seed);
    return bodies.map((b) => generateValue(b.schema, ctx));
  };
  expect(run(7)).toEqual(run(7));
  expect(JSON.stringify(run(7))).not.toEqual(JSON.stringify(run(8)));
});

test('every JSON request body schema of the document gets a value valid against it', async () => {
  const bodies = await jsonBodies();
  expect(bodies.length).toBeGreaterThan(25);
  for (const seed of [1, 2, 3]) {
    const ctx = context(seed);
    for (const { key, schema } of bodies) {
      const value = generateValue(schema, ctx);
      expect(validateAgainst(schema, value), `${key} (seed ${seed}): ${JSON.stringify(value)}`).toEqual([]);
    }
  }
});

test('recipients are the run succeed test number; stored numbers are spare test-range numbers', async () => {
  const model = await loadContractModel();
  const ctx = context(1);
  const send = model.operations.find((o) => o.key === 'POST /sms/send')!;
  const body = generateValue(send.requestBody!.content[0]!.schema!, ctx) as { to: string };
  expect(body.to).toBe(SUCCEED);
  const bulk = model.operations.find((o) => o.key === 'POST /sms/bulk')!;
  expect((generateValue(bulk.requestBody!.content[0]!.schema!, ctx) as { recipients: string[] }).recipients).toEqual([
    SUCCEED,
  ]);
  for (let i = 0; i < 50; i++) {
    const spare = spareNumber(ctx.faker);
    expect(spare).toMatch(E164);
    expect(['+15005550006', '+15005550001', '+15005550009']).not.toContain(spare);
  }
});

test('bucket names are valid S3 names; URLs are loopback; expiries lie in the future', async () => {
  const model = await loadContractModel();
  const ctx = context(3);
  const bucket = model.operations.find((o) => o.key === 'POST /storage/buckets')!;
  const { name, public: isPublic } = generateValue(bucket.requestBody!.content[0]!.schema!, ctx) as {
    name: string;
    public?: boolean;
  };
  expect(name).toMatch(BUCKET_NAME);
  expect(isPublic ?? false).toBe(false);
  const hook = model.operations.find((o) => o.key === 'POST /messaging/webhooks')!;
  const { url } = generateValue(hook.requestBody!.content[0]!.schema!, ctx) as { url: string };
  expect(url).toBe(LOOPBACK_HOOK_URL);
  expect(['127.0.0.1', '[::1]', 'localhost']).toContain(new URL(url).hostname);
  const key = model.operations.find((o) => o.key === 'POST /account/api-keys')!;
  const created = generateValue(key.requestBody!.content[0]!.schema!, ctx) as {
    expires_at?: string;
    ip_whitelist?: string[];
  };
  if (created.expires_at) expect(Date.parse(created.expires_at)).toBeGreaterThan(NOW.getTime());
  for (const ip of created.ip_whitelist ?? []) expect(['127.0.0.1', '::1']).toContain(ip);
});

test('public_key is a well-formed OpenSSH ed25519 key, deterministic per seed and run', () => {
  const a = sshEd25519PublicKey(context(5).faker);
  const b = sshEd25519PublicKey(context(5).faker);
  expect(a).toBe(b);
  expect(parseSshEd25519(a)?.length).toBe(32);
  expect(parseSshEd25519('ssh-ed25519 AAAA')).toBeNull();
  expect(parseSshEd25519('not a key')).toBeNull();
  const run1 = sshEd25519PublicKey(context(5).faker, 'cloudcheck', 'run-1');
  expect(sshEd25519PublicKey(context(5).faker, 'cloudcheck', 'run-1')).toBe(run1);
  expect(parseSshEd25519(run1)?.length).toBe(32);
  expect(sshEd25519PublicKey(context(5).faker, 'cloudcheck', 'run-2')).not.toBe(run1);
});

test('values the target keeps unique and cannot delete differ per run; everything else depends on the seed alone', async () => {
  const model = await loadContractModel();
  const bodyOf = (key: string, ctx: DataContext) =>
    generateValue(model.operations.find((o) => o.key === key)!.requestBody!.content[0]!.schema!, ctx) as Record<
      string,
      unknown
    >;
  // A second run against the same account (same seed, another run id) must not repeat these:
  // "key already added", or re-registering the earlier run's sender id.
  for (const [key, field] of [
    ['POST /ssh-keys', 'public_key'],
    ['POST /messaging/sender-ids', 'sender_id'],
  ] as const) {
    const first = bodyOf(key, context(9, 'run-1'));
    const again = bodyOf(key, context(9, 'run-1'));
    const second = bodyOf(key, context(9, 'run-2'));
    expect(again, `${key}: same seed and run, same body`).toEqual(first);
    expect(second[field], `${key}: ${field} of another run`).not.toEqual(first[field]);
    expect({ ...second, [field]: null, name: null }, `${key}: the rest of the body is the seed's`).toEqual({
      ...first,
      [field]: null,
      name: null,
    });
    expect(
      validateAgainst(model.operations.find((o) => o.key === key)!.requestBody!.content[0]!.schema!, second),
    ).toEqual([]);
  }
  expect(senderId(context(9, 'run-1').faker, 'run-1')).toMatch(/^CC[A-Z0-9]{6}$/);
  // The run id changes nothing else: every other body is the same for both runs.
  const bodies = await jsonBodies();
  const strip = (v: unknown) =>
    JSON.stringify(v)
      .replace(/ssh-ed25519 [A-Za-z0-9+/=]+/g, 'KEY')
      .replace(/"CC[A-Z0-9]{6}"/g, '"SENDER"');
  const run = (unique: string) => {
    const ctx = context(4, unique);
    return bodies.map((b) => strip(generateValue(b.schema, ctx)));
  };
  expect(run('run-2')).toEqual(run('run-1'));
});

test('negative cases violate their schema (each one makes a valid body invalid)', async () => {
  const bodies = await jsonBodies();
  for (const { key, schema } of bodies) {
    const valid = generateValue(schema, context(1)) as Record<string, unknown>;
    for (const c of bodyCases(schema)) {
      if (c.kind === 'format') continue; // ajv checks formats, but a format may be lenient (uri)
      const { body } = c.apply(valid, {});
      expect(
        validateAgainst(schema, body).length,
        `${key}: ${c.describe} still validates: ${JSON.stringify(body)}`,
      ).toBeGreaterThan(0);
    }
  }
});
