/**
 * Slow provisioning started early (src/harness/provision.ts): what the runner makes for a check
 * travels through the run's temp dir, responses whole; the check that takes it records its
 * exchanges and owns what it created; what no check took is deleted after the run; a pool gives
 * each taker its own member; without the runner's provision, the check makes it itself.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../base.ts';
import { startReferenceServer } from '../../reference/server.ts';
import type { Exchange } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { Budget } from '../../src/harness/budget.ts';
import { ApiClient } from '../../src/harness/client.ts';
import type { CheckContext } from '../../src/harness/fixtures.ts';
import { Ledger } from '../../src/harness/ledger.ts';
import { Provision, Provisioner, freeze, thaw } from '../../src/harness/provision.ts';
import { settingsFromEnv, withoutRunVariables } from '../../src/harness/settings.ts';

function spawnCollect(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

/** A VPS made the way a flow would, its answer kept whole. */
const madeVps = new Provision('test.provision.vps', async ({ api, ledger, name }) => {
  const created = await api.post('/vps', {
    name: name('vps'),
    region: 'nyc1',
    image: 'ubuntu-22-04',
    size: 's-1vcpu-1gb',
  });
  const id = created.json<{ vps: { id: string } }>().vps.id;
  ledger.track('vps', id);
  return { id, created };
});
const pooled = new Provision(
  'test.provision.pool',
  async ({ api, ledger, name }) => {
    const created = await api.post('/vps', {
      name: name('vps'),
      region: 'nyc1',
      image: 'ubuntu-22-04',
      size: 's-1vcpu-1gb',
    });
    return { id: ledger.track('vps', created.json<{ vps: { id: string } }>().vps.id) };
  },
  { pool: true },
);

async function withRun(
  body: (run: {
    provisioner: Provisioner;
    /** A check's tools: its client (recording), ledger and context. */
    check(id: string): { api: ApiClient; ledger: Ledger; ctx: CheckContext; exchanges: Exchange[] };
    vpsExists(id: string): Promise<boolean>;
  }) => Promise<void>,
): Promise<void> {
  const server = await startReferenceServer({ port: 0, s3Port: 0 });
  const runTmp = mkdtempSync(join(tmpdir(), 'cc-provision-'));
  try {
    const settings = {
      ...settingsFromEnv({
        CLOUDCHECK_TARGET: server.baseUrl,
        CLOUDCHECK_API_KEY: server.apiKey,
        CLOUDCHECK_RUN_ID: 't',
      }),
      runTmp,
    };
    const client = new ApiClient({ settings, budgets: { main: new Budget([server.apiKey]) } });
    const provisioner = new Provisioner(settings);
    await body({
      provisioner,
      check(id) {
        const exchanges: Exchange[] = [];
        let n = 0;
        // The part of a check's context a provision uses (fixtures.ts makeContext builds the whole in a test).
        const ctx = {
          ...settings,
          checkId: id,
          name: (label = 'r') => `${settings.runPrefix}${label}-w${++n}`,
        } as unknown as CheckContext;
        return {
          api: client.forCheck(id, (e) => exchanges.push(e)),
          ledger: new Ledger(`check:${id}`, runTmp),
          ctx,
          exchanges,
        };
      },
      vpsExists: async (id) => (await client.get(`/vps/${id}`)).status === 200,
    });
  } finally {
    rmSync(runTmp, { recursive: true, force: true });
    await server.close();
  }
}

test('a response travels whole: status, headers, bytes, body and exchange', async () => {
  await withRun(async ({ check }) => {
    const { api } = check('test.freeze');
    const res = await api.get('/regions');
    const back = thaw(JSON.parse(JSON.stringify(freeze({ list: [res], n: 1 })))) as { list: [typeof res]; n: number };
    const copy = back.list[0];
    expect(back.n).toBe(1);
    expect(copy.status).toBe(200);
    expect(copy.headers).toEqual(res.headers);
    expect(copy.text).toBe(res.text);
    expect(copy.bytes.equals(res.bytes)).toBe(true);
    expect(copy.json()).toEqual(res.json());
    expect(copy.exchange).toEqual(res.exchange);
  });
});

test('the check takes what the runner made for it: exchanges named for it, the VPS its own; the rest is deleted', async () => {
  await withRun(async ({ provisioner, check, vpsExists }) => {
    provisioner.start(madeVps.name, 'check.a');
    provisioner.start(madeVps.name, 'check.b');
    const a = check('check.a');
    const taken = await madeVps.take(a);
    expect(taken.created.status).toBe(201);
    expect(taken.created.json<{ vps: { id: string } }>().vps.id).toBe(taken.id);
    // Sent by the runner under the check's id, recorded as the check's own.
    expect(a.exchanges.map((e) => [e.request.method, e.request.headers['x-cloudcheck-check']])).toEqual([
      ['POST', 'check.a'],
    ]);
    expect(a.ledger.pending().map((e) => e.id)).toEqual([taken.id]);
    // Taken once: a second take (a check run again) makes its own.
    const again = check('check.a');
    const own = await madeVps.take(again);
    expect(own.id).not.toBe(taken.id);
    await provisioner.teardown();
    // Check b never ran: its VPS is gone; a's belongs to a, whose ledger deletes it.
    expect(await vpsExists(taken.id)).toBe(true);
    await a.ledger.teardown(() => a.api);
    await again.ledger.teardown(() => a.api);
    expect(await vpsExists(taken.id)).toBe(false);
    expect(await vpsExists(own.id)).toBe(false);
  });
});

test('a pool gives each taker a member of its own, then none; nothing provisioned: the check makes it', async () => {
  await withRun(async ({ provisioner, check }) => {
    const inline = check('check.alone');
    const made = await madeVps.take(inline);
    expect(inline.exchanges.map((e) => e.request.headers['x-cloudcheck-check'])).toEqual(['check.alone']);
    expect(inline.ledger.pending().map((e) => e.id)).toEqual([made.id]);

    provisioner.startPool(pooled.name, 2);
    const takers = ['w1', 'w2', 'w3'].map((id) => check(id));
    const taken = await Promise.all(takers.map((t) => pooled.takeMade(t)));
    const members = taken.filter((t) => t !== null).map((t) => t.id);
    expect(members).toHaveLength(2);
    expect(new Set(members).size).toBe(2);
    expect(taken.filter((t) => t === null)).toHaveLength(1);
    await provisioner.teardown();
  });
});

test('a flow run alone with --grep, twice in one run: each repetition takes its own early VPS, sent under its step', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-provision-run-'));
  try {
    const bin = join(fileURLToPath(new URL('../../', import.meta.url)), 'bin', 'cloudcheck.mjs');
    const { code, stderr } = await spawnCollect(
      process.execPath,
      [bin, 'run', '--grep', 'VPS lifecycle', '--har', 'all', '--workers', '2', '--report-dir', dir],
      {
        env: {
          ...withoutRunVariables(process.env),
          CLOUDCHECK_REPETITIONS: JSON.stringify(['VPS lifecycle', 'VPS lifecycle']),
          CLOUDCHECK_EMBEDDED_VARIANTS: 'vps-boot-slow=1500',
        },
      },
    );
    expect(code, stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
    const posts = ['flow.vps-lifecycle.create', 'flow.vps-lifecycle.create#1'].map((id) => {
      const step = report.checks.find((c) => c.id === id);
      expect(step?.status, id).toBe('passed');
      const post = step!.exchanges!.find((e) => e.request.method === 'POST');
      expect(post?.request.headers['x-cloudcheck-check'], id).toBe(id);
      return JSON.parse(post!.response!.body!) as { vps: { id: string } };
    });
    expect(posts[0]!.vps.id).not.toBe(posts[1]!.vps.id);
    expect(report.leaks).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
