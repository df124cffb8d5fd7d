/**
 * A few small real checks that prove the pipeline (fixtures, budget, ledger, reporter, gate)
 * end to end. The generated contract checks and the flows live beside this file. Ids start with
 * `smoke.` so they never collide with generated ones.
 */
import {
  defineCheck,
  defineFlow,
  expect,
  expectEchoed,
  expectErrorEnvelope,
  expectFields,
  expectFieldValues,
  expectRefused,
  expectResource,
  expectStatus,
  expectSuccess,
} from '../src/harness/check.ts';

defineCheck(
  {
    id: 'smoke.auth.no-key',
    requirement: 'AUTH-KEY-001',
    level: 'MUST',
    class: 'auth',
    operation: 'GET /account',
    title: 'a request without an API key is refused with the error envelope',
  },
  async ({ api }) => {
    const res = await api.get('/account', { key: null });
    expectRefused(res, 'GET /account without a key');
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
    title: 'an unknown route is refused with the error envelope',
  },
  async ({ api }) => {
    const res = await api.get('/cloudcheck-no-such-route');
    // 404 `not_found` is the convention (VER-PATH-002, ERR-MAP-003); the envelope is stated.
    expectRefused(res, 'GET of an unknown route');
    expectErrorEnvelope(res);
  },
);

defineCheck(
  {
    id: 'smoke.billing.get-account',
    requirement: 'ACCT-GET-001',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account',
    title: 'GET /account answers with an account object',
  },
  async ({ api }) => {
    const res = await api.get('/account');
    expectSuccess(res);
    // The specification shows this body: an object `account`.
    const body = res.body as { account?: { id?: unknown; email?: unknown } } | undefined;
    expectFields(body, { account: 'object' }, 'GET /account', res);
    const account = body!.account!;
    expectFields(account, { id: 'string', email: 'string' }, 'the account', res);
    expect(String(account.email), 'the account email').toContain('@');
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
    const res = await api.post('/sms/send', {
      to: ctx.testNumbers.succeed,
      message: `cloudcheck ${ctx.runPrefix}smoke`,
    });
    expectSuccess(res);
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
    requirement: 'PAGE-SIZE-004',
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

defineFlow<{ projectId: string; projectName: string }>(
  { id: 'smoke.flow.project', class: 'projects', title: 'project create, read, delete' },
  (step) => {
    step(
      {
        id: 'smoke.flow.project.create',
        requirement: 'PROJ-CRT-002',
        level: 'MUST',
        operation: 'POST /projects',
        title: 'POST /projects creates an active project with the requested name and description',
      },
      async ({ api, ledger, ctx, state }) => {
        const request = { name: ctx.name('proj'), description: 'cloudcheck smoke' };
        const res = await api.post('/projects', request);
        // The created project's body is not shown: read it in whichever shape it comes.
        const project = expectResource<{ id: string; name: string }>(res, 'project');
        state.projectId = ledger.track('project', String(project.id));
        state.projectName = request.name;
        expectEchoed(res, project, request, 'the created project');
        expectFieldValues(project, { status: 'active' }, 'the created project', res);
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
      async ({ api, ledger, ctx, state }) => {
        // A second project, created after it: the read must pick the one asked for, not any project.
        const other = expectResource<{ id: string }>(
          await api.post('/projects', { name: ctx.name('proj-other') }),
          'project',
        );
        ledger.track('project', String(other.id));
        const res = await api.get(`/projects/${encodeURIComponent(state.projectId)}`);
        const project = expectResource<{ id: string; name: string }>(res, 'project');
        expect(project.id, 'id of the project read').toBe(state.projectId);
        expect(project.name, 'name of the project read').toBe(state.projectName);
      },
    );
  },
);
