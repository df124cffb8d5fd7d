/**
 * Latency per status class in separate HDR histograms: a burst of fast 429s must not flatter the
 * 2xx percentiles. Values are recorded in microseconds. For rate-driven runs the caller passes the
 * expected interval between requests of one connection, and the histogram back-fills the samples
 * a stalled server kept the generator from sending (coordinated-omission correction).
 *
 * Serialised form: each histogram as HdrHistogram's compressed base64 encoding, so the runs of
 * several machines merge exactly (load/merge.ts sums histograms; percentiles are never averaged).
 */
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { STATUS_CLASSES } from '../src/model/load.ts';
import type { LatencySummary, SerializedHistograms, StatusClass } from '../src/model/load.ts';

export function statusClass(status: number): StatusClass | undefined {
  if (status === 429) return '429';
  if (status >= 200 && status < 400) return '2xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return undefined;
}

function newHistogram(): Histogram {
  // 1 us .. 1 h at 3 significant digits; auto-resize keeps outliers instead of throwing.
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  });
}

export class LatencyHistograms {
  private readonly hist = new Map<StatusClass, Histogram>();

  /** `latencyMs` measured; `expectedIntervalMs` set for rate-driven phases (CO correction). */
  record(status: number, latencyMs: number, expectedIntervalMs?: number): void {
    const cls = statusClass(status);
    if (!cls) return;
    const h = this.get(cls);
    const us = Math.max(1, Math.round(latencyMs * 1000));
    if (expectedIntervalMs && expectedIntervalMs > 0)
      h.recordValueWithExpectedInterval(us, Math.round(expectedIntervalMs * 1000));
    else h.recordValue(us);
  }

  private get(cls: StatusClass): Histogram {
    let h = this.hist.get(cls);
    if (!h) this.hist.set(cls, (h = newHistogram()));
    return h;
  }

  /** Adds another set (same or different machine) into this one. */
  add(other: LatencyHistograms): void {
    for (const [cls, h] of other.hist) this.get(cls).add(h);
  }

  summary(): Partial<Record<StatusClass, LatencySummary>> {
    const out: Partial<Record<StatusClass, LatencySummary>> = {};
    for (const cls of STATUS_CLASSES) {
      const h = this.hist.get(cls);
      if (!h || h.totalCount === 0) continue;
      const ms = (v: number) => Math.round(v) / 1000;
      // A percentile is the upper edge of its bucket (3 significant digits), which can lie above
      // the largest value recorded: no percentile is above the maximum, so it is capped there.
      const at = (percentile: number) => ms(Math.min(h.getValueAtPercentile(percentile), h.maxValue));
      out[cls] = {
        count: h.totalCount,
        p50: at(50),
        p95: at(95),
        p99: at(99),
        max: ms(h.maxValue),
        mean: Math.round(h.mean) / 1000,
      };
    }
    return out;
  }

  serialize(): SerializedHistograms {
    const classes: Partial<Record<StatusClass, string>> = {};
    for (const cls of STATUS_CLASSES) {
      const h = this.hist.get(cls);
      if (h && h.totalCount > 0) classes[cls] = encodeIntoCompressedBase64(h);
    }
    return { unit: 'us', classes };
  }

  static deserialize(s: SerializedHistograms): LatencyHistograms {
    const out = new LatencyHistograms();
    for (const cls of STATUS_CLASSES) {
      const enc = s.classes[cls];
      if (!enc) continue;
      const decoded = decodeFromCompressedBase64(enc);
      out.get(cls).add(decoded);
      decoded.destroy();
    }
    return out;
  }

  destroy(): void {
    for (const h of this.hist.values()) h.destroy();
    this.hist.clear();
  }
}
