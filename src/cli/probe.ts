/**
 * Before a run: is the target reachable, and does it accept the key? `GET /account` is cheap,
 * exists on every conforming target and needs only read permission. 401/403 → the key was
 * rejected; no response → cannot reach. Anything else (even 404 or 500) means "reachable with a
 * valid key"; the checks will say what is wrong.
 */
import { Agent, request } from 'undici';
import { UsageError } from '../config/resolve.ts';

/** 10 s, or CLOUDCHECK_REQUEST_TIMEOUT_MS when that is set and shorter (tests of broken targets). */
function defaultProbeTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const fixed = Number(env.CLOUDCHECK_REQUEST_TIMEOUT_MS);
  return Number.isFinite(fixed) && fixed > 0 ? Math.min(fixed, 10_000) : 10_000;
}

export async function probeTarget(target: string, key: string, what = 'the API key', timeoutMs = defaultProbeTimeoutMs()): Promise<void> {
  const agent = new Agent({ connect: { timeout: timeoutMs } });
  const url = `${target.replace(/\/+$/, '')}/account`;
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'user-agent': 'cloudcheck' },
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body.dump();
    if (res.statusCode === 401 || res.statusCode === 403) {
      throw new UsageError(`${what} was rejected by ${target} (GET /account answered ${res.statusCode})`);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const e = error as Error & { code?: string; cause?: Error & { code?: string } };
    const reason = e.cause?.code ?? e.code ?? e.cause?.message ?? e.message;
    throw new UsageError(`cannot reach ${target}: ${e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : reason}`);
  } finally {
    await agent.close().catch(() => undefined);
  }
}
