/**
 * `cloudcheck run --grep R` passes against the conformant embedded server for every requirement R
 * that has a check, and reports R's checks only: a selected flow step must bring its earlier steps
 * (selection.ts, as setup that is not reported when it passes), and no check may depend on another
 * one the selection leaves out.
 *
 * Cheaply: one repetition of a run per group instead of one run per requirement (three runs in
 * all). A group never holds two requirements of the same flow, so each flow runs in the group
 * exactly the prefix it runs for that one requirement alone (up to its last step of the
 * requirement), and the other members' checks are other checks: the group passes exactly when
 * each member's own run would.
 *
 * Requirements without a flow step are listed, not run: `run --list --grep` of all of them must
 * select exactly their checks. Run together in one group (as they were, a run of some 900 checks
 * and 20 s of CPU) they would show no more than that they pass beside each other, which the full
 * runs show already (test/trust/safety.test.ts, the variant matrix, `npm start`).
 */
import { expect, test } from '../base.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRequirements } from '../../spec/requirements.ts';
import { listSuiteChecks, startRepetitions, type CatalogueCheck } from './matrix.ts';

/** Requirements with checks, grouped so that no two members share a flow (greedy, biggest first). */
export function grepGroups(checks: readonly CatalogueCheck[]): string[][] {
  const flowsOf = new Map<string, Set<string>>();
  for (const c of checks) {
    if (c.kind === 'run-wide') continue;
    const flows = flowsOf.get(c.requirement) ?? new Set<string>();
    if (c.flow) flows.add(c.flow);
    flowsOf.set(c.requirement, flows);
  }
  const requirements = [...flowsOf.keys()].sort(
    (a, b) => flowsOf.get(b)!.size - flowsOf.get(a)!.size || a.localeCompare(b),
  );
  const groups: Array<{ members: string[]; flows: Set<string> }> = [];
  for (const requirement of requirements) {
    const flows = flowsOf.get(requirement)!;
    let group = groups.find((g) => [...flows].every((f) => !g.flows.has(f)));
    if (!group) groups.push((group = { members: [], flows: new Set() }));
    group.members.push(requirement);
    for (const f of flows) group.flows.add(f);
  }
  return groups.map((g) => g.members.sort());
}

/**
 * Requirements (MUST and SHOULD) no check of `cloudcheck run` names yet, and not marked
 * not_checkable (every stated requirement and every convention checked). The test asserts this
 * list is exactly the gap, so it can only shrink.
 */
export const KNOWN_UNCHECKED: readonly string[] = [];

const BIN = fileURLToPath(new URL('../../bin/cloudcheck.mjs', import.meta.url));

/** The requirements of the checks `cloudcheck run --list --grep <grep>` selects (the listing's second column). */
function listedRequirements(grep: string): string[] {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CLOUDCHECK_')));
  const out = spawnSync(process.execPath, [BIN, 'run', '--list', '--grep', grep], {
    env: clean,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (out.status !== 0) throw new Error(`run --list exited ${out.status}:\n${out.stderr.slice(-2000)}`);
  return out.stdout
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s+/)[1] ?? '')
    .filter((id) => /^[A-Z0-9]+(?:-[A-Z0-9]+)+$/.test(id));
}

test('every requirement with a check passes alone under --grep (grouped runs, no flow twice in a group)', async () => {
  test.setTimeout(15 * 60_000);
  const checks = await listSuiteChecks();
  const inFlow = new Set(checks.filter((c) => c.flow).map((c) => c.requirement));
  const groups = grepGroups(checks.filter((c) => inFlow.has(c.requirement)));
  const runWide = new Set(checks.filter((c) => c.kind === 'run-wide').map((c) => c.requirement));
  const plain = [
    ...new Set(checks.filter((c) => c.kind !== 'run-wide' && !inFlow.has(c.requirement)).map((c) => c.requirement)),
  ].sort();
  const problems: string[] = [];
  const reportedAll = new Set<string>();
  // The requirements without a flow step: their grep selects exactly their checks, each at least one.
  const listed = new Set(listedRequirements(`\\[(${plain.join('|')})\\]`).filter((id) => !runWide.has(id)));
  const unlisted = plain.filter((r) => !listed.has(r));
  if (unlisted.length) problems.push(`selected by no listing: ${unlisted.join(', ')}`);
  const foreign = [...listed].filter((r) => !plain.includes(r));
  if (foreign.length) problems.push(`listed beyond the requirements without a flow: ${foreign.join(', ')}`);
  for (const id of listed) reportedAll.add(id);
  // Each group is a repetition of a run (selection.ts: repetition k selects group k's grep alone,
  // its checks under the ids `<id>#k`, its flows their own), so that a run's start-up is paid three
  // times instead of once per group. Repetitions run in turn in one worker, each as it would alone.
  const walkRun = async (run: string[][], workers = 1): Promise<void> => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-grep-walk-'));
    try {
      const outcome = await startRepetitions(
        run.map((members) => `\\[(${members.join('|')})\\]`),
        dir,
        run[0]![0]!,
        workers,
      );
      if (outcome.error)
        problems.push(`run of ${run.length} groups (${run[0]!.slice(0, 4).join(', ')}…): ${outcome.error}`);
      else if (outcome.exit !== 0) {
        const failed = outcome.repetitions.flatMap((checks, k) =>
          checks.filter((c) => c.status === 'failed').map((c) => `${c.id} in group ${k} (${c.classification ?? ''})`),
        );
        problems.push(
          `run of ${run.length} groups (${run[0]!.slice(0, 4).join(', ')}…) exited ${outcome.exit}: ${failed.join(', ')}`,
        );
      }
      run.forEach((members, k) => {
        const reported = new Set(outcome.repetitions[k]!.map((c) => c.requirement));
        for (const id of reported) reportedAll.add(id);
        const missing = members.filter((r) => !reported.has(r));
        if (missing.length && !outcome.error) problems.push(`selected but not reported: ${missing.join(', ')}`);
        // Only the members' checks: the earlier steps a flow prefix needs run as setup, unreported
        // (the run-wide invariants come with the burst flows, which feed them).
        const beyond = [...reported].filter((id) => !members.includes(id) && !runWide.has(id));
        if (beyond.length)
          problems.push(`group ${members.slice(0, 3).join(', ')}… reported beyond its selection: ${beyond.join(', ')}`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Three runs at once: a run is partly waiting (the flows' delivery and boot delays, in turn in
  // its one worker), so they overlap on the CPU; each run is the repetitions of its groups.
  await Promise.all([0, 1, 2].map((lane) => walkRun(groups.filter((_g, i) => i % 3 === lane))));
  expect(problems).toEqual([]);
  // The groups and the listing together select every check of the suite: they name a check for
  // every requirement of the catalogue, MUST or SHOULD, that is not marked not_checkable (and not a known gap).
  const unnamed = loadRequirements()
    .filter((r) => !r.not_checkable && !reportedAll.has(r.id))
    .map((r) => r.id)
    .sort();
  expect(unnamed, 'requirements no check of cloudcheck run names (KNOWN_UNCHECKED must list exactly these)').toEqual(
    [...KNOWN_UNCHECKED].sort(),
  );
});
