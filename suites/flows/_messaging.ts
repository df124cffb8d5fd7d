/**
 * Small helpers the messaging-related flows share (template send, test-mode numbers, messaging
 * consistency and lists, webhooks): reading bodies that may or may not be wrapped, and waiting for
 * a message to reach its final state. Not a spec file: Playwright only loads `*.spec.ts`.
 */
import { expect, expectStatus, listOf as anyListOf, resourceOf } from '../../src/harness/check.ts';
import type { ApiClient, CheckContext } from '../../src/harness/check.ts';

export interface MessageStatus {
  message_id: string;
  to: string;
  message: string;
  from: string;
  status: string;
  cost: number;
  currency: string;
  sent_at?: string | null;
  delivered_at?: string | null;
  delivery_report?: { network?: string; country?: string; error_code?: unknown; error_message?: unknown };
}

/** States after which a message no longer changes (the specification's six, minus sent and pending). */
export const FINAL_STATES = ['delivered', 'failed', 'expired', 'rejected'];

/** ISO 8601 UTC timestamp as the specification writes them. */
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The record of a response whose body the specification does not show: wrapped in `wrapper`
 * (docs/conventions.md) or flat. The flows check the wrapper in SHOULD steps of their own; a
 * MUST step only needs the record.
 */
export function recordOf<T>(body: unknown, wrapper: string): T {
  return (resourceOf<T>(body, wrapper) ?? body) as T;
}

/** The array of a list response (`{"<plural>": [...]}`, or a bare array). */
export function listOf<T>(body: unknown, plural: string): T[] {
  const inner = anyListOf<T>(body, plural);
  expect(Array.isArray(inner), `the list response should carry an array \`${plural}\``).toBe(true);
  return inner!;
}

export async function messageStatus(api: ApiClient, id: string): Promise<MessageStatus> {
  const res = await api.get(`/sms/status/${encodeURIComponent(id)}`);
  expectStatus(res, 200);
  return res.json<MessageStatus>();
}

/** Polls GET /sms/status/{message_id} until the message is in a final state (staging carriers may take a while). */
export function finalStatus(api: ApiClient, ctx: CheckContext, id: string): Promise<MessageStatus> {
  return ctx.poll(
    `message ${id} to reach a final state (${FINAL_STATES.join(', ')})`,
    async () => {
      const message = await messageStatus(api, id);
      return FINAL_STATES.includes(message.status) ? message : undefined;
    },
    { intervalMs: 200 },
  );
}
