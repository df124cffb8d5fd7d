/** Terminal summary of load results: takes finished results, returns text (no runner imports). */
import { STATUS_CLASSES } from '../src/model/load.ts';
import type { LoadReport, ProfileResult } from '../src/model/load.ts';
import { firstViolationAt, groupViolations } from '../src/report/load-lines.ts';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Columns aligned up to 70 characters; a longer cell is shown whole (never cut) and pushes its row. */
function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.min(70, Math.max(...rows.map((r) => (r[i] ?? '').length)))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => pad(c, widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Requests per second and bytes received, as k6 puts them first; requests still in flight when the duration ended are said, not dropped. */
function throughput(r: ProfileResult): string {
  const seconds = Math.max(r.duration_ms, 1) / 1000;
  const parts = [`${(r.requests.completed / seconds).toFixed(1)} req/s`];
  if (r.requests.bytes_received !== undefined)
    parts.push(
      `${(r.requests.bytes_received / 1e6).toFixed(2)} MB received (${(r.requests.bytes_received / 1e6 / seconds).toFixed(2)} MB/s)`,
    );
  const inFlight = r.requests.sent - r.requests.completed - r.requests.network_errors;
  if (inFlight > 0)
    parts.push(`${inFlight} request${inFlight === 1 ? '' : 's'} still in flight when the duration ended (not counted)`);
  if (r.requests.dropped)
    parts.push(`${r.requests.dropped} arrival${r.requests.dropped === 1 ? '' : 's'} dropped (every connection busy)`);
  return `throughput ${parts.join(', ')}`;
}

export function formatProfile(r: ProfileResult): string {
  const lines: string[] = [];
  const verdict = r.error ? 'ERROR' : r.passed ? 'PASS' : 'FAIL';
  lines.push(
    `${verdict}  ${r.profile}  (${r.file}, ${(r.duration_ms / 1000).toFixed(1)}s, ${r.requests.completed}/${r.requests.sent} responses)`,
  );
  if (r.error) lines.push(`  error: ${r.error}`);
  const statuses = Object.entries(r.requests.by_status)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  if (statuses)
    lines.push(`  statuses ${statuses}${r.requests.network_errors ? ` timeouts:${r.requests.network_errors}` : ''}`);
  lines.push(`  ${throughput(r)}`);
  const lat = STATUS_CLASSES.filter((c) => r.latency_ms[c]).map((c) => {
    const s = r.latency_ms[c]!;
    return [`  ${c}`, String(s.count), `${s.p50}`, `${s.p95}`, `${s.p99}`, `${s.max}`];
  });
  if (lat.length > 0) {
    lines.push(table([['  latency ms', 'count', 'p50', 'p95', 'p99', 'max'], ...lat]));
  }
  if (r.thresholds.length > 0) {
    lines.push(
      table([
        ['  check', 'expected', 'actual', ''],
        ...r.thresholds.map((t) => [`  ${t.name}`, t.expected, t.actual, t.passed ? 'pass' : 'FAIL']),
      ]),
    );
  }
  for (const g of groupViolations(r.violations)) {
    const at = firstViolationAt(g);
    const where = at ? ` (first at ${at})` : '';
    lines.push(
      `  violated ${g.invariant}${g.key ? ` on key ${g.key}` : ''}: ${g.count} time${g.count === 1 ? '' : 's'}${where}: ${g.first.message}`,
    );
  }
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return lines.join('\n');
}

export function formatSummary(report: LoadReport, reportPath?: string): string {
  const parts = report.profiles.map(formatProfile);
  const failed = report.profiles.filter((p) => !p.passed);
  const failedInvariants = [...new Set(failed.flatMap((p) => p.violations.map((v) => v.invariant)))];
  let tail = report.passed
    ? `load: all ${report.profiles.length} profile(s) passed`
    : `load: ${failed.length} of ${report.profiles.length} profile(s) failed: ${failed.map((p) => p.profile).join(', ')}`;
  if (failedInvariants.length > 0) tail += `; invariants violated: ${failedInvariants.join(', ')}`;
  if (reportPath) tail += `\nreport: ${reportPath}`;
  return `${parts.join('\n\n')}\n\n${tail}\n`;
}
