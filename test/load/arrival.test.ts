/**
 * The arrival-rate executors (k6's constant- and ramping-arrival-rate): requests start on a
 * schedule whatever the answers, latency counts from the intended start, arrivals that find every
 * connection busy are dropped and counted.
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arrivalTimes, runArrivalPhase } from '../../load/arrival.ts';
import { Collector } from '../../load/collector.ts';
import { validateProfile } from '../../load/profile.ts';
import type { LoadReport } from '../../src/model/load.ts';

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

test('arrival times: evenly spaced at a constant rate, closer together as a ramp rises, capped', () => {
  expect(arrivalTimes(10, [{ duration: 2, target: 10 }], 1000)).toEqual(Array.from({ length: 20 }, (_, i) => i * 100));
  const ramp = arrivalTimes(0, [{ duration: 2, target: 10 }], 1000);
  // The expected count of a ramp from 0 to 10/s over 2 s is 10.
  expect(ramp.length).toBe(10);
  expect(ramp[0]).toBe(0);
  const gaps = ramp.slice(1).map((t, i) => t - ramp[i]!);
  for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeLessThan(gaps[i - 1]!);
  expect(ramp.at(-1)!).toBeLessThan(2000);
  // Stages chain: a ramp up, a plateau; and the cap bounds the count.
  expect(
    arrivalTimes(
      0,
      [
        { duration: 1, target: 20 },
        { duration: 1, target: 20 },
      ],
      1000,
    ).length,
  ).toBe(30);
  expect(arrivalTimes(100, [{ duration: 10, target: 100 }], 50).length).toBe(50);
});

test('a profile names its executor; an arrival-rate phase needs its rate or stages', () => {
  const base = { name: 'x', requests: [{ method: 'GET', path: '/regions' }], expectations: {} };
  const constant = validateProfile(
    { ...base, model: { executor: 'constant-arrival-rate', rate: 50, duration: 3 } },
    'x.yaml',
  );
  expect(constant.phases[0]).toMatchObject({
    executor: 'constant-arrival-rate',
    rate: 50,
    duration: 3,
    connections: 100,
  });
  const ramping = validateProfile(
    {
      ...base,
      model: {
        executor: 'ramping-arrival-rate',
        stages: [
          { duration: 2, target: 10 },
          { duration: 3, target: 0 },
        ],
      },
    },
    'x.yaml',
  );
  expect(ramping.phases[0]).toMatchObject({ executor: 'ramping-arrival-rate', duration: 5 });
  expect(validateProfile(base, 'x.yaml').phases[0]!.executor).toBe('closed');
  expect(() => validateProfile({ ...base, model: { executor: 'constant-arrival-rate' } }, 'x.yaml')).toThrow(
    'model.rate: constant-arrival-rate needs a rate',
  );
  expect(() => validateProfile({ ...base, model: { executor: 'ramping-arrival-rate', rate: 5 } }, 'x.yaml')).toThrow(
    'model.stages: ramping-arrival-rate needs stages',
  );
  expect(() => validateProfile({ ...base, model: { stages: [{ duration: 1, target: 1 }] } }, 'x.yaml')).toThrow(
    'stages belong to the ramping-arrival-rate executor',
  );
});

test('against a slow target: arrivals keep their schedule, latency counts from the intended start, and busy connections drop arrivals', async () => {
  const server = createServer((_req, res) =>
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 100),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const phase = (connections: number) =>
    validateProfile(
      {
        name: 'slow',
        requests: [{ method: 'GET', path: '/regions' }],
        expectations: {},
        model: { executor: 'constant-arrival-rate', rate: 40, duration: 1, connections },
      },
      'x.yaml',
    ).phases[0]!;
  const ctx = { baseUrl, headers: {}, caCertFile: null, runPrefix: 'cc-test', keyFor: () => 'k', freshCount: 0 };
  try {
    // Room for every arrival in flight at once: 40 in the second, none dropped, each >= 100 ms.
    const roomy = new Collector(undefined, new Set());
    await runArrivalPhase(phase(40), ctx, roomy, 'slow');
    expect(roomy.sent).toBe(40);
    expect(roomy.completed).toBe(40);
    expect(roomy.dropped).toBe(0);
    expect(roomy.hist.summary()['2xx']!.p50).toBeGreaterThanOrEqual(100);
    // One connection: an arrival every 25 ms meets a request that takes 100 ms; most are dropped, and said.
    const tight = new Collector(undefined, new Set());
    const notes = await runArrivalPhase(phase(1), ctx, tight, 'slow');
    expect(tight.dropped).toBeGreaterThan(20);
    expect(tight.sent + tight.dropped).toBe(40);
    expect(notes.join('\n')).toContain('dropped: all 1 connections were busy');
  } finally {
    server.close();
  }
});

test('cloudcheck load runs a constant-arrival-rate profile against the embedded server', () => {
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-arrival-'));
  try {
    const file = join(dir, 'arrival.yaml');
    writeFileSync(
      file,
      [
        'name: arrival',
        'model: { executor: constant-arrival-rate, rate: 30, duration: 2, connections: 10 }',
        'requests:',
        '  - { method: GET, path: /storage/buckets }',
        'expectations:',
        '  max_5xx: 0',
        '',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [BIN, 'load', file, '--report-dir', join(dir, 'out')], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const load = (JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as { load: LoadReport }).load;
    const profile = load.profiles[0]!;
    // 30 arrivals a second for 2 s: each sent (or, on a machine too busy to keep 10 requests in
    // flight, dropped and counted), none lost.
    expect(profile.requests.completed + (profile.requests.dropped ?? 0)).toBe(60);
    expect(profile.requests.completed).toBeGreaterThan(30);
    expect(run.stdout).toContain('req/s');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
