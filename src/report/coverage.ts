/**
 * Coverage per operation: how many checks name it, and which statuses the run actually saw for
 * it (read from the recorded exchanges, matched against the operation templates). Operations of
 * the endpoint inventory with no check show up with 0, so gaps are visible.
 */
import type { CheckResult } from '../model/finding.ts';
import type { OperationCoverage } from '../model/report.ts';
import { operationMatcher } from '../../spec/operation-of.ts';

/** A check as coverage reads it: its operation, its status and `[method, url, status]` of each request it made. */
export interface CoverageInput {
  operation: CheckResult['operation'];
  status: CheckResult['status'];
  seen: ReadonlyArray<readonly [method: string, url: string, status: number | null]>;
}

/** `/v1/vps/1?x` of `http://host/v1/vps/1?x` relative to the target's path (`/v1`). */
function relativePathAndQuery(url: string, basePath: string): string | null {
  try {
    const u = new URL(url);
    let p = u.pathname;
    if (basePath && p.startsWith(basePath)) p = p.slice(basePath.length) || '/';
    return p + u.search;
  } catch {
    return null;
  }
}

export function computeCoverage(
  checks: readonly CoverageInput[],
  inventory: string[],
  target: string,
): OperationCoverage[] {
  let basePath: string;
  try {
    basePath = new URL(target).pathname.replace(/\/+$/, '');
  } catch {
    basePath = '';
  }
  const operations = new Set<string>(inventory);
  for (const c of checks) if (c.operation) operations.add(c.operation);
  const operationOf = operationMatcher(operations);
  const rows = new Map<string, OperationCoverage & { statuses: Set<number> }>();
  for (const op of operations)
    rows.set(op, { operation: op, checks: 0, statuses_seen: [], passed: 0, failed: 0, statuses: new Set() });
  for (const c of checks) {
    if (c.operation) {
      const row = rows.get(c.operation)!;
      row.checks++;
      if (c.status === 'passed') row.passed!++;
      if (c.status === 'failed') row.failed!++;
    }
    for (const [method, url, status] of c.seen) {
      if (status === null) continue;
      const rel = relativePathAndQuery(url, basePath);
      if (rel === null) continue;
      const operation = operationOf(method, rel);
      if (operation) rows.get(operation)!.statuses.add(status);
    }
  }
  return [...rows.values()]
    .map(({ statuses, ...row }) => ({ ...row, statuses_seen: [...statuses].sort((a, b) => a - b) }))
    .sort(
      (a, b) =>
        a.operation.split(' ')[1]!.localeCompare(b.operation.split(' ')[1]!) || a.operation.localeCompare(b.operation),
    );
}

/**
 * Reads the operation list from spec/endpoint-inventory.ts when it exists. Accepts an exported
 * array (default or named) of `METHOD /path` strings or of objects with `operation` or
 * `method` + `path`.
 */
export async function loadInventory(moduleUrl: URL): Promise<string[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(moduleUrl.href)) as Record<string, unknown>;
  } catch {
    return [];
  }
  for (const value of Object.values(mod)) {
    const list = typeof value === 'function' ? safeCall(value as () => unknown) : value;
    if (!Array.isArray(list) || list.length === 0) continue;
    const ops = list.map(toOperation).filter((o): o is string => o !== null);
    if (ops.length === list.length) return ops;
  }
  return [];
}

function safeCall(fn: () => unknown): unknown {
  try {
    return fn.length === 0 ? fn() : undefined;
  } catch {
    return undefined;
  }
}

function toOperation(item: unknown): string | null {
  if (typeof item === 'string') return /^[A-Z]+ \//.test(item) ? item : null;
  if (item && typeof item === 'object') {
    const o = item as Record<string, unknown>;
    if (typeof o.operation === 'string') return o.operation;
    if (typeof o.method === 'string' && typeof o.path === 'string') return `${o.method.toUpperCase()} ${o.path}`;
  }
  return null;
}
