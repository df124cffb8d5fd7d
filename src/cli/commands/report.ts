/** `cloudcheck report merge|diff`: placeholders until the report tooling lands. */
import { UsageError } from '../../config/resolve.ts';
import { err, out } from '../output.ts';

export async function reportCommand(argv: string[]): Promise<number> {
  const [sub] = argv;
  if (sub === '--help' || sub === '-h') {
    out('usage: cloudcheck report merge REPORT... | cloudcheck report diff OLD NEW');
    return 0;
  }
  if (sub !== 'merge' && sub !== 'diff') throw new UsageError(`report: expected "merge" or "diff", got ${sub ? `"${sub}"` : 'nothing'}`);
  err(`cloudcheck report ${sub}: not implemented yet`);
  return 2;
}
