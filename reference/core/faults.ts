/**
 * Deliberate non-conformances, switched on with `--fault NAME`. Each one breaks exactly one MUST
 * requirement so the suite can prove it notices. Areas declare their own faults next to the code
 * they bend; the server collects the lists and rejects unknown names.
 */
export interface FaultDefinition {
  name: string;
  /** The requirement id (spec/requirements.yaml) the fault breaks. */
  requirement: string;
  description: string;
}

/**
 * Every fault name of the server. Each catalogue adds its own by declaration merging
 * (`declare module '…/core/faults.ts' { interface FaultNames extends Record<Name, true> {} }`
 * beside the list), so the core knows the names without importing the areas, and
 * `faults.has('a-misspelt-fault')` fails to compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- empty here: the catalogues' augmentations fill it
export interface FaultNames {}
export type FaultName = keyof FaultNames;

export class ActiveFaults {
  private readonly active: ReadonlySet<string>;

  constructor(requested: readonly string[], known: readonly FaultDefinition[]) {
    const names = new Set(known.map((fault) => fault.name));
    const unknown = requested.filter((name) => !names.has(name));
    if (unknown.length > 0) {
      throw new Error(`unknown fault ${unknown.map((n) => `"${n}"`).join(', ')}; list them with: cloudcheck serve --list-faults`);
    }
    this.active = new Set(requested);
  }

  has(name: FaultName): boolean {
    return this.active.has(name);
  }

  get names(): string[] {
    return [...this.active];
  }
}
