/**
 * The load section of report.json (written by `cloudcheck load`, load/result.ts) as flat lines for
 * the text writers: one per threshold or invariant of each profile. Read defensively: the section
 * may come from another version or a hand-merged file.
 */
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

const text = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : String(value));

export function loadOutcome(load: unknown): LoadOutcome | null {
  if (!load || typeof load !== 'object') return null;
  const raw = (load as { profiles?: unknown }).profiles;
  if (!Array.isArray(raw)) return null;
  const profiles = raw
    .filter((p): p is Record<string, unknown> => !!p && typeof p === 'object')
    .map((p) => {
      const profile = text(p.profile) || 'unnamed';
      const thresholds = Array.isArray(p.thresholds) ? (p.thresholds as Array<Record<string, unknown>>) : [];
      const lines = thresholds.map((t) => ({
        profile,
        name: text(t.name),
        expected: text(t.expected),
        actual: text(t.actual),
        passed: t.passed === true,
      }));
      return { profile, passed: p.passed === true, ...(typeof p.error === 'string' ? { error: p.error } : {}), lines };
    });
  return { passed: (load as { passed?: unknown }).passed === true && profiles.every((p) => p.passed), profiles };
}
