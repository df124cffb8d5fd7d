/**
 * The hand-off of the embedded server's address from `cloudcheck run` to the global setup: read
 * whole once written, removed after reading, private to the user, and an error fails at once.
 */
import { expect, test } from '../base.ts';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awaitHandoff, writeHandoff } from '../../src/harness/target-handoff.ts';

test('the setup waits for the file, reads it and removes it; the file is readable by its owner only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-handoff-'));
  try {
    const file = join(dir, 'target.json');
    const waiting = awaitHandoff(file, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    writeHandoff(file, { target: 'http://127.0.0.1:1/v1', s3Url: null, apiKey: 'k', altApiKey: null });
    expect(statSync(file).mode & 0o077, 'no access for group or others').toBe(0);
    expect((await waiting).target).toBe('http://127.0.0.1:1/v1');
    expect(existsSync(file)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an error in the hand-off fails the setup with it; no hand-off fails after the timeout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-handoff-'));
  try {
    const file = join(dir, 'target.json');
    writeHandoff(file, { error: 'port in use' });
    await expect(awaitHandoff(file, 5_000)).rejects.toThrow('the embedded server did not start: port in use');
    await expect(awaitHandoff(join(dir, 'never.json'), 100)).rejects.toThrow('did not arrive');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
