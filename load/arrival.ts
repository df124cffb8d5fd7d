/**
 * The open-model executors of a load phase, as k6 names them: `constant-arrival-rate` and
 * `ramping-arrival-rate`. Requests start at the times the rate says, whether or not earlier ones
 * have answered, so a slow target cannot slow the load down and hide its own slowness (the
 * coordinated omission of closed models, where a connection waits for its answer before the next
 * request). Each latency is measured from the time the request should have started, queueing in
 * the generator included. At most `connections` requests are in flight: an arrival that finds
 * them all busy is dropped and counted (k6's dropped_iterations), never silently delayed.
 *
 * Written on undici's Pool rather than autocannon: autocannon is closed-model (its `overallRate`
 * paces connections that still wait for their answers).
 */
import { Pool } from 'undici';
import { trustedCas } from '../src/harness/transport.ts';
import type { Collector, KeyedObservation, Pending } from './collector.ts';
import { buildRequest, errorCodeOf, unitsOf } from './collector.ts';
import type { ArrivalStage, ResolvedPhase } from './profile.ts';

/**
 * Start times (ms from the phase start) of a piecewise-linear arrival rate beginning at
 * `startRate`: request k starts when the expected count of arrivals reaches k. At most `cap`.
 */
export function arrivalTimes(startRate: number, stages: readonly ArrivalStage[], cap: number): number[] {
  const times: number[] = [];
  let offset = 0; // seconds at the start of the stage
  let before = 0; // arrivals expected before the stage
  let rate = startRate;
  for (const stage of stages) {
    const slope = (stage.target - rate) / stage.duration; // requests/s per second
    const inStage = ((rate + stage.target) / 2) * stage.duration;
    for (let k = Math.ceil(before); k < before + inStage && times.length < cap; k++) {
      const n = k - before;
      // N(t) = rate·t + slope·t²/2 = n, solved for t in the stage.
      const t = slope === 0 ? n / rate : (-rate + Math.sqrt(rate * rate + 2 * slope * n)) / slope;
      times.push(Math.round((offset + t) * 1000 * 1000) / 1000);
    }
    before += inStage;
    offset += stage.duration;
    rate = stage.target;
    if (times.length >= cap) break;
  }
  return times;
}

export interface ArrivalContext {
  /** Base URL including `/v1`, without a trailing slash. */
  baseUrl: string;
  /** `-H`: on every request. */
  headers: Record<string, string>;
  /** `--ca-cert`: trusted besides the usual CAs by the executor's TLS. */
  caCertFile: string | null;
  runPrefix: string;
  keyFor(label: string): string;
  freshCount: number;
  progress?: (line: string, final?: boolean) => void;
}

/** Runs one arrival-rate phase to its last scheduled arrival, then waits for what is in flight. */
export async function runArrivalPhase(
  phase: ResolvedPhase,
  ctx: ArrivalContext,
  collector: Collector,
  profileName: string,
): Promise<string[]> {
  const notes: string[] = [];
  const url = new URL(ctx.baseUrl);
  const basePath = url.pathname;
  const stages = phase.stages ?? [{ duration: phase.duration, target: phase.rate ?? 1 }];
  const times = arrivalTimes(phase.stages ? (phase.rate ?? 0) : (phase.rate ?? 1), stages, phase.amount);
  if (times.length === phase.amount) notes.push(`phase ${phase.name}: arrivals capped at ${phase.amount}`);
  const ca = trustedCas(ctx.caCertFile);
  const pool = new Pool(url.origin, {
    connections: phase.connections,
    pipelining: 1,
    ...(ca ? { connect: { ca } } : {}),
  });
  const inFlight = new Set<Promise<void>>();
  let dropped = 0;
  let rr = 0;
  const startWall = Date.now();
  const start = performance.now();
  const deadline = start + phase.duration * 1000;
  const tick = setInterval(() => {
    ctx.progress?.(
      `[${profileName}/${phase.name}] ${((performance.now() - start) / 1000).toFixed(0)}s ${collector.completed} responses, ${inFlight.size} in flight, ${dropped} dropped`,
    );
  }, 1000);

  const fire = async (intendedWall: number): Promise<void> => {
    const template = phase.requests[rr % phase.requests.length]!;
    const { label, index, token, path, body, headers } = buildRequest(
      template,
      phase.key,
      rr++,
      ctx.freshCount,
      ctx.runPrefix,
      collector,
    );
    const sent: Record<string, string> = { ...ctx.headers, ...headers, authorization: `Bearer ${ctx.keyFor(label)}` };
    if (body !== undefined) sent['content-type'] = 'application/json';
    const pending: Pending = {
      keyLabel: label,
      index,
      sentAt: Date.now(),
      units: unitsOf(template, body),
      operation: `${template.method} ${template.path}`,
      path,
      token,
    };
    collector.sent += 1;
    try {
      const res = await pool.request({
        method: template.method,
        path: basePath + path,
        headers: sent,
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: phase.timeout * 1000,
        bodyTimeout: phase.timeout * 1000,
      });
      const text = await res.body.text();
      const receivedAt = Date.now();
      const lower: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) lower[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      collector.bytesReceived +=
        Buffer.byteLength(text) + Object.entries(lower).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
      const obs: KeyedObservation = {
        index,
        sentAt: pending.sentAt,
        receivedAt,
        status: res.statusCode,
        headers: lower,
        errorCode: errorCodeOf(res.statusCode, text),
        units: pending.units,
        operation: pending.operation,
        token,
      };
      // From the intended start: time spent waiting in the generator is the target's too.
      collector.observe(pending, obs, Math.max(0, receivedAt - intendedWall));
    } catch {
      collector.networkErrors += 1;
    }
  };

  try {
    for (const offset of times) {
      const due = start + offset;
      if (due > deadline) break;
      const wait = due - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight.size >= phase.connections) {
        dropped++;
        continue;
      }
      const p = fire(startWall + offset).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
  } finally {
    clearInterval(tick);
    await pool.close();
  }
  collector.dropped += dropped;
  if (dropped > 0)
    notes.push(
      `phase ${phase.name}: ${dropped} arrival${dropped === 1 ? '' : 's'} dropped: all ${phase.connections} connections were busy (raise connections, or the target is slower than the rate)`,
    );
  return notes;
}
