/**
 * Writes docs/fault-matrix.md: runs every fault of the reference server the way
 * test/trust/fault-matrix.test.ts does (same plans, ./matrix.ts) and renders the table.
 *
 *   node --import tsx test/trust/write-fault-matrix.ts            # CLOUDCHECK_MATRIX_CONCURRENCY=N to tune
 *
 * A separate script rather than a mode of the test: the table needs every fault's outcome at once,
 * and the test's faults run in parallel workers that share nothing. The test compares each fault's
 * row (and the section on requirements without a fault) with the committed file, so a stale table
 * fails `npm test`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DOC_PATH, ROOT, listSuiteChecks, planFaults, runAll, suiteFlows } from './matrix.ts';
import { renderDoc } from './matrix-doc.ts';

const started = Date.now();
const checks = await listSuiteChecks();
const plans = planFaults(checks);
const concurrency = Number(process.env.CLOUDCHECK_MATRIX_CONCURRENCY) || 2 * availableParallelism();
const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-fault-matrix-'));
let done = 0;
try {
  const outcomes = await runAll(plans, concurrency, dir, (o) => {
    done += 1;
    process.stderr.write(
      `[${done}/${plans.length}] ${o.detected ? 'detected  ' : 'UNDETECTED'} ${o.fault} (exit ${o.exit}, ${Math.round(o.durationMs / 1000)} s)${o.detected ? '' : `\n${(o.error ?? o.summary).slice(-1500)}`}\n`,
    );
  });
  writeFileSync(DOC_PATH, renderDoc(plans, outcomes, checks, suiteFlows(checks)));
  const undetected = plans.filter((p) => !outcomes.get(p.fault)!.detected).map((p) => p.fault);
  process.stderr.write(
    `wrote ${relative(ROOT, DOC_PATH)} in ${Math.round((Date.now() - started) / 1000)} s: ${plans.length} faults, ${undetected.length} undetected${undetected.length ? ` (${undetected.join(', ')})` : ''}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
