/**
 * Measures REQUESTS_PER_CHECK (src/harness/run-estimate.ts): a full `cloudcheck run --har all`
 * against the reference server in this process. The server's request log gives each area's true
 * total (teardown and key management included, which the report's exchanges lack); the report's
 * exchanges give how the classes share it. Prints the table to paste. Not part of `npm run bench`
 * (a full run, about two minutes): `node --import tsx bench/requests-per-check.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceServer } from '../reference/server.ts';
import { areaOfPath } from '../spec/areas.ts';
import type { ConformanceReport } from '../src/model/report.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
type Counts = Record<string, number>;

function count(into: Counts, area: string, n = 1): void {
  into[area] = (into[area] ?? 0) + n;
}

const server = await startReferenceServer({ port: 0, s3Port: 0, recordRequests: true });
const dir = mkdtempSync(join(tmpdir(), 'cc-requests-per-check-'));
try {
  const env = {
    ...process.env,
    CLOUDCHECK_API_KEY: server.apiKey,
    CLOUDCHECK_ALT_API_KEY: server.altApiKey,
    CLOUDCHECK_KEYS_PER_WORKER: '6',
  };
  const args = ['run', '--target', server.baseUrl, '--s3-url', server.s3Url, '--allow-charges', '--har', 'all'];
  await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'cloudcheck.mjs'), ...args, '--report-dir', dir], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', resolve);
  });
  const base = new URL(server.baseUrl).pathname;
  const truth: Counts = {};
  for (const entry of server.context.requestLog) count(truth, areaOfPath(entry.path.split('?')[0]!.slice(base.length)));
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceReport;
  const byClass = new Map<string, { checks: number; areas: Counts }>();
  const recorded: Counts = {};
  for (const check of report.checks) {
    const entry = byClass.get(check.class) ?? { checks: 0, areas: {} };
    byClass.set(check.class, entry);
    entry.checks++;
    for (const exchange of check.exchanges ?? []) {
      const path = new URL(exchange.request.url).pathname;
      if (!path.startsWith(base)) continue;
      const area = areaOfPath(path.slice(base.length));
      count(entry.areas, area);
      count(recorded, area);
    }
  }
  console.log(`${server.context.requestLog.length} requests:`, truth);
  for (const [cls, { checks, areas }] of byClass) {
    // The rate-limit checks' bursts go to keys they create: outside the budget.
    const kept = Object.entries(areas).filter(
      ([area]) => area !== 'other' && (cls !== 'rate-limits' || area === 'billing'),
    );
    const cells = kept
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([area, n]) => `${area}: ${Math.round((100 * n * (truth[area] ?? 0)) / (recorded[area] ?? 1) / checks) / 100}`,
      );
    console.log(`  '${cls}': { ${cells.join(', ')} },`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
}
