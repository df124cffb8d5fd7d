/**
 * Runs one load profile against a target: creates fresh keys, aligns to a fresh rate-limit window
 * when asked, drives each phase with autocannon while recording EVERY response (status, headers,
 * error code, timing), then judges the rate-limit invariants and the thresholds.
 *
 * How per-response data comes out of autocannon (v9, lib/httpClient.js): when a response
 * completes, the client calls the request's `onResponse(status, body, context, headers)` and,
 * synchronously right after, emits `response(status, bytes, durationMs)` on the client (which
 * `setupClient` lets us subscribe to). Nothing can run between the two calls, so `onResponse`
 * parks the observation in `pending` and the `response` listener completes it with autocannon's
 * own latency measurement. The `context` of a request is the object `setupRequest` received when
 * that request was built (one request in flight per connection: pipelining 1), which is how a
 * response is tied to the key and template it was sent with.
 *
 * Side requests (key creation and revocation, window probes, recovery, side-effect probes) go
 * through the harness's client (`RunContext.client`): one-offs whose bodies we need, not load,
 * over the command's transport (proxy variables, --ca-cert, -H, --retries, request deadlines) as
 * every other command's requests. The generated load connects directly to the target with the
 * -H headers (a proxy in between would be what it measures).
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import type { ApiClient } from '../src/harness/client.ts';
import type { LatencyHistograms } from './histograms.ts';
import {
  HeaderTracker,
  WINDOW_SECONDS,
  areaOfPath,
  checkRateLimitSequence,
  checkUntouchedKey,
  serverSeconds,
  type InvariantName,
  type RateLimitExpectation,
  type Violation,
} from '../src/rules/rate-limits.ts';
import type { LoadedProfile, Profile, RateLimitSpec, RequestTemplate, ResolvedPhase } from './profile.ts';
import { boundSeries, invariantLines, measuredThresholds } from './result.ts';
import type { ProfileResult, RateLimitSeries } from '../src/model/load.ts';
import { expandString, expandValue } from './template.ts';
import {
  Collector,
  buildRequest,
  errorCodeOf,
  keyLabel,
  unitsOf,
  type KeyedObservation,
  type Pending,
} from './collector.ts';
import { runArrivalPhase } from './arrival.ts';

/** What a phase sends with: the target, its key, and the headers every request carries. */
export interface PhaseTarget {
  /** Base URL including `/v1`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  /** `-H`: sent with every generated request too (the key of a gateway in front of the target). */
  headers?: Record<string, string>;
  /** `--ca-cert`: what the arrival-rate executor's TLS trusts besides the usual CAs. */
  caCertFile?: string | null;
}

export interface RunContext extends PhaseTarget {
  /** Side requests (keys, window and side-effect probes, recovery): the command's client of the target. */
  client: ApiClient;
  /** `cc-<runid>`: names of everything the run creates start with it. */
  runPrefix?: string;
  /** Longest total wait (ms) for a fresh window and for recovery in one profile. */
  maxWaitMs?: number;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string, final?: boolean) => void;
}

interface FreshKey {
  id: string;
  key: string;
}

interface HttpResult {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One side request through the command's client: exactly this key (null: none), no pacing, no 429 retry. */
async function http(
  ctx: RunContext,
  path: string,
  method: string,
  apiKey: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const res = await ctx.client.request({
    method,
    path,
    key: apiKey,
    headers,
    ...(body === undefined ? {} : { json: body }),
  });
  return { status: res.status, headers: res.headers, text: res.text };
}

/** Server clock in epoch ms, from an unauthenticated request's Date header (not counted). */
async function serverNowMs(ctx: RunContext): Promise<number> {
  const before = Date.now();
  const res = await http(ctx, '/regions', 'GET', null);
  const d = Date.parse(res.headers.date ?? '');
  if (!Number.isFinite(d)) return Date.now();
  // Date is floored to the second; assume the middle of it, plus half the round trip.
  return d + 500 + (Date.now() - before) / 2;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const unknownFree = (s: string) => !s.includes('{{');

interface ClientContext {
  pending?: Pending;
}

/** What the phase runners need: the target, the run prefix, progress. */
type PhaseContext = PhaseTarget & Required<Pick<RunContext, 'runPrefix'>> & Pick<RunContext, 'progress'>;
/** What a profile's run needs: a phase's context and the side requests' client. */
type ProfileContext = PhaseContext & RunContext;

/** A response `onResponse` parked until autocannon's `response` event completes it with its latency. */
interface Parked {
  p: Pending;
  obs: KeyedObservation;
}

/** The hand-over point between `onResponse` and the `response` listener of one phase (they run back to back). */
interface ResponseSlot {
  parked?: Parked;
}

/** Maps a key label (`main`, `fresh-N`) to the bearer token sent with it. */
function keyForLabel(apiKey: string, fresh: FreshKey[]): (label: string) => string {
  return (label) => (label === 'main' ? apiKey : (fresh[Number(label.slice('fresh-'.length))]?.key ?? ''));
}

/** Drives one phase with autocannon; resolves when it finished or hit its time cap. */
async function runPhase(
  phase: ResolvedPhase,
  ctx: PhaseContext,
  fresh: FreshKey[],
  collector: Collector,
  profileName: string,
): Promise<string[]> {
  const url = new URL(ctx.baseUrl);
  // The base URL is normalised (no trailing slash): its path is the prefix of every request's.
  const basePath = url.pathname;
  const slot: ResponseSlot = {};
  const templates = phaseRequests(phase, ctx, fresh, collector, basePath, slot);

  // autocannon deep-clones a fresh request context each time a connection wraps around its list
  // of requests: with a one-template phase that is every request. Repeating the list (same
  // objects, same order) makes the wrap rare; the contexts carry nothing from one request to the
  // next (`setupRequest` overwrites `pending`, static templates ignore it).
  const requests: autocannon.Request[] = [];
  while (requests.length < 64) requests.push(...templates);

  return driveAutocannon(
    autocannonOptions(phase, url.origin, requests, collector, slot),
    phase,
    ctx,
    collector,
    profileName,
  );
}

/**
 * Fast path: a template without placeholders or body, sent with one fixed key, needs no
 * per-request rebuild (autocannon then reuses the prebuilt request buffer, as for wrk-style
 * runs); its index is assigned when the response arrives, which for concurrent phases is
 * arrival order, not send order (the concurrent checks never rely on the index order).
 */
function isStaticTemplate(phase: ResolvedPhase, t: RequestTemplate): boolean {
  return (
    phase.key !== 'round-robin' &&
    t.body === undefined &&
    unknownFree(t.path) &&
    Object.values(t.headers ?? {}).every(unknownFree)
  );
}

/** One autocannon request per template of the phase, each recording its responses into the slot. */
function phaseRequests(
  phase: ResolvedPhase,
  ctx: PhaseContext,
  fresh: FreshKey[],
  collector: Collector,
  basePath: string,
  slot: ResponseSlot,
): autocannon.Request[] {
  const keyFor = keyForLabel(ctx.apiKey, fresh);
  const roundRobin = { next: 0 };
  return phase.requests.map((t): autocannon.Request => {
    const fixed = isStaticTemplate(phase, t);
    const staticLabel = keyLabel(phase.key, 0, fresh.length);
    const onResponse = parkResponses(t, fixed, staticLabel, collector, slot);
    if (fixed)
      return {
        method: t.method,
        path: basePath + t.path,
        headers: { ...ctx.headers, ...t.headers, authorization: `Bearer ${keyFor(staticLabel)}` },
        onResponse,
      };
    const operation = `${t.method} ${t.path}`;
    return {
      method: t.method,
      path: basePath + t.path,
      setupRequest: (req: autocannon.Request, context: object): autocannon.Request => {
        const c = context as ClientContext;
        const built = buildRequest(t, phase.key, roundRobin.next++, fresh.length, ctx.runPrefix, collector);
        const { label, index, token, path, body } = built;
        const headers: Record<string, string> = { ...ctx.headers };
        for (const [k, v] of Object.entries(req.headers ?? {})) if (typeof v === 'string') headers[k] = v;
        Object.assign(headers, built.headers);
        headers.authorization = `Bearer ${keyFor(label)}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        c.pending = { keyLabel: label, index, sentAt: Date.now(), units: unitsOf(t, body), operation, path, token };
        return { ...req, path: basePath + path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
      },
      onResponse,
    };
  });
}

/** The template's `onResponse`: turns what autocannon hands over into an observation parked in the slot. */
function parkResponses(
  t: RequestTemplate,
  fixed: boolean,
  staticLabel: string,
  collector: Collector,
  slot: ResponseSlot,
): NonNullable<autocannon.Request['onResponse']> {
  // What a response without a build context gets: the same for every response of the template,
  // so computed once rather than per response (the generator's own CPU per request is what
  // limits it against wrk on a small machine).
  const staticUnits = unitsOf(t, undefined);
  const operation = `${t.method} ${t.path}`;
  return (status: number, body: string, context: object, headers: autocannon.Request['headers']) => {
    // A static template never sets `pending`; the context may still hold a dynamic sibling's.
    let p = fixed ? undefined : (context as ClientContext).pending;
    const now = Date.now();
    if (!p) {
      const index = collector.nextIndex(staticLabel);
      p = { keyLabel: staticLabel, index, sentAt: now, units: staticUnits, operation, path: t.path, token: '' };
    }
    const lower: Record<string, string> = {};
    for (const k in headers) {
      const v = (headers as Record<string, unknown>)[k];
      lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    slot.parked = {
      p,
      obs: {
        index: p.index,
        sentAt: p.sentAt,
        receivedAt: now,
        status,
        headers: lower,
        errorCode: errorCodeOf(status, body),
        units: p.units,
        operation: p.operation,
        token: p.token || undefined,
      },
    };
  };
}

/** autocannon's options for the phase, with the client listeners that complete and count observations. */
function autocannonOptions(
  phase: ResolvedPhase,
  origin: string,
  requests: autocannon.Request[],
  collector: Collector,
  slot: ResponseSlot,
): autocannon.Options {
  // Rate-driven: each connection should send one request every connections/rate seconds.
  const expectedIntervalMs = phase.rate ? (1000 * phase.connections) / phase.rate : undefined;
  const opts: autocannon.Options = {
    url: origin,
    connections: phase.connections,
    pipelining: 1,
    timeout: phase.timeout,
    requests,
    setupClient: (client: autocannon.Client) => {
      client.on('response', (_status: number, bytes: number, responseTime: number) => {
        collector.bytesReceived += bytes;
        const cur = slot.parked;
        slot.parked = undefined;
        if (!cur) return;
        // Static requests have no build time; autocannon's latency gives the send time back.
        if (!cur.p.token) cur.obs.sentAt = cur.obs.receivedAt - responseTime;
        collector.observe(cur.p, cur.obs, responseTime, expectedIntervalMs);
      });
      // 'request' and 'timeout' are emitted by lib/httpClient.js but missing from the typings.
      const emitter = client as unknown as NodeJS.EventEmitter;
      emitter.on('request', () => {
        collector.sent += 1;
      });
      emitter.on('timeout', () => {
        collector.networkErrors += 1;
      });
    },
  };
  if (phase.rate) opts.overallRate = phase.rate;
  // autocannon stops on `amount` and ignores `duration` when both are set, so the amount is always
  // passed (a hard cap) and the timer below enforces the duration.
  opts.amount = phase.amount;
  return opts;
}

/** Runs autocannon under the phase's time cap with a progress line a second; returns the phase's notes. */
async function driveAutocannon(
  opts: autocannon.Options,
  phase: ResolvedPhase,
  ctx: PhaseContext,
  collector: Collector,
  profileName: string,
): Promise<string[]> {
  const notes: string[] = [];
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    let instance: autocannon.Instance;
    try {
      instance = autocannon(opts, (err) => {
        clearTimeout(cap);
        clearInterval(tick);
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve();
      });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    // Hard time cap even for amount-driven phases (autocannon ignores duration when amount is set).
    const cap = setTimeout(() => {
      if (phase.amountGiven) notes.push(`phase ${phase.name}: stopped at its ${phase.duration}s time cap`);
      instance.stop();
    }, phase.duration * 1000);
    const tick = setInterval(() => {
      const s = collector.byStatus;
      const ok = Object.entries(s)
        .filter(([k]) => Number(k) < 400)
        .reduce((a, [, n]) => a + n, 0);
      ctx.progress?.(
        `[${profileName}/${phase.name}] ${((Date.now() - started) / 1000).toFixed(0)}s ${collector.completed} responses, ${ok} ok, ${s[429] ?? 0} 429, ${collector.networkErrors} timeouts`,
      );
    }, 1000);
  });
  return notes;
}

export function newRunPrefix(): string {
  return `cc-${randomBytes(4).toString('hex')}`;
}

/** The keys a profile judges and where its responses go, decided before anything is sent. */
interface ProfilePlan {
  rl: RateLimitSpec | undefined;
  rlPhase: ResolvedPhase | undefined;
  isoPhase: ResolvedPhase | undefined;
  rlKey: string | undefined;
  isoKey: string | undefined;
  tracker: HeaderTracker | undefined;
  collector: Collector;
}

/** What is left of --max-wait, shared by the window alignment and the recovery wait. */
interface WaitBudget {
  leftMs: number;
}

/** The invariants judged so far and what they found. */
interface Verdict {
  violations: Violation[];
  checked: Set<InvariantName>;
}

/** Runs one profile. Never throws for target behaviour; setup failures land in `error`. */
export async function runProfile(loaded: LoadedProfile, context: RunContext): Promise<ProfileResult> {
  const ctx: ProfileContext = { ...context, runPrefix: context.runPrefix ?? newRunPrefix() };
  const { profile } = loaded;
  const startedAt = new Date();
  const notes = [...loaded.notes];
  const plan = planProfile(loaded);
  const budget: WaitBudget = { leftMs: ctx.maxWaitMs ?? 75_000 };
  const fresh: FreshKey[] = [];
  let error: string | undefined;

  try {
    await createFreshKeys(profile, ctx, fresh);
    await runPhases(loaded, ctx, fresh, plan.collector, budget, notes);
    await observeRecovery(profile, ctx, fresh, plan, budget, notes);
    await probeSideEffects(profile, ctx, plan, notes);
  } catch (e) {
    error = (e as Error).message;
  } finally {
    await revokeFreshKeys(ctx, fresh, notes);
  }

  const verdict: Verdict = { violations: [], checked: new Set<InvariantName>() };
  if (!error) judgeRateLimit(profile, plan, verdict, notes);
  if (!error) judgeIsolation(profile, plan, verdict);
  if (plan.tracker) mergeTrackerViolations(plan.tracker, verdict);

  const result = profileResult(loaded, ctx, plan, verdict, { startedAt, notes, error });
  ctx.progress?.(
    `[${profile.name}] done: ${plan.collector.completed} responses in ${(result.duration_ms / 1000).toFixed(1)}s`,
    true,
  );
  return result;
}

/** Finds the phases and keys the expectations name; their observations are the ones kept whole. */
function planProfile(loaded: LoadedProfile): ProfilePlan {
  const exp = loaded.profile.expectations;
  const rl = exp.rate_limit;
  const rlPhase = rl ? (loaded.phases.find((p) => p.name === rl.phase) ?? loaded.phases[0]) : undefined;
  const isoPhase = exp.isolation ? loaded.phases.find((p) => p.name === exp.isolation?.phase) : undefined;
  const singleKey = (ph: ResolvedPhase | undefined) =>
    ph && typeof ph.key === 'number' ? `fresh-${ph.key}` : ph?.key === 'main' ? 'main' : undefined;
  const rlKey = singleKey(rlPhase);
  const isoKey = singleKey(isoPhase);
  const keep = new Set([rlKey, isoKey].filter((k): k is string => k !== undefined));
  const maxConnections = Math.max(...loaded.phases.map((p) => p.connections));
  const tracker = exp.headers ? new HeaderTracker({ maxInFlight: maxConnections }) : undefined;
  return { rl, rlPhase, isoPhase, rlKey, isoKey, tracker, collector: new Collector(tracker, keep) };
}

/** Creates the profile's fresh keys, pushing each as it is made so a later failure still revokes it. */
async function createFreshKeys(profile: Profile, ctx: ProfileContext, fresh: FreshKey[]): Promise<void> {
  const want = profile.keys?.fresh ?? 0;
  for (let i = 0; i < want; i++) {
    const res = await http(ctx, '/account/api-keys', 'POST', ctx.apiKey, {
      name: `${ctx.runPrefix}-${profile.name}-${i}`,
      permissions: profile.keys?.permissions ?? ['read', 'write'],
    });
    const parsed = (res.status < 300 ? JSON.parse(res.text) : {}) as { api_key?: { id?: string; key?: string } };
    if (!parsed.api_key?.key || !parsed.api_key.id) {
      throw new Error(`POST /account/api-keys answered ${res.status}${res.text ? `: ${res.text.slice(0, 200)}` : ''}`);
    }
    fresh.push({ id: parsed.api_key.id, key: parsed.api_key.key });
  }
}

/** Runs the phases in order, each after aligning to a fresh window when the profile asks. */
async function runPhases(
  loaded: LoadedProfile,
  ctx: ProfileContext,
  fresh: FreshKey[],
  collector: Collector,
  budget: WaitBudget,
  notes: string[],
): Promise<void> {
  const { profile } = loaded;
  for (const phase of loaded.phases) {
    await alignToFreshWindow(profile, phase, ctx, budget, notes);
    if (phase.executor === 'closed') notes.push(...(await runPhase(phase, ctx, fresh, collector, profile.name)));
    else {
      const keyFor = keyForLabel(ctx.apiKey, fresh);
      notes.push(
        ...(await runArrivalPhase(
          phase,
          {
            baseUrl: ctx.baseUrl,
            headers: ctx.headers ?? {},
            caCertFile: ctx.caCertFile ?? null,
            runPrefix: ctx.runPrefix,
            keyFor,
            freshCount: fresh.length,
            progress: ctx.progress,
          },
          collector,
          profile.name,
        )),
      );
    }
  }
}

/** Waits for the next window when too little of the current one is left for the phase (budget permitting). */
async function alignToFreshWindow(
  profile: Profile,
  phase: ResolvedPhase,
  ctx: ProfileContext,
  budget: WaitBudget,
  notes: string[],
): Promise<void> {
  if (!profile.align) return;
  const W = WINDOW_SECONDS[profile.align.window] * 1000;
  const now = await serverNowMs(ctx);
  const left = W - (now % W);
  if (left < profile.align.min_seconds_left * 1000) {
    const wait = left + 600;
    if (wait <= budget.leftMs) {
      ctx.progress?.(
        `[${profile.name}/${phase.name}] waiting ${(wait / 1000).toFixed(1)}s for a fresh ${profile.align.window} window`,
      );
      await sleep(wait);
      budget.leftMs -= wait;
    } else {
      notes.push(
        `phase ${phase.name}: only ${(left / 1000).toFixed(0)}s left in the ${profile.align.window} window and --max-wait too short to wait; the checker judges each window separately`,
      );
    }
  }
}

/** Recovery: wait for the announced Reset and send one more request with the exhausted key. */
async function observeRecovery(
  profile: Profile,
  ctx: ProfileContext,
  fresh: FreshKey[],
  plan: ProfilePlan,
  budget: WaitBudget,
  notes: string[],
): Promise<void> {
  const { rl, rlKey, rlPhase, collector } = plan;
  if (!(rl?.recovery && rlKey && rlPhase)) return;
  const list = collector.kept.get(rlKey) ?? [];
  const last429 = [...list].reverse().find((o) => o.status === 429);
  if (!last429) return;
  const reset = Number(last429.headers['x-ratelimit-reset']);
  const retry = Number(last429.headers['retry-after']);
  const serverAt429 = serverSeconds(last429).seconds;
  const resumeSec =
    rl.counter !== 'sms' && Number.isInteger(reset) && reset > 1e9 && reset < 1e11
      ? reset
      : serverAt429 + (Number.isFinite(retry) ? retry : 60);
  const wait = (resumeSec - serverAt429) * 1000 - (Date.now() - last429.receivedAt) + 1500;
  if (wait <= budget.leftMs) {
    ctx.progress?.(`[${profile.name}] waiting ${(Math.max(0, wait) / 1000).toFixed(1)}s to observe recovery`);
    await sleep(Math.max(0, wait));
    budget.leftMs -= Math.max(0, wait);
    await sendRecoveryRequest(ctx, fresh, rlKey, rlPhase, collector);
  } else {
    notes.push(
      `recovery not observed: it needs a ${(wait / 1000).toFixed(0)}s wait, more than what is left of --max-wait (${(budget.leftMs / 1000).toFixed(0)}s)`,
    );
  }
}

/** The one request after the Reset, built from the phase's first template and recorded like any other. */
async function sendRecoveryRequest(
  ctx: ProfileContext,
  fresh: FreshKey[],
  rlKey: string,
  rlPhase: ResolvedPhase,
  collector: Collector,
): Promise<void> {
  const t = rlPhase.requests[0]!;
  const index = collector.nextIndex(rlKey);
  const token = `${ctx.runPrefix}-${rlKey}-r${String(index).padStart(6, '0')}`;
  const tctx = { runPrefix: ctx.runPrefix, requestId: token, index };
  const body = t.body === undefined ? undefined : expandValue(t.body, tctx);
  const sentAt = Date.now();
  const headers = Object.fromEntries(Object.entries(t.headers ?? {}).map(([k, v]) => [k, expandString(v, tctx)]));
  const res = await http(
    ctx,
    expandString(t.path, tctx),
    t.method,
    rlKey === 'main' ? ctx.apiKey : fresh[Number(rlKey.slice(6))]!.key,
    body,
    headers,
  );
  const obs: KeyedObservation = {
    index,
    sentAt,
    receivedAt: Date.now(),
    status: res.status,
    headers: res.headers,
    errorCode: errorCodeOf(res.status, res.text),
    units: unitsOf(t, body),
    operation: `${t.method} ${t.path}`,
    token,
  };
  collector.sent += 1;
  collector.observe(
    { keyLabel: rlKey, index, sentAt, units: obs.units ?? 0, operation: obs.operation ?? '', path: t.path, token },
    obs,
    obs.receivedAt - sentAt,
  );
}

/** Side effects of rejected requests: look for their tokens in a listing read with the main key. */
async function probeSideEffects(
  profile: Profile,
  ctx: ProfileContext,
  plan: ProfilePlan,
  notes: string[],
): Promise<void> {
  const { rlKey, collector } = plan;
  if (!(profile.side_effects && rlKey)) return;
  const list = collector.kept.get(rlKey) ?? [];
  if (!list.some((o) => o.status === 429)) return;
  const text = await readProbeListing(profile.side_effects, ctx, notes);
  const accepted = list.filter((o) => o.status >= 200 && o.status < 300 && o.token);
  const seesAccepted = accepted.some((o) => text.includes(o.token!));
  if (!seesAccepted)
    notes.push(
      `side-effect probe GET ${profile.side_effects.probe} shows none of the accepted requests; no-side-effect not judged`,
    );
  else for (const o of list) if (o.status === 429 && o.token) o.sideEffect = text.includes(o.token);
}

/** The probe listing's pages concatenated, up to `pages` or the listing's own page count. */
async function readProbeListing(
  sideEffects: NonNullable<Profile['side_effects']>,
  ctx: ProfileContext,
  notes: string[],
): Promise<string> {
  let text = '';
  const pages = sideEffects.pages ?? 3;
  for (let p = 1; p <= pages; p++) {
    const sep = sideEffects.probe.includes('?') ? '&' : '?';
    const res = await http(ctx, `${sideEffects.probe}${sep}page=${p}`, 'GET', ctx.apiKey);
    if (res.status !== 200) {
      notes.push(`side-effect probe GET ${sideEffects.probe} page ${p} answered ${res.status}`);
      break;
    }
    text += res.text;
    if (pages === 1 || !/"pages"\s*:\s*\d+/.test(res.text)) break;
    const pagesTotal = Number(/"pages"\s*:\s*(\d+)/.exec(res.text)?.[1] ?? '1');
    if (p >= pagesTotal) break;
  }
  return text;
}

/** Revokes every key the run created, even after a failure; a failed revocation is a note, not an error. */
async function revokeFreshKeys(ctx: ProfileContext, fresh: FreshKey[], notes: string[]): Promise<void> {
  for (const { id } of fresh) {
    try {
      const res = await http(ctx, `/account/api-keys/${encodeURIComponent(id)}`, 'DELETE', ctx.apiKey);
      if (res.status >= 300) notes.push(`could not revoke key ${id}: status ${res.status}`);
    } catch (e) {
      notes.push(`could not revoke key ${id}: ${(e as Error).message}`);
    }
  }
}

/** The rate-limit invariants on the exhausted key, plus the onset of a run that never saw a 429. */
function judgeRateLimit(profile: Profile, plan: ProfilePlan, verdict: Verdict, notes: string[]): void {
  const { rl, rlKey, rlPhase, collector } = plan;
  if (!(rl && rlKey && rlPhase)) return;
  const expectation = rateLimitExpectation(rl, rlPhase);
  const names = rateLimitInvariants(profile, rl, expectation);
  names.forEach((n) => verdict.checked.add(n));
  const list = collector.kept.get(rlKey) ?? [];
  const ordering = rl.ordering ?? (rlPhase.connections > 1 ? 'concurrent' : 'sequential');
  const vs = checkRateLimitSequence(list, expectation, { ordering, completeHistory: rlKey !== 'main', only: names });
  verdict.violations.push(...vs.map((v) => ({ ...v, key: rlKey })));
  if (rl.require_429 !== false && !list.some((o) => o.status === 429) && names.includes('onset')) {
    judgeNoRejection(rl, expectation, rlKey, list, verdict, notes);
  }
}

/** The checker's expectation from the profile's rate-limit spec; headers are due in messaging and compute only. */
function rateLimitExpectation(rl: RateLimitSpec, rlPhase: ResolvedPhase): RateLimitExpectation {
  const area = rl.area ?? areaOfPath(rlPhase.requests[0]?.path ?? '/');
  const headers = area === 'messaging' || area === 'compute';
  return {
    limit: rl.limit,
    window: rl.window,
    counter: rl.counter ?? 'requests',
    headers,
    smsHeaders: area === 'messaging',
    smsLimit: rl.sms_limit,
  };
}

/**
 * The invariants the profile names, or by default every one of the specification that applies to
 * its area and counter. `nearest-window` (which of the key's windows the headers describe) is a
 * convention: judged only when a profile names it.
 */
function rateLimitInvariants(profile: Profile, rl: RateLimitSpec, expectation: RateLimitExpectation): InvariantName[] {
  const headers = expectation.headers === true;
  return (
    rl.invariants ??
    ([
      'onset',
      '429-shape',
      '429-code',
      ...(headers ? (['headers-present', 'reset-epoch', 'limit-constant'] as const) : []),
      ...(headers && expectation.counter === 'requests' ? (['remaining-decrements'] as const) : []),
      ...(expectation.counter === 'sms' ? (['sms-remaining'] as const) : []),
      ...(profile.side_effects ? (['no-side-effect'] as const) : []),
      ...(rl.recovery ? (['recovery'] as const) : []),
    ] satisfies InvariantName[])
  );
}

/** No 429 at all: an onset violation when more than the limit was counted, else only a note. */
function judgeNoRejection(
  rl: RateLimitSpec,
  expectation: RateLimitExpectation,
  rlKey: string,
  list: KeyedObservation[],
  verdict: Verdict,
  notes: string[],
): void {
  const counted = list.filter((o) => o.status !== 429 && o.status !== 401 && o.status !== 0);
  const units = expectation.counter === 'sms' ? counted.reduce((s, o) => s + (o.units ?? 0), 0) : counted.length;
  if (units > rl.limit) {
    verdict.violations.push({
      invariant: 'onset',
      index: list.length - 1,
      key: rlKey,
      message: `no 429 at all after ${units} ${expectation.counter} (limit ${rl.limit} per ${rl.window})`,
    });
  } else {
    notes.push(`no 429 observed: only ${units} ${expectation.counter} counted in one window; onset not observed`);
  }
}

/** `isolation`: the untouched key kept its full allowance while the other one was exhausted. */
function judgeIsolation(profile: Profile, plan: ProfilePlan, verdict: Verdict): void {
  const { rl, isoKey, isoPhase, rlPhase, collector } = plan;
  if (!(profile.expectations.isolation && isoKey && rlPhase)) return;
  verdict.checked.add('isolation');
  const area = rl?.area ?? areaOfPath(isoPhase?.requests[0]?.path ?? '/');
  const vs = checkUntouchedKey(collector.kept.get(isoKey) ?? [], {
    limit: rl?.limit ?? 0,
    window: rl?.window ?? 'minute',
    headers: area === 'messaging' || area === 'compute',
  });
  verdict.violations.push(...vs.map((v) => ({ ...v, key: isoKey })));
}

/** The streaming header checks over every key, without repeating what the planned checks already found. */
function mergeTrackerViolations(tracker: HeaderTracker, verdict: Verdict): void {
  for (const n of [
    'headers-present',
    'reset-epoch',
    'limit-constant',
    'remaining-decrements',
    '429-shape',
    '429-code',
  ] as const)
    verdict.checked.add(n);
  const known = new Set(verdict.violations.map((v) => `${v.invariant}|${v.key ?? ''}`));
  for (const v of tracker.result()) if (!known.has(`${v.invariant}|${v.key ?? ''}`)) verdict.violations.push(v);
}

/** Each kept key's Remaining by request index, bounded for the report (a key may have tens of thousands). */
function rateLimitSeries(collector: Collector, rl: RateLimitSpec | undefined): RateLimitSeries[] {
  const seriesHeader = rl?.counter === 'sms' ? 'x-sms-remaining' : 'x-ratelimit-remaining';
  return [...collector.kept.entries()].map(([label, list]) => ({
    label,
    header: seriesHeader,
    points: boundSeries(
      list
        .map((o) => [o.index, Number(o.headers[seriesHeader])] as [number, number])
        .filter(([, remaining]) => Number.isFinite(remaining))
        .sort((a, b) => a[0] - b[0]),
    ),
  }));
}

/** The profile's result: the collector's figures, the verdict and the thresholds derived from both. */
function profileResult(
  loaded: LoadedProfile,
  ctx: ProfileContext,
  plan: ProfilePlan,
  { violations, checked }: Verdict,
  run: { startedAt: Date; notes: string[]; error: string | undefined },
): ProfileResult {
  const { profile } = loaded;
  const { collector } = plan;
  const { startedAt, notes, error } = run;
  const series = rateLimitSeries(collector, plan.rl);
  const histograms = collector.hist.serialize();
  const latency = collector.hist.summary();
  collector.hist.destroy();
  const finishedAt = new Date();
  const result: ProfileResult = {
    profile: profile.name,
    file: loaded.file,
    description: profile.description,
    target: ctx.baseUrl,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_ms: finishedAt.getTime() - startedAt.getTime(),
    runs: 1,
    requests: {
      sent: collector.sent,
      completed: collector.completed,
      network_errors: collector.networkErrors,
      by_status: collector.byStatus,
      bytes_received: collector.bytesReceived,
      ...(collector.dropped ? { dropped: collector.dropped } : {}),
    },
    latency_ms: latency,
    histograms,
    timeline: [...collector.timeline.values()].sort((a, b) => a.t - b.t),
    expectations: profile.expectations,
    invariants_checked: [...checked],
    violations,
    thresholds: [],
    passed: false,
    notes,
    error,
    rate_limit_series: series.filter((s) => s.points.length > 0),
  };
  result.thresholds = error
    ? []
    : [...measuredThresholds(result), ...invariantLines(result.invariants_checked, violations)];
  result.passed = !error && result.thresholds.every((t) => t.passed);
  return result;
}

export interface GeneratorRun {
  requests: number;
  durationMs: number;
  requestsPerSecond: number;
  byStatus: Record<string, number>;
  latency: ReturnType<LatencyHistograms['summary']>;
}

/**
 * The generator alone, exactly as profiles drive it (autocannon plus the per-response hooks and
 * histograms), without keys, checks or reports: for benchmarks. Bounded by `amount` and `seconds`.
 */
export async function runGenerator(options: {
  baseUrl: string;
  apiKey: string;
  path: string;
  connections: number;
  amount: number;
  seconds: number;
  /** Called about once a second with the responses completed so far. */
  onProgress?: (completed: number) => void;
}): Promise<GeneratorRun> {
  const collector = new Collector(undefined, new Set());
  const phase: ResolvedPhase = {
    name: 'bench',
    executor: 'closed',
    key: 'main',
    connections: options.connections,
    amount: options.amount,
    amountGiven: false,
    duration: options.seconds,
    timeout: 10,
    requests: [{ method: 'GET', path: options.path }],
  };
  const started = Date.now();
  const progress = options.onProgress ? () => options.onProgress?.(collector.completed) : undefined;
  await runPhase(
    phase,
    { baseUrl: options.baseUrl, apiKey: options.apiKey, runPrefix: newRunPrefix(), progress },
    [],
    collector,
    'bench',
  );
  const durationMs = Date.now() - started;
  const latency = collector.hist.summary();
  collector.hist.destroy();
  return {
    requests: collector.completed,
    durationMs,
    requestsPerSecond: (collector.completed * 1000) / durationMs,
    byStatus: collector.byStatus,
    latency,
  };
}
