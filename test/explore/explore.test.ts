/**
 * `cloudcheck explore` (src/explore/): no false alarm against the conformant reference server for
 * 20 seeds nor against its legal variants; a finding is shrunk, confirmed and replayable; the
 * faults only a sequence reveals are each found (the fault matrix runs every one of them).
 */
import { expect, test } from '../base.ts';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../../reference/server.ts';
import { Budget } from '../../src/harness/budget.ts';
import { ApiClient } from '../../src/harness/client.ts';
import type { ApiResponse } from '../../src/harness/client.ts';
import { conflicts, explore, sequenceSeed } from '../../src/explore/explore.ts';
import { ExploreTarget } from '../../src/explore/target.ts';
import { FAMILIES } from '../../src/explore/families/index.ts';
import { requirementById } from '../../spec/requirements.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { replayHint, replayRefusal } from '../../src/cli/replay-origin.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CLOUDCHECK_|TEST_WORKER_INDEX|TEST_PARALLEL_INDEX)/.test(k)),
  );
  // 60 s of exploration, plus a wait for the next minute when the compute burst (100 a minute a key) is spent.
  const run = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 170_000,
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

function runScript(
  file: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', [file], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

test('20 seeds per family against the conformant server: no sequence contradicts the model, and every rule is exercised', async () => {
  test.setTimeout(180_000);
  const server = await startReferenceServer({ apiKey: 'cck_explore_main_key_0123456789' });
  try {
    // Keys of the same account made on demand, as `cloudcheck run` makes them: the compute area's
    // burst (100 a minute a key) would otherwise stop the compute and volumes seeds, not the model.
    const owner = server.context.accounts.keyBySecret(server.apiKey)!.accountId;
    const createKey = async (): Promise<string> =>
      server.context.accounts.createKey(owner, { name: 'cc-explore-test', permissions: ['read', 'write'] }).key;
    const api = new ApiClient({
      settings: {
        target: server.baseUrl,
        keys: { main: server.apiKey, alt: null },
        liveSms: false,
        allowCharges: false,
        timeoutScale: 1,
      },
      budgets: { main: new Budget([server.apiKey], { maxWaitMs: 1_000, createKey, maxCreatedKeys: 200 }) },
    });
    // Each family's seeds in turn (40 requests a seed would hold a sequence or two of all families
    // together). Families side by side, as an exploration runs them (their sequences mostly wait on
    // boots and deliveries), except those that would see each other's resources in a list of the
    // whole account: those take turns in one lane, as they do in an exploration (conflicts).
    const lanes: Array<Array<(typeof FAMILIES)[number]>> = [];
    for (const family of FAMILIES) {
      const lane = lanes.find((l) => l.some((other) => conflicts(family, other)));
      if (lane) lane.push(family);
      else lanes.push([family]);
    }
    const exercisedBy = async (family: (typeof FAMILIES)[number]): Promise<string[]> => {
      const seen = new Set<string>();
      for (let seed = 1; seed <= 20; seed++) {
        const prefix = `cc-seed${seed}-${family.name}-`;
        const target = new ExploreTarget(api, `${prefix}bucket`, prefix, { budget: 40, deadline: Date.now() + 30_000 });
        const outcome = await explore(target, { seed, families: [family] });
        expect(outcome.error, `${family.name}, seed ${seed}`).toBeNull();
        expect(outcome.findings, `${family.name}, seed ${seed}: ${JSON.stringify(outcome.findings[0]?.steps)}`).toEqual(
          [],
        );
        for (const rule of outcome.exercised) seen.add(rule);
      }
      return [...seen].sort();
    };
    await Promise.all(
      lanes.map(async (lane) => {
        for (const family of lane)
          expect(await exercisedBy(family), family.name).toEqual(Object.keys(family.rules).sort());
      }),
    );
    // Neighbouring seeds draw different sequences (not the same ones shifted by one).
    expect(sequenceSeed(2, 0)).not.toBe(sequenceSeed(1, 1));
  } finally {
    await server.close();
  }
});

/**
 * A target whose deletions of instances and volumes take a moment: for 600 ms after a DELETE, a
 * GET of that resource still answers with its last record, as a real platform may. (A client-side
 * double: the reference server deletes at once.)
 */
class LaggingDeletes extends ExploreTarget {
  private readonly lastSeen = new Map<string, ApiResponse>();
  private readonly deletedAt = new Map<string, number>();
  stale = 0;
  override async request(
    family: string,
    method: string,
    path: string,
    options?: Parameters<ExploreTarget['request']>[3],
  ): Promise<ApiResponse> {
    const lagging = /^\/(vps|storage\/volumes)\/[^/]+$/.test(path);
    const since = this.deletedAt.get(path);
    if (lagging && method === 'GET' && since !== undefined && Date.now() - since < 600 && this.lastSeen.has(path)) {
      this.stale++;
      return this.lastSeen.get(path)!;
    }
    const res = await super.request(family, method, path, options);
    if (lagging && method === 'GET' && res.status === 200) this.lastSeen.set(path, res);
    if (lagging && method === 'DELETE' && res.status < 300) this.deletedAt.set(path, Date.now());
    return res;
  }
}

test('a deletion that takes a moment (the instance or volume still found for 600 ms) is no finding', async () => {
  test.setTimeout(120_000);
  const server = await startReferenceServer({ apiKey: 'cck_explore_lag_key_0123456789ab' });
  try {
    const owner = server.context.accounts.keyBySecret(server.apiKey)!.accountId;
    const createKey = async (): Promise<string> =>
      server.context.accounts.createKey(owner, { name: 'cc-explore-lag', permissions: ['read', 'write'] }).key;
    const api = new ApiClient({
      settings: {
        target: server.baseUrl,
        keys: { main: server.apiKey, alt: null },
        liveSms: false,
        allowCharges: false,
        timeoutScale: 1,
      },
      budgets: { main: new Budget([server.apiKey], { maxWaitMs: 1_000, createKey, maxCreatedKeys: 50 }) },
    });
    let stale = 0;
    for (const family of FAMILIES.filter((f) => f.name === 'compute' || f.name === 'volumes')) {
      for (let seed = 1; seed <= 6; seed++) {
        const target = new LaggingDeletes(api, `cc-lag${seed}-bucket`, `cc-lag${seed}-`, {
          budget: 150,
          deadline: Date.now() + 30_000,
        });
        const outcome = await explore(target, { seed, families: [family] });
        expect(outcome.error, `${family.name}, seed ${seed}`).toBeNull();
        expect(
          outcome.findings,
          `${family.name}, seed ${seed}: ${outcome.findings[0]?.message} (${JSON.stringify(outcome.findings[0]?.steps)})`,
        ).toEqual([]);
        stale += target.stale;
      }
    }
    // The double did answer stale records: the model met a lagging deletion and waited it out.
    expect(stale).toBeGreaterThan(0);
  } finally {
    await server.close();
  }
});

test('every rule of the model cites a requirement of the catalogue, and every operation a rule of its family', () => {
  for (const family of FAMILIES) {
    for (const requirement of Object.keys(family.rules))
      expect(requirementById(requirement), `${family.name}: ${requirement}`).toBeDefined();
    for (const [op, rules] of Object.entries(family.rulesOf))
      for (const rule of rules) expect(Object.keys(family.rules), `${family.name}: ${op}`).toContain(rule);
  }
});

test('legal variants: the formats, codes and wrappers a conformant target may choose give no finding', () => {
  test.setTimeout(360_000);
  const variants = [
    'create-200,delete-200-body,action-201,unauth-403,error-codes-other,validation-400,ids-other-format,extra-fields,timestamps-offset,json-charset,flat-bodies,list-oldest-first,per-page-clamp,ratelimit-headers-everywhere,accept-honoured,vps-boot-slow=15000,actions-async=2000',
    'wrapped-bodies,latency=5',
  ];
  for (const set of variants) {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-explore-variants-'));
    try {
      const run = cli(['explore', '--seed', '3', '--budget', '600', '--report-dir', dir], {
        CLOUDCHECK_EMBEDDED_VARIANTS: set,
      });
      expect(run.status, `${set}\n${run.output}`).toBe(0);
      expect(run.output).toContain('no sequence contradicted the model');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a finding is shrunk, confirmed, reported with its requirement and replayable (file and curl lines)', async () => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-explore-finding-'));
  try {
    const fault = { CLOUDCHECK_EMBEDDED_FAULTS: 'project-second-update-lost' };
    // Only the family that meets the fault: its finding ends the exploration, as no other family goes on.
    const run = cli(['explore', '--families', 'projects', '--report-dir', join(dir, 'first')], fault);
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain('FAILED [PROJ-UPD-001]');
    expect(run.output).toContain('failed again on replay');
    const report = JSON.parse(readFileSync(join(dir, 'first', 'report.json'), 'utf8')) as ConformanceReport;
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.requirement)).toEqual(['PROJ-UPD-001']);
    expect(failed[0]!.exchanges?.length).toBeGreaterThan(0);
    const replayFile = join(dir, 'first', 'explore-replay.json');
    const recorded = JSON.parse(readFileSync(replayFile, 'utf8')) as {
      target: string;
      embedded: boolean;
      steps: Array<{ op: string; args: Record<string, string | number> }>;
    };
    const steps = recorded.steps;
    // The file remembers where it came from, and the hint replays it there.
    expect(recorded).toMatchObject({ target: report.run.target, embedded: true });
    expect(run.output).toContain(
      `replay: cloudcheck explore --replay ${replayFile} (against a fresh embedded reference server, as the finding's was)`,
    );
    // Shrunk: create, update, update (read back); a handful at most.
    expect(steps.length).toBeLessThanOrEqual(5);
    expect(steps.filter((s) => s.op === 'update-project').length).toBe(2);
    // The script runs again on its own against a fresh server with the fault: the created id is
    // captured, and the last read shows the lost update.
    const script = join(dir, 'first', 'explore-repro.sh');
    expect(readFileSync(script, 'utf8')).toMatch(/ID1=\$\(curl .*\/projects'/);
    const fresh = await startReferenceServer({
      apiKey: 'cck_explore_repro_key_0123456789',
      faults: ['project-second-update-lost'],
    });
    try {
      // Asynchronously: the server answering the script lives in this process.
      const replayed = await runScript(script, {
        PATH: process.env.PATH ?? '',
        CLOUDCHECK_TARGET: fresh.baseUrl,
        CLOUDCHECK_API_KEY: fresh.apiKey,
      });
      expect(replayed.status, replayed.stderr).toBe(0);
      const bodies = replayed.stdout.split('\n').filter((l) => l.startsWith('{'));
      expect(bodies.at(-1)).toContain('"description":"');
      // The last step is the second update: its read-back shows the first one's description.
      expect(bodies.at(-1)).not.toContain(`"description":"${String(steps.at(-1)?.args.description)}"`);
    } finally {
      await fresh.close();
    }
    // The replay fails again with the fault, passes without it.
    expect(cli(['explore', '--replay', replayFile, '--report-dir', join(dir, 'again')], fault).status).toBe(1);
    expect(cli(['explore', '--replay', replayFile, '--report-dir', join(dir, 'clean')]).status).toBe(0);
    expect(existsSync(join(dir, 'clean', 'explore-replay.json'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad replay file or option is a one-line usage error (exit 2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-explore-usage-'));
  try {
    writeFileSync(join(dir, 'bad.json'), '{"steps": [{"args": {}}]}');
    const bad = cli(['explore', '--replay', join(dir, 'bad.json')]);
    expect(bad.status).toBe(2);
    expect(bad.output).toContain('holds no "steps" list');
    expect(cli(['explore', '--replay', join(dir, 'missing.json')]).output).toContain('does not exist');
    writeFileSync(join(dir, 'unknown.json'), '{"steps": [{"op": "launch-rocket", "args": {}}]}');
    const unknownOp = cli(['explore', '--replay', join(dir, 'unknown.json')]);
    expect(unknownOp.status).toBe(2);
    expect(unknownOp.output).toContain('unknown operation "launch-rocket"');
    // A replay goes to the target it came from; elsewhere only when asked (--replay-any-target).
    const steps = [{ op: 'create-project', args: { label: 'p' } }];
    writeFileSync(
      join(dir, 'remote.json'),
      JSON.stringify({ target: 'http://127.0.0.1:9/v1', embedded: false, steps }),
    );
    writeFileSync(join(dir, 'local.json'), JSON.stringify({ target: 'http://127.0.0.1:7/v1', embedded: true, steps }));
    const refusals: Array<[string, string[], string]> = [
      [
        'remote.json',
        [],
        'the replay file came from http://127.0.0.1:9/v1: pass --target http://127.0.0.1:9/v1 (and its API key), or --replay-any-target',
      ],
      [
        'remote.json',
        ['--target', 'http://127.0.0.1:8/v1', '--api-key', 'k'],
        'the replay file came from http://127.0.0.1:9/v1, not from http://127.0.0.1:8/v1',
      ],
      [
        'local.json',
        ['--target', 'http://127.0.0.1:9/v1', '--api-key', 'k'],
        'came from the embedded reference server',
      ],
    ];
    for (const [file, args, reason] of refusals) {
      const refused = cli(['explore', '--replay', join(dir, file), ...args]);
      expect(refused.status, refused.output).toBe(2);
      expect(refused.output).toContain(reason);
    }
    const family = cli(['explore', '--families', 'objects,rockets']);
    expect(family.status).toBe(2);
    expect(family.output).toContain(`unknown family "rockets" (families: ${FAMILIES.map((f) => f.name).join(', ')})`);
    // A budget too small to run one step proves nothing: exit 2, not a pass.
    const tiny = cli(['explore', '--budget', '1', '--report-dir', join(dir, 'tiny')]);
    expect(tiny.status, tiny.output).toBe(2);
    expect(tiny.output).toContain('nothing was checked');
    const budget = cli(['explore', '--budget', '0']);
    expect(budget.status).toBe(2);
    expect(budget.output).toContain('--budget');
    const help = cli(['explore', '--help']);
    expect(help.status).toBe(0);
    expect(help.output).toContain('--replay FILE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the replay hint of a --target exploration names its target; a file's target is compared as a URL", () => {
  expect(replayHint('r/explore-replay.json', { target: 'https://staging.example.net/v1', embedded: false })).toBe(
    'cloudcheck explore --target https://staging.example.net/v1 --replay r/explore-replay.json (with the API key of that target)',
  );
  const origin = { target: 'https://Staging.example.net:443/v1/', embedded: false };
  expect(replayRefusal(origin, 'https://staging.example.net/v1')).toBeNull();
  expect(replayRefusal(null, undefined)).toBeNull();
});

test('explore --help lists every family --families takes, with what its sequences do', () => {
  const { status, output } = cli(['explore', '--help']);
  expect(status).toBe(0);
  const section = output.slice(output.indexOf('families (--families a,b'));
  const lines = section.split('\n').map((line) => line.trim().split(/ {2,}/));
  for (const family of FAMILIES) expect(lines).toContainEqual([family.name, family.summary]);
  expect(output).not.toContain('see the README');
});
