/**
 * `cloudcheck sweep --dry-run` lists what a sweep would delete and deletes nothing; the sweep after
 * it deletes the same. Against the reference server, with leftovers made as a run names them.
 */
import { expect, test } from '../base.ts';
import { startReferenceServer } from '../../reference/server.ts';
import { cli } from './helpers.ts';

test('sweep --dry-run lists the cc- leftovers and deletes nothing; the sweep then deletes them', async () => {
  const server = await startReferenceServer({ port: 0, s3Port: 0 });
  try {
    const send = (method: string, path: string, body?: unknown) =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect((await send('POST', '/projects', { name: 'cc-20260101-000000-abcd-left' })).status).toBe(201);
    expect((await send('POST', '/projects', { name: 'not-ours' })).status).toBe(201);
    const names = async () =>
      ((await (await send('GET', '/projects')).json()) as { projects: Array<{ name: string }> }).projects.map(
        (p) => p.name,
      );
    const env = { CLOUDCHECK_API_KEY: server.apiKey };
    const dry = await cli(['sweep', '--target', server.baseUrl, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would delete project \S+ \(cc-20260101-000000-abcd-left\)$/m);
    expect(dry.stdout).toMatch(/sweep --dry-run: 1 would be deleted, .*; nothing was deleted/);
    expect(dry.stdout).not.toContain('not-ours');
    expect(await names()).toContain('cc-20260101-000000-abcd-left');
    const real = await cli(['sweep', '--target', server.baseUrl], env);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/sweep: 1 deleted/);
    expect(await names()).toEqual(['not-ours']);
  } finally {
    await server.close();
  }
});
