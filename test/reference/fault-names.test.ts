/**
 * Fault names are a closed, typed set: every catalogue adds its names to `FaultName`
 * (reference/core/faults.ts), so `faults.has('a-misspelt-fault')` does not compile. The
 * `@ts-expect-error` lines below are checked by `npm run typecheck`: if FaultName ever widened to
 * `string`, the directive would be unused and the typecheck would fail.
 */
import { expect, test } from '../base.ts';
import type { FaultName } from '../../reference/core/faults.ts';
import { ActiveFaults } from '../../reference/core/faults.ts';
import { listFaults } from '../../reference/server.ts';

test('a misspelt fault name is a type error, and every listed fault is a FaultName', () => {
  // @ts-expect-error a name no catalogue declares
  const typo: FaultName = 'vps-boot-nevr';
  const faults = new ActiveFaults(['s3-part-number-ignored'], listFaults());
  expect(faults.has('s3-part-number-ignored')).toBe(true);
  expect(faults.has(typo)).toBe(false);
  // @ts-expect-error has() takes FaultName only
  expect(faults.has('not-a-fault')).toBe(false);
  // At run time the list is the same set the names come from (unknown names are refused).
  expect(() => new ActiveFaults([typo], listFaults())).toThrow('unknown fault "vps-boot-nevr"');
  const names: FaultName[] = listFaults().map((f) => f.name as FaultName);
  expect(new Set(names).size).toBe(names.length);
});
