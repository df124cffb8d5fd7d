/**
 * The second half of TEST-NUM-003: over many sends, the random test number ends both `delivered`
 * and `failed` (the test-mode-numbers flow checks a single send ends in one of the two, which a
 * number that always delivers passes too).
 */
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';
import { finalStatus } from '../flows/_messaging.ts';

/** With even odds, all SENDS alike has probability 2^-(SENDS-1) (about 1e-7): no flakiness. */
const SENDS = 24;
/** Requests of the check in flight at once. */
const AT_ONCE = 6;

/** `work` on every item, AT_ONCE at a time; the results in the items' order. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE)
    results.push(...(await Promise.all(items.slice(i, i + AT_ONCE).map(work))));
  return results;
}

defineCheck(
  {
    id: 'test-mode.random-number.mix',
    requirement: 'TEST-NUM-003',
    level: 'MUST',
    class: 'test-mode',
    operation: 'GET /sms/status/{message_id}',
    title: `${SENDS} sends to the random test number end both delivered and failed`,
  },
  async ({ api, ledger, ctx }) => {
    // A few at a time: each is a round trip, and across a network 24 in a row took seconds.
    const ids = await inBatches(
      Array.from({ length: SENDS }, (_, i) => i),
      async (i) => {
        const res = await api.post('/sms/send', {
          to: ctx.testNumbers.random,
          message: `cloudcheck ${ctx.runPrefix}random ${i}`,
        });
        expectStatus(res, [200, 201]);
        return ledger.track('message', res.json<{ message_id: string }>().message_id);
      },
    );
    // The first message waited for alone: they were sent together, so once it is final the
    // others mostly are too, and are read a few at a time (24 polls at once, each backing off,
    // would spend the key's messaging budget of the minute).
    const first = await finalStatus(api, ctx, ids[0]!);
    const finals = [first, ...(await inBatches(ids.slice(1), (id) => finalStatus(api, ctx, id)))];
    const outcomes = finals.map((m) => m.status);
    for (const status of outcomes)
      expect(['delivered', 'failed'], 'every send to the random number ends delivered or failed').toContain(status);
    const count = (s: string): number => outcomes.filter((o) => o === s).length;
    expect(
      new Set(outcomes).size,
      `both outcomes over ${SENDS} sends (delivered ${count('delivered')}, failed ${count('failed')})`,
    ).toBe(2);
  },
);
