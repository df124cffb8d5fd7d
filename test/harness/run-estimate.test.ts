/**
 * The run's duration from its request budget (run-estimate.ts): the windows a run on too few keys
 * must wait for, said before it starts, and the time left that follows the budget.
 */
import { expect, test } from '../base.ts';
import {
  RunEstimate,
  budgetWait,
  describeBudget,
  formatDuration,
  pacingKeys,
  requestsOf,
  totalOf,
} from '../../src/harness/run-estimate.ts';

const HOUR = 3_600_000;
/** Ten minutes into an hour (and into no minute's end). */
const NOW = Date.UTC(2026, 10, 28, 6, 10, 0);

test("one key and about 2,000 requests: the hourly limit makes the run last into the hour after next's start", () => {
  const requests = { storage: 2000 };
  const wait = budgetWait(requests, pacingKeys(0), NOW);
  expect(wait.rule).toBe('hour');
  // 998 now (two kept back), 998 after the next hour starts (50 min away), the rest an hour later.
  expect(wait.waitMs).toBe(50 * 60_000 + HOUR);
  const line = describeBudget(requests, pacingKeys(0), wait);
  expect(line).toContain('about 2,000 requests over 1 key of the account');
  expect(line).toContain('the per-key limit of 1000 an hour (hour) makes this run last at least 1 h 50 min');
  expect(line).toContain('--api-key, repeated');
  // Three keys given: the hour holds it all.
  expect(budgetWait(requests, pacingKeys(2), NOW).rule).toBeNull();
});

test('a full run on the keys of the embedded server waits for no window; on one key, the minute bursts and the hour bind', () => {
  const full = requestsOf(
    Object.entries({
      auth: 262,
      errors: 427,
      billing: 66,
      messaging: 104,
      pagination: 23,
      projects: 25,
      'api-keys': 21,
      compute: 68,
      webhooks: 16,
      'storage-objects': 105,
      'storage-volumes': 50,
      isolation: 4,
      'test-mode': 9,
      'rate-limits': 25,
      s3: 33,
    }),
  );
  expect(totalOf(full)).toBeGreaterThan(1500);
  // Two workers with six keys each and the run's key.
  expect(budgetWait(full, pacingKeys(12), NOW)).toEqual({ waitMs: 0, rule: null, limit: null });
  const alone = budgetWait(full, pacingKeys(0), NOW);
  expect(alone.rule).not.toBeNull();
  expect(alone.waitMs).toBeGreaterThanOrEqual(50 * 60_000);
});

test('as checks finish, their requests leave what is to send and fill the current window; a new window empties it', () => {
  const estimate = new RunEstimate([['storage-objects', 1400]], pacingKeys(0));
  // 1400 checks × 1.49 storage requests (2,086): two windows of 998 and the start of a third.
  expect(estimate.wait(NOW).waitMs).toBe(50 * 60_000 + HOUR);
  for (let i = 0; i < 600; i++) estimate.finished('storage-objects', NOW);
  // 894 sent in this hour, 1,192 to go: 104 fit now, the rest needs the next hour and the start of one more.
  expect(estimate.wait(NOW + 1000).waitMs).toBe(50 * 60_000 - 1000 + HOUR);
  // In the next hour nothing was sent yet: 1,192 need that hour and the start of the one after.
  expect(estimate.wait(NOW + 50 * 60_000 + 1000).waitMs).toBe(HOUR - 1000);
});

test('durations read as people say them', () => {
  expect(formatDuration(40_000)).toBe('40 s');
  expect(formatDuration(4 * 60_000)).toBe('4 min');
  expect(formatDuration(HOUR + 12 * 60_000)).toBe('1 h 12 min');
  expect(formatDuration(2 * HOUR)).toBe('2 h');
});
