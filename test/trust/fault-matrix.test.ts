/**
 * Trust: every deliberate fault of the reference server (`listFaults()`) is detected by the suite.
 * Per fault, one `cloudcheck run` against the embedded server with only that fault, restricted
 * with `--grep` to the checks of the fault's requirement (plans and rules: ./matrix.ts): it must
 * exit 1 with a failed check naming the requirement, and every flow the grep runs whole must fail
 * on that requirement and on nothing else. A clean run of a sample of the same grep sets exits 0,
 * and docs/fault-matrix.md (written by ./write-fault-matrix.ts) must match what the runs found;
 * through its rows, every flow of suites/flows/ must detect at least one fault. (The flows' clean
 * runs: test/flows/flows.test.ts.)
 *
 * Speed: a run is mostly waiting (process start-up, the server's delays, window alignment), so the
 * faults are split into a few groups (run in parallel by the test runner's workers) and each
 * group keeps several runs in flight: the test of fault i starts the runs of faults i..i+C-1 of its
 * group (C = CLOUDCHECK_MATRIX_CONCURRENCY, default twice the CPUs per runner worker, at least 3)
 * and waits for its own. A group is one worker's sequence (mode 'default'); its afterAll stops runs no test
 * consumed (after a failure Playwright continues the group in a fresh worker, which restarts them).
 */
import { expect, test } from '../base.ts';
import type { TestInfo } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultOrigins, listFaults } from '../../reference/server.ts';
import type { FaultPlan, Outcome } from './matrix.ts';
import {
  CAUSE_EXCEPTIONS,
  DOC_PATH,
  FLOW_ORIGINS,
  FLOWS_BLIND,
  GREP_OVERRIDES,
  KNOWN_UNDETECTED,
  LOAD_FAULTS,
  MUST_DETECT,
  REGENERATE,
  RUN_ENV,
  flowSpecFiles,
  flowsOf,
  listSuiteChecks,
  planBatches,
  planFaults,
  repeatable,
  startShared,
  startRun,
  suiteFlows,
  envKey,
  unitsOverlap,
  waitsOut,
} from './matrix.ts';
import {
  parseRows,
  renderCauseSection,
  renderFlows,
  renderRow,
  renderUnfaulted,
  rowPrefix,
  withinCauseBound,
} from './matrix-doc.ts';

const GROUPS = 4;
const FAULTS = listFaults().map((f) => f.name);

// The plans and their batches (planBatches: faults that cannot interact share a run, which keeps
// npm test short as faults are added), the same in the runner and every worker. Whole runs go to
// a group, so no run is started twice.
const PLANS = new Map(planFaults(await listSuiteChecks()).map((p) => [p.fault, p]));
const BATCHES = planBatches([...PLANS.values()]);
/** One `cloudcheck run`: its batches, each a repetition of the run when there are several (startShared). */
type Run = FaultPlan[][];
// A group alternates its run of repetitions (the shared batches whose faults bend only their own
// checks, startShared) with runs that mostly wait (a fault run alone: a deadline, an
// exploration's pauses, a load window; or faults that wait out a deadline together), and keeps
// three in flight, so that neither the start nor the end of the matrix is all waiting.
const shared = BATCHES.filter((b) => b.length > 1 && !waitsOut(b));
const alone: Run[] = BATCHES.filter((b) => b.length === 1 || waitsOut(b)).map((b) => [b]);
const groups: Run[][] = Array.from({ length: GROUPS }, (_, g) => {
  const repeated = shared.filter(repeatable).filter((_b, i) => i % GROUPS === g);
  const busy: Run[] = [
    ...(repeated.length > 0 ? [repeated] : []),
    ...shared.filter((b) => !repeatable(b) && shared.indexOf(b) % GROUPS === g).map((b) => [b]),
  ];
  const waiting = alone.filter((_r, i) => i % GROUPS === g);
  return Array.from({ length: Math.max(busy.length, waiting.length) }, (_, i) => [busy[i], waiting[i]]).flatMap(
    (pair) => pair.filter((r) => r !== undefined),
  );
});

function planOf(fault: string): FaultPlan {
  return PLANS.get(fault)!;
}

/** Runs started in this worker, by run (its first fault). */
const started = new Map<string, { promise: Promise<Map<string, Outcome>>; cancel(): void }>();
/** Faults whose test has read its outcome; a run's report dir goes when all of them have. */
const consumed = new Set<string>();

function concurrency(info: TestInfo): number {
  const fromEnv = Number(process.env.CLOUDCHECK_MATRIX_CONCURRENCY);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  // At least three: a group's run of repetitions goes through them in turn, mostly waiting on
  // their flows, and holds one place for its whole length (the machine was half idle with two).
  return Math.max(3, Math.round((2 * availableParallelism()) / Math.max(1, info.config.workers)));
}

const keyOf = (run: Run): string => run[0]![0]!.fault;

async function outcomeOf(group: Run[], index: number, fault: string, info: TestInfo): Promise<Outcome> {
  for (const run of group.slice(index, index + concurrency(info))) {
    const key = keyOf(run);
    if (started.has(key)) continue;
    // A temp dir of its own, not this test's output dir: another Playwright run of test/ in the
    // same tree wipes test-results/ when it starts.
    started.set(key, startShared(run, mkdtempSync(join(tmpdir(), `cloudcheck-matrix-${key}-`))));
  }
  const outcome = (await started.get(keyOf(group[index]!))!.promise).get(fault)!;
  consumed.add(fault);
  if (group[index]!.flat().every((p) => consumed.has(p.fault)))
    setTimeout(() => rmSync(outcome.reportDir, { recursive: true, force: true }), 1000).unref();
  return outcome;
}

function committedDoc(): string {
  return existsSync(DOC_PATH) ? readFileSync(DOC_PATH, 'utf8') : '';
}

const STALE = `docs/fault-matrix.md is stale: regenerate it with \`${REGENERATE}\``;

groups.forEach((group, g) => {
  test.describe(`fault group ${g + 1}/${GROUPS}`, () => {
    test.describe.configure({ mode: 'default', timeout: 360_000 });

    // The group's runs leave nothing behind: a run no test read is stopped, and every report dir
    // goes now (the timer of the last one read may never fire: the worker can exit first).
    test.afterAll(async () => {
      const runs = [...started].flatMap(([key, handle]) => {
        const run = group.find((r) => keyOf(r) === key);
        return run ? [{ key, handle, read: run.flat().every((p) => consumed.has(p.fault)) }] : [];
      });
      await Promise.all(
        runs.map(async ({ key, handle, read }) => {
          if (!read) handle.cancel();
          const outcomes = await handle.promise.catch(() => undefined);
          if (outcomes) rmSync(outcomes.get(key)!.reportDir, { recursive: true, force: true });
        }),
      );
    });

    group.forEach((run, i) =>
      run.flat().forEach(({ fault }, _j, members) => {
        const partners = members.length - 1;
        test(`fault ${fault} is detected${partners > 0 ? ` (a run shared with ${partners} other${partners > 1 ? 's' : ''}${run.length > 1 ? `, in ${run.length} repetitions` : ''})` : ''}`, async () => {
          const info = test.info();
          const plan = planOf(fault);
          const checks = await listSuiteChecks();
          const outcome = await outcomeOf(group, i, fault, info);
          const report = join(outcome.reportDir, 'report.json');
          if (existsSync(report)) await info.attach('report.json', { path: report, contentType: 'application/json' });
          const how = {
            load: `cloudcheck load ${plan.load?.profile ?? ''}`,
            explore: 'cloudcheck explore',
            run: `cloudcheck run --grep '${plan.grep}'${plan.args.map((a) => ` ${a}`).join('')}${plan.strict ? ' --strict' : ''}`,
          }[plan.mode];
          const context = `${how} with fault ${fault} (${plan.requirement}), ${Math.round(outcome.durationMs / 1000)} s\n${outcome.error ?? outcome.summary}`;
          info.annotations.push({ type: 'detected by', description: outcome.detectedBy.join(', ') || 'nothing' });
          if (KNOWN_UNDETECTED[fault] !== undefined) {
            expect(
              outcome.detected,
              `${fault} is detected now: remove it from KNOWN_UNDETECTED (test/trust/matrix.ts)\n${context}`,
            ).toBe(false);
          } else {
            expect(outcome.error, context).toBeUndefined();
            expect(outcome.detectedBy, `a failed check should name ${plan.requirement}\n${context}`).not.toEqual([]);
            expect(outcome.exit, `exit code (the gate must fail)\n${context}`).toBe(1);
            for (const id of MUST_DETECT[fault] ?? [])
              expect(outcome.detectedBy, `${id} must detect ${fault}\n${context}`).toContain(id);
            // Every flow run whole for this requirement sees the fault (a step of it fails on the requirement)...
            const blind = FLOWS_BLIND[fault]?.flows ?? [];
            expect(
              flowsOf(outcome.detectedBy, checks),
              `flows holding a check of ${plan.requirement} that must fail on it\n${context}`,
            ).toEqual(plan.flows.filter((f) => !blind.includes(f)));
            // ...and the fault breaks one requirement: no check (of a flow or the run) fails on another.
            expect(
              outcome.failed.filter((c) => c.requirement !== plan.requirement),
              `failed checks naming another requirement than ${plan.requirement}\n${context}`,
            ).toEqual([]);
            // What the faulty server let the run create is still cleaned up.
            expect(outcome.leaks, `resources left behind\n${context}`).toEqual([]);
          }
          const row = committedDoc()
            .split('\n')
            .find((l) => l.startsWith(rowPrefix(fault)));
          expect(row, STALE).toBe(renderRow(plan, outcome, checks));
        });
      }),
    );
  });
});

test('clean runs of a sample of the grep sets pass, with every scopable fault on for no check', async () => {
  const info = test.info();
  test.setTimeout(360_000);
  const checks = await listSuiteChecks();
  const all = planFaults(checks).filter((p) => p.mode === 'run');
  // One fault per class (the first in catalogue order), in one run: a grep set that failed against
  // the correct server would make its "detection" worthless. The SHOULD ones ask for --strict.
  const sample = [...new Map(all.map((p) => [p.class, p])).values()];
  const grep = sample.map((p) => `(?:${p.grep})`).join('|');
  // Every fault a shared run limits to its checks is on here, limited to a check that does not
  // exist: a fault that reached a request of another check (or a request without the header)
  // would fail this run, as it would fail its partners in a shared run.
  const scopable = all.filter((p) => p.scopable).map((p) => p.fault);
  const scopes = JSON.stringify(Object.fromEntries(scopable.map((f) => [f, ['no.such.check']])));
  const env = Object.assign(
    { CLOUDCHECK_EMBEDDED_FAULT_SCOPES: scopes },
    ...sample.map((p) => RUN_ENV[p.fault] ?? {}),
  ) as Record<string, string>;
  const outcome = await startRun({
    grep,
    faults: scopable,
    strict: true,
    reportDir: info.outputPath('clean'),
    env,
    label: 'clean',
  }).promise;
  await info
    .attach('report.json', { path: join(outcome.reportDir, 'report.json'), contentType: 'application/json' })
    .catch(() => undefined);
  const context = `clean run of ${sample.map((p) => p.fault).join(', ')}, with ${scopable.length} faults on for no check\n${outcome.error ?? outcome.summary}`;
  expect(outcome.error, context).toBeUndefined();
  expect(
    outcome.summary.split('\n').filter((l) => l.startsWith('failed')),
    context,
  ).toEqual([]);
  for (const p of sample) expect(outcome.summary, `${p.requirement} checks ran`).toContain(`[${p.requirement}]`);
  expect(outcome.exit, context).toBe(0);
});

test('the members of a shared run stay apart: other requirements, other flows and operations, one environment, a bending fault only where no partner reaches it', () => {
  const origins = faultOrigins();
  for (const batch of BATCHES.filter((b) => b.length > 1)) {
    const names = batch.map((p) => p.fault).join(', ');
    expect(new Set(batch.map((p) => p.requirement)).size, `requirements of ${names}`).toBe(batch.length);
    // One environment for the run: each member's own (RUN_ENV), the same for all.
    expect(new Set(batch.map((p) => envKey(p.env))).size, `environments of ${names}`).toBe(1);
    const units = batch.flatMap((p) => p.units);
    const overlapping = units.filter((u, i) => units.some((v, j) => i !== j && unitsOverlap(u, v)));
    expect(overlapping, `flows and operations of two members of ${names}`).toEqual([]);
    // An exploration limits each member to its own family's requests: one member a family.
    const families = batch.filter((p) => p.mode === 'explore').map((p) => p.family);
    expect(new Set(families).size, `families of ${names}`).toBe(families.length);
    for (const bending of batch.filter((p) => !p.scopable && p.mode !== 'explore')) {
      const origin = origins.get(bending.fault)!;
      expect(origin, `${bending.fault} bends every request: never a fault of the shared core`).not.toBe('core');
      for (const other of batch.filter((p) => p !== bending)) {
        const reached = [origins.get(other.fault)!, ...other.flows.flatMap((f) => FLOW_ORIGINS[f] ?? ['core'])];
        expect(
          reached,
          `${other.fault}'s checks must not reach ${origin}, where ${bending.fault} bends every request`,
        ).not.toContain(origin);
      }
    }
  }
  // Sharing is what keeps the matrix affordable: most faults share a run.
  expect(BATCHES.filter((b) => b.length > 1).flat().length).toBeGreaterThan(FAULTS.length / 2);
});

test('the exception lists name known faults (and flows) only', async () => {
  const known = new Set(FAULTS);
  for (const name of [
    ...Object.keys(KNOWN_UNDETECTED),
    ...Object.keys(LOAD_FAULTS),
    ...Object.keys(RUN_ENV),
    ...Object.keys(GREP_OVERRIDES),
    ...Object.keys(MUST_DETECT),
    ...Object.keys(FLOWS_BLIND),
    ...Object.keys(CAUSE_EXCEPTIONS),
  ])
    expect(known, `${name} is a fault of listFaults()`).toContain(name);
  for (const [name, reason] of Object.entries(KNOWN_UNDETECTED))
    expect(reason.length, `${name} needs a reason`).toBeGreaterThan(10);
  for (const [name, { flows }] of Object.entries(FLOWS_BLIND))
    expect(planOf(name).flows, `FLOWS_BLIND: flows ${name}'s run holds`).toEqual(expect.arrayContaining(flows));
  // Every flow says which plugins it sends requests to (a flow without an entry never shares a run).
  const flows = [...new Set((await listSuiteChecks()).filter((c) => c.flow).map((c) => c.flow!))].sort();
  expect(Object.keys(FLOW_ORIGINS).sort(), 'FLOW_ORIGINS (test/trust/matrix.ts) lists every flow of the suite').toEqual(
    flows,
  );
  const plugins = new Set([...faultOrigins().values()]);
  for (const [flow, origins] of Object.entries(FLOW_ORIGINS))
    for (const o of origins) expect(plugins, `FLOW_ORIGINS['${flow}']: ${o} is a fault origin`).toContain(o);
});

test('every flow of suites/flows/ detects at least one fault', async () => {
  const checks = await listSuiteChecks();
  const flows = suiteFlows(checks);
  // Every spec file of suites/flows/ defines a flow (a file that failed to load would define none).
  const files = [...new Set(checks.filter((c) => c.flow && flows.includes(c.flow)).map((c) => c.file))].sort();
  expect(files, 'spec files of suites/flows/ that define a flow').toEqual(flowSpecFiles());
  // The rows are what each fault's run found (each fault's test compares its row with its run).
  const rows = parseRows(committedDoc());
  expect(rows.length, STALE).toBe(FAULTS.length);
  const undetecting = flows.filter((f) => !rows.some((r) => r.flows.includes(f)));
  expect(
    undetecting,
    'flows that detect no fault: add a fault to the reference server that one of their steps must catch',
  ).toEqual([]);
  const section = renderFlows(rows, flows);
  expect(committedDoc().includes(section), `${STALE}\nexpected section:\n${section}`).toBe(true);
});

test('root causes first: every fault failing more than one check shows at most 3 causes, the first covering at least 80 % (issue 36)', () => {
  // The rows are what each fault's run found (each fault's test compares its row, causes included, with its run).
  const rows = parseRows(committedDoc());
  expect(rows.length, STALE).toBe(FAULTS.length);
  const run = new Set([...PLANS.values()].filter((p) => p.mode !== 'load').map((p) => p.fault));
  expect(
    rows.filter((r) => run.has(r.fault) && !r.causes).map((r) => r.fault),
    `rows of faults with failed checks and no causes: ${STALE}`,
  ).toEqual([]);
  const outside = rows.filter((r) => !withinCauseBound(r.causes));
  const show = (r: (typeof rows)[number]) =>
    `${r.fault}: ${r.causes!.causes} causes, the first ${r.causes!.first} of ${r.causes!.checks} checks`;
  expect(
    outside.filter((r) => CAUSE_EXCEPTIONS[r.fault] === undefined).map(show),
    'faults whose failures the report splits into too many causes (src/report/clusters.ts), or, if they genuinely have several, CAUSE_EXCEPTIONS (test/trust/matrix.ts) with the reason',
  ).toEqual([]);
  expect(
    Object.keys(CAUSE_EXCEPTIONS).filter((f) => !outside.some((r) => r.fault === f)),
    'CAUSE_EXCEPTIONS within the bound now: remove them',
  ).toEqual([]);
  for (const [name, reason] of Object.entries(CAUSE_EXCEPTIONS))
    expect(reason.length, `${name} needs a reason`).toBeGreaterThan(10);
  const section = renderCauseSection(rows);
  expect(committedDoc().includes(section), `${STALE}\nexpected section:\n${section}`).toBe(true);
});

test('docs/fault-matrix.md lists exactly the current faults and MUST requirements without one', async () => {
  const doc = committedDoc();
  expect(doc, STALE).not.toBe('');
  expect(
    parseRows(doc).map((r) => r.fault),
    STALE,
  ).toEqual(FAULTS);
  const checks = await listSuiteChecks();
  const section = renderUnfaulted(planFaults(checks), checks);
  expect(doc.includes(section), `${STALE}\nexpected section:\n${section}`).toBe(true);
});
