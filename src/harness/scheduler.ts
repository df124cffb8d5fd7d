/**
 * A Playwright reporter that reports nothing: it runs in the runner once the selected checks are
 * known and before Playwright groups them for its workers, and does two things for the run's
 * critical path.
 *
 * - Long chains first. Playwright hands its workers the groups of tests in the order of the suite
 *   files (a flow is one group, its steps run in a row). Flows are the run's long chains (a rate-
 *   limit burst is a hundred round trips in a row), and in file order they started near the end,
 *   where they made the run's tail. Files are put in this order (placeOf): those with a check
 *   tagged `@early` (a flow that waits for something slow it cannot start before it runs: the
 *   compute events flow's VPS is created after its webhook), then files with flows (the longest
 *   flow first), then the rest as they were, and last the files whose checks take a late
 *   provision (a VPS). The order is that of the suite files' entries (`Suite.entries()`, which Playwright 1.65
 *   returns as the suite's own list; were it a copy, the order would simply stay as it was).
 * - Slow provisioning started at once (provision.ts): the provisions of every selected check, and
 *   a pool's members for the groups that want one (at most one per worker), before any worker
 *   starts. Not in a sharded run (this suite is the whole selection, before the shard).
 */
import type { FullConfig, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import { ANNOTATION } from './fixtures.ts';
import { isLate } from './provision.ts';
import type { Provisioner } from './provision.ts';

const PROVISIONER = Symbol.for('cloudcheck.provisioner');
type Holder = { [PROVISIONER]?: Provisioner };

/** The run's provisioner, set by the global setup in the runner (none in a worker, a listing or a shard). */
export function setProvisioner(provisioner: Provisioner | undefined): void {
  (globalThis as Holder)[PROVISIONER] = provisioner;
}
export function activeProvisioner(): Provisioner | undefined {
  return (globalThis as Holder)[PROVISIONER];
}

/** Tag of a check whose flow should start first (CheckMeta/FlowMeta `tags: ['early']`). */
export const EARLY_TAG = '@early';

function annotation(test: TestCase, type: string): string | undefined {
  return test.annotations.find((a) => a.type === type)?.description;
}

/** Steps of the longest flow in a file suite (0: no flow). */
function longestFlow(file: Suite): number {
  const steps = new Map<string, number>();
  for (const test of file.allTests()) {
    const flow = annotation(test, ANNOTATION.flow);
    if (flow) steps.set(flow, (steps.get(flow) ?? 0) + 1);
  }
  return Math.max(0, ...steps.values());
}

/**
 * The place of a file in the run: 0 a check tagged early, 1 flows, 2 the rest, 3 checks that
 * take a late provision (a VPS), the longest flow first within 1 and 3. Those last: what they take has been booting
 * since the run began, and a worker that reaches one before it is ready waits, doing nothing else.
 */
function placeOf(file: Suite): [place: number, longest: number] {
  const tests = file.allTests();
  if (tests.some((t) => t.tags.includes(EARLY_TAG))) return [0, 0];
  // Within a place, the longest flow first (0 steps: no flow).
  const flow = -longestFlow(file);
  if (tests.some((t) => annotation(t, ANNOTATION.provision)?.split(',').some(isLate))) return [3, flow];
  return flow < 0 ? [1, flow] : [2, 0];
}

/** Sorts the file suites of each project by their place (placeOf), in file order within one. */
export function orderForCriticalPath(root: Suite): void {
  for (const project of root.suites) {
    const files = project.entries();
    const rank = new Map<Suite | TestCase, [number, number, number]>();
    files.forEach((entry, index) => {
      const [place, longest] = entry.type === 'file' ? placeOf(entry) : [2, 0];
      rank.set(entry, [place, longest, index]);
    });
    files.sort((a, b) => {
      const [x, y] = [rank.get(a)!, rank.get(b)!];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
  }
}

/** Starts the provisions the selected checks declare (their `cc.provision` annotation). */
export function startProvisions(root: Suite, provisioner: Provisioner, workers: number): void {
  const poolGroups = new Map<string, Set<Suite>>();
  for (const test of root.allTests()) {
    const names = annotation(test, ANNOTATION.provision);
    const owner = annotation(test, ANNOTATION.id);
    if (!names || !owner) continue;
    for (const name of names.split(',')) {
      if (provisioner.isPool(name)) {
        const groups = poolGroups.get(name) ?? new Set<Suite>();
        groups.add(test.parent);
        poolGroups.set(name, groups);
      } else provisioner.start(name, owner);
    }
  }
  for (const [name, groups] of poolGroups) provisioner.startPool(name, Math.min(groups.size, workers));
}

export default class Scheduler implements Reporter {
  preprocess({ config, suite }: { config: FullConfig; suite: Suite }): Promise<void> {
    orderForCriticalPath(suite);
    const provisioner = activeProvisioner();
    if (provisioner && !config.shard) startProvisions(suite, provisioner, config.workers);
    return Promise.resolve();
  }

  printsToStdio(): boolean {
    return false;
  }
}
