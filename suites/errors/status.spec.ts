/**
 * The status and envelope rules of "Errors" that hold for every operation, sampled on cheap
 * ones: success statuses are 200, 201 or 204; errors are 4xx/5xx with the envelope; 409 is left
 * to storage; `details`, when messaging or billing send it, is an object. And the conventions of
 * the same section: a body that is no JSON object is 400 `invalid_json`, one too large 413
 * `payload_too_large`, and validation details take the compute shape in storage and the messaging
 * shape in projects.
 */
import {
  defineCheck,
  expect,
  expectErrorEnvelope,
  expectRefused,
  expectResource,
  fail,
  judged,
  resourceOf,
} from '../../src/harness/check.ts';
import type { ApiClient, ApiResponse, CheckContext, Ledger } from '../../src/harness/check.ts';

const SUCCESS = [200, 201, 204];

/** A project of the run (cheap, deletable): created, tracked, its id. */
async function createProject(
  api: ApiClient,
  ledger: Ledger,
  ctx: CheckContext,
): Promise<{ res: ApiResponse; id: string }> {
  const res = await api.post('/projects', { name: ctx.name('errs') });
  const id = String(expectResource<{ id: unknown }>(res, 'project').id);
  ledger.track('project', id);
  return { res, id };
}

/** The codes a success uses, exactly (the specification lists them): not any 2xx, as expectStatus allows at MUST. */
function expectSuccessStatus(res: ApiResponse, what: string): void {
  if (SUCCESS.includes(res.status)) return;
  fail({
    kind: 'status',
    subject: 'status',
    expected: '200, 201 or 204',
    actual: String(res.status),
    judged: judged(res),
    context: what,
    says: `${what} answered ${res.status}; a success uses 200, 201 or 204`,
  });
}

defineCheck(
  {
    id: 'errors.status.classes',
    requirement: 'ERR-STAT-001',
    level: 'MUST',
    class: 'errors',
    operation: null,
    title: 'successes (read, create, delete) answer 200, 201 or 204; an error answers 4xx with the envelope',
  },
  async ({ api, ledger, ctx }) => {
    expectSuccessStatus(await api.get('/account'), 'GET /account');
    const { res, id } = await createProject(api, ledger, ctx);
    expectSuccessStatus(res, 'POST /projects');
    const deleted = await api.delete(`/projects/${encodeURIComponent(id)}`);
    expectSuccessStatus(deleted, 'DELETE /projects/{project_id}');
    ledger.deleted('project', id);
    const missing = await api.get('/vps/cloudcheck-no-such-vps');
    expect(
      missing.status >= 400 && missing.status < 600,
      `GET of an unknown VPS answered ${missing.status}; an error uses 4xx or 5xx`,
    ).toBe(true);
    expectErrorEnvelope(missing);
  },
);

defineCheck(
  {
    id: 'errors.status.409-storage-only',
    requirement: 'ERR-STAT-003',
    level: 'MUST',
    class: 'errors',
    operation: null,
    title: 'deleting outside storage what is gone or never existed is not answered 409',
  },
  async ({ api, ledger, ctx }) => {
    const { id } = await createProject(api, ledger, ctx);
    const first = await api.delete(`/projects/${encodeURIComponent(id)}`);
    expect(first.status, 'the first DELETE of the project').toBeLessThan(300);
    ledger.deleted('project', id);
    // A second delete conflicts with the project's state at most; 409 is for storage only.
    const paths = [`/projects/${encodeURIComponent(id)}`, '/vps/cloudcheck-no-such-vps'];
    // Payment methods are money: even a DELETE of one that does not exist waits for --allow-charges.
    if (ctx.allowCharges) paths.push('/account/payment-methods/cloudcheck-no-such-pm');
    for (const path of paths) {
      const res = await api.delete(path);
      if (res.status === 409)
        fail({
          kind: 'status',
          subject: 'status',
          expected: 'not 409',
          actual: '409',
          judged: judged(res),
          context: `DELETE ${path}`,
          says: `DELETE ${path} answered 409 outside storage`,
          evidence: res.text.slice(0, 200),
        });
    }
  },
);

defineCheck(
  {
    id: 'errors.details.object',
    requirement: 'ERR-ENVELOPE-002',
    level: 'MUST',
    class: 'errors',
    operation: null,
    title: 'a refused messaging and a refused billing request carry error.details, when present, as an object',
  },
  async ({ api }) => {
    const refused = [
      await api.post('/sms/send', { to: 'not-a-phone-number', message: 'cloudcheck details' }),
      await api.post('/account/alerts', {
        type: 'cloudcheck-no-such-type',
        threshold: 1,
        condition: 'greater_than',
        notification_methods: ['email'],
      }),
    ];
    for (const res of refused) {
      const line = `${res.exchange.request.method} ${new URL(res.exchange.request.url).pathname}`;
      expect(res.status >= 400 && res.status < 500, `${line} should be refused, got ${res.status}`).toBe(true);
      const { details } = expectErrorEnvelope(res);
      if (details !== undefined) {
        expect(
          typeof details === 'object' && details !== null && !Array.isArray(details),
          `${line}: error.details ${JSON.stringify(details)} is a JSON object`,
        ).toBe(true);
      }
    }
  },
);

defineCheck(
  {
    id: 'errors.details.compute-array',
    requirement: 'ERR-ENVELOPE-003',
    level: 'MUST',
    class: 'errors',
    operation: 'POST /vps',
    title: 'a compute validation error carries error.details as an array of {field, message}',
  },
  async ({ api, ledger }) => {
    // No name, no image, no size: refused whatever the target checks first.
    const res = await api.post('/vps', { region: 'cc-no-such-region' });
    const created = res.status < 300 ? (res.body as { vps?: { id?: string } } | undefined)?.vps?.id : undefined;
    if (created) ledger.track('vps', created);
    expectRefused(res, 'POST /vps without name, image and size');
    const details = (res.body as { error?: { details?: unknown } } | undefined)?.error?.details;
    expect(
      Array.isArray(details),
      `error.details of a compute validation error is an array: ${JSON.stringify(details)}`,
    ).toBe(true);
    const entries = details as Array<{ field?: unknown; message?: unknown }>;
    expect(entries.length, 'error.details names what is wrong').toBeGreaterThan(0);
    for (const entry of entries)
      expect([typeof entry.field, typeof entry.message], JSON.stringify(entry)).toEqual(['string', 'string']);
  },
);

defineCheck(
  {
    id: 'errors.invalid-json',
    requirement: 'ERR-MAP-001',
    level: 'SHOULD',
    class: 'errors',
    operation: 'POST /projects',
    title: 'a body that is not valid JSON, or JSON that is not an object, answers 400 invalid_json',
  },
  async ({ api, ledger }) => {
    for (const [what, body] of [
      ['a body cut in the middle of a JSON object', '{"name": "cloudcheck'],
      ['a JSON array', '["cloudcheck"]'],
    ] as const) {
      const res = await api.request({
        method: 'POST',
        path: '/projects',
        body,
        headers: { 'content-type': 'application/json' },
      });
      const id = resourceOf<{ id?: unknown }>(res.body, 'project')?.id;
      if (res.status < 300 && typeof id === 'string') ledger.track('project', id);
      expect(res.status, `POST /projects with ${what}: ${res.text.slice(0, 200)}`).toBe(400);
      expectErrorEnvelope(res, 'invalid_json');
    }
  },
);

/** Twice the 1 MiB that most servers and proxies accept for a JSON body. */
const OVERSIZED_BYTES = 2 * 1024 * 1024 + 1024;

defineCheck(
  {
    id: 'errors.payload-too-large',
    requirement: 'ERR-MAP-002',
    level: 'SHOULD',
    class: 'errors',
    operation: 'POST /projects',
    title: `a JSON body of ${OVERSIZED_BYTES} bytes is either read or refused with 413 payload_too_large`,
  },
  async ({ api }) => {
    // No `name`: a target that reads it all refuses it for its content, and creates nothing.
    const body = JSON.stringify({ description: 'x'.repeat(OVERSIZED_BYTES) });
    const res = await api.request({
      method: 'POST',
      path: '/projects',
      body,
      headers: { 'content-type': 'application/json' },
    });
    // Read whole: the size is within what the target accepts, and the convention says nothing of it.
    if (res.status === 422 || (res.status === 400 && /validation/.test(res.text))) return;
    expect(res.status, `POST /projects with a body of ${OVERSIZED_BYTES} bytes: ${res.text.slice(0, 200)}`).toBe(413);
    expectErrorEnvelope(res, 'payload_too_large');
  },
);

defineCheck(
  {
    id: 'errors.details.unshown-areas',
    requirement: 'ERR-ENVELOPE-006',
    level: 'SHOULD',
    class: 'errors',
    operation: null,
    title:
      'validation_error details: an object {field, message} in projects, an array of them in storage (objects and volumes)',
  },
  async ({ api, ledger }) => {
    const cases: Array<{ path: string; kind: 'project' | 'bucket' | 'volume'; shape: 'object' | 'array' }> = [
      { path: '/projects', kind: 'project', shape: 'object' },
      { path: '/storage/buckets', kind: 'bucket', shape: 'array' },
      { path: '/storage/volumes', kind: 'volume', shape: 'array' },
    ];
    for (const { path, kind, shape } of cases) {
      // Nothing of what the creation needs: refused whatever the target checks first.
      const res = await api.post(path, { description: 'cloudcheck details' });
      const record = resourceOf<{ id?: unknown; name?: unknown }>(res.body, kind);
      const id = kind === 'bucket' ? record?.name : record?.id;
      if (res.status < 300 && typeof id === 'string') ledger.track(kind, id);
      expectRefused(res, `POST ${path} without its required fields`);
      const { details } = expectErrorEnvelope(res, 'validation_error');
      const entries = shape === 'array' && Array.isArray(details) ? (details as unknown[]) : [details];
      expect(
        shape === 'array' ? Array.isArray(details) && details.length > 0 : !Array.isArray(details),
        `POST ${path}: validation_error details ${JSON.stringify(details)} is ${shape === 'array' ? 'an array of {field, message}' : 'one {field, message} object'}`,
      ).toBe(true);
      for (const entry of entries) {
        const { field, message } = (entry ?? {}) as { field?: unknown; message?: unknown };
        expect([typeof field, typeof message], `POST ${path}: ${JSON.stringify(entry)} is {field, message}`).toEqual([
          'string',
          'string',
        ]);
      }
    }
  },
);
