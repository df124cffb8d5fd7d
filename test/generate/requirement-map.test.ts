/**
 * The requirement map of the generated checks: every id exists in spec/requirements.yaml, is not
 * retired, and has the level of the check that uses it; every operation has its positive and
 * status requirements; every path parameter has a producer in the document's links.
 */
import { expect, test } from '../base.ts';
import { requirementById } from '../../spec/requirements.ts';
import { loadContractModel } from '../../src/generate/model.ts';
import { producerOf } from '../../src/generate/prerequisites.ts';
import { POSITIVE_MUST, negativeTarget, statusRequirement, tableEntries } from '../../src/generate/requirement-map.ts';
import { pathParams } from '../../src/generate/requests.ts';

test('every id of the table exists, is in force and has the level of its check', () => {
  const problems: string[] = [];
  for (const entry of tableEntries()) {
    const req = requirementById(entry.id);
    if (!req) problems.push(`${entry.where}: ${entry.id} is not in the catalogue`);
    else if (req.retired) problems.push(`${entry.where}: ${entry.id} is retired`);
    else if (req.level !== entry.level)
      problems.push(`${entry.where}: ${entry.id} is ${req.level}, the check is ${entry.level}`);
  }
  expect(problems).toEqual([]);
});

test('every operation (and variant) has a positive MUST and a status SHOULD requirement', async () => {
  const model = await loadContractModel();
  for (const op of model.operations) {
    const keys = op.variants.length
      ? op.variants.map((v) => (v.name === 'upload' ? op.key : `${op.key} ${v.name}`))
      : [op.key];
    for (const key of keys) expect(POSITIVE_MUST[key], key).toBeDefined();
    expect(statusRequirement(op.key), op.key).toBeDefined();
  }
});

test('constraints marked x-assumed never get a MUST negative check', () => {
  expect(negativeTarget('POST /account/api-keys', 'permissions', 'enum', { assumed: true }).must).toBeUndefined();
  expect(negativeTarget('GET /vps', 'per_page', 'maximum', { query: true }).must).toBeUndefined();
  expect(negativeTarget('POST /storage/volumes', 'size', 'maximum').must).toBeUndefined();
  expect(negativeTarget('POST /sms/send', 'message', 'maxLength').must).toEqual({
    id: 'MSG-SEND-004',
    code: 'message_too_long',
  });
  expect(negativeTarget('POST /vps', 'name', 'missing').must?.id).toBe('VPS-CRT-001');
  expect(negativeTarget('POST /ssh-keys', 'name', 'type').must?.id).toBe('ERR-CODE-007');
});

test('every path parameter is produced by an operation the document links from', async () => {
  const model = await loadContractModel();
  const missing: string[] = [];
  for (const op of model.operations) {
    for (const name of pathParams(op)) {
      // snapshot ids come from the VPS snapshot action (listed by GET /snapshots, which links).
      if (!producerOf(model, op.operationId, name)) missing.push(`${op.key} {${name}}`);
    }
  }
  expect(missing).toEqual([]);
});
