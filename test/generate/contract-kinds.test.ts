/**
 * The generated contract checks' kinds are a registry (src/generate/checks/): each kind once, in
 * the order an operation declares them. Which success bodies the specification does not show is
 * read from the document's `x-body-not-shown` marks, and agrees with the reference server's own
 * list (kept apart on purpose: the server imports nothing of the suite).
 */
import { expect, test } from '../base.ts';
import { NOT_SHOWN } from '../../reference/core/response-variants.ts';
import { CONTRACT_CHECK_KINDS } from '../../src/generate/checks/index.ts';
import { registry } from '../../src/generate/checks/registry.ts';
import type { ContractCheckKind } from '../../src/generate/checks/registry.ts';
import { loadContractModel } from '../../src/generate/model.ts';

test('the kinds are registered once each, in declaration order; a kind registered twice is refused', () => {
  expect(CONTRACT_CHECK_KINDS.map((k) => k.kind)).toEqual([
    'positive',
    'auth',
    'unknown-id',
    'negative',
    'after-delete',
  ]);
  const twice: ContractCheckKind = { kind: 'auth', appliesTo: () => true, define: () => undefined };
  expect(() => registry([...CONTRACT_CHECK_KINDS, twice])).toThrow('contract check kind "auth" is registered twice');
});

test('each kind applies where its checks can be built', async () => {
  const model = await loadContractModel();
  const applies = (kind: string, key: string): boolean => {
    const op = model.operations.find((o) => o.key === key)!;
    return CONTRACT_CHECK_KINDS.find((k) => k.kind === kind)!.appliesTo(op, model);
  };
  expect(applies('after-delete', 'DELETE /vps/{vps_id}')).toBe(true);
  expect(applies('after-delete', 'GET /vps/{vps_id}')).toBe(false);
  expect(applies('unknown-id', 'GET /vps/{vps_id}')).toBe(true);
  expect(applies('unknown-id', 'GET /vps')).toBe(false);
  expect(applies('negative', 'POST /vps')).toBe(true);
  expect(applies('auth', 'GET /regions')).toBe(true);
});

test("the success bodies not shown come from the document's marks and agree with the reference server", async () => {
  const model = await loadContractModel();
  const marked = new Set<string>();
  for (const op of model.operations) {
    const json = op.responses.some((r) => /^2/.test(r.status) && r.content.some((c) => /json/.test(c.contentType)));
    if (!json) continue;
    if (op.bodyNotShown || op.variants.some((v) => v.bodyNotShown)) marked.add(op.key);
  }
  // The server's Fastify routes (`/v1/vps/:vps_id`, `/objects/*`) in the document's spelling.
  const server = new Set(
    [...NOT_SHOWN].map((route) =>
      route
        .replace(' /v1/', ' /')
        .replace(/:([a-z_]+)/g, '{$1}')
        .replace(/\*$/, '{object_key}'),
    ),
  );
  expect([...marked].sort()).toEqual([...server].sort());
  // Shown bodies stay shown: the list of VPS instances with `meta`, the created VPS, a sent message.
  for (const key of ['GET /vps', 'POST /vps', 'POST /sms/send'])
    expect(model.operations.find((o) => o.key === key)!.bodyNotShown, key).toBe(false);
  const upload = model.operations.find((o) => o.key === 'POST /storage/buckets/{bucket_name}/objects/{object_key}')!;
  expect(upload.variants.map((v) => [v.name, v.bodyNotShown])).toEqual([
    ['initiate', false],
    ['complete', true],
  ]);
});
