/**
 * Only the Bearer scheme carries a key (docs/conventions.md, Auth and permissions): the run's own
 * key under another scheme is treated like a missing header, 401 `unauthorized`, on a read of
 * billing and one of compute.
 */
import { addSecret, defineCheck, expect, expectErrorEnvelope } from '../../src/harness/check.ts';

defineCheck(
  {
    id: 'auth.scheme.other-than-bearer',
    requirement: 'AUTH-KEY-005',
    level: 'SHOULD',
    class: 'auth',
    operation: 'GET /account',
    title: 'the run key under the Basic or Token scheme is treated like a missing header: 401 unauthorized',
  },
  async ({ api, ctx }) => {
    const key = ctx.keys.main;
    const basic = Buffer.from(`${key}:`).toString('base64');
    addSecret(basic);
    const schemes: Array<[string, string]> = [
      ['Basic', `Basic ${basic}`],
      ['Token', `Token ${key}`],
    ];
    for (const path of ['/account', '/regions'])
      for (const [scheme, authorization] of schemes) {
        const res = await api.request({ method: 'GET', path, authorization });
        expect(res.status, `GET ${path} with the run key under the scheme "${scheme}": ${res.text.slice(0, 200)}`).toBe(
          401,
        );
        expectErrorEnvelope(res, 'unauthorized');
      }
  },
);
