/**
 * Deliberately broken checks, defined only under the hidden switch CLOUDCHECK_SELFTEST=broken-checks
 * (test/cli/selection.test.ts): they prove that cloudcheck's own failures are classified
 * `cloudcheck-error` and make the run exit 2, never 1, whatever the target answers. Under
 * CLOUDCHECK_SELFTEST=third-party-output, a check prints as a library would (test/report/
 * third-party-output.test.ts): the console stays clean and the report keeps the lines.
 */
import { defineCheck, defineFlow, expectStatus } from '../src/harness/check.ts';

if (process.env.CLOUDCHECK_SELFTEST === 'broken-checks') {
  defineCheck(
    { id: 'selftest.code-error', requirement: 'ERR-ENVELOPE-001', level: 'MUST', class: 'errors', operation: 'GET /regions', title: 'selftest: a check whose own code throws a TypeError' },
    async ({ api }) => {
      const res = await api.get('/regions');
      expectStatus(res, 200);
      // A bug of the check: reading a property of something it never had.
      const missing = (res.json<Record<string, unknown>>() as { cloudcheckNoSuchField?: { id: string } }).cloudcheckNoSuchField;
      if (missing!.id === '') throw new Error('unreachable');
    },
  );
  defineFlow<{ vpsId?: string }>({ id: 'selftest.flow', class: 'errors', title: 'selftest: a step that uses a value no step set' }, (step) => {
    step(
      { id: 'selftest.flow.unset-value', requirement: 'ERR-ENVELOPE-001', level: 'MUST', operation: 'GET /vps/{vps_id}', title: 'selftest: a path built from an unset value' },
      async ({ api, state }) => {
        const res = await api.get(`/vps/${state.vpsId}`);
        expectStatus(res, 200);
      },
    );
  });
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
