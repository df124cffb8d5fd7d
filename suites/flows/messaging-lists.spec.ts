/**
 * Flow: the lists an account keeps for messaging. A sender ID registration is listed, becomes
 * approved, is listed with its fields, and is then usable as `from` but refused for a country it
 * was not approved for; a contact list is listed and counts the contacts added; and a number on
 * the opt-out list is listed and cannot be sent to. Apart from the campaign and list flow
 * (messaging-consistency.spec.ts), so that a failure there leaves these verdicts standing.
 */
import { defineFlow, expect, expectErrorEnvelope, expectStatus, expectWrappedIn } from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, CheckContext, Ledger } from '../../src/harness/check.ts';
import { ISO_TIMESTAMP, listOf, recordOf } from './_messaging.ts';
import type { MessageStatus } from './_messaging.ts';

interface State {
  /** The country the test numbers are in, for the sender ID's approval. */
  country: string;
  senderId: string;
  listId: string;
  optedOut: string;
  /** The refusal of the send to another country, for the convention's step. */
  senderRefusal: ApiResponse;
}

const FLOW = 'flow.messaging-lists';

/**
 * The country of the test numbers, as the target reports it in a delivery report (a test-mode
 * send to the succeed number), or US: a sender ID is approved per country and the specification
 * does not say which country its test numbers are in. Nothing is asserted here: what a send
 * answers is other checks' business.
 */
async function countryOfTestNumbers(api: ApiClient, ledger: Ledger, ctx: CheckContext): Promise<string> {
  const id = sentId(
    trackAccepted(
      await api.post('/sms/send', { to: ctx.testNumbers.succeed, message: `cloudcheck ${ctx.runPrefix}country` }),
      ledger,
    ),
  );
  if (id === undefined) return 'US';
  const status = await api.get(`/sms/status/${encodeURIComponent(id)}`);
  const country =
    status.status === 200 ? (status.body as MessageStatus | undefined)?.delivery_report?.country : undefined;
  return typeof country === 'string' && country.length > 0 ? country : 'US';
}

/** The message a send created, if it was accepted. */
function sentId(res: ApiResponse): string | undefined {
  const id = res.status < 300 ? (res.body as { message_id?: unknown } | undefined)?.message_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Tracks what a send created (also one the step expects refused), so that the ledger deletes it. */
function trackAccepted(res: ApiResponse, ledger: Ledger): ApiResponse {
  const id = sentId(res);
  if (id !== undefined) ledger.track('message', id);
  return res;
}

/**
 * The refusal steps send to a number that is no test number, only with X-Test-Mode (added by the
 * client): a target that wrongly accepts must still send nothing real. Under --live-sms they skip.
 */
function skipUnderLiveSms(ctx: CheckContext): void {
  ctx.testInfo.skip(ctx.liveSms, 'with --live-sms this would send a real SMS to a non-test number');
}

defineFlow<State>(
  { id: FLOW, class: 'messaging', title: 'messaging lists: sender IDs, contact lists, opt-outs' },
  (step) => {
    step(
      {
        id: `${FLOW}.sender-register`,
        requirement: 'MSG-SID-006',
        level: 'SHOULD',
        operation: 'POST /messaging/sender-ids',
        title: 'a sender ID registration answers 201 {"sender_id": {...}} and is then listed',
      },
      async ({ api, ledger, ctx, state }) => {
        state.country = await countryOfTestNumbers(api, ledger, ctx);
        // Alphanumeric sender ids are at most 11 characters: "CC" and nine of the run's own.
        const tail = `${ctx.runId}${ctx.name('s')}`
          .replace(/[^a-z0-9]/gi, '')
          .toUpperCase()
          .slice(-9);
        state.senderId = `CC${tail}`;
        const res = await api.post('/messaging/sender-ids', {
          sender_id: state.senderId,
          type: 'alphanumeric',
          countries: [state.country],
          use_case: 'cloudcheck conformance run (test mode only)',
          business_name: 'cloudcheck',
        });
        expectStatus(res, 201);
        ledger.track('sender-id', state.senderId);
        const record = expectWrappedIn<{ sender_id?: string; status?: string }>(res, 'sender_id', 'the registration');
        expect(record.sender_id).toBe(state.senderId);
        const list = await api.get('/messaging/sender-ids');
        expectStatus(list, 200);
        expect(listOf<{ sender_id: string }>(list.body, 'sender_ids').map((s) => s.sender_id)).toContain(
          state.senderId,
        );
      },
    );

    step(
      {
        id: `${FLOW}.sender-approved`,
        requirement: 'MSG-SID-005',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'the registered sender ID becomes approved and can then be used as `from`',
      },
      async ({ api, ledger, ctx, state }) => {
        const record = await ctx.poll(`sender ID ${state.senderId} to be approved`, async () => {
          const res = await api.get('/messaging/sender-ids');
          expectStatus(res, 200);
          const found = listOf<{ sender_id: string; status: string; approved_at?: string | null }>(
            res.body,
            'sender_ids',
          ).find((s) => s.sender_id === state.senderId);
          return found?.status === 'approved' ? found : undefined;
        });
        expect(record.status).toBe('approved');
        const res = await api.post('/sms/send', {
          to: ctx.testNumbers.succeed,
          message: `cloudcheck ${ctx.runPrefix}sender`,
          from: state.senderId,
        });
        expectStatus(res, [200, 201]);
        const message = res.json<{ message_id: string; from: string }>();
        ledger.track('message', message.message_id);
        expect(message.from, 'the message carries the approved sender ID').toBe(state.senderId);
      },
    );

    step(
      {
        id: `${FLOW}.sender-fields`,
        requirement: 'MSG-SID-002',
        level: 'MUST',
        operation: 'GET /messaging/sender-ids',
        title: 'the approved sender ID is listed with sender_id, type, status, countries, created_at and approved_at',
      },
      async ({ api, state }) => {
        const res = await api.get('/messaging/sender-ids');
        expectStatus(res, 200);
        const record = listOf<Record<string, unknown>>(res.body, 'sender_ids').find(
          (s) => s.sender_id === state.senderId,
        );
        expect(record, `sender ID ${state.senderId} in the listing`).toBeTruthy();
        expect(typeof record!.sender_id, 'sender_id is a string').toBe('string');
        expect(['alphanumeric', 'numeric'], 'type').toContain(record!.type);
        expect(typeof record!.status, 'status is a string').toBe('string');
        const countries = record!.countries;
        expect(
          Array.isArray(countries) && countries.every((c) => typeof c === 'string' && c.length > 0),
          `countries ${JSON.stringify(countries)} is an array of country codes`,
        ).toBe(true);
        expect(record!.created_at, 'created_at').toEqual(expect.stringMatching(ISO_TIMESTAMP));
        // Approved in the step before, so its approval time is known.
        expect(record!.approved_at, 'approved_at of an approved sender ID').toEqual(
          expect.stringMatching(ISO_TIMESTAMP),
        );
      },
    );

    step(
      {
        id: `${FLOW}.sender-other-country`,
        requirement: 'ERR-CODE-002',
        level: 'MUST',
        operation: 'POST /sms/send',
        title: 'a send from the sender ID to a country it is not approved for is refused with sender_id_not_approved',
      },
      async ({ api, ledger, ctx, state }) => {
        skipUnderLiveSms(ctx);
        // Numbers reserved for fiction: the UK's drama range (+44 7700 900xxx), or the NANP's 555-01xx
        // when the sender ID was approved for the United Kingdom.
        const to = state.country.toUpperCase() === 'GB' ? '+12025550143' : '+447700900123';
        const res = trackAccepted(
          await api.post('/sms/send', {
            to,
            message: `cloudcheck ${ctx.runPrefix}other country`,
            from: state.senderId,
          }),
          ledger,
        );
        state.senderRefusal = res;
        expect(
          res.status >= 400 && res.status < 500,
          `a send from ${state.senderId} (approved for ${state.country}) to ${to} is refused, got ${res.status}`,
        ).toBe(true);
        expectErrorEnvelope(res, 'sender_id_not_approved');
      },
    );

    step(
      {
        id: `${FLOW}.sender-other-country-details`,
        requirement: 'ERR-MAP-007',
        level: 'SHOULD',
        operation: 'POST /sms/send',
        title: 'that refusal is 422 with details {field: "from", value: the sender ID}',
      },
      async ({ ctx, state }) => {
        skipUnderLiveSms(ctx);
        const res = state.senderRefusal;
        expectStatus(res, 422, 'a send from a sender ID not approved for the destination');
        const { details } = expectErrorEnvelope(res, 'sender_id_not_approved');
        const { field, value } = (details ?? {}) as { field?: unknown; value?: unknown };
        expect({ field, value }, `error.details ${JSON.stringify(details)} names the from field and its value`).toEqual(
          { field: 'from', value: state.senderId },
        );
      },
    );

    step(
      {
        id: `${FLOW}.contacts`,
        requirement: 'MSG-CON-002',
        level: 'MUST',
        operation: 'GET /messaging/contacts/lists',
        title: 'a new contact list is listed by GET /messaging/contacts/lists',
      },
      async ({ api, ledger, ctx, state }) => {
        const name = ctx.name('contacts');
        const res = await api.post('/messaging/contacts/lists', { name, description: 'cloudcheck' });
        expectStatus(res, [200, 201]);
        const list = recordOf<{ id: string; name: string }>(res.body, 'contact_list');
        expect(typeof list.id).toBe('string');
        state.listId = ledger.track('contact-list', list.id);
        const lists = await api.get('/messaging/contacts/lists');
        expectStatus(lists, 200);
        const found = listOf<{ id: string; name: string }>(lists.body, 'contact_lists').find(
          (l) => l.id === state.listId,
        );
        expect(found?.name).toBe(name);
      },
    );

    step(
      {
        id: `${FLOW}.contacts-count`,
        requirement: 'MSG-CON-004',
        level: 'SHOULD',
        operation: 'POST /messaging/contacts/lists/{list_id}/contacts',
        title: 'adding contacts answers 200 and the list counts them',
      },
      async ({ api, state }) => {
        const contacts = [
          { phone: '+15555550101', name: 'cloudcheck one', email: 'one@example.com' },
          { phone: '+15555550102', name: 'cloudcheck two', email: 'two@example.com' },
        ];
        const res = await api.post(`/messaging/contacts/lists/${encodeURIComponent(state.listId)}/contacts`, {
          contacts,
        });
        expectStatus(res, 200);
        // The record's fields are not shown by the specification: the count is read from whichever
        // of the usual names the list (or the add result) uses.
        const countOf = (record: Record<string, unknown> | undefined): number | undefined => {
          for (const field of ['contact_count', 'contacts_count', 'total_contacts', 'count'])
            if (typeof record?.[field] === 'number') return record[field];
          return undefined;
        };
        const lists = await api.get('/messaging/contacts/lists');
        expectStatus(lists, 200);
        const entry = listOf<Record<string, unknown>>(lists.body, 'contact_lists').find((l) => l.id === state.listId);
        const result = res.body as Record<string, unknown> | undefined;
        const count =
          countOf(entry) ?? countOf(result) ?? countOf(result?.contact_list as Record<string, unknown> | undefined);
        expect(count, 'the contact list reports how many contacts it holds').toBe(contacts.length);
      },
    );

    step(
      {
        id: `${FLOW}.opt-out-listed`,
        requirement: 'MSG-OPT-002',
        level: 'MUST',
        operation: 'GET /messaging/opt-outs',
        title: 'an opted-out number is listed by GET /messaging/opt-outs',
      },
      async ({ api, ledger, state }) => {
        // A fictional number (555-01xx is reserved for fiction in the NANP), never a real person's.
        state.optedOut = '+15555550123';
        const res = await api.post('/messaging/opt-outs', { phone: state.optedOut });
        expectStatus(res, [200, 201]);
        ledger.track('opt-out', state.optedOut);
        const list = await api.get('/messaging/opt-outs');
        expectStatus(list, 200);
        const entries = listOf<{ phone?: string } | string>(list.body, 'opt_outs');
        expect(entries.map((e) => (typeof e === 'string' ? e : e.phone))).toContain(state.optedOut);
      },
    );

    step(
      {
        id: `${FLOW}.opt-out-refused`,
        requirement: 'ERR-MAP-010',
        level: 'SHOULD',
        operation: 'POST /sms/send',
        title: 'a send to an opted-out number is refused with 422 recipient_opted_out',
      },
      async ({ api, ledger, ctx, state }) => {
        skipUnderLiveSms(ctx);
        const res = trackAccepted(
          await api.post('/sms/send', { to: state.optedOut, message: `cloudcheck ${ctx.runPrefix}opt-out` }),
          ledger,
        );
        expectStatus(res, 422);
        expectErrorEnvelope(res, 'recipient_opted_out');
      },
    );
  },
);
