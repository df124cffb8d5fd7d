/**
 * Metric series of one instance. There is no real machine behind a VPS, so values are synthetic
 * but stable: each point is a hash of (instance, series, minute), so asking twice for the same
 * window gives the same numbers, and overlapping windows agree where they overlap. Units follow
 * docs/conventions.md: percent for cpu, memory and disk, bytes per second for network.
 */
import { createHash } from 'node:crypto';
import { isoTimestamp } from '../../core/clock.ts';

export const INTERVALS: ReadonlyMap<string, number> = new Map([
  ['1m', 60_000],
  ['5m', 300_000],
  ['1h', 3_600_000],
  ['1d', 86_400_000],
]);

/** At most this many points per series (a day at one-minute resolution). */
export const MAX_POINTS = 1440;

export const SERIES = ['cpu', 'memory', 'disk', 'network_in', 'network_out'] as const;

/** Value ranges per series: percent for the first three, bytes per second for the network. */
const RANGES: Record<(typeof SERIES)[number], [number, number]> = {
  cpu: [2, 85],
  memory: [20, 75],
  disk: [10, 40],
  network_in: [1_000, 2_000_000],
  network_out: [500, 1_000_000],
};

function unitNoise(vpsId: string, series: string, minute: number): number {
  const digest = createHash('sha256').update(`${vpsId}|${series}|${minute}`).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

/** Timestamps from `startMs` every `stepMs` up to `endMs` inclusive. */
export function pointTimes(startMs: number, endMs: number, stepMs: number): number[] {
  const times: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) times.push(t);
  return times;
}

export function pointCount(startMs: number, endMs: number, stepMs: number): number {
  return Math.floor((endMs - startMs) / stepMs) + 1;
}

export function buildMetrics(
  vpsId: string,
  times: readonly number[],
): Record<string, Array<{ timestamp: string; value: number }>> {
  const metrics: Record<string, Array<{ timestamp: string; value: number }>> = {};
  for (const series of SERIES) {
    const [low, high] = RANGES[series];
    const percent = series === 'cpu' || series === 'memory' || series === 'disk';
    metrics[series] = times.map((t) => {
      const raw = low + unitNoise(vpsId, series, Math.floor(t / 60_000)) * (high - low);
      return { timestamp: isoTimestamp(t), value: percent ? Math.round(raw * 100) / 100 : Math.round(raw) };
    });
  }
  return metrics;
}
