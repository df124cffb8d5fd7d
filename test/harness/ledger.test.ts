import { expect, test } from '../base.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient, RequestOptions } from '../../src/harness/client.ts';
import { Ledger, foldJournal, originalOnce } from '../../src/harness/ledger.ts';

/** A stand-in for ApiClient that records the requests and answers per path. */
function fakeClient(answer: (opts: RequestOptions) => number = () => 204) {
  const calls: string[] = [];
  const client = {
    async request(opts: RequestOptions) {
      calls.push(`${opts.method} ${opts.path}`);
      return { status: answer(opts) };
    },
  } as unknown as ApiClient;
  return { client, calls };
}

test('teardown deletes in reverse dependency order: objects, then volumes, VPS, bucket, project, keys', async () => {
  const ledger = new Ledger('t');
  ledger.track('api-key', 'key_1');
  ledger.track('project', 'proj_1');
  ledger.track('bucket', 'cc-b');
  ledger.track('vps', 'vps_1');
  ledger.track('vps', 'vps_2');
  ledger.track('volume', 'vol_1');
  ledger.track('object', 'cc-b/dir/a b.txt');
  ledger.track('template', 'tpl_1'); // not deletable: never requested, never a leak
  const { client, calls } = fakeClient();
  const leaks = await ledger.teardown(() => client);
  expect(leaks).toEqual([]);
  expect(calls).toEqual([
    'DELETE /storage/buckets/cc-b/objects/dir/a%20b.txt',
    'DELETE /storage/volumes/vol_1',
    'DELETE /vps/vps_2',
    'DELETE /vps/vps_1',
    'DELETE /storage/buckets/cc-b',
    'DELETE /projects/proj_1',
    'DELETE /account/api-keys/key_1',
  ]);
  expect(ledger.pending()).toEqual([]);
});

test('what the check deleted itself is not deleted again; 404 counts as gone; failures become leaks and do not stop the rest', async () => {
  const ledger = new Ledger('t');
  ledger.track('vps', 'vps_gone');
  ledger.track('vps', 'vps_404');
  ledger.track('vps', 'vps_500');
  ledger.track('project', 'proj_ok');
  ledger.deleted('vps', 'vps_gone');
  const { client, calls } = fakeClient((o) => (o.path.endsWith('404') ? 404 : o.path.endsWith('500') ? 500 : 204));
  const leaks = await ledger.teardown(() => client);
  expect(calls).not.toContain('DELETE /vps/vps_gone');
  expect(calls).toContain('DELETE /projects/proj_ok');
  expect(leaks).toEqual([
    {
      kind: 'vps',
      id: 'vps_500',
      delete_operation: 'DELETE /vps/{vps_id}',
      reason: 'DELETE /vps/{vps_id} answered 500',
    },
  ]);
});

test('a volume in use is detached, then deleted', async () => {
  const ledger = new Ledger('t');
  ledger.track('volume', 'vol_1');
  let deletes = 0;
  const { client, calls } = fakeClient((o) => (o.method === 'DELETE' && deletes++ === 0 ? 409 : 204));
  expect(await ledger.teardown(() => client)).toEqual([]);
  expect(calls).toEqual([
    'DELETE /storage/volumes/vol_1',
    'POST /storage/volumes/vol_1/detach',
    'DELETE /storage/volumes/vol_1',
  ]);
});

test('a bucket that still holds objects the run could not track is emptied, then deleted; a bucket it cannot empty leaks', async () => {
  const ledger = new Ledger('t');
  ledger.track('bucket', 'cc-b');
  // The target stored `a%20b` as `a b`: the tracked key is gone, the stored one stays.
  let stored = ['a b'];
  const calls: string[] = [];
  const client = {
    async request(opts: RequestOptions) {
      calls.push(`${opts.method} ${opts.path}`);
      if (opts.method === 'GET') return { status: 200, body: { objects: stored.map((key) => ({ key })) } };
      if (opts.path === '/storage/buckets/cc-b') return { status: stored.length ? 409 : 204 };
      stored = [];
      return { status: 204 };
    },
  } as unknown as ApiClient;
  expect(await ledger.teardown(() => client)).toEqual([]);
  expect(calls).toEqual([
    'DELETE /storage/buckets/cc-b',
    'GET /storage/buckets/cc-b/objects',
    'DELETE /storage/buckets/cc-b/objects/a%20b',
    'GET /storage/buckets/cc-b/objects',
    'DELETE /storage/buckets/cc-b',
  ]);

  const stuck = new Ledger('t');
  stuck.track('bucket', 'cc-c');
  const { client: refusing } = fakeClient((o) => (o.method === 'DELETE' ? 409 : 200));
  expect((await stuck.teardown(() => refusing)).map((l) => l.reason)).toEqual([
    'DELETE /storage/buckets/{bucket_name} answered 409',
  ]);
});

test('alt-account resources are deleted with the alt client; without one they leak', async () => {
  const ledger = new Ledger('t');
  ledger.track('project', 'proj_alt', { account: 'alt' });
  const leaks = await ledger.teardown((account) => (account === 'alt' ? null : fakeClient().client));
  expect(leaks.map((l) => l.id)).toEqual(['proj_alt']);
});

test('the journal lets another process find what is still alive', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-ledger-'));
  try {
    const ledger = new Ledger('t', dir);
    ledger.track('vps', 'vps_1');
    ledger.track('bucket', 'cc-b');
    ledger.track('ssh-key', 'ssh_1');
    ledger.deleted('bucket', 'cc-b');
    const lines = readFileSync(join(dir, `ledger-${process.pid}.jsonl`), 'utf8').split('\n');
    const { alive, leaks } = foldJournal(lines);
    expect(alive.map((e) => `${e.kind} ${e.id} ${e.deletePath}`)).toEqual(['vps vps_1 /vps/vps_1']);
    expect(leaks).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tracking the same resource twice keeps one entry (explicit and automatic tracking)', async () => {
  const ledger = new Ledger('t');
  ledger.track('vps', 'vps_1');
  ledger.track('vps', 'vps_1');
  const { client, calls } = fakeClient();
  expect(await ledger.teardown(() => client)).toEqual([]);
  expect(calls).toEqual(['DELETE /vps/vps_1']);
});

test('a restore runs first at teardown, once per label with the first values; a failed restore is a leak', async () => {
  const ledger = new Ledger('t');
  ledger.track('vps', 'vps_1');
  ledger.restore('PUT /account', { method: 'PUT', path: '/account', json: { name: 'original' } });
  ledger.restore('PUT /account', { method: 'PUT', path: '/account', json: { name: 'changed by an earlier request' } });
  const bodies: unknown[] = [];
  const { client, calls } = fakeClient((o) => {
    if (o.method === 'PUT') bodies.push(o.json);
    return o.method === 'PUT' ? 200 : 204;
  });
  expect(await ledger.teardown(() => client)).toEqual([]);
  expect(calls).toEqual(['PUT /account', 'DELETE /vps/vps_1']);
  expect(bodies).toEqual([{ name: 'original' }]);

  const failing = new Ledger('t');
  failing.restore('PUT /account', { method: 'PUT', path: '/account', json: { name: 'original' } });
  const leaks = await failing.teardown(() => fakeClient(() => 500).client);
  expect(leaks).toEqual([
    {
      kind: 'restore',
      id: 'PUT /account',
      delete_operation: 'PUT /account',
      reason: 'not restored: PUT /account answered 500',
    },
  ]);
});

test('a restore not yet run is in the journal, for the cleanup after a Ctrl-C; the first original value is kept for the whole run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-ledger-'));
  try {
    const ledger = new Ledger('t', dir);
    ledger.restore('PUT /account', { method: 'PUT', path: '/account', json: { name: 'original' } });
    const { alive } = foldJournal(readFileSync(join(dir, `ledger-${process.pid}.jsonl`), 'utf8').split('\n'));
    expect(alive.map((e) => [e.kind, e.id, e.restore])).toEqual([
      ['restore', 'PUT /account', { method: 'PUT', path: '/account', json: { name: 'original' } }],
    ]);

    expect(await originalOnce(dir, 'account', async () => ({ name: 'original' }))).toEqual({ name: 'original' });
    // A later reader (another check or worker, after a change) gets the value from before the change.
    expect(await originalOnce(dir, 'account', async () => ({ name: 'changed' }))).toEqual({ name: 'original' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('something created without an id it can be deleted by is a leak from the start', () => {
  const ledger = new Ledger('t');
  ledger.untrackable('vps', 'POST /vps answered 201 without an id at /vps/id');
  ledger.untrackable('ssh-key', 'no id'); // no delete operation anyway: never a leak
  expect(ledger.leaks.map((l) => [l.kind, l.reason])).toEqual([
    ['vps', 'POST /vps answered 201 without an id at /vps/id'],
  ]);
});
