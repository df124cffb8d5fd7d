/**
 * `cloudcheck sweep`: removes leftovers of earlier runs from a target, by their name prefix `cc-`
 * and only those (every resource a run creates is named `cc-<runid>-...`). Buckets are emptied
 * first, and only `cc-` buckets are touched. It reports what happened to each, truthfully:
 * deleted (the DELETE succeeded), already gone (404: someone else deleted it), failed, or not
 * deletable through the API (kinds the specification gives no DELETE: SSH keys, templates, contact
 * lists, volume snapshots, storage access keys, alerts): listed for a person to remove, never
 * counted as deleted. `--dry-run` lists what it would delete and deletes nothing. Exit 0 when
 * nothing failed, 1 otherwise.
 */
import { helpText, resolveOptions } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import { listOf as listIn } from '../../harness/body-shape.ts';
import type { ApiClient, ApiResponse } from '../../harness/client.ts';
import { openSession } from '../../harness/session.ts';
import { RUN_PREFIX } from '../../harness/settings.ts';
import { connectionOf } from '../connection.ts';
import { err, out, outText } from '../output.ts';

export const SWEEP_HELP: HelpSpec = {
  synopsis: 'cloudcheck sweep --target URL [options]',
  summary:
    'Deletes what earlier runs left on a target (names starting with cc-), and lists what the API cannot delete.',
  examples: [
    [
      'CLOUDCHECK_API_KEY=... cloudcheck sweep --target https://staging.example.net/v1',
      'remove the leftovers of earlier runs',
    ],
    [
      'CLOUDCHECK_API_KEY=... cloudcheck sweep --target https://staging.example.net/v1 --dry-run',
      'list what it would delete, delete nothing',
    ],
  ],
  exitCodes: [
    ['0', 'nothing failed to delete (--dry-run: the listing was read)'],
    ['1', 'some deletes failed (listed)'],
    ['2', 'usage error, unreachable target or rejected key'],
  ],
};

type Item = Record<string, unknown>;

/** The items of a list answer, however the target wraps it (a legal choice where bodies are not shown). */
function listOf(res: ApiResponse, field: string): Item[] {
  const list = listIn<unknown>(res.body, field) ?? [];
  return list.filter((x): x is Item => typeof x === 'object' && x !== null);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const enc = encodeURIComponent;

export interface SweepResult {
  deleted: string[];
  /** `--dry-run`: what a sweep would delete (its DELETE was not sent). */
  wouldDelete: string[];
  /** The DELETE answered 404: it was gone before this sweep got to it. */
  alreadyGone: string[];
  failed: string[];
  /** `cc-` resources of kinds the API cannot delete (no DELETE in the specification). */
  notDeletable: string[];
  skipped: string[];
}

/** Collections whose resources the specification gives no DELETE: listed, never "deleted". */
const NOT_DELETABLE: ReadonlyArray<{ kind: string; path: string; field: string }> = [
  { kind: 'ssh key', path: '/ssh-keys', field: 'ssh_keys' },
  { kind: 'template', path: '/messaging/templates', field: 'templates' },
  { kind: 'contact list', path: '/messaging/contacts/lists', field: 'lists' },
  { kind: 'volume snapshot', path: '/storage/snapshots', field: 'snapshots' },
  { kind: 'storage access key', path: '/storage/access-keys', field: 'access_keys' },
  { kind: 'alert', path: '/account/alerts', field: 'alerts' },
];

/** The sweep itself, separate from option handling so tests can call it with a client. */
export async function sweep(
  api: ApiClient,
  ownKey: string,
  log: (line: string) => void = () => undefined,
  options: { dryRun?: boolean } = {},
): Promise<SweepResult> {
  const result: SweepResult = {
    deleted: [],
    wouldDelete: [],
    alreadyGone: [],
    failed: [],
    notDeletable: [],
    skipped: [],
  };
  const del = async (label: string, path: string, before?: () => Promise<void>): Promise<void> => {
    try {
      await before?.();
      if (options.dryRun) {
        result.wouldDelete.push(label);
        log(`would delete ${label}`);
        return;
      }
      let res = await api.request({ method: 'DELETE', path });
      if (res.status === 409 && path.startsWith('/storage/volumes/')) {
        await api.request({ method: 'POST', path: `${path}/detach` });
        res = await api.request({ method: 'DELETE', path });
      }
      if (res.status >= 200 && res.status < 300) {
        result.deleted.push(label);
        log(`deleted ${label}`);
      } else if (res.status === 404) {
        result.alreadyGone.push(label);
        log(`already gone: ${label}`);
      } else if (res.status === 405) {
        result.skipped.push(label);
        log(`skipped ${label}: the target cannot delete it (405)`);
      } else {
        result.failed.push(label);
        log(`could not delete ${label}: ${res.status}`);
      }
    } catch (error) {
      result.failed.push(label);
      log(`could not delete ${label}: ${(error as Error).message}`);
    }
  };
  const ours = (item: Item): boolean => str(item.name).startsWith(RUN_PREFIX);

  // Buckets: objects first (only in cc- buckets), then the bucket.
  for (const bucket of listOf(await api.get('/storage/buckets'), 'buckets').filter(ours)) {
    const name = str(bucket.name);
    await del(`bucket ${name}`, `/storage/buckets/${enc(name)}`, async () => {
      for (let page = 0, marker: string | null = null; page < 1000; page++) {
        const res = await api.get(`/storage/buckets/${enc(name)}/objects`, { query: { max_keys: 1000, marker } });
        for (const object of listOf(res, 'objects')) {
          const key = str(object.key);
          await del(
            `object ${name}/${key}`,
            `/storage/buckets/${enc(name)}/objects/${key.split('/').map(enc).join('/')}`,
          );
        }
        const body = res.body as { is_truncated?: boolean; next_marker?: string | null } | undefined;
        if (!body?.is_truncated || !body.next_marker) break;
        marker = body.next_marker;
      }
    });
  }
  // VPS snapshots before their VPS; volumes (detached) before the VPS they hang on.
  for (const snap of listOf(await api.get('/snapshots'), 'snapshots').filter(ours))
    await del(`snapshot ${str(snap.id)} (${str(snap.name)})`, `/snapshots/${enc(str(snap.id))}`);
  for (const volume of listOf(await api.get('/storage/volumes'), 'volumes').filter(ours))
    await del(`volume ${str(volume.id)} (${str(volume.name)})`, `/storage/volumes/${enc(str(volume.id))}`);
  for (let page = 1; page <= 100; page++) {
    const res = await api.get('/vps', { query: { page, per_page: 100 } });
    const items = listOf(res, 'vps_instances');
    for (const vps of items.filter(ours))
      await del(`vps ${str(vps.id)} (${str(vps.name)})`, `/vps/${enc(str(vps.id))}`);
    const meta = (res.body as { meta?: { pages?: number } } | undefined)?.meta;
    // Deleting shifts later pages forward; stop when this was the last page.
    if (!meta?.pages || page >= meta.pages || items.length === 0) break;
  }
  for (const project of listOf(await api.get('/projects'), 'projects').filter(ours))
    await del(`project ${str(project.id)} (${str(project.name)})`, `/projects/${enc(str(project.id))}`);
  for (const { kind, path, field } of NOT_DELETABLE) {
    const res = await api.get(path);
    if (res.status < 200 || res.status >= 300) continue;
    for (const item of listOf(res, field).filter(ours)) {
      const label = `${kind} ${str(item.id)} (${str(item.name)})`;
      result.notDeletable.push(label);
      log(`not deletable through the API: ${label}`);
    }
  }
  // API keys last, and never the key this sweep is using.
  for (const key of listOf(await api.get('/account/api-keys'), 'api_keys').filter(ours)) {
    if (str(key.prefix) && ownKey.startsWith(str(key.prefix))) {
      result.skipped.push(`api key ${str(key.id)}`);
      log(`skipped api key ${str(key.id)} (${str(key.name)}): it is the key this sweep uses`);
      continue;
    }
    await del(`api key ${str(key.id)} (${str(key.name)})`, `/account/api-keys/${enc(str(key.id))}`);
  }
  return result;
}

export async function sweepCommand(argv: string[]): Promise<number> {
  const resolved = resolveOptions('sweep', argv, process.env, process.cwd());
  if (resolved.help) {
    outText(helpText('sweep', SWEEP_HELP));
    return 0;
  }
  const v = resolved.values;
  const session = await openSession({
    connection: connectionOf(v, process.env),
    command: 'cloudcheck sweep',
    embedded: null,
    targetRequired: 'sweep needs --target (or CLOUDCHECK_TARGET): there is nothing to sweep on an embedded server',
    env: process.env,
    log: err,
  });
  try {
    const dryRun = v['dry-run'] ?? false;
    const result = await sweep(session.client(), session.keys.main, out, { dryRun });
    const notDeletable = `${result.notDeletable.length} not deletable through the API (listed above: remove them another way)`;
    if (dryRun) {
      out(
        `sweep --dry-run: ${result.wouldDelete.length} would be deleted, ${notDeletable}, ${result.skipped.length} would be skipped; nothing was deleted`,
      );
      return 0;
    }
    const summary = `sweep: ${result.deleted.length} deleted, ${result.alreadyGone.length} already gone, ${result.failed.length} failed, ${notDeletable}, ${result.skipped.length} skipped`;
    if (result.failed.length) err(summary);
    else out(summary);
    return result.failed.length ? 1 : 0;
  } finally {
    await session.close();
  }
}
