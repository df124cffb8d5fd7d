/**
 * Several keys of the account (--api-key repeated): a run whose key may not create keys spreads its
 * budget over the keys given, and says in its first lines what its budget makes it last.
 */
import { expect, test } from '../base.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/server.ts';
import { cli } from './helpers.ts';

test('--api-key repeated: the more keys of the account share the run budget, and the first lines say the budget', async () => {
  test.setTimeout(120_000);
  const server = await startReferenceServer({ port: 0, s3Port: 0, recordRequests: true });
  const dir = mkdtempSync(join(tmpdir(), 'cc-keys-'));
  try {
    const res = await fetch(`${server.baseUrl}/account/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'second key of the account', permissions: ['read', 'write'] }),
    });
    const second = ((await res.json()) as { api_key: { key: string; prefix: string } }).api_key;
    const r = await cli(
      ['run', '--target', server.baseUrl, '--api-key', server.apiKey, '--api-key', second.key],
      // No key of its own: as against a target whose key may not create keys.
      { CLOUDCHECK_KEYS_PER_WORKER: '0', CLOUDCHECK_CLASSES: 'pagination', CLOUDCHECK_REPORT_DIR: dir },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const budget = lines.findIndex((l) => l.includes('budget: about'));
    // Among the first lines: the run line, the selection, then the budget.
    expect(budget, r.stderr).toBeGreaterThan(0);
    expect(budget).toBeLessThan(4);
    expect(lines[budget]).toMatch(
      /budget: about [\d,]+ requests over 2 keys of the account; no key's limit makes it wait/,
    );
    // Both keys sent checks' requests, and neither shows in the output.
    const used = new Set(server.context.requestLog.map((e) => e.keyPrefix));
    expect(used.has(second.prefix)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(second.key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
