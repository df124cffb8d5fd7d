/**
 * Before a command works on a target: is it the API, reachable, and does it accept the key? One
 * authenticated `GET /account` (cheap, read-only, on every conforming target) must answer JSON the
 * API could send: an account (however wrapped: a legal variant) on success, the error envelope on
 * a refusal (a target that does not implement billing may answer 404 with it: the checks judge
 * that). Anything else (an HTML page, a bare 404, JSON of another API) means the base URL is not
 * the API: the command stops within seconds, with a hint when the version segment is missing,
 * instead of a run that crawls through a thousand checks against the wrong thing.
 *
 * The session (session.ts) probes every key a person gave; the embedded server it started itself
 * is not probed.
 */
import { isObject, resourceOf } from './body-shape.ts';
import { measureRoundTrip } from './concurrency.ts';
import type { Dispatcher } from 'undici';
import { createDispatcher, proxyConfigured, undici } from './transport.ts';
import type { TransportOptions } from './transport.ts';

/** The target cannot be used as given (unreachable, not the API, a key refused): the command exits 2 with the message. */
export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** The probe's deadline: 10 s, or the request deadline when that is shorter (tests of broken targets). */
export function probeTimeoutMs(requestTimeoutMs: number | null): number {
  return Math.min(requestTimeoutMs ?? 10_000, 10_000);
}

/** True when the base URL's path ends in a version segment (`/v1`). */
function hasVersionSegment(target: string): boolean {
  return /\/v\d+$/.test(new URL(target).pathname);
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

/** What the probe sends besides the key, and how it connects (transport.ts): as the command's requests do. */
export interface ProbeOptions extends TransportOptions {
  headers?: Record<string, string>;
  /** Which key this is, for messages ("the API key", "the alt API key", "API key 2"). */
  what?: string;
  timeoutMs: number;
  /** Also measure the round trip the run's workers are sized for (a few more requests; `cloudcheck run`). */
  roundTrip?: boolean;
}

export interface ProbeResult {
  /** Milliseconds from sending GET /account to its whole answer: the target's round trip as the run will see it. */
  rttMs: number;
  /**
   * With `roundTrip`: the part of the round trip other requests can overlap (ms; concurrency.ts
   * measureRoundTrip), null when not asked or nothing was timed.
   */
  roundTripMs: number | null;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  text: string;
  rttMs: number;
}

/** A probe's GET: the key, the person's extra headers, the probe's deadline. */
function getOf(key: string, options: ProbeOptions, agent: Dispatcher) {
  return {
    method: 'GET' as const,
    headers: {
      accept: 'application/json',
      'user-agent': 'cloudcheck',
      ...options.headers,
      authorization: `Bearer ${key}`,
    },
    dispatcher: agent,
    signal: AbortSignal.timeout(options.timeoutMs),
  };
}

/** One GET of `url` with the key; a failure to get any answer is a TargetError naming the target. */
async function getAccount(url: string, target: string, key: string, options: ProbeOptions): Promise<Answer> {
  const agent = createDispatcher({ ...options, agent: { connect: { timeout: options.timeoutMs } } });
  const started = performance.now();
  try {
    const res = await undici().request(url, getOf(key, options, agent));
    const type = res.headers['content-type'];
    // The probe needs the start of the body only; a huge page must not stall it.
    const text = (await res.body.text()).slice(0, 64 * 1024);
    return {
      status: res.statusCode,
      contentType: Array.isArray(type) ? type[0] : type,
      text,
      rttMs: performance.now() - started,
    };
  } catch (error) {
    const e = error as Error & { code?: string; cause?: Error & { code?: string } };
    const reason = e.cause?.code ?? e.code ?? e.cause?.message ?? e.message;
    const proxied =
      !options.direct && proxyConfigured(options.env ?? {})
        ? ' (a proxy variable is set: HTTPS_PROXY/HTTP_PROXY; hosts in NO_PROXY are reached directly)'
        : '';
    throw new TargetError(
      `cannot reach ${target}: ${e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : reason}${proxied}`,
    );
  } finally {
    await agent.close().catch(() => undefined);
  }
}

/**
 * A base URL without a version segment whose GET /account answered 404: does `<target>/v1` answer
 * like the API? Then the person left `/v1` out, and a run would crawl through 404s for minutes.
 */
async function answersUnderV1(target: string, key: string, options: ProbeOptions): Promise<boolean> {
  try {
    const answer = await getAccount(`${target}/v1/account`, target, key, options);
    return answer.status !== 404 && notTheApi(answer.status, answer.contentType, answer.text) === null;
  } catch {
    return false;
  }
}

export async function probeTarget(target: string, key: string, options: ProbeOptions): Promise<ProbeResult> {
  const what = options.what ?? 'the API key';
  const answer = await getAccount(`${target}/account`, target, key, options);
  const versioned = hasVersionSegment(target);
  if (answer.status === 401 || answer.status === 403)
    throw new TargetError(`${what} was rejected by ${target} (GET /account answered ${answer.status})`);
  const problem = notTheApi(answer.status, answer.contentType, answer.text);
  if (problem)
    throw new TargetError(
      `${target} does not look like the Cloud Platform API: ${problem}${versioned ? '' : `; did you mean ${target}/v1?`}`,
    );
  // The error envelope on a 404 is what the API answers for an unknown route too: without a
  // version segment, a run would crawl through 404s for minutes when /v1 was left out.
  if (!versioned && answer.status === 404 && (await answersUnderV1(target, key, options)))
    throw new TargetError(
      `${target} is not the base URL of the API: GET /account answered 404 there and the API answers under ${target}/v1; did you mean ${target}/v1?`,
    );
  const roundTripMs = options.roundTrip && answer.status < 400 ? await timedRoundTrip(target, key, options) : null;
  return { rttMs: answer.rttMs, roundTripMs };
}

/**
 * The round trip the run is sized for, timed on a compute read (billing's window of 100 an hour
 * pays for the run's keys) over one pool of connections: the first requests pay for connecting,
 * measureRoundTrip keeps the fastest. A failure here costs only the measurement.
 */
async function timedRoundTrip(target: string, key: string, options: ProbeOptions): Promise<number | null> {
  const agent = createDispatcher({ ...options, agent: { connect: { timeout: options.timeoutMs } } });
  const get = async (): Promise<number> => {
    const started = performance.now();
    const res = await undici().request(`${target}/regions`, getOf(key, options, agent));
    await res.body.dump();
    return performance.now() - started;
  };
  try {
    return await measureRoundTrip(get);
  } catch {
    return null;
  } finally {
    await agent.close().catch(() => undefined);
  }
}
