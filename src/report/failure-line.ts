/**
 * What a failed check says in one line, in every output (console, summary.md, JUnit): its
 * failure's headline (the operation, the expectation and what came back), or, in reports written
 * before failures were data, the first line of its message.
 */
import type { CheckResult, Exchange } from '../model/finding.ts';

export function failureLine(check: Pick<CheckResult, 'failure' | 'message'>): string | undefined {
  return check.failure?.headline ?? check.message?.replace(/^Error: /, '').split('\n')[0];
}

/** The exchange a reproduction shows: the one the failure judged, else the check's last. */
export function shownExchange(check: Pick<CheckResult, 'failure' | 'exchanges'>): Exchange | undefined {
  const judged = check.failure?.exchanges?.[0];
  return (judged !== undefined ? check.exchanges?.[judged] : undefined) ?? check.exchanges?.at(-1);
}
