import { expect, test } from '../base.ts';
import { boundSeries, MAX_SERIES_POINTS } from '../../load/result.ts';

test('a burst series keeps every change and only the ends of the flat run', () => {
  // Remaining 99 .. 0 over 100 requests, then 400 more requests at 0 (429s).
  const points = Array.from({ length: 500 }, (_, i): [number, number] => [i, Math.max(0, 99 - i)]);
  const out = boundSeries(points);
  expect(out.slice(0, 3)).toEqual([
    [0, 99],
    [1, 98],
    [2, 97],
  ]);
  expect(out.filter(([, r]) => r === 0)).toEqual([
    [99, 0],
    [499, 0],
  ]);
  expect(out).toHaveLength(101);
});

test('a long changing series is cut to the bound, first and last point kept', () => {
  const points = Array.from({ length: 25_000 }, (_, i): [number, number] => [i, 25_000 - i]);
  const out = boundSeries(points);
  expect(out).toHaveLength(MAX_SERIES_POINTS);
  expect(out[0]).toEqual([0, 25_000]);
  expect(out.at(-1)).toEqual([24_999, 1]);
  // Evenly spaced and in order.
  for (let i = 1; i < out.length; i++) expect(out[i]![0]).toBeGreaterThan(out[i - 1]![0]);
  expect(boundSeries(points, 10).map(([i]) => i)).toEqual([
    0, 2778, 5555, 8333, 11111, 13888, 16666, 19444, 22221, 24999,
  ]);
});

test('short series pass through unchanged', () => {
  const points: Array<[number, number]> = [
    [0, 5],
    [1, 5],
    [2, 4],
  ];
  expect(boundSeries(points)).toEqual(points);
  expect(boundSeries([])).toEqual([]);
});
