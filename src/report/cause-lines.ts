/**
 * The causes of a report as every text output shows them (console, summary.md, the page): one
 * line per cause, its representative failure, and what a reader needs to replay it. Pure.
 */
import type { CheckResult, Exchange } from '../model/finding.ts';
import type { Cluster, ConformanceReport } from '../model/report.ts';
import { clusterLine, namesRunValue } from './clusters.ts';
import { failureLine, shownExchange } from './failure-line.ts';

export interface CauseView {
  cluster: Cluster;
  /** The cause in one line, counts included; led by the operation when it has only one. */
  line: string;
  representative: CheckResult | undefined;
  /** The representative's failure in words (its headline). */
  example: string | undefined;
  /** The exchange the representative judged, with its curl line. */
  exchange: Exchange | undefined;
}

/** A report's causes as computed when it was written (none for a report written before causes). */
export function causeViews(report: Pick<ConformanceReport, 'checks' | 'clusters'>): CauseView[] {
  const byId = new Map(report.checks.map((c) => [c.id, c]));
  return (report.clusters ?? []).map((cluster) => {
    const representative = byId.get(cluster.representative);
    const only = cluster.operations.length === 1 ? `${cluster.operations[0]}: ` : '';
    return {
      cluster,
      line: `${only}${clusterLine(cluster)}`,
      representative,
      example: representative ? failureLine(representative) : undefined,
      exchange: representative ? shownExchange(representative) : undefined,
    };
  });
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "3 causes (1 MUST, 2 SHOULD)", or undefined when nothing of the target's failed. */
export function causeCount(clusters: readonly Cluster[]): string | undefined {
  if (clusters.length === 0) return undefined;
  const must = clusters.filter((c) => c.level === 'MUST').length;
  const should = clusters.length - must;
  const parts = [must ? `${must} MUST` : '', should ? `${should} SHOULD` : ''].filter(Boolean).join(', ');
  return `${plural(clusters.length, 'cause')} (${parts})`;
}

/**
 * What to say under a curl line so that it replays: the run removed what it created at teardown
 * (unless `--keep`), so a request naming one of its resources answers 404 afterwards.
 */
export function replayNote(
  report: Pick<ConformanceReport, 'kept' | 'run'>,
  check: CheckResult | undefined,
  exchange: Exchange | undefined,
): string {
  const key = 'Set CLOUDCHECK_API_KEY to the key of the account first';
  if (!exchange || !namesRunValue(exchange.request.url)) return `${key}.`;
  if (report.kept?.length) return `${key}; the resources it names were kept (--keep): it replays as it ran.`;
  const select = check ? ` --grep '${check.requirement}'` : '';
  return `${key}. The run removed what it created at teardown, so a request naming one of its resources now answers 404: run \`cloudcheck run --keep${select}\` (the flow's earlier steps come along) to keep them, replay, then \`cloudcheck sweep\`.`;
}
