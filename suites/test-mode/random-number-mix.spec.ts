/**
 * The second half of TEST-NUM-003: over many sends, the random test number ends both `delivered`
 * and `failed` (the test-mode-numbers flow checks a single send ends in one of the two, which a
 * number that always delivers passes too).
 */
import { defineCheck, expect, expectStatus } from '../../src/harness/check.ts';
import { finalStatus } from '../flows/_messaging.ts';

/** With even odds, all SENDS alike has probability 2^-(SENDS-1) (about 1e-7): no flakiness. */
const SENDS = 24;

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
    const ids: string[] = [];
    for (let i = 0; i < SENDS; i++) {
      const res = await api.post('/sms/send', {
        to: ctx.testNumbers.random,
        message: `cloudcheck ${ctx.runPrefix}random ${i}`,
      });
      expectStatus(res, [200, 201]);
      ids.push(ledger.track('message', res.json<{ message_id: string }>().message_id));
    }
    // One message at a time: they were sent together, so once the first is final the others
    // mostly are too; 24 polls in parallel would spend the key's messaging budget of the minute.
    const finals = [];
    for (const id of ids) finals.push(await finalStatus(api, ctx, id));
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
