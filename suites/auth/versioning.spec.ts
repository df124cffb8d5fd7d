/**
 * Versioning: the base URL ends with `/v1` and operations are served at their paths appended to
 * it. Every other check already appends paths to the target; this one states the /v1 part. A
 * path of another version is an unknown route (the convention of VER-PATH-002).
 */
import { defineCheck, expect, expectErrorEnvelope, expectSuccess, test } from '../../src/harness/check.ts';

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

defineCheck(
  {
    id: 'auth.versioning.other-version',
    requirement: 'VER-PATH-002',
    level: 'SHOULD',
    class: 'errors',
    operation: null,
    title: 'GET /regions under /v2 instead of /v1 is an unknown route: 404 not_found with the error envelope',
  },
  async ({ api, ctx }) => {
    const base = new URL(ctx.target);
    const path = base.pathname.replace(/\/+$/, '');
    if (!path.endsWith('/v1')) test.skip(true, `the base URL ${ctx.target} has no /v1 segment to replace`);
    base.pathname = `${path.slice(0, -'/v1'.length)}/v2/regions`;
    const res = await api.request({ method: 'GET', path: base.toString(), key: ctx.keys.main });
    expect(res.status, `GET ${base.pathname}: ${res.text.slice(0, 200)}`).toBe(404);
    expectErrorEnvelope(res, 'not_found');
  },
);
