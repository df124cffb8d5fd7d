/**
 * GET /messaging/analytics/delivery and the messaging usage billing reads. Both are computed
 * from the stored messages on each request, so they can never drift from what GET /sms/messages shows.
 */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { authOf } from '../../core/http.ts';
import type { ResourceProvider } from '../../core/services.ts';
import { Fields, isPlainObject } from '../../core/validation.ts';
import { roundMoney } from './catalog.ts';
import { groupStart, inRange, readDateRange } from './dates.ts';
import { stateOf } from './store.ts';

const GROUPS = ['day', 'week', 'month'] as const;

/** Percent with two decimals; 0 when nothing was sent (no division by zero). */
function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

export function registerAnalyticsRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  app.get('/messaging/analytics/delivery', async (request) => {
    const { account } = authOf(request);
    const fields = new Fields('messaging', isPlainObject(request.query) ? request.query : {});
    const range = readDateRange(fields);
    const requested = ctx.faults.has('msg-analytics-group-by-unchecked')
      ? fields.string('group_by')
      : fields.string('group_by', { oneOf: GROUPS });
    const groupBy = GROUPS.find((g) => g === requested) ?? 'day';
    const rateScale = ctx.faults.has('msg-analytics-rate-basis-points') && requested !== undefined ? 100 : 1;

    const rows = new Map<
      string,
      { date: string; total_messages: number; delivered: number; failed: number; cost: number }
    >();
    for (const m of stateOf(ctx, account.id).messages.values()) {
      if (!inRange(range, m.createdMs)) continue;
      const date = groupStart(m.createdMs, groupBy);
      const row = rows.get(date) ?? { date, total_messages: 0, delivered: 0, failed: 0, cost: 0 };
      row.total_messages++;
      if (m.status === 'delivered') row.delivered++;
      else if (m.status === 'failed' || m.status === 'expired' || m.status === 'rejected') row.failed++;
      row.cost += m.cost;
      rows.set(date, row);
    }
    const analytics = [...rows.values()]
      .sort((a, b) => a.date.localeCompare(b.date))
      .map((r) => ({
        date: r.date,
        total_messages: r.total_messages,
        delivered: r.delivered,
        failed: r.failed,
        delivery_rate: percent(r.delivered, r.total_messages) * rateScale,
        total_cost: roundMoney(r.cost),
      }));
    // The summary is the sum of the rows (and its rate is over all messages, not a mean of rates).
    const total = analytics.reduce((sum, r) => sum + r.total_messages, 0);
    const delivered = analytics.reduce((sum, r) => sum + r.delivered, 0);
    const failed = analytics.reduce((sum, r) => sum + r.failed, 0);
    const summary: Record<string, number> = {
      total_messages: total,
      total_delivered: delivered,
      total_failed: failed,
      average_delivery_rate: percent(delivered, total) * rateScale,
      total_cost: roundMoney(analytics.reduce((sum, r) => sum + r.total_cost, 0)),
    };
    if (ctx.faults.has('msg-analytics-summary-rate-missing')) delete summary.average_delivery_rate;
    return { analytics, summary };
  });
}

/**
 * What billing's current usage and cost analytics read for messaging. Only debited (live) sends
 * count: test-mode messages are priced but never billed. Messaging has no standing resources.
 */
export function messagingUsageProvider(ctx: ReferenceContext): ResourceProvider {
  return {
    service: 'messaging',
    resources: () => [],
    usage(accountId, fromMs, toMs) {
      let cost = 0;
      let sent = 0;
      for (const m of stateOf(ctx, accountId).messages.values()) {
        if (!m.charged || m.createdMs < fromMs || m.createdMs >= toMs) continue;
        cost += m.cost;
        sent++;
      }
      const total = roundMoney(cost);
      return {
        service: 'messaging',
        cost: total,
        resources: [],
        extra: { messages_sent: sent, cost_per_message: sent === 0 ? 0 : roundMoney(total / sent) },
      };
    },
    remove: () => {},
  };
}
