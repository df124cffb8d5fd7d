/**
 * Versioning: the base URL ends with `/v1` and operations are served at their paths appended to
 * it. Every other check already appends paths to the target; this one states the /v1 part.
 */
import { defineCheck, expect, expectSuccess } from '../../src/harness/check.ts';

defineCheck(
  {
    id: 'auth.versioning.v1-base',
    requirement: 'VER-PATH-001',
    level: 'MUST',
    class: 'auth',
    operation: 'GET /regions',
    title: 'the base URL ends with /v1 and GET /regions is served below it',
  },
  async ({ api, ctx }) => {
    const path = new URL(ctx.target).pathname.replace(/\/+$/, '');
    expect(path.endsWith('/v1'), `the path of the base URL ${ctx.target} ends with /v1`).toBe(true);
    const res = await api.get('/regions');
    expectSuccess(res, 'GET /regions appended to the base URL');
    expect(new URL(res.exchange.request.url).pathname, 'the request path').toBe(`${path}/regions`);
  },
);
