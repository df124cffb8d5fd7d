/**
 * The kinds of generated contract checks, registered as data (as Schemathesis registers its
 * checks): each kind says which operations it applies to and declares its checks for one of
 * them. `defineContractChecks` (../contract.ts) walks the operations of an area and, for each,
 * the registered kinds in their order.
 */
import type { ConformanceClass } from '../../../spec/classes.ts';
import type { ContractModel, ContractOperation } from '../model.ts';

/** Where a kind declares the checks of one operation. */
export interface KindSite {
  model: ContractModel;
  cls: ConformanceClass;
  /** `contract.<operationId>`: the kind's check ids start with it. */
  idBase: string;
}

export interface ContractCheckKind {
  /** The kind's name, the id segment of its MUST check (`contract.<operationId>.<kind>`); unique. */
  readonly kind: string;
  /** Whether an operation gets checks of this kind. */
  appliesTo(op: ContractOperation, model: ContractModel): boolean;
  /** Declares the kind's checks of one operation (its MUST checks and their SHOULD companions). */
  define(op: ContractOperation, site: KindSite): void;
}

/** The kinds in declaration order; a kind registered twice is a mistake that would declare its checks twice. */
export function registry(kinds: readonly ContractCheckKind[]): readonly ContractCheckKind[] {
  const seen = new Set<string>();
  for (const k of kinds) {
    if (seen.has(k.kind)) throw new Error(`contract check kind "${k.kind}" is registered twice`);
    seen.add(k.kind);
  }
  return Object.freeze([...kinds]);
}
