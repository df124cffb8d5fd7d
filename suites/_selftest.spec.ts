/**
 * Deliberately broken checks, defined only under the hidden switch CLOUDCHECK_SELFTEST=broken-checks
 * (test/cli/selection.test.ts): they prove that cloudcheck's own failures are classified
 * `cloudcheck-error` and make the run exit 2, never 1, whatever the target answers. Under
 * CLOUDCHECK_SELFTEST=third-party-output, a check prints as a library would (test/report/
 * third-party-output.test.ts): the console stays clean and the report keeps the lines. Under
 * CLOUDCHECK_SELFTEST=failed-flow-step (test/cli/selection.test.ts), a flow step fails: the steps
 * after it are skipped with the reason, and the worker goes on (it is not replaced).
 */
import { defineCheck, defineFlow, expectStatus } from '../src/harness/check.ts';

if (process.env.CLOUDCHECK_SELFTEST === 'broken-checks') {
  defineCheck(
    {
      id: 'selftest.code-error',
      requirement: 'ERR-ENVELOPE-001',
      level: 'MUST',
      class: 'errors',
      operation: 'GET /regions',
      title: 'selftest: a check whose own code throws a TypeError',
    },
    async ({ api }) => {
      const res = await api.get('/regions');
      expectStatus(res, 200);
      // A bug of the check: reading a property of something it never had.
      const missing = (res.json<Record<string, unknown>>() as { cloudcheckNoSuchField?: { id: string } })
        .cloudcheckNoSuchField;
      if (missing!.id === '') throw new Error('unreachable');
    },
  );
  defineFlow<{ vpsId?: string }>(
    { id: 'selftest.flow', class: 'errors', title: 'selftest: a step that uses a value no step set' },
    (step) => {
      step(
        {
          id: 'selftest.flow.unset-value',
          requirement: 'ERR-ENVELOPE-001',
          level: 'MUST',
          operation: 'GET /vps/{vps_id}',
          title: 'selftest: a path built from an unset value',
        },
        async ({ api, state }) => {
          const res = await api.get(`/vps/${state.vpsId}`);
          expectStatus(res, 200);
        },
      );
    },
  );
}

if (process.env.CLOUDCHECK_SELFTEST === 'third-party-output') {
  defineCheck(
    {
      id: 'selftest.third-party-output',
      requirement: 'ERR-ENVELOPE-001',
      level: 'MUST',
      class: 'errors',
      operation: 'GET /regions',
      title: 'selftest: library code prints warnings while a check runs',
    },
    async ({ api }) => {
      for (let i = 0; i < 3; i++) console.warn('(node:1) [DEP0999] DeprecationWarning: selftest library notice');
      console.log('selftest library says hello on stdout');
      expectStatus(await api.get('/regions'), 200);
    },
  );
}

if (process.env.CLOUDCHECK_SELFTEST === 'failed-flow-step') {
  /** The worker process of the flow's first step: a replaced worker loads this module afresh. */
  let flowWorkerPid: number | undefined;
  defineFlow(
    { id: 'selftest.failing-flow', class: 'errors', title: 'selftest: a flow whose second step fails' },
    (step) => {
      step(
        {
          id: 'selftest.failing-flow.first',
          requirement: 'ERR-ENVELOPE-001',
          level: 'MUST',
          operation: 'GET /regions',
          title: 'selftest: a step that passes',
        },
        async ({ api }) => {
          flowWorkerPid = process.pid;
          expectStatus(await api.get('/regions'), 200);
        },
      );
      step(
        {
          id: 'selftest.failing-flow.fails',
          requirement: 'ERR-ENVELOPE-001',
          level: 'MUST',
          operation: 'GET /regions',
          title: 'selftest: a step the target fails',
        },
        async ({ api }) => {
          expectStatus(await api.get('/regions'), 404, 'selftest: a success where a refusal is expected');
        },
      );
      step(
        {
          id: 'selftest.failing-flow.after',
          requirement: 'ERR-ENVELOPE-001',
          level: 'MUST',
          operation: 'GET /regions',
          title: 'selftest: a step after the failed one',
        },
        async ({ api }) => {
          expectStatus(await api.get('/regions'), 200);
        },
      );
    },
  );
  defineCheck(
    {
      id: 'selftest.same-worker',
      requirement: 'ERR-ENVELOPE-001',
      level: 'MUST',
      class: 'errors',
      operation: 'GET /regions',
      title: "selftest: the check after the flow runs in the flow's worker",
    },
    async ({ api }) => {
      expectStatus(await api.get('/regions'), 200);
      if (flowWorkerPid !== process.pid)
        throw new Error(
          `the worker was replaced after the failed step (flow in ${flowWorkerPid ?? 'another process'}, this check in ${process.pid})`,
        );
    },
  );
}
