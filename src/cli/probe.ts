/**
 * Before a run or a load: is the target the API, reachable, and does it accept the key? One
 * authenticated `GET /account` (cheap, read-only, on every conforming target) must answer JSON the
 * API could send: an account (however wrapped: a legal variant) on success, the error envelope on
 * a refusal (a target that does not implement billing may answer 404 with it: the checks judge
 * that). Anything else (an HTML page, a bare 404, JSON of another API) means the base URL is not
 * the API: exit 2 within seconds, with a hint when the version segment is missing, instead of a
 * run that crawls through a thousand checks against the wrong thing.
 */
import { UsageError } from '../config/resolve.ts';
import { isObject, resourceOf } from '../harness/body-shape.ts';
import { createDispatcher, proxyConfigured, transportOptions, undici } from '../harness/transport.ts';
import type { TransportOptions } from '../harness/transport.ts';
import { settingsFromEnv } from '../harness/settings.ts';
import { measureRoundTrip } from '../harness/concurrency.ts';

/** 10 s, or the run's request deadline (CLOUDCHECK_REQUEST_TIMEOUT_MS) when that is shorter (tests of broken targets). */
function defaultProbeTimeoutMs(): number {
  return Math.min(settingsFromEnv(process.env, { requireTarget: false }).requestTimeoutMs ?? 10_000, 10_000);
}

/** " (did you mean …/v1?)" when the base URL has no version segment. */
function versionHint(target: string): string {
  const url = new URL(target);
  return /\/v\d+\/?$/.test(url.pathname) ? '' : `; did you mean ${target.replace(/\/+$/, '')}/v1?`;
}

/** Why an answer to GET /account is not one the API could give, or null when it could. */
export function notTheApi(status: number, contentType: string | undefined, text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const kind =
      /html/i.test(contentType ?? '') || /^\s*<(!doctype|html)/i.test(text)
        ? 'an HTML page'
        : text.trim() === ''
          ? 'an empty body'
          : `${contentType ?? 'a body'} that is not JSON`;
    return `GET /account answered ${status} with ${kind}`;
  }
  if (status >= 200 && status < 300) {
    const account = resourceOf(body, 'account');
    const looksLikeAccount = isObject(account) && (typeof account.id === 'string' || typeof account.email === 'string');
    return looksLikeAccount
      ? null
      : `GET /account answered ${status} with JSON that holds no account (no object with an id or email)`;
  }
  const error = isObject(body) ? body.error : undefined;
  if (isObject(error) && typeof error.code === 'string') return null;
  return `GET /account answered ${status} without the error envelope {"error": {"code", "message"}}`;
}

/** What the probe sends besides the key, and how it connects (transport.ts): as the run's requests do. */
export interface ProbeOptions extends TransportOptions {
  headers?: Record<string, string>;
  /** Also measure the round trip the run is sized for (a few more requests; `cloudcheck run`). */
  roundTrip?: boolean;
}

/** What the probe learnt: with `roundTrip`, the target's round trip (ms), the part other requests can overlap. */
export interface ProbeResult {
  roundTripMs: number | null;
}

export async function probeTarget(
  target: string,
  key: string,
  what = 'the API key',
  timeoutMs = defaultProbeTimeoutMs(),
  options: ProbeOptions = transportOptions(),
): Promise<ProbeResult> {
  const agent = createDispatcher({ ...options, agent: { connect: { timeout: timeoutMs } } });
  const get = async (
    path = '/account',
  ): Promise<{ status: number; contentType: string | undefined; text: string; ms: number }> => {
    const started = performance.now();
    const res = await undici().request(`${target}${path}`, {
      method: 'GET',
      headers: {
        accept: 'application/json',
        'user-agent': 'cloudcheck',
        ...options.headers,
        authorization: `Bearer ${key}`,
      },
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const type = res.headers['content-type'];
    // The probe needs the start of the body only; a huge page must not stall it.
    const text = (await res.body.text()).slice(0, 64 * 1024);
    return {
      status: res.statusCode,
      contentType: Array.isArray(type) ? type[0] : type,
      text,
      ms: performance.now() - started,
    };
  };
  let first: Awaited<ReturnType<typeof get>>;
  let roundTripMs: number | null = null;
  try {
    try {
      first = await get();
    } catch (error) {
      throw unreachable(error, target, timeoutMs, options);
    }
    // Timed on further requests (the first paid for connecting and TLS): the round trip the run
    // is sized for (concurrency.ts), on a compute read (GET /account is billing, whose window of
    // 100 an hour pays for the run's keys). A failure here only costs the measurement.
    if (options.roundTrip && first.status < 400)
      roundTripMs = await measureRoundTrip(async () => (await get('/regions')).ms);
  } finally {
    await agent.close().catch(() => undefined);
  }
  const { status, contentType, text } = first;
  if (status === 401 || status === 403)
    throw new UsageError(`${what} was rejected by ${target} (GET /account answered ${status})`);
  const problem = notTheApi(status, contentType, text);
  if (problem)
    throw new UsageError(`${target} does not look like the Cloud Platform API: ${problem}${versionHint(target)}`);
  return { roundTripMs };
}

function unreachable(error: unknown, target: string, timeoutMs: number, options: ProbeOptions): UsageError {
  const e = error as Error & { code?: string; cause?: Error & { code?: string } };
  const reason = e.cause?.code ?? e.code ?? e.cause?.message ?? e.message;
  const proxied =
    !options.direct && proxyConfigured()
      ? ' (a proxy variable is set: HTTPS_PROXY/HTTP_PROXY; hosts in NO_PROXY are reached directly)'
      : '';
  return new UsageError(
    `cannot reach ${target}: ${e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : reason}${proxied}`,
  );
}
