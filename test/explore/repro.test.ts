/**
 * The reproduction script of a finding (src/explore/repro.ts): ids a create answered with become
 * shell variables wherever they stand whole, the base URL becomes $CLOUDCHECK_TARGET, and nothing
 * else of a line changes.
 */
import { expect, test } from '../base.ts';
import { reproductionScript } from '../../src/explore/repro.ts';
import type { Exchange } from '../../src/model/finding.ts';

const BASE = 'http://127.0.0.1:8080/v1';

function exchange(method: string, path: string, status: number, responseBody?: string, requestBody?: string): Exchange {
  const data = requestBody !== undefined ? ` --data-raw '${requestBody}'` : '';
  return {
    request: { method, url: `${BASE}${path}`, headers: {}, body: requestBody },
    response: { status, headers: {}, body: responseBody },
    started_at: '2026-11-25T00:00:00.000Z',
    duration_ms: 1,
    curl: `curl -sS -i -X ${method} '${BASE}${path}' -H "Authorization: Bearer $CLOUDCHECK_API_KEY"${data}`,
  };
}

test('created ids become variables where they stand whole; the base URL becomes $CLOUDCHECK_TARGET', () => {
  const script = reproductionScript({
    requirement: 'VOL-ATT-001',
    summary: 'x: expected y, got z',
    baseUrl: `${BASE}/`,
    setUp: [],
    exchanges: [
      exchange('POST', '/vps', 201, '{"vps":{"id":"808","name":"n","owner":{"id":"acct_1"}}}'),
      exchange('POST', '/sms/send', 201, '{"message_id":"msg_5","to":"+15005550006"}'),
      exchange('GET', '/sms/status/msg_5', 200),
      exchange('POST', '/storage/volumes/vol_9/attach', 200, '{"ok":true}', '{"vps_id":"808","port":18080}'),
      exchange('GET', '/vps/808', 200),
    ],
  });
  const lines = script.split('\n');
  expect(lines).toContain(`CLOUDCHECK_TARGET="\${CLOUDCHECK_TARGET:-${BASE}}"`);
  // The first id of the create's body (the resource's, not its owner's), captured without -i.
  expect(lines.find((l) => l.startsWith('ID1='))).toBe(
    `ID1=$(curl -sS -X POST "\${CLOUDCHECK_TARGET}"'/vps' -H "Authorization: Bearer $CLOUDCHECK_API_KEY" | grep -o '"\\([a-z]*_\\)\\{0,1\\}id" *: *"[^"]*"' | head -n 1 | sed 's/.*"\\([^"]*\\)"$/\\1/')`,
  );
  // In a JSON body and a path; never inside another number (the port 18080 holds 808).
  expect(script).toContain(`--data-raw '{"vps_id":"'"\${ID1}"'","port":18080}'`);
  expect(script).toContain(`"\${CLOUDCHECK_TARGET}"'/vps/'"\${ID1}"''`);
  expect(script).not.toContain(BASE + '/');
  // A resource whose id is named after it (message_id) is captured too.
  expect(script).toContain(`"\${CLOUDCHECK_TARGET}"'/sms/status/'"\${ID2}"''`);
});
