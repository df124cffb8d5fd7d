/**
 * The account itself (States and transitions): checks of GET /account that no generated check
 * makes, since the schema cannot say which status a working key's account has.
 */
import { defineCheck, expect } from '../../src/harness/check.ts';
import { expectResource } from '../../src/harness/resource.ts';

defineCheck(
  {
    id: 'billing.account.active',
    requirement: 'ACCT-GET-002',
    level: 'MUST',
    class: 'billing',
    operation: 'GET /account',
    title: 'the account of a working API key reports status active',
  },
  async ({ api }) => {
    // The run's key works (every other request of the run proves it), so its account is active.
    const account = expectResource<{ status?: unknown }>(await api.get('/account'), 'account');
    expect(account.status, 'account.status of a working key').toBe('active');
  },
);
