/**
 * The burst flows start in a fresh minute only when the current one cannot hold the burst: the
 * time they give a burst follows the target's round trip, within bounds.
 */
import { expect, test } from '../base.ts';
import { secondsNeeded } from '../../suites/rate-limits/_onset.ts';

test('a burst needs 5 s plus five round trips per request, at most 15 s', () => {
  expect(secondsNeeded(0, 106)).toBe(5);
  expect(secondsNeeded(3, 106)).toBeCloseTo(6.59, 2);
  expect(secondsNeeded(18, 106)).toBeCloseTo(14.54, 2);
  // A target this slow cannot fit 106 requests in a minute at all: the cap bounds the wait, and
  // the flow reports the roll-over instead of waiting forever.
  expect(secondsNeeded(500, 106)).toBe(15);
});
