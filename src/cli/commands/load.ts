/**
 * `cloudcheck load`: delegates to the load runner (load/), which owns its options. Looked up by
 * its exported `runLoadCommand(argv)` so the two parts can evolve apart.
 */
import { existsSync } from 'node:fs';
import { err } from '../output.ts';

const CANDIDATES = ['../../../load/command.ts', '../../../load/cli.ts', '../../../load/index.ts', '../../../load/run.ts', '../../load/command.ts', '../../load/index.ts'];

export async function loadCommand(argv: string[]): Promise<number> {
  for (const candidate of CANDIDATES) {
    const url = new URL(candidate, import.meta.url);
    if (!existsSync(url)) continue;
    const mod = (await import(url.href)) as { runLoadCommand?: (argv: string[]) => Promise<number> };
    if (typeof mod.runLoadCommand === 'function') return mod.runLoadCommand(argv);
  }
  err('cloudcheck load: not available yet (no runLoadCommand in load/)');
  return 2;
}
