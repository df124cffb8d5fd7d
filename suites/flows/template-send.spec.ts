/**
 * Flow: template send. A template with placeholders is created, sent with variables, and the text
 * that was sent (send response and GET /sms/status) is the content with every placeholder
 * replaced. An unknown template and a missing variable are refused with `invalid_template` (and,
 * by the convention, 422 with details naming the field).
 */
import { defineFlow, expect, expectErrorEnvelope, expectRefused, expectStatus } from '../../src/harness/check.ts';
import type { ApiResponse } from '../../src/harness/check.ts';
import { listOf, messageStatus, recordOf } from './_messaging.ts';

interface Template {
  id: string;
  name: string;
  content: string;
}

interface State {
  templateId: string;
  templateName: string;
  expected: string;
  variables: Record<string, string>;
  messageId: string;
  /** The refusals of an unknown template and of a missing variable, for the convention's step. */
  refusals: Array<{ what: string; field: string; res: ApiResponse }>;
}

const FLOW = 'flow.template-send';

defineFlow<State>(
  {
    id: FLOW,
    class: 'messaging',
    title: 'template send: placeholders substituted, unknown template and missing variables refused',
  },
  (step) => {
    step(
      {
        id: `${FLOW}.create`,
        requirement: 'MSG-TPL-002',
        level: 'MUST',
        operation: 'POST /messaging/templates',
        title: 'a template whose content holds {{placeholders}} is accepted',
      },
      async ({ api, ledger, ctx, state }) => {
        state.templateName = ctx.name('tpl');
        // Two placeholders, one of them twice, one written with inner spaces would be an
        // implementation choice; the specification only says "double-brace variable names".
        const content = 'Hi {{first_name}}, your cloudcheck code is {{code}}. Bye {{first_name}}!';
        const res = await api.post('/messaging/templates', {
          name: state.templateName,
          content,
          category: 'cloudcheck',
        });
        expectStatus(res, [200, 201]);
        const template = recordOf<Template>(res.body, 'template');
        expect(typeof template.id, 'the created template has a string `id` to use as template_id').toBe('string');
        state.templateId = ledger.track('template', template.id);
        expect(template.content, 'the template keeps its content as given').toBe(content);
        const firstName = ctx.faker.person.firstName().replace(/[^A-Za-z]/g, '') || 'Ada';
        state.variables = { first_name: firstName, code: String(ctx.faker.number.int({ min: 100000, max: 999999 })) };
        state.expected = `Hi ${firstName}, your cloudcheck code is ${state.variables.code}. Bye ${firstName}!`;
      },
    );

    step(
      {
        id: `${FLOW}.listed`,
        requirement: 'MSG-TPL-003',
        level: 'MUST',
        operation: 'GET /messaging/templates',
        title: 'the new template is listed by GET /messaging/templates',
      },
      async ({ api, state }) => {
        const res = await api.get('/messaging/templates');
        expectStatus(res, 200);
        const found = listOf<Template>(res.body, 'templates').find((t) => t.id === state.templateId);
        expect(found, `template ${state.templateId} in the listing`).toBeTruthy();
        expect(found?.name).toBe(state.templateName);
      },
    );

    step(
      {
        id: `${FLOW}.send`,
        requirement: 'MSG-TPL-005',
        level: 'MUST',
        operation: 'POST /sms/send-template',
        title: 'POST /sms/send-template sends the content with every placeholder replaced',
      },
      async ({ api, ledger, ctx, state }) => {
        const res = await api.post('/sms/send-template', {
          to: ctx.testNumbers.succeed,
          template_id: state.templateId,
          variables: state.variables,
        });
        expectStatus(res, [200, 201]);
        // "sent message": the body is not shown; flat like POST /sms/send (the convention) or wrapped.
        const message = recordOf<{ message_id: string; message: string; to: string }>(res.body, 'message');
        expect(typeof message.message_id, 'the send answers a message_id').toBe('string');
        state.messageId = ledger.track('message', message.message_id);
        expect(message.message, 'the sent text is the template content with the variables substituted').toBe(
          state.expected,
        );
        expect(message.message).not.toContain('{{');
      },
    );

    step(
      {
        id: `${FLOW}.status`,
        requirement: 'MSG-TPL-005',
        level: 'MUST',
        operation: 'GET /sms/status/{message_id}',
        title: 'GET /sms/status reports the substituted text as the message',
      },
      async ({ api, ctx, state }) => {
        const message = await messageStatus(api, state.messageId);
        expect(message.message_id).toBe(state.messageId);
        expect(message.to).toBe(ctx.testNumbers.succeed);
        expect(message.message, 'the stored message is the substituted text').toBe(state.expected);
      },
    );

    step(
      {
        id: `${FLOW}.unknown-template`,
        requirement: 'ERR-CODE-006',
        level: 'MUST',
        operation: 'POST /sms/send-template',
        title: 'a template_id that names no template is refused with invalid_template',
      },
      async ({ api, ctx, state }) => {
        const res = await api.post('/sms/send-template', {
          to: ctx.testNumbers.succeed,
          template_id: `${state.templateId}-cloudcheck-missing`,
          variables: state.variables,
        });
        state.refusals = [{ what: 'an unknown template', field: 'template_id', res }];
        expectRefused(res, 'the send');
        expectErrorEnvelope(res, 'invalid_template');
      },
    );

    step(
      {
        id: `${FLOW}.missing-variable`,
        requirement: 'MSG-TPL-009',
        level: 'SHOULD',
        operation: 'POST /sms/send-template',
        title: 'a placeholder without a value in `variables` is refused with 422 invalid_template',
      },
      async ({ api, ctx, state }) => {
        const res = await api.post('/sms/send-template', {
          to: ctx.testNumbers.succeed,
          template_id: state.templateId,
          variables: { first_name: state.variables.first_name },
        });
        state.refusals.push({ what: 'a placeholder without a value', field: 'variables', res });
        expectStatus(res, 422);
        expectErrorEnvelope(res, 'invalid_template');
      },
    );

    step(
      {
        id: `${FLOW}.invalid-template-details`,
        requirement: 'ERR-MAP-008',
        level: 'SHOULD',
        operation: 'POST /sms/send-template',
        title: 'both refusals are 422 invalid_template with a details object naming template_id, then variables',
      },
      async ({ state }) => {
        for (const { what, field, res } of state.refusals) {
          expectStatus(res, 422, what);
          const { details } = expectErrorEnvelope(res, 'invalid_template');
          const named = (details as { field?: unknown } | undefined)?.field;
          expect(
            typeof details === 'object' && details !== null && !Array.isArray(details) && named === field,
            `${what}: error.details ${JSON.stringify(details)} is an object whose field is ${field}`,
          ).toBe(true);
        }
      },
    );
  },
);
