/**
 * `--rerun-unanswered` (src/report/rerun.ts): which checks run again (those that got no answer,
 * with the flow steps skipped for them), and how a re-run joins the report: its result in place,
 * the attempt that gave it and what the earlier ones gave, coverage counts moved, not doubled.
 */
import { expect, test } from '../base.ts';
import type { CheckResult } from '../../src/model/finding.ts';
import type { DraftReport } from '../../src/report/finalise.ts';
import { rerunIds, rerunUnanswered, withRerun } from '../../src/report/rerun.ts';
import { summarize } from '../../src/report/gate.ts';
import { check, report } from '../harness/helpers.ts';

const FLOW = 'flow.multipart-upload';
const reset = 'NetworkError: GET /v1/storage/buckets/b/objects failed without a response: Error: read ECONNRESET';

function draft(checks: CheckResult[]): DraftReport {
  const { summary: _, ...rest } = report(checks, {
    coverage: {
      operations: [
        { operation: 'GET /storage/buckets/{bucket}/objects', checks: 3, statuses_seen: [200], passed: 1, failed: 1 },
      ],
    },
    waits: { 'storage-objects': 1000 },
  });
  return rest;
}

const op = 'GET /storage/buckets/{bucket}/objects';
const first = check({ id: `${FLOW}.initiate`, flow: FLOW, operation: op });
const listed = check({
  id: `${FLOW}.listed`,
  flow: FLOW,
  operation: op,
  status: 'failed',
  classification: 'environment',
  message: reset,
});
const deleted = check({
  id: `${FLOW}.delete`,
  flow: FLOW,
  operation: op,
  status: 'skipped',
  message: `not run: the flow's step ${FLOW}.listed failed before it`,
});
const noAlt = check({
  id: 'iso.read',
  status: 'failed',
  classification: 'environment',
  message: 'PrerequisiteMissingError: this check needs a second account: pass --alt-api-key',
});
const budget = check({
  id: 'rl.burst',
  status: 'failed',
  classification: 'environment',
  message: "EnvironmentError: the target answered 429 to POST /sms/send on 4 keys of the run's own budget",
});

test('what runs again: no answer (and the own budget), with the flow steps skipped for it; never a missing prerequisite', () => {
  expect(rerunIds([first, listed, deleted, noAlt, budget, check({ id: 'ok' })])).toEqual([
    `${FLOW}.listed`,
    `${FLOW}.delete`,
    'rl.burst',
  ]);
  expect(rerunIds([first, check({ id: 'bug', status: 'failed', classification: 'cloudcheck-error' })])).toEqual([]);
  // As the worker records it now: the failure's data says which error it was, whatever the message.
  const typed = check({
    ...noAlt,
    message: 'this check needs a second account: pass --alt-api-key',
    failure: {
      kind: 'error',
      subject: 'PrerequisiteMissingError',
      headline: 'needs a second account',
      operation: null,
    },
  });
  expect(rerunIds([typed])).toEqual([]);
});

test('a re-run replaces what it ran again, keeps the history, and moves the coverage counts', () => {
  const before = draft([first, listed, deleted]);
  const again = draft([
    check({ ...listed, status: 'passed', classification: undefined, message: undefined }),
    check({ ...deleted, status: 'passed', message: undefined }),
  ]);
  again.run.finished_at = '2025-01-01T00:02:00.000Z';
  const joined = withRerun(before, again, [`${FLOW}.listed`, `${FLOW}.delete`], 2);
  const byId = new Map(joined.checks.map((c) => [c.id, c]));
  expect(byId.get(`${FLOW}.initiate`)).toEqual(first);
  expect(byId.get(`${FLOW}.listed`)).toMatchObject({
    status: 'passed',
    attempt: 2,
    earlier_attempts: [{ status: 'failed', classification: 'environment', message: reset }],
  });
  expect(byId.get(`${FLOW}.delete`)?.earlier_attempts?.[0]?.status).toBe('skipped');
  expect(joined.run).toMatchObject({ finished_at: '2025-01-01T00:02:00.000Z', reruns: 1 });
  expect(joined.coverage.operations[0]).toMatchObject({ checks: 3, passed: 3, failed: 0 });
  expect(joined.waits?.['storage-objects']).toBe(2000);
  expect(summarize(joined.checks).verdict).toBe('conformant');
  expect(summarize(before.checks).verdict).toBe('inconclusive');
});

test('the re-runs stop when every check is judged, and never start when no check passed (an unusable target)', async () => {
  const attempts: number[] = [];
  const result = await rerunUnanswered(
    draft([first, listed, deleted]),
    2,
    async (ids, attempt) => {
      attempts.push(attempt);
      return draft(
        [
          // The first re-run gets no answer again; the second is judged.
          attempt === 2
            ? listed
            : check({ ...listed, status: 'passed', classification: undefined, message: undefined }),
          attempt === 2 ? deleted : check({ ...deleted, status: 'passed', message: undefined }),
        ].filter((c) => ids.includes(c.id)),
      );
    },
    () => undefined,
  );
  expect(attempts).toEqual([2, 3]);
  const listedNow = result.checks.find((c) => c.id === `${FLOW}.listed`);
  expect(listedNow).toMatchObject({ status: 'passed', attempt: 3 });
  expect(listedNow?.earlier_attempts?.map((a) => a.status)).toEqual(['failed', 'failed']);
  const none: number[] = [];
  await rerunUnanswered(
    draft([listed]),
    2,
    async (_ids, attempt) => (none.push(attempt), null),
    () => undefined,
  );
  expect(none).toEqual([]);
});
