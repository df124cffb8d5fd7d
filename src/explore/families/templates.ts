/**
 * Message templates and sends from them, in test mode: templates created with placeholders, sent
 * with variables to the succeed and fail test numbers (sends to a number the specification makes
 * no promise of are left out, as in the messaging family), the sent message read back by status
 * and found in GET /sms/messages walked by recipient, the templates listed, and sends naming a
 * template that does not exist refused. Commands aim at the sequence's templates and messages by
 * position, taken modulo how many there are when the step runs.
 *
 * What the model knows is compared wherever it is shown: a template of the sequence in every
 * listing of the templates (by its id: the record's other fields are not shown); the text a send
 * made (the content with every placeholder replaced by its value) in the send's answer when it
 * holds the message, in GET /sms/status, and in the message's entry of every walk by its
 * recipient (which lists it: lists may lag, so one that differs is read again for a moment).
 *
 * The API has no delete for templates: a sequence creates two at most, and the tear-down says how
 * many remain (their names carry the run prefix; `cloudcheck sweep` lists them). There is no
 * deleted template to send from either, so an unknown one is an id no template has: a made-up one
 * of the run's, or one of the sequence's in other letters' case (ids are strings, compared as
 * such). Where the specification is silent the model accepts every choice: the bodies of the
 * template operations (an answer without an id leaves the template unknown, and a refused creation
 * too, which the fixed checks judge), the code of a refusal other than `invalid_template`'s, a
 * status after `sent`.
 */
import fc from 'fast-check';
import { isObject, listOf, resourceOf } from '../../harness/body-shape.ts';
import type { Json } from '../../harness/body-shape.ts';
import type { ApiResponse } from '../../harness/client.ts';
import { argNumber, argString, compareSettled, expectOk, ok, short, step } from '../family.ts';
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import { ModelViolation } from '../model.ts';
import type { ExploreModel, StepRecord } from '../model.ts';
import type { ExploreTarget, SequenceTarget } from '../target.ts';
import { ROLES, TEST_MODE, boundOf, metaOf, roleOf } from './messaging-common.ts';
import type { Role } from './messaging-common.ts';

interface Template {
  id: string;
  content: string;
}

interface TemplateMessage {
  id: string;
  role: Role;
  /** The content with every placeholder replaced: what the message's text is wherever it is shown. */
  text: string;
  /** Sent once the listing bound was set, or setting it: a walk from the bound lists it. */
  afterBound: boolean;
}

class TemplatesState {
  readonly templates: Template[] = [];
  readonly messages: TemplateMessage[] = [];
  /** `from_date` of the walks: the first send's created_at. */
  since: string | null = null;
}

const stateOf = (model: ExploreModel): TemplatesState => model.part('templates', () => new TemplatesState());
const at = <T>(list: readonly T[], index: number): T | undefined =>
  list.length ? list[index % list.length] : undefined;
const idOf = (record: Json | undefined): unknown => record?.id ?? record?.template_id;

/** Contents with one placeholder, two, and one used twice ("double-brace variable names"). */
const CONTENTS = [
  'cloudcheck code {{code}}',
  'Hi {{name}}, your cloudcheck code is {{code}}',
  'Hi {{name}}! Bye {{name}}.',
] as const;
const PLACEHOLDER = /\{\{([a-z]+)\}\}/g;
const VALUES = ['Ann', 'Bob', '42', '7'] as const;

/** The content with every placeholder replaced by its value (the variables hold one for each). */
const render = (content: string, variables: Record<string, string>): string =>
  content.replace(PLACEHOLDER, (_match, name: string) => variables[name] ?? '');

/** Templates made, by exploration (the API cannot delete them: the tear-down says how many remain). */
const madeTemplates = new WeakMap<ExploreTarget, number>();

const MAX_TEMPLATES = 2;
const MAX_MESSAGES = 4;

class CreateTemplate implements ExploreCommand {
  constructor(
    readonly label: string,
    readonly content: number,
  ) {}
  get record(): StepRecord {
    return { op: 'create-template', args: { label: this.label, content: this.content } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).templates.length < MAX_TEMPLATES;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, async () => {
      await createTemplate(model, target, this.label, this.content);
    });
  }
  toString(): string {
    return `create-template ${this.label} "${CONTENTS[this.content % CONTENTS.length]}"`;
  }
}

/** POST /messaging/templates; its answer is not shown: without an id the template is unknown to the model, as it is when refused. */
async function createTemplate(
  model: ExploreModel,
  target: SequenceTarget,
  label: string,
  content: number,
): Promise<Template | undefined> {
  const text = CONTENTS[content % CONTENTS.length]!;
  const res = await target.send('POST', '/messaging/templates', {
    json: { name: target.resourceName(label), content: text, category: 'cloudcheck' },
  });
  if (ok(res)) madeTemplates.set(target.exploration, (madeTemplates.get(target.exploration) ?? 0) + 1);
  const id = ok(res) ? idOf(resourceOf(res.body, 'template')) : undefined;
  if (typeof id !== 'string') return undefined;
  const template = { id, content: text };
  stateOf(model).templates.push(template);
  return template;
}

/**
 * POST /sms/send-template of a template of the sequence (created first when it has none) with a
 * value for every placeholder, to a test number in test mode: accepted, the text the content with
 * the values (MSG-TPL-005), read back by status at once.
 */
class SendTemplate implements ExploreCommand {
  constructor(
    readonly index: number,
    readonly role: Role,
    readonly value: number,
  ) {}
  get record(): StepRecord {
    return { op: 'send-template', args: { index: this.index, role: this.role, value: this.value } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).messages.length < MAX_MESSAGES;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, async () => {
      const state = stateOf(model);
      const template = at(state.templates, this.index) ?? (await createTemplate(model, target, 't0', this.index));
      if (!template) return;
      const names = [...new Set([...template.content.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
      const variables = Object.fromEntries(names.map((name, i) => [name, VALUES[(this.value + i) % VALUES.length]!]));
      const text = render(template.content, variables);
      const where = `POST /sms/send-template of "${template.content}" with ${JSON.stringify(variables)} to the ${this.role} test number`;
      const res = await target.send('POST', '/sms/send-template', {
        json: { to: target.testNumbers[this.role], template_id: template.id, variables },
        headers: TEST_MODE,
      });
      expectOk(res, 'MSG-TPL-005', where);
      // "Sent message": its shape is not shown; without a message_id the model cannot find it again.
      const sent = resourceOf(res.body, 'message', 'message_id');
      if (typeof sent?.message_id !== 'string') return;
      if (sent.message !== undefined && sent.message !== text)
        throw new ModelViolation('MSG-TPL-005', where, `the text "${text}"`, JSON.stringify(sent.message));
      // Its own created_at may set the bound: a range includes its ends.
      state.since = boundOf(state.since, sent.created_at);
      const message: TemplateMessage = { id: sent.message_id, role: this.role, text, afterBound: state.since !== null };
      state.messages.push(message);
      await readStatus(target, message);
    });
  }
  toString(): string {
    return `send-template #${this.index} to ${this.role} value#${this.value}`;
  }
}

/** GET /sms/status/{id} of a message sent from a template: the text with the values ("the resulting text is what GET /sms/status reports"). */
async function readStatus(target: SequenceTarget, message: TemplateMessage): Promise<void> {
  const where = `GET /sms/status/{message_id} of the template message ${message.id}`;
  const res = await target.send('GET', `/sms/status/${encodeURIComponent(message.id)}`);
  expectOk(res, 'MSG-TPL-005', where);
  const got = resourceOf(res.body, 'message', 'message_id');
  if (got?.message !== message.text)
    throw new ModelViolation('MSG-TPL-005', where, `message "${message.text}"`, JSON.stringify(got?.message ?? null));
}

class GetTemplateMessage implements ExploreCommand {
  constructor(readonly index: number) {}
  get record(): StepRecord {
    return { op: 'get-template-message', args: { index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).messages.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, () => readStatus(target, at(stateOf(model).messages, this.index)!));
  }
  toString(): string {
    return `get-template-message #${this.index}`;
  }
}

/** Pages a walk takes at most: the sequence's messages to one number are four at most. */
const MAX_PAGES = 8;

/**
 * GET /sms/messages from the sequence's first send on, to one test number, `perPage` at a time:
 * every message the sequence sent there from a template is on a page (MSG-LIST-001), with the
 * text it was sent with (MSG-FLD-006). Lists are newest first or oldest first: whichever, a
 * message that was there stays on some page while others arrive, so the walk needs no total.
 */
class ListTemplateMessages implements ExploreCommand {
  constructor(
    readonly role: Role,
    readonly perPage: number,
  ) {}
  get record(): StepRecord {
    return { op: 'list-template-messages', args: { to: this.role, per_page: this.perPage } };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).since !== null && this.perPage >= 1 && this.perPage <= 100;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, () => compareSettled(target, () => this.walk(model, target)));
  }
  private async walk(model: ExploreModel, target: SequenceTarget): Promise<void> {
    const state = stateOf(model);
    const to = target.testNumbers[this.role];
    const described = `GET /sms/messages (to the ${this.role} number, per_page ${this.perPage})`;
    const entries = new Map<string, Json>();
    let complete = false;
    for (let page = 1; page <= MAX_PAGES && !complete; page++) {
      const res: ApiResponse = await target.send('GET', '/sms/messages', {
        query: { from_date: state.since!, to, per_page: this.perPage, page },
      });
      // A page past the last may be an error (an empty page is only a SHOULD).
      if (page > 1 && !ok(res)) break;
      expectOk(res, 'MSG-LIST-001', `${described}, page ${page}`);
      const items = (listOf(res.body, 'messages') ?? []).map((m) => (isObject(m) ? m : {}));
      for (const item of items) if (typeof item.message_id === 'string') entries.set(item.message_id, item);
      const total = metaOf(res.body)?.total;
      complete = items.length < this.perPage || (typeof total === 'number' && page * this.perPage >= total);
    }
    if (!complete) return;
    for (const message of state.messages.filter((m) => m.role === this.role && m.afterBound)) {
      const entry = entries.get(message.id);
      if (!entry)
        throw new ModelViolation(
          'MSG-LIST-001',
          `walking ${described}`,
          `the message ${message.id} sent from a template`,
          'on no page',
        );
      if (entry.message !== message.text)
        throw new ModelViolation(
          'MSG-FLD-006',
          `the entry of ${message.id} walking ${described}`,
          `message "${message.text}" (the text sent)`,
          JSON.stringify(entry.message ?? null),
        );
    }
  }
  toString(): string {
    return `list-template-messages to=${this.role} per_page=${this.perPage}`;
  }
}

type Unknown = 'made-up' | 'case';

/**
 * POST /sms/send-template naming no template of the account: refused (MSG-TPL-006) with code
 * `invalid_template` (ERR-CODE-006). The id is a made-up one of the run's, or a template's of the
 * sequence in other letters' case (only when that changes it).
 */
class SendUnknownTemplate implements ExploreCommand {
  constructor(
    readonly kind: Unknown,
    readonly index: number,
  ) {}
  get record(): StepRecord {
    return { op: 'send-unknown-template', args: { kind: this.kind, index: this.index } };
  }
  check(model: ExploreModel): boolean {
    return this.kind === 'made-up' || stateOf(model).templates.some((t) => swapCase(t.id) !== t.id);
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, async () => {
      const changed = stateOf(model).templates.filter((t) => swapCase(t.id) !== t.id);
      const id = this.kind === 'made-up' ? target.resourceName('no-template') : swapCase(at(changed, this.index)!.id);
      const where = `POST /sms/send-template with the template_id ${id}, which names no template`;
      const res = await target.send('POST', '/sms/send-template', {
        json: { to: target.testNumbers.succeed, template_id: id, variables: { code: '1', name: 'x' } },
        headers: TEST_MODE,
      });
      if (ok(res)) throw new ModelViolation('MSG-TPL-006', where, 'a refusal', `${res.status} ${short(res.text)}`);
      const code = isObject(res.body) && isObject(res.body.error) ? res.body.error.code : undefined;
      if (code !== 'invalid_template')
        throw new ModelViolation('ERR-CODE-006', where, 'error code invalid_template', JSON.stringify(code ?? null));
    });
  }
  toString(): string {
    return `send-unknown-template ${this.kind} #${this.index}`;
  }
}

/** Letters' case swapped (an id whose case differs is another id). */
const swapCase = (id: string): string =>
  [...id].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

/** GET /messaging/templates: every template of the sequence listed, by its id (the record is not shown otherwise). */
class ListTemplates implements ExploreCommand {
  get record(): StepRecord {
    return { op: 'list-templates', args: {} };
  }
  check(model: ExploreModel): boolean {
    return stateOf(model).templates.length > 0;
  }
  run(model: ExploreModel, target: SequenceTarget): Promise<void> {
    return step(templates, this, target, () =>
      compareSettled(target, async () => {
        const res = await target.send('GET', '/messaging/templates');
        expectOk(res, 'MSG-TPL-003', 'GET /messaging/templates');
        const ids = new Set((listOf(res.body, 'templates') ?? []).map((t) => (isObject(t) ? idOf(t) : undefined)));
        const missing = stateOf(model).templates.find((t) => !ids.has(t.id));
        if (missing)
          throw new ModelViolation(
            'MSG-TPL-003',
            'GET /messaging/templates',
            `the template ${missing.id} ("${missing.content}") listed`,
            'not listed',
          );
      }),
    );
  }
  toString(): string {
    return 'list-templates';
  }
}

export const templates: ExploreFamily = {
  name: 'templates',
  summary:
    'in test mode: creates message templates, sends from them, reads the text back, lists; unknown templates refused',
  // Its sends land in the lists the messaging family walks by recipient, counting every message.
  changes: ['messages'],
  rules: {
    'MSG-TPL-003': 'GET /messaging/templates lists every template of the sequence',
    'MSG-TPL-005':
      'a send from a template is accepted, its text the content with every placeholder replaced, in its answer and GET /sms/status',
    'MSG-TPL-006': 'a send naming no template of the account (a made-up id, or one in other letters’ case) is refused',
    'ERR-CODE-006': 'such a send is refused with code invalid_template',
    'MSG-LIST-001': 'GET /sms/messages walked by recipient lists every message the sequence sent there from a template',
    'MSG-FLD-006': 'the entry of a message sent from a template shows the text it was sent with',
  },
  rulesOf: {
    'create-template': [],
    'send-template': ['MSG-TPL-005'],
    'get-template-message': ['MSG-TPL-005'],
    'list-template-messages': ['MSG-LIST-001', 'MSG-FLD-006'],
    'send-unknown-template': ['MSG-TPL-006', 'ERR-CODE-006'],
    'list-templates': ['MSG-TPL-003'],
  },
  arbitraries() {
    const index = fc.nat({ max: 2 });
    const role = fc.constantFrom(...ROLES);
    const send = fc
      .tuple(index, role, fc.nat({ max: VALUES.length - 1 }))
      .map(([i, r, v]): ExploreCommand => new SendTemplate(i, r, v));
    const walk = fc.tuple(role, fc.constantFrom(1, 2)).map(([r, p]): ExploreCommand => new ListTemplateMessages(r, p));
    const unknown = fc
      .tuple(fc.constantFrom<Unknown>('made-up', 'case'), index)
      .map(([k, i]): ExploreCommand => new SendUnknownTemplate(k, i));
    // fc.commands draws its arbitraries evenly, so weight is repetition: sends (which create a
    // template on need) and walks weigh most, unknown ids twice (asked again is where caches show).
    return [
      fc
        .tuple(fc.constantFrom('t1', 't2'), fc.nat({ max: CONTENTS.length - 1 }))
        .map(([l, c]): ExploreCommand => new CreateTemplate(l, c)),
      send,
      send,
      send,
      index.map((i): ExploreCommand => new GetTemplateMessage(i)),
      walk,
      walk,
      unknown,
      unknown,
      fc.constant(new ListTemplates()),
    ];
  },
  commandOf(s: StepRecord) {
    const a = s.args;
    if (s.op === 'create-template') return new CreateTemplate(argString(a.label), argNumber(a.content));
    if (s.op === 'send-template')
      return new SendTemplate(argNumber(a.index), roleOf(a.role) ?? 'succeed', argNumber(a.value));
    if (s.op === 'get-template-message') return new GetTemplateMessage(argNumber(a.index));
    if (s.op === 'list-template-messages')
      return new ListTemplateMessages(roleOf(a.to) ?? 'succeed', argNumber(a.per_page));
    if (s.op === 'send-unknown-template')
      return new SendUnknownTemplate(argString(a.kind) === 'case' ? 'case' : 'made-up', argNumber(a.index));
    if (s.op === 'list-templates') return new ListTemplates();
    return undefined;
  },
  async tearDown(target: SequenceTarget) {
    const made = madeTemplates.get(target.exploration) ?? 0;
    if (made > 0)
      target.warn(
        `${made} message template(s) of the templates family remain: the API cannot delete them (their names start with ${target.runPrefix}; cloudcheck sweep lists them)`,
      );
  },
};
