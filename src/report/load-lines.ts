/**
 * The load section of report.json (src/model/load.ts) as flat lines for the text writers: one per
 * threshold or invariant of each profile.
 */
import type { LoadReport, LoadViolation } from '../model/load.ts';

export interface LoadLine {
  profile: string;
  name: string;
  expected: string;
  actual: string;
  passed: boolean;
}

export interface LoadOutcome {
  passed: boolean;
  profiles: Array<{ profile: string; passed: boolean; error?: string; lines: LoadLine[] }>;
}

export function loadOutcome(load: LoadReport | undefined): LoadOutcome | null {
  if (!load) return null;
  const profiles = load.profiles.map((p) => ({
    profile: p.profile,
    passed: p.passed,
    ...(p.error !== undefined ? { error: p.error } : {}),
    lines: p.thresholds.map((t) => ({
      profile: p.profile,
      name: t.name,
      expected: t.expected,
      actual: t.actual,
      passed: t.passed,
    })),
  }));
  return { passed: load.passed && profiles.every((p) => p.passed), profiles };
}

export interface ViolationGroup {
  invariant: string;
  key: string | null;
  count: number;
  /** The first violation of the group (lowest request index). */
  first: LoadViolation;
}

/** Violations by invariant and key, with how many and the first: one line each, never one per response. */
export function groupViolations(violations: readonly LoadViolation[]): ViolationGroup[] {
  const groups = new Map<string, ViolationGroup>();
  for (const v of violations) {
    const id = `${v.invariant}\u0000${v.key ?? ''}`;
    const group = groups.get(id);
    if (!group) groups.set(id, { invariant: v.invariant, key: v.key ?? null, count: 1, first: v });
    else {
      group.count++;
      if (v.index >= 0 && (group.first.index < 0 || v.index < group.first.index)) group.first = v;
    }
  }
  return [...groups.values()];
}

/**
 * Where a group's first violation is, as the console and the page both say it: "request N" counts
 * the key's requests from 1 (the wire's index counts from 0); null for a violation of the whole sequence.
 */
export function firstViolationAt(group: ViolationGroup): string | null {
  return group.first.index >= 0 ? `request ${group.first.index + 1}` : null;
}
