/**
 * Cleanup after workers that ended before their teardown (Ctrl-C, crash, timeout of the worker
 * teardown): the ledger journals in the run's temp dir still list what was created and not
 * deleted (and changes not yet restored). `cloudcheck run` calls this after Playwright exits; it
 * deletes (or restores) only those entries.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Leak } from '../model/report.ts';
import { Budget } from './budget.ts';
import type { Dispatcher } from 'undici';
import { ApiClient } from './client.ts';
import type { ClientSettings } from './client.ts';
import { Ledger, foldJournal } from './ledger.ts';

export function readJournalLines(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const lines: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('ledger-') && name.endsWith('.jsonl'))
      lines.push(...readFileSync(join(dir, name), 'utf8').split('\n'));
  }
  return lines;
}

export interface RecoverResult {
  deleted: number;
  leaks: Leak[];
}

/** `settings`: the run's target, keys and connection (a session's client settings); `dispatcher`: how to reach it. */
export async function recoverFromJournals(
  dir: string,
  settings: ClientSettings,
  dispatcher?: Dispatcher,
): Promise<RecoverResult> {
  const { alive, leaks } = foldJournal(readJournalLines(dir));
  if (alive.length === 0) return { deleted: 0, leaks };
  const client = new ApiClient({
    // Deleting what the run itself created (a payment method journalled by a run with
    // --allow-charges) is cleanup, not a charge; recovery sends nothing else.
    settings: { ...settings, liveSms: false, allowCharges: true },
    budgets: {
      main: new Budget([settings.keys.main], { maxWaitMs: 10_000 }),
      alt: settings.keys.alt ? new Budget([settings.keys.alt], { maxWaitMs: 10_000 }) : null,
    },
    ...(dispatcher ? { dispatcher } : {}),
  });
  // Writes its own journal records, so a second pass (or the reporter) sees what was deleted.
  const ledger = new Ledger('recover', dir);
  for (const entry of alive) {
    // Changes to the user's things (the account) are put back as well as deletes are done.
    if (entry.restore) ledger.restore(entry.id, entry.restore, { account: entry.account });
    else
      ledger.track(entry.kind, entry.id, {
        account: entry.account,
        deletePath: entry.deletePath,
        deleteOperation: entry.deleteOperation,
        rank: entry.rank,
      });
  }
  const newLeaks = await ledger.teardown((account) => (account === 'alt' && !settings.keys.alt ? null : client));
  return { deleted: alive.length - newLeaks.length, leaks: [...leaks, ...newLeaks] };
}
