/**
 * Messaging in test mode: single and bulk sends, the status of a message read back, GET
 * /sms/messages walked page by page with a `to` or a `status` filter (the latter once the
 * sequence's messages have settled), and the campaigns of bulk sends listed and read. Every send
 * carries `X-Test-Mode: true` and goes to the specification's succeed or fail test number (Limits,
 * "Test mode"), never to another number: no SMS is delivered and nothing is charged. Messages and
 * campaigns have no delete in the API, so there is nothing to clean up; their texts and campaign
 * names carry the run prefix.
 *
 * The account holds other messages (earlier sequences, other runs), and the test numbers are
 * shared by everyone, so no filter isolates a sequence completely. Listings are bounded with
 * `from_date` at the sequence's first send (its created_at, server clock) and narrowed with `to`;
 * the model then asks for its own messages to be included and for the walk to be consistent with
 * itself (each item once, `meta.total` items in all), never for an exact count of the account.
 *
 * Where the specification is silent the model accepts every choice: transitions after `sent`
 * (a message may stay `sent` for any time; only the outcome the test numbers promise is checked,
 * whenever a status is seen), campaign status after `processing`, the body of campaign details
 * (flat or wrapped), list order, codes within 2xx, a page past the last (empty or an error).
 *
 * Opt-outs are left out on purpose: the API cannot remove one, so opting out a test number would
 * change the account for good, and what a send to an opted-out test number does is not shown (the
 * specification says they "always" succeed or fail; a target may as well refuse them). One opt-out
 * could break every later sequence and every other run against the account; opting out any other
 * number would be a real number.
 */
import fc from 'fast-check';
import { isObject, listOf, resourceOf } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, compareSettled, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { SequenceTarget } from '../target.ts';
import { ROLES, TEST_MODE, boundOf, metaOf, roleOf } from './messaging-common.ts';
import type { Role } from './messaging-common.ts';

const MESSAGE_STATES = ['sent', 'delivered', 'failed', 'pending', 'expired', 'rejected'];

interface SentMessage {
  id: string;
  role: Role;
  text: string;
  /** False for the messages of a bulk send (their text is not read back: MSG-SEND-008 is about single sends). */
  single: boolean;
  /** Created after the listing bound for sure, so a walk from it must list the message (see noteSent). */
  afterBound: boolean;
}

class MessagingState {
  /** In sending order, bulk messages included. */
  readonly messages: SentMessage[] = [];
  /** Campaign ids of the sequence's bulk sends, in order. */
  readonly campaigns: string[] = [];
  /** Campaign id → how many recipients its bulk send had. */
  readonly recipients = new Map<string, number>();
  /** Campaign id → the campaign_name its bulk send gave. */
  readonly names = new Map<string, string>();
  /** How many of the messages (the oldest) were waited for (see settle). */
  settled = 0;
  /** `from_date` of the sequence's listings: its first send's created_at (server clock), or null before any send. */
  since: string | null = null;
}

const messagingOf = (model: ExploreModel): MessagingState => model.part('messaging', () => new MessagingState());
const enc = encodeURIComponent;

/**
 * Sets the sequence's listing bound at its first send's `created_at` (boundOf). A campaign's
 * created_at says nothing of when its messages were created, so only messages sent once the bound
 * was set (their request left after the answer that set it) must be in a walk from it; a bulk
 * send's own messages need not.
 */
function noteSent(state: MessagingState, createdAt: unknown): void {
  state.since = boundOf(state.since, createdAt);
}

/** What the specification promises of a status seen at any time: one of the six, and the outcome the test number stands for. */
function checkStatus(status: unknown, role: Role | null, where: string): void {
  if (typeof status !== 'string' || !MESSAGE_STATES.includes(status))
    throw new ModelViolation('MSG-FLD-005', where, `a status of ${MESSAGE_STATES.join(', ')}`, JSON.stringify(status));
  if (role === 'succeed' && status === 'failed')
    throw new ModelViolation('TEST-NUM-001', where, 'a message to the succeed test number never failed', 'failed');
  if (role === 'fail' && status === 'delivered')
    throw new ModelViolation('TEST-NUM-002', where, 'a message to the fail test number never delivered', 'delivered');
}

class SendMessage implements ExploreCommand {
  constructor(
    readonly role: Role,
    readonly label: string,
  ) {}
  get record(): StepRecord {
    return { op: 'send-sms', args: { role: this.role, label: this.label } };
  }
  /** A handful per sequence keeps listings to a few pages. */
  check(model: ExploreModel): boolean {
    return messagingOf(model).messages.length < 6;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, async () => {
      const to = target.testNumbers[this.role];
      const text = `${target.resourceName(this.label)} explore`;
      const where = `POST /sms/send to the ${this.role} test number in test mode`;
      const res = await target.send('POST', '/sms/send', { json: { to, message: text }, headers: TEST_MODE });
      expectOk(res, 'TEST-MODE-001', where);
      const sent = resourceOf(res.body, 'message', 'message_id');
      if (typeof sent?.message_id !== 'string')
        throw new ModelViolation('MSG-FLD-001', where, 'the message with its message_id', short(res.text));
      if (sent.status !== 'sent')
        throw new ModelViolation('TEST-MODE-001', where, 'status "sent"', JSON.stringify(sent.status));
      if (sent.to !== to || sent.message !== text)
        throw new ModelViolation(
          'MSG-SEND-006',
          where,
          `to ${to} and the text sent echoed`,
          `to ${JSON.stringify(sent.to)}, message ${JSON.stringify(sent.message)}`,
        );
      const state = messagingOf(model);
      noteSent(state, sent.created_at);
      state.messages.push({ id: sent.message_id, role: this.role, text, single: true, afterBound: true });
    });
  }
  toString(): string {
    return `send-sms ${this.role} ${this.label}`;
  }
}

class BulkSend implements ExploreCommand {
  constructor(
    readonly roles: readonly Role[],
    readonly label: string,
  ) {}
  get record(): StepRecord {
    return { op: 'bulk-sms', args: { roles: this.roles.join(','), label: this.label } };
  }
  /** Distinct recipients (whether a bulk send may merge duplicates is not shown), few messages in all. */
  check(model: ExploreModel): boolean {
    return (
      this.roles.length > 0 &&
      new Set(this.roles).size === this.roles.length &&
      this.roles.every((r) => ROLES.includes(r)) &&
      messagingOf(model).messages.length + this.roles.length <= 6
    );
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, async () => {
      const recipients = this.roles.map((r) => target.testNumbers[r]);
      const name = target.resourceName(this.label);
      const text = `${name} explore`;
      const where = `POST /sms/bulk to the ${this.roles.join(', ')} test numbers in test mode`;
      const res = await target.send('POST', '/sms/bulk', {
        json: { recipients, message: text, campaign_name: name },
        headers: TEST_MODE,
      });
      // A valid bulk send with a campaign_name refused: "accepts optional ... campaign_name".
      expectOk(res, 'MSG-BULK-002', where);
      const campaign = resourceOf(res.body, 'campaign', 'campaign_id');
      if (typeof campaign?.campaign_id !== 'string' || !Array.isArray(campaign.messages))
        throw new ModelViolation('MSG-BULK-003', where, 'a campaign with campaign_id and messages', short(res.text));
      if (campaign.campaign_name !== name)
        throw new ModelViolation(
          'MSG-BULK-002',
          where,
          `campaign_name "${name}" echoed`,
          JSON.stringify(campaign.campaign_name),
        );
      if (campaign.status !== 'processing')
        throw new ModelViolation(
          'MSG-BULK-005',
          where,
          'campaign status "processing"',
          JSON.stringify(campaign.status),
        );
      const state = messagingOf(model);
      state.campaigns.push(campaign.campaign_id);
      state.recipients.set(campaign.campaign_id, recipients.length);
      state.names.set(campaign.campaign_id, name);
      // A SHOULD convention: one message per recipient, counted as such.
      if (campaign.total_messages !== recipients.length || campaign.messages.length !== recipients.length)
        target.deviation(
          new ModelViolation(
            'MSG-BULK-007',
            where,
            `total_messages ${recipients.length} and ${recipients.length} messages (one per recipient)`,
            `total_messages ${JSON.stringify(campaign.total_messages)}, ${campaign.messages.length} messages`,
          ),
        );
      const afterBound = state.since !== null;
      for (const entry of campaign.messages)
        state.messages.push({ ...bulkEntry(entry, recipients, this.roles, text, where), afterBound });
      noteSent(state, campaign.created_at);
    });
  }
  toString(): string {
    return `bulk-sms ${this.roles.join(',')} ${this.label}`;
  }
}

/** One entry of a bulk response: message_id, one of the recipients, status `sent` (MSG-BULK-004). */
function bulkEntry(
  entry: unknown,
  recipients: readonly string[],
  roles: readonly Role[],
  text: string,
  where: string,
): Omit<SentMessage, 'afterBound'> {
  const e = isObject(entry) ? entry : {};
  const index = recipients.indexOf(String(e.to));
  if (typeof e.message_id !== 'string' || index < 0 || e.status !== 'sent')
    throw new ModelViolation(
      'MSG-BULK-004',
      where,
      `entries of message_id, a recipient (${recipients.join(', ')}) and status "sent"`,
      short(JSON.stringify(entry)),
    );
  return { id: e.message_id, role: roles[index]!, text, single: false };
}

/** Polls while a message is on its way: a few reads a quarter of a second apart, no verdict when it is still on its way. */
const POLLS = 4;
const POLL_INTERVAL_MS = 250;

/** GET /sms/status/{id} of a message of the sequence. */
class GetMessage implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-sms', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return messagingOf(model).messages.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, async () => {
      const messages = messagingOf(model).messages;
      await readStatus(target, messages[this.index % messages.length]!);
    });
  }
  toString(): string {
    return `get-sms #${this.index}`;
  }
}

/**
 * Waits a little for the sequence's newest message to leave `sent` (a bounded poll of its status;
 * still `sent` at the end is no verdict: how long delivery takes is not shown). Once it has, the
 * sequence's messages count as settled, the older ones having had longer. Walks by status wait so,
 * so that what they list does not hang on how fast the steps before them went (a shrunk sequence
 * then fails again on replay).
 */
async function settle(state: MessagingState, target: SequenceTarget): Promise<void> {
  if (state.settled === state.messages.length) return;
  for (let poll = 1; poll <= POLLS; poll++) {
    if (poll > 1) await target.pause(POLL_INTERVAL_MS);
    const status = await readStatus(target, state.messages.at(-1)!);
    if (status !== 'sent' && status !== 'pending') break;
  }
  state.settled = state.messages.length;
}

/** One read of a message's status, checked against what its send promised; returns the status. */
async function readStatus(target: SequenceTarget, m: SentMessage): Promise<unknown> {
  const requirement = m.single ? 'MSG-SEND-008' : 'MSG-BULK-006';
  const where = `GET /sms/status/{message_id} of the message to the ${m.role} test number`;
  const res = await target.send('GET', `/sms/status/${enc(m.id)}`);
  expectOk(res, requirement, where);
  const got = resourceOf(res.body, 'message', 'message_id');
  if (got?.message_id !== m.id)
    throw new ModelViolation(requirement, where, `message_id ${m.id}`, JSON.stringify(got?.message_id));
  if (got.to !== target.testNumbers[m.role] || got.message !== m.text)
    throw new ModelViolation(
      m.single ? 'MSG-SEND-008' : 'MSG-FLD-006',
      where,
      `to ${target.testNumbers[m.role]} and the text sent`,
      `to ${JSON.stringify(got.to)}, message ${JSON.stringify(got.message)}`,
    );
  checkStatus(got.status, m.role, where);
  return got.status;
}

/** Pages walked at most: beyond that a walk proves only what its pages showed. */
const MAX_PAGES = 8;
/** Walks again when meta.total moved underway (a message of another run arrived), as the fixed page walk does. */
const WALKS = 3;

interface Walk {
  ids: string[];
  total: number;
  /** Ended on a short page (or an error past the last page) within MAX_PAGES. */
  complete: boolean;
  /** meta.total the same on every page. */
  stable: boolean;
}

/**
 * GET /sms/messages from the sequence's first send on, with a `to` filter (one test number), a
 * `status` filter or both, walked page by page `perPage` at a time. Every page must keep to the
 * filters and the page size; a walk by `to` alone must also give each message once, meta.total in
 * all, and every message the sequence sent to that number. A status filter is checked page by page
 * only: a message may change status while the walk goes on.
 */
class ListMessages implements ExploreCommand {
  constructor(
    readonly role: Role | null,
    readonly status: string | null,
    readonly perPage: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-sms', args: { to: this.role ?? '', status: this.status ?? '', per_page: this.perPage } };
  }
  check(model: ExploreModel): boolean {
    return messagingOf(model).since !== null && (this.role !== null || this.status !== null) && this.perPage >= 1;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, async () => {
      const state = messagingOf(model);
      if (this.status !== null) await settle(state, target);
      // A walk that differs from the model is walked again for a moment first: a list may lag.
      await compareSettled(target, async () => {
        let walk = await this.walk(target, state);
        for (let again = 1; again < WALKS && !walk.stable; again++) walk = await this.walk(target, state);
        if (this.status === null && walk.complete && walk.stable) this.checkWalk(walk, state, target);
      });
    });
  }

  private get described(): string {
    const filters = [
      this.role !== null ? `to the ${this.role} number` : '',
      this.status !== null ? `status ${this.status}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return `GET /sms/messages (${filters}, per_page ${this.perPage})`;
  }

  private async walk(target: SequenceTarget, state: MessagingState): Promise<Walk> {
    const walk: Walk = { ids: [], total: 0, complete: false, stable: true };
    const filters = {
      from_date: state.since!,
      ...(this.role !== null ? { to: target.testNumbers[this.role] } : {}),
      ...(this.status !== null ? { status: this.status } : {}),
    };
    for (let page = 1; page <= MAX_PAGES; page++) {
      const res = await target.send('GET', '/sms/messages', { query: { ...filters, per_page: this.perPage, page } });
      // A page past the last may be an error (PAGE-META-002, which would make it empty, is only a SHOULD).
      if (page > 1 && !ok(res) && (page - 1) * this.perPage >= walk.total) return { ...walk, complete: true };
      const { items, meta } = this.pageOf(res, page, target, state.messages);
      if (page === 1) walk.total = meta.total;
      else if (meta.total !== walk.total) return { ...walk, stable: false };
      walk.ids.push(...items.map((m) => String(m.message_id)));
      if (items.length < this.perPage) return { ...walk, complete: true };
    }
    return walk;
  }

  /** One page, checked on its own: the envelope, the page's numbers and size, every item within the filters. */
  private pageOf(
    res: ApiResponse,
    page: number,
    target: SequenceTarget,
    sent: readonly SentMessage[],
  ): { items: Array<Record<string, unknown>>; meta: Record<'total' | 'page' | 'per_page' | 'pages', number> } {
    const where = `${this.described}, page ${page}`;
    expectOk(res, 'MSG-LIST-001', where);
    const items = listOf<unknown>(res.body, 'messages');
    if (!items) throw new ModelViolation('MSG-LIST-001', where, 'an array `messages`', short(res.text));
    const meta = metaOf(res.body);
    const missing = ['total', 'page', 'per_page', 'pages'].find((k) => !Number.isInteger(meta?.[k]));
    if (!meta || missing !== undefined)
      throw new ModelViolation(
        'PAGE-META-001',
        where,
        'meta with integer total, page, per_page and pages',
        short(JSON.stringify(meta ?? null)),
      );
    if (meta.page !== page) throw new ModelViolation('PAGE-NUM-002', where, `meta.page ${page}`, String(meta.page));
    if (meta.per_page !== this.perPage || items.length > this.perPage)
      throw new ModelViolation(
        'PAGE-SIZE-003',
        where,
        `meta.per_page ${this.perPage} and at most that many items`,
        `meta.per_page ${String(meta.per_page)}, ${items.length} items`,
      );
    const entries = items.map((m) => (isObject(m) ? m : {}));
    const to = this.role !== null ? target.testNumbers[this.role] : null;
    for (const m of entries) {
      const mine = sent.find((s) => s.id === m.message_id);
      if (mine && (m.to !== target.testNumbers[mine.role] || m.message !== mine.text))
        throw new ModelViolation(
          'MSG-FLD-006',
          `${where}, the entry of ${mine.id}`,
          `to ${target.testNumbers[mine.role]} and the text sent`,
          `to ${JSON.stringify(m.to)}, message ${JSON.stringify(m.message)}`,
        );
      if (to !== null && m.to !== to)
        throw new ModelViolation(
          'MSG-LIST-003',
          where,
          `only messages to ${to}`,
          `${String(m.message_id)} to ${JSON.stringify(m.to)}`,
        );
      if (this.status !== null && m.status !== this.status)
        throw new ModelViolation(
          'MSG-LIST-002',
          where,
          `only messages in status ${this.status}`,
          `${String(m.message_id)} in ${JSON.stringify(m.status)}`,
        );
      checkStatus(m.status, ROLES.find((r) => target.testNumbers[r] === m.to) ?? null, where);
    }
    const pages = Math.ceil((meta.total as number) / this.perPage);
    if (meta.pages !== pages)
      target.deviation(
        new ModelViolation(
          'PAGE-META-002',
          where,
          `meta.pages ${pages} (ceil of total ${String(meta.total)} / ${this.perPage})`,
          String(meta.pages),
        ),
      );
    return { items: entries, meta: meta as Record<'total' | 'page' | 'per_page' | 'pages', number> };
  }

  /** A whole, steady walk by `to`: each message once, meta.total in all, the sequence's messages to that number among them. */
  private checkWalk(walk: Walk, state: MessagingState, target: SequenceTarget): void {
    const where = `walking ${this.described}`;
    const duplicate = walk.ids.find((id, i) => walk.ids.indexOf(id) !== i);
    if (duplicate !== undefined)
      throw new ModelViolation('PAGE-NUM-002', where, 'each message once over the pages', `${duplicate} twice`);
    if (walk.ids.length !== walk.total)
      throw new ModelViolation(
        'PAGE-NUM-002',
        where,
        `meta.total (${walk.total}) messages in all`,
        `${walk.ids.length} over the pages`,
      );
    const missing = state.messages.find((m) => m.role === this.role && m.afterBound && !walk.ids.includes(m.id));
    if (missing !== undefined)
      throw new ModelViolation(
        'MSG-LIST-001',
        where,
        `every message the sequence sent to ${target.testNumbers[this.role!]}`,
        `${missing.id} (${missing.single ? 'single' : 'bulk'} send) missing`,
      );
  }

  toString(): string {
    return `list-sms to=${this.role ?? '-'} status=${this.status ?? '-'} per_page=${this.perPage}`;
  }
}

/** GET /sms/campaigns: every campaign of the sequence listed, with its name (others' campaigns are not the model's business). */
class ListCampaigns implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-campaigns', args: {} };
  }
  check(model: ExploreModel): boolean {
    return messagingOf(model).campaigns.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, () => compareSettled(target, () => this.compare(model, target)));
  }
  private async compare(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const res = await target.send('GET', '/sms/campaigns');
    expectOk(res, 'MSG-CMP-001', 'GET /sms/campaigns');
    const entries = (listOf<unknown>(res.body, 'campaigns') ?? []).map((c) => (isObject(c) ? c : {}));
    const ids = new Set(entries.map((c) => c.campaign_id));
    const state = messagingOf(model);
    for (const entry of entries) {
      // The campaign listed is the one its bulk send made: with the name it was given.
      const name = state.names.get(String(entry.campaign_id));
      if (name !== undefined && entry.campaign_name !== name)
        throw new ModelViolation(
          'MSG-CMP-001',
          `the entry of ${String(entry.campaign_id)} in GET /sms/campaigns`,
          `campaign_name "${name}" (as its bulk send gave it)`,
          JSON.stringify(entry.campaign_name ?? null),
        );
      const recipients = state.recipients.get(String(entry.campaign_id));
      if (recipients !== undefined && entry.total_messages !== recipients)
        target.deviation(
          new ModelViolation(
            'MSG-BULK-007',
            `the entry of ${String(entry.campaign_id)} in GET /sms/campaigns`,
            `total_messages ${recipients} (one per recipient of its bulk send)`,
            JSON.stringify(entry.total_messages),
          ),
        );
    }
    const missing = state.campaigns.find((id) => !ids.has(id));
    if (missing !== undefined)
      throw new ModelViolation(
        'MSG-CMP-001',
        'GET /sms/campaigns',
        `the campaign ${missing} of a bulk send listed`,
        'not listed',
      );
  }
  toString(): string {
    return 'list-campaigns';
  }
}

/** GET /sms/campaigns/{id} of a campaign of the sequence: that campaign (its body is not shown: flat or wrapped). */
class GetCampaign implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-campaign', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return messagingOf(model).campaigns.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(messaging, this, target, async () => {
      const campaigns = messagingOf(model).campaigns;
      const id = campaigns[this.index % campaigns.length]!;
      const where = `GET /sms/campaigns/{campaign_id} of campaign #${this.index % campaigns.length}`;
      const res = await target.send('GET', `/sms/campaigns/${enc(id)}`);
      expectOk(res, 'MSG-CMP-005', where);
      const got = resourceOf(res.body, 'campaign', 'campaign_id')?.campaign_id;
      if (got !== id)
        throw new ModelViolation('MSG-CMP-005', where, `the details of ${id}`, `campaign_id ${JSON.stringify(got)}`);
    });
  }
  toString(): string {
    return `get-campaign #${this.index}`;
  }
}

export const messaging: ExploreFamily = {
  name: 'messaging',
  summary:
    'in test mode: sends to the test numbers, bulk sends, statuses, the message list walked by recipient and status, campaigns',
  // Its walks by recipient count every message to a test number since the sequence's first send.
  observes: ['messages'],
  changes: ['messages'],
  rules: {
    'TEST-MODE-001': 'a test-mode send to a test number is accepted with status "sent"',
    'MSG-FLD-001': 'an accepted send answers the message with its message_id',
    'MSG-SEND-006': 'an accepted send echoes the recipient and the text',
    'MSG-SEND-008': 'GET /sms/status of a message of a single send answers it, with its recipient and text',
    'MSG-FLD-005': 'every status seen is one of the six message states',
    'TEST-NUM-001': 'a message to the succeed test number is never seen failed',
    'TEST-NUM-002': 'a message to the fail test number is never seen delivered',
    'MSG-BULK-002': 'a bulk send with a campaign_name is accepted and echoes the name',
    'MSG-BULK-003': 'an accepted bulk send answers a campaign with its campaign_id and messages',
    'MSG-BULK-004': 'each message of a bulk response has a message_id, one of the recipients and status "sent"',
    'MSG-BULK-005': 'an accepted bulk send puts the campaign in "processing"',
    'MSG-BULK-006': 'every message of a bulk response is found by GET /sms/status',
    'MSG-LIST-001':
      'GET /sms/messages answers messages and meta; a walk by recipient lists every message the sequence sent to it',
    'MSG-LIST-002': 'GET /sms/messages with a status filter lists only messages in that status, on every page',
    'MSG-LIST-003': 'GET /sms/messages with a to filter lists only messages to that number, on every page',
    'PAGE-META-001': 'every page of GET /sms/messages carries meta with integer total, page, per_page and pages',
    'PAGE-SIZE-003': 'every page honours per_page (meta.per_page, at most that many items)',
    'PAGE-NUM-002': 'page=N answers meta.page N; walking the pages gives each message once and meta.total in all',
    'MSG-CMP-001': 'GET /sms/campaigns lists every campaign of the sequence, with the campaign_name it was given',
    'MSG-CMP-005': 'GET /sms/campaigns/{id} answers that campaign',
    'MSG-FLD-006':
      'every status read and list entry of a message of the sequence shows its recipient and the text sent',
    'MSG-BULK-007':
      'SHOULD: a campaign counts one message per recipient (total_messages in the bulk answer and the list, messages of the answer)',
    'PAGE-META-002': 'SHOULD: every page of GET /sms/messages says meta.pages = ceil(total / per_page)',
  },
  rulesOf: {
    'send-sms': ['TEST-MODE-001', 'MSG-FLD-001', 'MSG-SEND-006'],
    'bulk-sms': ['MSG-BULK-002', 'MSG-BULK-003', 'MSG-BULK-004', 'MSG-BULK-005', 'MSG-BULK-007'],
    'get-sms': ['MSG-SEND-008', 'MSG-BULK-006', 'MSG-FLD-005', 'MSG-FLD-006', 'TEST-NUM-001', 'TEST-NUM-002'],
    'list-sms': [
      'MSG-LIST-001',
      'MSG-LIST-002',
      'MSG-LIST-003',
      'PAGE-META-001',
      'PAGE-SIZE-003',
      'PAGE-NUM-002',
      'PAGE-META-002',
      'MSG-FLD-005',
      'MSG-FLD-006',
      'TEST-NUM-001',
      'TEST-NUM-002',
    ],
    'list-campaigns': ['MSG-CMP-001', 'MSG-BULK-007'],
    'get-campaign': ['MSG-CMP-005'],
  },
  arbitraries() {
    const role = fc.constantFrom(...ROLES);
    const label = fc.constantFrom('m1', 'm2', 'm3');
    const send = fc.tuple(role, label).map(([r, l]): ExploreCommand => new SendMessage(r, l));
    const bulk = fc
      .tuple(fc.subarray([...ROLES], { minLength: 1 }), fc.constantFrom('c1', 'c2'))
      .map(([rs, l]): ExploreCommand => new BulkSend(rs, l));
    const get = fc.nat({ max: 5 }).map((i): ExploreCommand => new GetMessage(i));
    // Pages of one or two, where page-by-page bugs show. A walk by recipient checks the whole walk;
    // a walk by status (the final states the two test numbers promise) checks each page, over the
    // sequence's messages to both numbers, once they have settled; pages of one mostly, so that a
    // second page holds a message of the other status.
    const perPage = fc.integer({ min: 1, max: 2 });
    const byTo = fc.tuple(role, perPage).map(([r, p]): ExploreCommand => new ListMessages(r, null, p));
    const byStatus = fc
      .tuple(fc.constantFrom('delivered', 'failed'), fc.constantFrom(1, 1, 2))
      .map(([st, p]): ExploreCommand => new ListMessages(null, st, p));
    const getCampaign = fc.nat({ max: 2 }).map((i): ExploreCommand => new GetCampaign(i));
    // fc.commands draws its arbitraries evenly: sends weigh more (the other operations need
    // messages), and so do the walks, where most of the rules are.
    return [
      send,
      send,
      send,
      bulk,
      bulk,
      bulk,
      get,
      byTo,
      byTo,
      byTo,
      byStatus,
      byStatus,
      byStatus,
      fc.constant(new ListCampaigns()),
      getCampaign,
      getCampaign,
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'send-sms') return new SendMessage(roleOf(a.role) ?? 'succeed', argString(a.label));
    if (s.op === 'bulk-sms')
      return new BulkSend(argString(a.roles).split(',').filter(Boolean) as Role[], argString(a.label));
    if (s.op === 'get-sms') return new GetMessage(argNumber(a.index));
    if (s.op === 'list-sms') return new ListMessages(roleOf(a.to), argString(a.status) || null, argNumber(a.per_page));
    if (s.op === 'list-campaigns') return new ListCampaigns();
    if (s.op === 'get-campaign') return new GetCampaign(argNumber(a.index));
    return undefined;
  },
};
