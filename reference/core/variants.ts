/**
 * Legal variants, the twins of faults: each one makes another choice that the specification
 * allows where it says "not shown" (another success status, 403 for a bad key, unwrapped bodies,
 * slow provisioning...). Switched on with `cloudcheck serve --variant NAME[=MS]`. The suite must
 * pass every variant without `--strict` and, with `--strict`, fail exactly the SHOULD
 * requirements the variant declares in `departsFrom`: the reference server is a test double, never
 * the definition of the API. Areas declare their variants next to the code they bend, like faults.
 */
export interface VariantDefinition {
  name: string;
  /** SHOULD requirement ids (spec/requirements.yaml) whose convention this choice departs from. Never a MUST. */
  departsFrom: readonly string[];
  /** The specification's section and its "not shown" line that leaves the choice open. */
  allowedBy: string;
  description: string;
  /** Timing variants take `NAME=MS`; this is MS when none is given. */
  defaultMs?: number;
}

export class ActiveVariants {
  private readonly active = new Map<string, number>();

  /** `requested` entries are `NAME` or `NAME=MS`; unknown names and bad durations throw. */
  constructor(requested: readonly string[], known: readonly VariantDefinition[]) {
    const byName = new Map(known.map((variant) => [variant.name, variant]));
    for (const entry of requested) {
      const [name = '', value] = entry.split('=', 2);
      const definition = byName.get(name.trim());
      if (!definition) throw new Error(`unknown variant "${name}"; list them with: cloudcheck serve --list-variants`);
      if (value !== undefined && definition.defaultMs === undefined)
        throw new Error(`variant ${name} takes no value (got "${entry}")`);
      const ms = value === undefined ? (definition.defaultMs ?? 0) : Number(value);
      if (!Number.isFinite(ms) || ms < 0)
        throw new Error(`variant ${name}: "${value}" is not a duration in milliseconds`);
      this.active.set(definition.name, ms);
    }
  }

  has(name: string): boolean {
    return this.active.has(name);
  }

  /** The duration of a timing variant, or `fallback` when it is off. */
  ms(name: string, fallback: number): number {
    return this.active.get(name) ?? fallback;
  }

  get names(): string[] {
    return [...this.active.keys()];
  }

  get size(): number {
    return this.active.size;
  }
}
