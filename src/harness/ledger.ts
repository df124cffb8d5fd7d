/**
 * The ledger: every resource the run creates, recorded the moment it is created, deleted in
 * reverse dependency order at the end of its check (or flow, or worker), also after failures.
 * What cannot be deleted is reported as a leak. The ledger never deletes anything it was not
 * told about, so the suite never touches resources it did not create.
 *
 * A check that has to change something it did not create (the account's own fields) records a
 * *restore* first (`restore()`): a request that puts the original values back, run at teardown
 * like a delete (before the deletes), also after failures and, from the journal, after a Ctrl-C.
 * A restore that fails is reported as a leak too: a change left behind.
 *
 * Each entry is also appended to a journal file (one per worker, in the run's temp dir) so that
 * `cloudcheck run` can clean up after a Ctrl-C that killed workers before their teardown, and
 * the reporter can merge leaks into report.json.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Leak } from '../model/report.ts';
import type { ApiClient, ApiResponse } from './client.ts';
import { listOf } from './body-shape.ts';
import { NetworkError } from './errors.ts';

export interface KindInfo {
  /** Higher rank is deleted first (objects before their bucket, volumes before the VPS). */
  rank: number;
  /** Delete request path for an id; null when the API has no way to delete this kind. */
  deletePath: ((id: string) => string) | null;
  /** `METHOD /path` as the specification writes it, for the report. */
  deleteOperation: string | null;
}

const enc = encodeURIComponent;
/** Object ids are `<bucket>/<key>`; the key may itself contain `/`. */
function objectPath(id: string): string {
  const slash = id.indexOf('/');
  const bucket = id.slice(0, slash);
  const key = id.slice(slash + 1);
  return `/storage/buckets/${enc(bucket)}/objects/${key.split('/').map(enc).join('/')}`;
}

/** Every kind of resource the suite creates. Kinds without a delete operation are tracked but never leak. */
export const KINDS: Record<string, KindInfo> = {
  object: {
    rank: 100,
    deletePath: objectPath,
    deleteOperation: 'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
  },
  snapshot: {
    rank: 90,
    deletePath: (id) => `/snapshots/${enc(id)}`,
    deleteOperation: 'DELETE /snapshots/{snapshot_id}',
  },
  volume: {
    rank: 80,
    deletePath: (id) => `/storage/volumes/${enc(id)}`,
    deleteOperation: 'DELETE /storage/volumes/{volume_id}',
  },
  vps: { rank: 70, deletePath: (id) => `/vps/${enc(id)}`, deleteOperation: 'DELETE /vps/{vps_id}' },
  bucket: {
    rank: 60,
    deletePath: (id) => `/storage/buckets/${enc(id)}`,
    deleteOperation: 'DELETE /storage/buckets/{bucket_name}',
  },
  'payment-method': {
    rank: 50,
    deletePath: (id) => `/account/payment-methods/${enc(id)}`,
    deleteOperation: 'DELETE /account/payment-methods/{payment_method_id}',
  },
  project: { rank: 40, deletePath: (id) => `/projects/${enc(id)}`, deleteOperation: 'DELETE /projects/{project_id}' },
  'api-key': {
    rank: 10,
    deletePath: (id) => `/account/api-keys/${enc(id)}`,
    deleteOperation: 'DELETE /account/api-keys/{key_id}',
  },
  // The specification has no delete operation for these; they are named with the run prefix so
  // people can recognise them.
  'ssh-key': { rank: 30, deletePath: null, deleteOperation: null },
  'volume-snapshot': { rank: 85, deletePath: null, deleteOperation: null },
  'access-key': { rank: 20, deletePath: null, deleteOperation: null },
  template: { rank: 0, deletePath: null, deleteOperation: null },
  'contact-list': { rank: 0, deletePath: null, deleteOperation: null },
  'opt-out': { rank: 0, deletePath: null, deleteOperation: null },
  webhook: { rank: 0, deletePath: null, deleteOperation: null },
  'sender-id': { rank: 0, deletePath: null, deleteOperation: null },
  alert: { rank: 0, deletePath: null, deleteOperation: null },
  message: { rank: 0, deletePath: null, deleteOperation: null },
  campaign: { rank: 0, deletePath: null, deleteOperation: null },
};

/**
 * Deletes the objects a listing of the run's own bucket still shows (a few pages at most);
 * whether it deleted any. Teardown only: what a target does with its objects is judged by checks.
 */
async function emptyBucket(client: ApiClient, entry: LedgerEntry): Promise<boolean> {
  let deleted = 0;
  for (let page = 0; page < 5; page++) {
    const res = await client.request({ method: 'GET', path: `${entry.deletePath}/objects`, account: entry.account });
    const keys = (listOf<{ key?: unknown }>(res.body, 'objects') ?? [])
      .map((o) => o.key)
      .filter((k): k is string => typeof k === 'string');
    if (res.status !== 200 || keys.length === 0) break;
    for (const key of keys) {
      const gone = await client.request({
        method: 'DELETE',
        path: objectPath(`${entry.id}/${key}`),
        account: entry.account,
      });
      if (gone.status >= 200 && gone.status < 300) deleted++;
    }
  }
  return deleted > 0;
}

/** A request that undoes a change (restore entries); JSON only, so it can go in the journal. */
export interface RestoreRequest {
  method: string;
  path: string;
  json?: unknown;
}

/** Kind of restore entries; their id is the label given to `restore()`. */
export const RESTORE_KIND = 'restore';
/** Restores run before every delete: the changed thing may be needed to delete the rest. */
const RESTORE_RANK = 1000;

export interface LedgerEntry {
  kind: string;
  id: string;
  /** Restore entries: the request that puts the original values back (instead of a delete). */
  restore?: RestoreRequest;
  /** Whose resource it is: deleted with a key of that account. */
  account: 'main' | 'alt';
  deletePath: string | null;
  deleteOperation: string | null;
  rank: number;
  seq: number;
  /** Set once deleted (by the check itself or by teardown). */
  gone?: boolean;
}

export interface TrackOptions {
  account?: 'main' | 'alt';
  /** Override the kind's delete path (a resource only reachable some other way). */
  deletePath?: string | null;
  deleteOperation?: string | null;
  /** Override the kind's rank. */
  rank?: number;
}

let globalSeq = 0;

export class Ledger {
  private readonly entries: LedgerEntry[] = [];
  readonly leaks: Leak[] = [];
  private readonly journal: string | null;

  /** Resources `--keep` left in place at teardown (deletable, not deleted). */
  readonly kept: Leak[] = [];

  /**
   * `journalDir`: where to append the journal; null keeps it in memory only (unit tests).
   * `keep` (`cloudcheck run --keep`): teardown deletes nothing, so the curl lines of a report can
   * be replayed; it still restores what the run changed, and journals what it kept.
   */
  constructor(
    readonly scope: string,
    journalDir: string | null = null,
    private readonly options: { keep?: boolean } = {},
  ) {
    this.journal = journalDir ? join(journalDir, `ledger-${process.pid}.jsonl`) : null;
    if (journalDir) mkdirSync(journalDir, { recursive: true });
  }

  /**
   * Records a resource the moment it exists. Call it right after the creating response. Returns the
   * id. Recording the same resource twice (an explicit call and the contract layer's automatic one)
   * keeps one entry.
   */
  track(kind: string, id: string, options: TrackOptions = {}): string {
    if (this.entries.some((e) => e.kind === kind && e.id === id && !e.gone)) return id;
    const info = KINDS[kind] ?? { rank: 50, deletePath: null, deleteOperation: null };
    const entry: LedgerEntry = {
      kind,
      id,
      account: options.account ?? 'main',
      deletePath: options.deletePath !== undefined ? options.deletePath : info.deletePath ? info.deletePath(id) : null,
      deleteOperation: options.deleteOperation !== undefined ? options.deleteOperation : info.deleteOperation,
      rank: options.rank ?? info.rank,
      seq: ++globalSeq,
    };
    this.entries.push(entry);
    this.write({
      event: 'created',
      scope: this.scope,
      kind,
      id,
      account: entry.account,
      deletePath: entry.deletePath,
      deleteOperation: entry.deleteOperation,
      rank: entry.rank,
    });
    return id;
  }

  /**
   * Records how to undo a change to something the run did not create, BEFORE making the change:
   * `request` (e.g. `PUT /account` with the original values) runs at teardown, first. Per label
   * only the first restore counts (it holds the values from before the first change).
   */
  restore(label: string, request: RestoreRequest, options: { account?: 'main' | 'alt' } = {}): void {
    if (this.entries.some((e) => e.kind === RESTORE_KIND && e.id === label && !e.gone)) return;
    const entry: LedgerEntry = {
      kind: RESTORE_KIND,
      id: label,
      restore: request,
      account: options.account ?? 'main',
      deletePath: null,
      deleteOperation: `${request.method} ${request.path}`,
      rank: RESTORE_RANK,
      seq: ++globalSeq,
    };
    this.entries.push(entry);
    this.write({
      event: 'created',
      scope: this.scope,
      kind: entry.kind,
      id: label,
      account: entry.account,
      restore: request,
      deletePath: null,
      deleteOperation: entry.deleteOperation,
      rank: entry.rank,
    });
  }

  /**
   * Something was created whose id the run cannot know (the creating response did not hold it):
   * nobody can delete it, so it is a leak from the start, reported rather than lost.
   */
  untrackable(kind: string, reason: string): void {
    const info = KINDS[kind];
    if (info && !info.deletePath) return; // kinds the API cannot delete never leak (see KINDS)
    const leak: Leak = { kind, id: `unknown-${++globalSeq}`, delete_operation: info?.deleteOperation ?? null, reason };
    this.leaks.push(leak);
    this.write({ event: 'leaked', scope: this.scope, ...leak });
  }

  /** The check deleted it itself (e.g. a DELETE check): teardown must not try again. */
  deleted(kind: string, id: string): void {
    for (const entry of this.entries) if (entry.kind === kind && entry.id === id) entry.gone = true;
    this.write({ event: 'deleted', scope: this.scope, kind, id });
  }

  /** Entries still alive, in the order teardown deletes them. */
  pending(): LedgerEntry[] {
    return teardownOrder(this.entries.filter((e) => !e.gone));
  }

  /**
   * Deletes everything still alive, in order. A failure does not stop the rest. A 404 means it is
   * already gone. A volume in use is detached first. Returns the leaks of this teardown.
   * `inFlight`: entries of one rank (which do not depend on each other) deleted that many at once.
   */
  async teardown(
    clientFor: (account: 'main' | 'alt') => ApiClient | null,
    options: { inFlight?: number } = {},
  ): Promise<Leak[]> {
    const leaks: Leak[] = [];
    const pending = this.pending();
    const inFlight = Math.max(1, options.inFlight ?? 1);
    for (let start = 0; start < pending.length; ) {
      let end = start;
      while (end < pending.length && pending[end]!.rank === pending[start]!.rank) end++;
      const group = pending.slice(start, end);
      const worker = async (): Promise<void> => {
        for (let entry = group.shift(); entry; entry = group.shift()) await this.tearDown(entry, clientFor, leaks);
      };
      await Promise.all(Array.from({ length: Math.min(inFlight, group.length) }, worker));
      start = end;
    }
    for (const leak of leaks) {
      const entry = this.entries.find((e) => e.kind === leak.kind && e.id === leak.id);
      if (entry) entry.gone = true; // reported once, not retried by an outer ledger
      this.write({ event: 'leaked', scope: this.scope, ...leak });
    }
    this.leaks.push(...leaks);
    return leaks;
  }

  /** Deletes (or restores, or keeps) one entry; what cannot be deleted goes into `leaks`. */
  private async tearDown(
    entry: LedgerEntry,
    clientFor: (account: 'main' | 'alt') => ApiClient | null,
    leaks: Leak[],
  ): Promise<void> {
    if (entry.restore) {
      await this.runRestore(entry, clientFor, leaks);
      return;
    }
    if (!entry.deletePath) {
      entry.gone = true;
      return;
    }
    if (this.options.keep) {
      entry.gone = true;
      const kept = {
        kind: entry.kind,
        id: entry.id,
        delete_operation: entry.deleteOperation,
        reason: 'kept (--keep)',
      };
      this.kept.push(kept);
      this.write({ event: 'kept', scope: this.scope, ...kept });
      return;
    }
    const client = clientFor(entry.account);
    if (!client) {
      leaks.push(leakOf(entry, `no client for the ${entry.account} account at teardown`));
      return;
    }
    try {
      const remove = (): Promise<ApiResponse> =>
        resendUnanswered(() => client.request({ method: 'DELETE', path: entry.deletePath!, account: entry.account }));
      let res = await remove();
      if (res.status === 409 && entry.kind === 'volume') {
        await client.request({ method: 'POST', path: `${entry.deletePath}/detach`, account: entry.account });
        res = await remove();
      }
      // A bucket the run created still holds an object its check could not track (a target that
      // stored it under another key): the bucket's content is the run's, so it goes first.
      if (res.status === 409 && entry.kind === 'bucket' && (await emptyBucket(client, entry))) res = await remove();
      if ((res.status >= 200 && res.status < 300) || res.status === 404 || res.status === 410) {
        entry.gone = true;
        this.write({ event: 'deleted', scope: this.scope, kind: entry.kind, id: entry.id });
      } else {
        leaks.push(leakOf(entry, `${entry.deleteOperation ?? 'DELETE'} answered ${res.status}`));
      }
    } catch (error) {
      leaks.push(leakOf(entry, error instanceof Error ? error.message : String(error)));
    }
  }

  private async runRestore(
    entry: LedgerEntry,
    clientFor: (account: 'main' | 'alt') => ApiClient | null,
    leaks: Leak[],
  ): Promise<void> {
    const client = clientFor(entry.account);
    const request = entry.restore!;
    if (!client) {
      leaks.push(leakOf(entry, `not restored: no client for the ${entry.account} account at teardown`));
      return;
    }
    try {
      const res = await resendUnanswered(() =>
        client.request({
          method: request.method,
          path: request.path,
          account: entry.account,
          ...(request.json !== undefined ? { json: request.json } : {}),
        }),
      );
      if (res.status >= 200 && res.status < 300) {
        entry.gone = true;
        this.write({ event: 'deleted', scope: this.scope, kind: entry.kind, id: entry.id });
      } else {
        leaks.push(leakOf(entry, `not restored: ${request.method} ${request.path} answered ${res.status}`));
      }
    } catch (error) {
      leaks.push(leakOf(entry, `not restored: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  private write(record: Record<string, unknown>): void {
    if (!this.journal) return;
    try {
      appendFileSync(this.journal, `${JSON.stringify({ ...record, at: new Date().toISOString() })}\n`);
    } catch {
      // The journal is a safety net; a full disk must not fail the check.
    }
  }
}

/**
 * A clean-up request that got no answer (a connection the network dropped) is sent again, twice at
 * most: a DELETE, and a restore that puts fixed values back, are idempotent, and one lost request
 * would otherwise leave the resource behind.
 */
async function resendUnanswered(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= 3 || !(error instanceof NetworkError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}

/** Reverse dependency order: higher rank first, then newest first. */
export function teardownOrder<T extends { rank: number; seq: number }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => b.rank - a.rank || b.seq - a.seq);
}

function leakOf(entry: LedgerEntry, reason: string): Leak {
  return { kind: entry.kind, id: entry.id, delete_operation: entry.deleteOperation, reason };
}

/**
 * The records of several journals in the order they happened: a resource can pass from one
 * process's ledger to another's (a provision the runner made and a worker's check took,
 * provision.ts), whose journals are read one after the other.
 */
function inTimeOrder(lines: readonly string[]): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch {
      // A line cut by a crash: the rest of the journal still counts.
    }
  }
  const time = (r: JournalRecord): number => Date.parse(r.at ?? '') || 0;
  return records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => time(a.r) - time(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

export interface JournalRecord {
  /** When it was written (ISO); records of several journals are folded in this order. */
  at?: string;
  event: 'created' | 'deleted' | 'leaked' | 'kept';
  scope: string;
  kind: string;
  id: string;
  account?: 'main' | 'alt';
  restore?: RestoreRequest;
  deletePath?: string | null;
  deleteOperation?: string | null;
  rank?: number;
  reason?: string;
  delete_operation?: string | null;
}

/**
 * Folds journal lines into what is still alive and what leaked. Used by `cloudcheck run` after the
 * workers ended (Ctrl-C, crash) and by the reporter.
 */
export function foldJournal(lines: string[]): { alive: LedgerEntry[]; leaks: Leak[]; kept: Leak[] } {
  const alive = new Map<string, LedgerEntry>();
  const leaks = new Map<string, Leak>();
  const kept = new Map<string, Leak>();
  let seq = 0;
  for (const rec of inTimeOrder(lines)) {
    const k = `${rec.kind}\u0000${rec.id}`;
    if (rec.event === 'created') {
      alive.set(k, {
        kind: rec.kind,
        id: rec.id,
        account: rec.account ?? 'main',
        ...(rec.restore ? { restore: rec.restore } : {}),
        deletePath: rec.deletePath ?? null,
        deleteOperation: rec.deleteOperation ?? null,
        rank: rec.rank ?? 50,
        seq: ++seq,
      });
      leaks.delete(k);
    } else if (rec.event === 'deleted') {
      alive.delete(k);
      leaks.delete(k);
    } else if (rec.event === 'kept') {
      alive.delete(k);
      kept.set(k, {
        kind: rec.kind,
        id: rec.id,
        delete_operation: rec.delete_operation ?? null,
        reason: rec.reason ?? 'kept (--keep)',
      });
    } else if (rec.event === 'leaked') {
      alive.delete(k);
      leaks.set(k, {
        kind: rec.kind,
        id: rec.id,
        delete_operation: rec.delete_operation ?? null,
        reason: rec.reason ?? 'not deleted',
      });
    }
  }
  return {
    alive: teardownOrder([...alive.values()].filter((e) => e.deletePath || e.restore)),
    leaks: [...leaks.values()],
    kept: [...kept.values()],
  };
}

/** Labels of `originalOnce` values shared by several checks (the contract checks and the flows). */
export const ORIGINAL = { account: 'account' } as const;

/**
 * The value of `label` as it was before the run changed it, shared by every worker of the run:
 * the first caller reads it (`read`) and stores it in the run's temp dir, later callers (other
 * checks, other workers) get the stored value. So a check that changes the account after another
 * check changed it (and has not restored it yet) still restores the user's values, not the other
 * check's. Every caller must call this before its own change. `dir` null (unit tests): `read()`.
 */
export async function originalOnce<T>(dir: string | null, label: string, read: () => Promise<T>): Promise<T> {
  if (!dir) return read();
  const file = join(dir, `original-${label.replace(/[^a-z0-9-]/gi, '_')}.json`);
  const stored = (): T | undefined => {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as { value: T }).value;
    } catch {
      return undefined;
    }
  };
  const known = stored();
  if (known !== undefined) return known;
  const value = await read();
  try {
    mkdirSync(dir, { recursive: true });
    // 'wx': only the first reader's value is kept (it was read before anyone's change).
    writeFileSync(file, JSON.stringify({ value }), { flag: 'wx' });
    return value;
  } catch {
    return stored() ?? value;
  }
}
