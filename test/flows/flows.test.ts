/**
 * Every flow of suites/flows/ passes against the reference server, step for step: one
 * `cloudcheck run` of all of them (the list derived from the suite), every step passed, none
 * skipped, nothing left behind, exit 0.
 *
 * That each flow fails, naming the broken requirement, against the faults that break what it
 * checks is proved by the fault matrix (test/trust/fault-matrix.test.ts): a flow holding a check of
 * a fault's requirement runs whole in that fault's run and must fail on it and on nothing else,
 * and every flow must detect at least one fault.
 */
import { expect, test } from '../base.ts';
import { listSuiteChecks, suiteFlows } from '../trust/matrix.ts';
import { expectAllPassed, runFlow } from './faulty-run.ts';

/** Steps per flow: a flow that silently loses steps (a refactoring, a step that no longer registers) fails here. */
const EXPECTED_STEPS: Record<string, number> = {
  'flow.api-keys': 13,
  'flow.billing': 16,
  'flow.buckets': 6,
  'flow.compute-events': 3,
  'flow.isolation': 10,
  'flow.messaging-consistency': 14,
  'flow.messaging-lists': 9,
  'flow.multipart-upload': 13,
  'flow.objects-listing': 15,
  'flow.presigned-urls': 10,
  'flow.projects': 9,
  'flow.template-send': 7,
  'flow.test-mode-numbers': 9,
  'flow.volumes': 17,
  'flow.vps-lifecycle': 25,
  'flow.webhooks': 9,
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

test('every flow of suites/flows/ passes against the reference server, step for step', async () => {
  const checks = await listSuiteChecks();
  const flows = suiteFlows(checks);
  expect(Object.keys(EXPECTED_STEPS).sort(), 'EXPECTED_STEPS lists exactly the flows of suites/flows/').toEqual(flows);
  const steps = checks.filter((c) => c.flow && flows.includes(c.flow));
  const titles = [...new Set(steps.map((c) => c.flowTitle!))];
  const classes = [...new Set(steps.map((c) => c.class))];

  const run = await runFlow({ classes, grep: titles.map(escapeRegExp).join('|') });
  expectAllPassed(run, steps.length);

  const flowOf = new Map(steps.map((c) => [c.id, c.flow!]));
  const passed = (flow: string): number =>
    run.report.checks.filter((c) => c.status === 'passed' && flowOf.get(c.id) === flow).length;
  expect(Object.fromEntries(flows.map((f) => [f, passed(f)])), 'passed steps per flow').toEqual(EXPECTED_STEPS);
  // The grep selects the flows and nothing else.
  expect(run.report.checks.filter((c) => !flowOf.has(c.id)).map((c) => c.id)).toEqual([]);
});
