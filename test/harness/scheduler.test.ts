/**
 * The scheduler (src/harness/scheduler.ts) puts the run's long chains first and the checks that
 * take a provision last, and starts the provisions of the selected checks: a pool once per group
 * that wants one, at most one per worker.
 */
import { expect, test } from '../base.ts';
import type { Suite, TestCase } from '@playwright/test/reporter';
import { orderForCriticalPath, startProvisions } from '../../src/harness/scheduler.ts';
import { Provision } from '../../src/harness/provision.ts';
import type { Provisioner } from '../../src/harness/provision.ts';

// Declared as suite files declare them (the scheduler reads their options by name).
new Provision('test.scheduler.boot', () => Promise.resolve(null), { late: true });
new Provision('test.scheduler.key', () => Promise.resolve(null));

interface FakeTest {
  tags: string[];
  annotations: Array<{ type: string; description?: string }>;
  parent: FakeSuite;
}
interface FakeSuite {
  type: 'root' | 'project' | 'file' | 'describe';
  title: string;
  children: Array<FakeSuite | FakeTest>;
}

/**
 * The parts of Playwright's Suite the scheduler reads, over plain objects: `entries()` gives the
 * suite's own list, as Playwright 1.65's does.
 */
function asSuite(fake: FakeSuite): Suite {
  const tests = (s: FakeSuite): FakeTest[] => s.children.flatMap((c) => ('children' in c ? tests(c) : [c]));
  const entries = fake.children.map((c) => ('children' in c ? asSuite(c) : c));
  return {
    type: fake.type,
    title: fake.title,
    entries: () => entries,
    suites: entries.filter((e) => 'entries' in e),
    allTests: () => tests(fake),
  } as unknown as Suite;
}

function file(title: string, ...tests: Array<Partial<FakeTest> & { flow?: string; provision?: string }>): FakeSuite {
  const suite: FakeSuite = { type: 'file', title, children: [] };
  for (const t of tests) {
    const annotations = [
      ...(t.flow ? [{ type: 'cc.flow', description: t.flow }] : []),
      ...(t.provision ? [{ type: 'cc.provision', description: t.provision }] : []),
      { type: 'cc.id', description: `${title}#${suite.children.length}` },
    ];
    suite.children.push({ tags: t.tags ?? [], annotations, parent: suite });
  }
  return suite;
}

test('early files first, then flows (the longest first), then the rest, and checks taking a late provision last', () => {
  const files = [
    file('auth', {}, {}),
    file('contract-compute', { provision: 'test.scheduler.boot' }, {}),
    file('flow-key', { flow: 'f.k' }, { flow: 'f.k', provision: 'test.scheduler.key' }),
    file('flow-short', { flow: 'f.s' }, { flow: 'f.s' }),
    file('errors', {}),
    file('flow-events', { flow: 'f.e', tags: ['@early'] }),
    file('flow-long', { flow: 'f.l' }, { flow: 'f.l' }, { flow: 'f.l' }),
    file('flow-vps', { flow: 'f.v', provision: 'test.scheduler.boot' }, { flow: 'f.v' }),
  ];
  const root = asSuite({
    type: 'root',
    title: '',
    children: [{ type: 'project', title: 'conformance', children: files }],
  });
  orderForCriticalPath(root);
  const entries = root.suites[0]!.entries();
  expect(entries.map((e) => e.title)).toEqual([
    'flow-events',
    'flow-long',
    'flow-key',
    'flow-short',
    'auth',
    'errors',
    'flow-vps',
    'contract-compute',
  ]);
});

test('provisions start for the selected checks; a pool once per group that wants one, at most one per worker', () => {
  const started: string[] = [];
  const pools: Array<[string, number]> = [];
  const provisioner = {
    isPool: (name: string) => name === 'pool',
    start: (name: string, owner: string) => started.push(`${name} for ${owner}`),
    startPool: (name: string, count: number) => pools.push([name, count]),
  } as unknown as Provisioner;
  const groups = ['a', 'b', 'c'].map((title): FakeSuite => ({ type: 'describe', title, children: [] }));
  const wantPool = (group: FakeSuite, id: string): FakeTest => {
    const t: FakeTest = {
      tags: [],
      annotations: [
        { type: 'cc.id', description: id },
        { type: 'cc.provision', description: 'pool' },
      ],
      parent: group,
    };
    group.children.push(t);
    return t;
  };
  wantPool(groups[0]!, 'a1');
  wantPool(groups[0]!, 'a2');
  wantPool(groups[1]!, 'b1');
  wantPool(groups[2]!, 'c1');
  const flow = file('flow', { flow: 'f', provision: 'flow.vps' }, { flow: 'f' });
  const tests = [...groups.flatMap((g) => g.children as FakeTest[]), ...(flow.children as FakeTest[])];
  const root = { allTests: () => tests as unknown as TestCase[] } as unknown as Suite;
  startProvisions(root, provisioner, 2);
  expect(started).toEqual(['flow.vps for flow#0']);
  expect(pools).toEqual([['pool', 2]]);
  pools.length = 0;
  startProvisions(root, provisioner, 8);
  expect(pools).toEqual([['pool', 3]]);
});
