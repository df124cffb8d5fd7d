/**
 * A few small real checks that prove the pipeline (fixtures, budget, ledger, reporter, gate)
 * end to end. The generated contract checks and the flows live beside this file. Ids start with
 * `smoke.` so they never collide with generated ones.
 */
import { defineCheck, defineFlow, expect, expectErrorEnvelope, expectStatus } from '../src/harness/check.ts';

defineCheck(
  {
    id: 'smoke.auth.no-key',
    requirement: 'AUTH-KEY-001',
    level: 'MUST',
    class: 'auth',
    operation: 'GET /account',
    title: 'a request without an API key is refused with 401',
  },
  async ({ api }) => {
    const res = await api.get('/account', { key: null });
    expectStatus(res, 401);
    expectErrorEnvelope(res);
  },
);

defineCheck(
  {
    id: 'smoke.errors.unknown-route',
    requirement: 'ERR-ENVELOPE-001',
    level: 'MUST',
    class: 'errors',
    operation: null,
    title: 'an unknown route answers 404 with the error envelope',
  },
  async ({ api }) => {
    const res = await api.get('/cloudcheck-no-such-route');
    expectStatus(res, 404);
    expectErrorEnvelope(res, 'not_found');
  },
);

defineCheck(
  {
    id: 'smoke.billing.get-account',
    requirement: 'BILL-ACCOUNT-001',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account',
    title: 'GET /account answers 200 with an account object',
  },
  async ({ api }) => {
    const res = await api.get('/account');
    expectStatus(res, 200);
    const { account } = res.json<{ account: { id: string; email: string } }>();
    expect(typeof account.id).toBe('string');
    expect(account.email).toContain('@');
  },
);

defineCheck(
  {
    id: 'smoke.messaging.send-test-mode',
    requirement: 'MSG-SEND-001',
    level: 'MUST',
    class: 'messaging',
    operation: 'POST /sms/send',
    title: 'POST /sms/send in test mode answers a sent message with rate-limit headers',
  },
  async ({ api, ctx }) => {
    const res = await api.post('/sms/send', { to: ctx.testNumbers.succeed, message: `cloudcheck ${ctx.runPrefix}smoke` });
    expectStatus(res, [200, 201]);
    // The client adds the test-mode header to every send (safety), so the exchange must show it.
    expect(res.exchange.request.headers['x-test-mode']).toBe('true');
    expect(res.headers['x-ratelimit-limit']).toBeTruthy();
    const message = res.json<{ message_id: string; status: string }>();
    expect(message.status).toBe('sent');
  },
);

defineCheck(
  {
    id: 'smoke.pagination.per-page-limit',
    requirement: 'PAGE-META-001',
    level: 'SHOULD',
    class: 'pagination',
    operation: 'GET /vps',
    title: 'GET /vps with per_page=101 is a validation error',
  },
  async ({ api }) => {
    const res = await api.get('/vps', { query: { per_page: 101 } });
    expectStatus(res, 422);
    expectErrorEnvelope(res, 'validation_error');
  },
);

defineFlow<{ projectId: string }>({ id: 'smoke.flow.project', class: 'projects', title: 'project create, read, delete' }, (step) => {
  step(
    {
      id: 'smoke.flow.project.create',
      requirement: 'PROJ-CREATE-001',
      level: 'MUST',
      operation: 'POST /projects',
      title: 'POST /projects creates a project',
    },
    async ({ api, ledger, ctx, state }) => {
      const res = await api.post('/projects', { name: ctx.name('proj'), description: 'cloudcheck smoke' });
      expectStatus(res, 201);
      const { project } = res.json<{ project: { id: string; name: string } }>();
      state.projectId = ledger.track('project', project.id);
      expect(project.name.startsWith(ctx.runPrefix)).toBe(true);
    },
  );
  step(
    {
      id: 'smoke.flow.project.get',
      requirement: 'PROJ-GET-001',
      level: 'MUST',
      operation: 'GET /projects/{project_id}',
      title: 'GET /projects/{project_id} returns the created project',
    },
    async ({ api, state }) => {
      const res = await api.get(`/projects/${state.projectId}`);
      expectStatus(res, 200);
      expect(res.json<{ project: { id: string } }>().project.id).toBe(state.projectId);
    },
  );
});
