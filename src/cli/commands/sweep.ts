/**
 * `cloudcheck sweep`: removes leftovers of earlier runs from a target, by their name prefix `cc-`
 * and only those (every resource a run creates is named `cc-<runid>-...`). Buckets are emptied
 * first, and only `cc-` buckets are touched. Kinds the API cannot delete (templates, contact lists,
 * sender ids, ...) are skipped. Exit 0 when everything found could be deleted, 1 otherwise.
 */
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import { Budget } from '../../harness/budget.ts';
import { ApiClient } from '../../harness/client.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { addSecret } from '../../harness/redact.ts';
import { err, out } from '../output.ts';
import { probeTarget } from '../probe.ts';

const SYNOPSIS = 'cloudcheck sweep [--target URL] [--api-key KEY] [--config FILE]';
export const RUN_PREFIX = 'cc-';

type Item = Record<string, unknown>;

function listOf(res: ApiResponse, field: string): Item[] {
  const body = res.body as Record<string, unknown> | undefined;
  const list = body?.[field];
  return Array.isArray(list) ? (list.filter((x) => x && typeof x === 'object') as Item[]) : [];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const enc = encodeURIComponent;

export interface SweepResult {
  deleted: string[];
  failed: string[];
  skipped: string[];
}

/** The sweep itself, separate from option handling so tests can call it with a client. */
export async function sweep(api: ApiClient, ownKey: string, log: (line: string) => void = () => undefined): Promise<SweepResult> {
  const result: SweepResult = { deleted: [], failed: [], skipped: [] };
  const del = async (label: string, path: string, before?: () => Promise<void>): Promise<void> => {
    try {
      await before?.();
      let res = await api.request({ method: 'DELETE', path });
      if (res.status === 409 && path.startsWith('/storage/volumes/')) {
        await api.request({ method: 'POST', path: `${path}/detach` });
        res = await api.request({ method: 'DELETE', path });
      }
      if ((res.status >= 200 && res.status < 300) || res.status === 404) {
        result.deleted.push(label);
        log(`deleted ${label}`);
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
          await del(`object ${name}/${key}`, `/storage/buckets/${enc(name)}/objects/${key.split('/').map(enc).join('/')}`);
        }
        const body = res.body as { is_truncated?: boolean; next_marker?: string | null } | undefined;
        if (!body?.is_truncated || !body.next_marker) break;
        marker = body.next_marker;
      }
    });
  }
  // VPS snapshots before their VPS; volumes (detached) before the VPS they hang on.
  for (const snap of listOf(await api.get('/snapshots'), 'snapshots').filter(ours)) await del(`snapshot ${str(snap.id)} (${str(snap.name)})`, `/snapshots/${enc(str(snap.id))}`);
  for (const volume of listOf(await api.get('/storage/volumes'), 'volumes').filter(ours)) await del(`volume ${str(volume.id)} (${str(volume.name)})`, `/storage/volumes/${enc(str(volume.id))}`);
  for (let page = 1; page <= 100; page++) {
    const res = await api.get('/vps', { query: { page, per_page: 100 } });
    const items = listOf(res, 'vps_instances');
    for (const vps of items.filter(ours)) await del(`vps ${str(vps.id)} (${str(vps.name)})`, `/vps/${enc(str(vps.id))}`);
    const meta = (res.body as { meta?: { pages?: number } } | undefined)?.meta;
    // Deleting shifts later pages forward; stop when this was the last page.
    if (!meta?.pages || page >= meta.pages || items.length === 0) break;
  }
  for (const project of listOf(await api.get('/projects'), 'projects').filter(ours)) await del(`project ${str(project.id)} (${str(project.name)})`, `/projects/${enc(str(project.id))}`);
  // The specification lists no DELETE for SSH keys; a target that has one gets it called.
  for (const key of listOf(await api.get('/ssh-keys'), 'ssh_keys').filter(ours)) await del(`ssh key ${str(key.id)} (${str(key.name)})`, `/ssh-keys/${enc(str(key.id))}`);
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
  const resolved = resolveOptions('sweep', argv);
  if (resolved.help) {
    out(helpText('sweep', SYNOPSIS));
    return 0;
  }
  const v = resolved.values;
  const target = (v.target as string | undefined)?.replace(/\/+$/, '');
  const key = v['api-key'] as string | undefined;
  if (!target) throw new UsageError('sweep needs --target (or CLOUDCHECK_TARGET): there is nothing to sweep on an embedded server');
  if (!key) throw new UsageError('sweep needs --api-key (or CLOUDCHECK_API_KEY)');
  addSecret(key);
  await probeTarget(target, key);
  const api = new ApiClient({
    settings: { target, keys: { main: key, alt: null }, liveSms: false, allowCharges: false, timeoutScale: 1 },
    budgets: { main: new Budget([key], { maxWaitMs: 60_000 }) },
  });
  const result = await sweep(api, key, out);
  const summary = `sweep: ${result.deleted.length} deleted, ${result.failed.length} failed, ${result.skipped.length} skipped`;
  if (result.failed.length) err(summary);
  else out(summary);
  return result.failed.length ? 1 : 0;
}
