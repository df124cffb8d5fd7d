/**
 * Every fault of the billing, projects and API-key areas is observable: with the fault on, the
 * behaviour its requirement describes breaks (and without it, the other tests show it holds).
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '../base.ts';
import { parse } from 'yaml';
import { apiKeysArea } from '../../reference/areas/api-keys/index.ts';
import { billingArea } from '../../reference/areas/billing/index.ts';
import { projectsArea } from '../../reference/areas/projects/index.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { type Api, SHORT_DELAYS, api, fakeProvider, json, newAccount } from './billing-fixtures.ts';

type Check = (a: Api, server: RunningReference, accountId: string) => Promise<void>;

const defaultPm = async (a: Api) =>
  json<{ payment_methods: Array<{ id: string }> }>(await a.call('GET', '/account/payment-methods')).payment_methods[0]
    ?.id;

const CHECKS: Record<string, Check> = {
  'ids-unprefixed-billing': async (a) => {
    const alert = json<{ alert: { id: string } }>(
      await a.call('POST', '/account/alerts', {
        type: 'balance',
        threshold: 1,
        condition: 'less_than',
        notification_methods: ['email'],
      }),
    ).alert;
    expect(alert.id).not.toMatch(/^alert_/);
  },
  'ids-unprefixed-projects': async (a) => {
    expect(json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project.id).not.toMatch(
      /^proj_/,
    );
  },
  'ids-unprefixed-api-keys': async (a) => {
    const created = json<{ api_key: { id: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    expect(created.id).not.toMatch(/^key_/);
  },
  'key-prefix-unrelated': async (a) => {
    const created = json<{ api_key: { id: string; key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    const listed = json<{ api_keys: Array<{ id: string; prefix: string }> }>(
      await a.call('GET', '/account/api-keys'),
    ).api_keys.find((k) => k.id === created.id);
    expect(listed?.prefix).not.toBe(created.key.slice(0, 12));
  },
  'usage-total-cost-text': async (a) => {
    expect(
      typeof json<{ usage: { total_cost: unknown } }>(await a.call('GET', '/account/usage')).usage.total_cost,
    ).toBe('string');
  },
  'alert-list-empty': async (a) => {
    await a.call('POST', '/account/alerts', {
      type: 'balance',
      threshold: 1,
      condition: 'less_than',
      notification_methods: ['email'],
    });
    expect(json<{ alerts: unknown[] }>(await a.call('GET', '/account/alerts')).alerts).toEqual([]);
  },
  'alert-sms-refused': async (a) => {
    expect(
      (
        await a.call('POST', '/account/alerts', {
          type: 'balance',
          threshold: 1,
          condition: 'less_than',
          notification_methods: ['sms'],
        })
      ).status,
    ).toBe(422);
  },
  'payment-method-last4-number': async (a) => {
    const listed = json<{ payment_methods: Array<{ last4: unknown }> }>(
      await a.call('GET', '/account/payment-methods'),
    ).payment_methods;
    expect(typeof listed[0]?.last4).toBe('number');
  },
  'key-create-expires-at-omitted': async (a) => {
    const created = json<{ api_key: Record<string, unknown> }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    expect(Object.keys(created)).not.toContain('expires_at');
  },
  'history-date-range-ignored': async (a) => {
    const all = json<{ transactions: unknown[] }>(await a.call('GET', '/account/billing/history')).transactions;
    const past = json<{ transactions: unknown[] }>(
      await a.call('GET', '/account/billing/history?from_date=2000-01-01&to_date=2000-01-31'),
    ).transactions;
    expect(all.length).toBeGreaterThan(0);
    expect(past).toHaveLength(all.length);
  },
  'account-status-other': async (a) => {
    expect(json<{ account: { status: string } }>(await a.call('GET', '/account')).account.status).toBe('enabled');
  },
  'account-update-ignored': async (a) => {
    await a.call('PUT', '/account', { name: 'Changed' });
    expect(json<{ account: { name: string } }>(await a.call('GET', '/account')).account.name).not.toBe('Changed');
  },
  'wallet-balance-strings': async (a) => {
    const wallet = json<{ wallets: Array<Record<string, unknown>> }>(await a.call('GET', '/account/wallets'))
      .wallets[0];
    expect(typeof wallet?.available_balance).toBe('string');
  },
  'topup-payment-method-unchecked': async (a) => {
    expect((await a.call('POST', '/account/wallets/topup', { amount: 5, currency: 'USD' })).status).toBe(200);
  },
  'billing-meta-missing': async (a) => {
    expect(json<Record<string, unknown>>(await a.call('GET', '/account/billing/history'))).not.toHaveProperty('meta');
  },
  'history-type-filter-ignored': async (a) => {
    const types = json<{ transactions: Array<{ type: string }> }>(
      await a.call('GET', '/account/billing/history?type=refund'),
    ).transactions.map((t) => t.type);
    expect(types.some((t) => t !== 'refund')).toBe(true);
  },
  'usage-service-unchecked': async (a) => {
    expect((await a.call('GET', '/account/usage?service=kubernetes')).status).toBe(200);
  },
  'payment-method-delete-ignored': async (a) => {
    const id = await defaultPm(a);
    expect((await a.call('DELETE', `/account/payment-methods/${id}`)).status).toBe(204);
    expect(
      json<{ payment_methods: Array<{ id: string }> }>(
        await a.call('GET', '/account/payment-methods'),
      ).payment_methods.map((p) => p.id),
    ).toContain(id);
  },
  'invoice-pdf-not-pdf': async (a, server) => {
    const id = json<{ invoices: Array<{ id: string }> }>(await a.call('GET', '/account/invoices')).invoices[0]?.id;
    const res = await fetch(`${server.baseUrl}/account/invoices/${id}/pdf`, {
      headers: { authorization: `Bearer ${a.key}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
    expect((await res.text()).startsWith('%PDF-')).toBe(false);
  },
  'cost-breakdown-resources-missing': async (a) => {
    const entry = json<{ cost_breakdown: Array<Record<string, unknown>> }>(
      await a.call('GET', '/account/analytics/costs'),
    ).cost_breakdown[0];
    expect(entry).toBeDefined();
    expect(entry).not.toHaveProperty('resources');
  },
  'trends-metric-optional': async (a) => {
    expect((await a.call('GET', '/account/analytics/trends')).status).toBe(200);
  },
  'project-update-ignored': async (a) => {
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'before' })).project.id;
    expect(
      json<{ project: { name: string } }>(await a.call('PUT', `/projects/${id}`, { name: 'after' })).project.name,
    ).toBe('after');
    expect(json<{ project: { name: string } }>(await a.call('GET', `/projects/${id}`)).project.name).toBe('before');
  },
  'project-second-update-lost': async (a) => {
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'before' })).project.id;
    await a.call('PUT', `/projects/${id}`, { name: 'first' });
    expect(json<{ project: { name: string } }>(await a.call('GET', `/projects/${id}`)).project.name).toBe('first');
    expect(
      json<{ project: { name: string } }>(await a.call('PUT', `/projects/${id}`, { name: 'second' })).project.name,
    ).toBe('second');
    expect(json<{ project: { name: string } }>(await a.call('GET', `/projects/${id}`)).project.name).toBe('first');
  },
  'project-deleted-listed-beside-others': async (a) => {
    const gone = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'gone' })).project.id;
    expect((await a.call('DELETE', `/projects/${gone}`)).status).toBe(204);
    const listed = async (): Promise<string[]> =>
      json<{ projects: Array<{ id: string }> }>(await a.call('GET', '/projects')).projects.map((p) => p.id);
    expect(await listed()).not.toContain(gone);
    await a.call('POST', '/projects', { name: 'other' });
    expect(await listed()).toContain(gone);
    expect((await a.call('GET', `/projects/${gone}`)).status).toBe(404);
  },
  'project-list-misses-newest-after-delete': async (a) => {
    const first = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'first' })).project.id;
    const listed = async (): Promise<string[]> =>
      json<{ projects: Array<{ id: string }> }>(await a.call('GET', '/projects')).projects.map((p) => p.id);
    expect(await listed()).toContain(first);
    const gone = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'gone' })).project.id;
    await a.call('DELETE', `/projects/${gone}`);
    expect(await listed()).not.toContain(first);
  },
  'key-list-expiry-of-newest': async (a) => {
    const create = async (name: string, expires: string): Promise<string> =>
      json<{ api_key: { id: string } }>(
        await a.call('POST', '/account/api-keys', { name, permissions: ['read'], expires_at: expires }),
      ).api_key.id;
    const first = await create('first', '2099-01-01T00:00:00.000Z');
    await create('second', '2099-06-01T00:00:00.000Z');
    const listed = json<{ api_keys: Array<{ id: string; expires_at: string }> }>(
      await a.call('GET', '/account/api-keys'),
    );
    expect(listed.api_keys.find((k) => k.id === first)?.expires_at).toBe('2099-06-01T00:00:00.000Z');
  },
  'project-list-stale-after-update': async (a) => {
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p', description: 'old' }))
      .project.id;
    await a.call('PUT', `/projects/${id}`, { description: 'new' });
    expect(json<{ project: { description: string } }>(await a.call('GET', `/projects/${id}`)).project.description).toBe(
      'new',
    );
    const listed = json<{ projects: Array<{ id: string; description: string }> }>(await a.call('GET', '/projects'));
    expect(listed.projects.find((p) => p.id === id)?.description).toBe('old');
  },
  'project-budget-limit-after-update': async (a) => {
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p', budget_limit: 5 }))
      .project.id;
    expect(json<{ project: object }>(await a.call('GET', `/projects/${id}`)).project).not.toHaveProperty(
      'budget_limit',
    );
    await a.call('PUT', `/projects/${id}`, { budget_limit: 9 });
    expect(json<{ project: object }>(await a.call('GET', `/projects/${id}`)).project).toHaveProperty('budget_limit', 9);
  },
  'project-region-of-previous': async (a) => {
    await a.call('POST', '/projects', { name: 'first', region: 'nyc1' });
    const second = json<{ project: { region: string } }>(
      await a.call('POST', '/projects', { name: 'second', region: 'ams3' }),
    );
    expect(second.project.region).toBe('nyc1');
  },
  'project-delete-keeps-later-resources': async (a, server, accountId) => {
    const provider = fakeProvider('compute');
    server.context.services.addResourceProvider(provider);
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project.id;
    for (const [n, at] of [
      ['old', '2026-01-01T00:00:00.000Z'],
      ['new', '2026-01-02T00:00:00.000Z'],
    ] as const)
      provider.items.push({
        accountId,
        hourly: 0.01,
        id: `vps_${n}`,
        type: 'vps',
        name: n,
        status: 'running',
        service: 'compute',
        region: 'nyc1',
        monthly_cost: 7.2,
        created_at: at,
        project_id: id,
      });
    expect((await a.call('DELETE', `/projects/${id}`)).status).toBe(204);
    expect(provider.resources(accountId).map((r) => r.id)).toEqual(['vps_new']);
  },
  'project-delete-keeps-resources': async (a, server, accountId) => {
    const provider = fakeProvider('compute');
    server.context.services.addResourceProvider(provider);
    const id = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project.id;
    provider.items.push({
      accountId,
      hourly: 0.01,
      id: 'vps_kept',
      type: 'vps',
      name: 'kept',
      status: 'running',
      service: 'compute',
      region: 'nyc1',
      monthly_cost: 7.2,
      created_at: new Date().toISOString(),
      project_id: id,
    });
    expect((await a.call('DELETE', `/projects/${id}`)).status).toBe(204);
    expect(provider.resources(accountId).map((r) => r.id)).toEqual(['vps_kept']);
  },
  'project-budget-limit-returned': async (a) => {
    expect(
      json<{ project: Record<string, unknown> }>(await a.call('POST', '/projects', { name: 'p', budget_limit: 5 }))
        .project,
    ).toHaveProperty('budget_limit', 5);
  },
  'project-created-inactive': async (a) => {
    expect(json<{ project: { status: string } }>(await a.call('POST', '/projects', { name: 'p' })).project.status).toBe(
      'pending',
    );
  },
  'project-list-empty': async (a) => {
    await a.call('POST', '/projects', { name: 'p' });
    expect(json<{ projects: unknown[] }>(await a.call('GET', '/projects')).projects).toEqual([]);
  },
  'project-resources-empty': async (a) => {
    const project = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project;
    await a.call('POST', '/storage/volumes', { name: 'v', size: 10, region: 'nyc1', project_id: project.id });
    expect(json<{ resources: unknown[] }>(await a.call('GET', `/projects/${project.id}/resources`)).resources).toEqual(
      [],
    );
  },
  'project-resources-filter-ignored': async (a) => {
    const project = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project;
    await a.call('POST', '/storage/volumes', { name: 'v', size: 10, region: 'nyc1', project_id: project.id });
    expect(
      json<{ resources: unknown[] }>(await a.call('GET', `/projects/${project.id}/resources?service=compute`))
        .resources,
    ).toHaveLength(1);
  },
  'project-usage-range-refused': async (a) => {
    const project = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'p' })).project;
    expect((await a.call('GET', `/projects/${project.id}/usage?from_date=2026-01-01&to_date=2026-01-31`)).status).toBe(
      422,
    );
  },
  'project-list-cost-text': async (a) => {
    await a.call('POST', '/projects', { name: 'p' });
    const listed = json<{ projects: Array<{ monthly_cost: unknown; resource_count: unknown }> }>(
      await a.call('GET', '/projects'),
    ).projects[0];
    expect([typeof listed?.monthly_cost, typeof listed?.resource_count]).toEqual(['string', 'string']);
  },
  'key-listing-permissions-text': async (a) => {
    const keys = json<{ api_keys: Array<{ permissions: unknown }> }>(await a.call('GET', '/account/api-keys')).api_keys;
    expect(typeof keys[0]?.permissions).toBe('string');
  },
  'key-last-used-never-set': async (a) => {
    const keys = json<{ api_keys: Array<{ last_used: unknown }> }>(await a.call('GET', '/account/api-keys')).api_keys;
    expect(keys.map((k) => k.last_used)).toEqual(keys.map(() => null));
  },
  'key-secret-in-listing': async (a) => {
    const created = json<{ api_key: { key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    expect((await a.call('GET', '/account/api-keys')).text).toContain(created.key);
  },
  'key-revoke-ignored': async (a, server) => {
    const created = json<{ api_key: { id: string; key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    expect((await a.call('DELETE', `/account/api-keys/${created.id}`)).status).toBe(204);
    expect(
      json<{ api_keys: Array<{ id: string }> }>(await a.call('GET', '/account/api-keys')).api_keys.map((k) => k.id),
    ).toContain(created.id);
    // Only the listing half of the requirement breaks: the key itself stops working.
    expect((await api(server, created.key).call('GET', '/account')).status).toBe(401);
  },
  'key-expires-at-dropped': async (a) => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    expect(
      json<{ api_key: { expires_at: unknown } }>(
        await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'], expires_at: expiresAt }),
      ).api_key.expires_at,
    ).toBeNull();
  },
  'transaction-resource-id-missing': async (a) => {
    const transactions = json<{ transactions: Array<Record<string, unknown>> }>(
      await a.call('GET', '/account/billing/history'),
    ).transactions;
    expect(transactions.length).toBeGreaterThan(0);
    for (const txn of transactions) expect(txn).not.toHaveProperty('resource_id');
  },
  'transaction-status-capitalised': async (a) => {
    const statuses = json<{ transactions: Array<{ status: string }> }>(
      await a.call('GET', '/account/billing/history'),
    ).transactions.map((t) => t.status);
    expect(statuses).toContain('Completed');
    expect(statuses).not.toContain('completed');
  },
  'usage-storage-resources-missing': async (a) => {
    const services = json<{ usage: { services: Record<string, Record<string, unknown>> } }>(
      await a.call('GET', '/account/usage'),
    ).usage.services;
    expect(services.storage).not.toHaveProperty('resources');
    // Only storage: compute keeps its array.
    expect(Array.isArray(services.compute?.resources)).toBe(true);
  },
  'payment-method-set-default-ignored': async (a) => {
    expect(await defaultPm(a)).toBeDefined();
    const added = json<{ payment_method: { id: string } }>(
      await a.call('POST', '/account/payment-methods', { type: 'card', token: 'tok_visa', set_default: true }),
    ).payment_method;
    const listed = json<{ payment_methods: Array<{ id: string; is_default: boolean }> }>(
      await a.call('GET', '/account/payment-methods'),
    ).payment_methods;
    expect(listed.find((pm) => pm.id === added.id)?.is_default).toBe(false);
  },
  'account-email-missing': async (a) => {
    expect(json<{ account: Record<string, unknown> }>(await a.call('GET', '/account')).account).not.toHaveProperty(
      'email',
    );
  },
  'project-get-other-project': async (a) => {
    const first = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'first' })).project.id;
    const second = json<{ project: { id: string } }>(await a.call('POST', '/projects', { name: 'second' })).project.id;
    expect(json<{ project: { id: string } }>(await a.call('GET', `/projects/${first}`)).project.id).toBe(second);
  },
  'api-key-ip-whitelist-refused': async (a) => {
    expect(
      (await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'], ip_whitelist: ['192.0.2.0/24'] }))
        .status,
    ).toBe(422);
    // Without a whitelist the key is still created.
    expect((await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] })).status).toBe(201);
  },
  'key-revoked-listed-after-new-key': async (a, server) => {
    const listed = async (): Promise<string[]> =>
      json<{ api_keys: Array<{ id: string }> }>(await a.call('GET', '/account/api-keys')).api_keys.map((k) => k.id);
    const gone = json<{ api_key: { id: string; key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'gone', permissions: ['read'] }),
    ).api_key;
    expect((await a.call('DELETE', `/account/api-keys/${gone.id}`)).status).toBe(204);
    expect(await listed()).not.toContain(gone.id);
    await a.call('POST', '/account/api-keys', { name: 'other', permissions: ['read'] });
    expect(await listed()).toContain(gone.id);
    // Only the listing: the revoked key stays refused.
    expect((await api(server, gone.key, false).call('GET', '/account')).status).toBe(401);
  },
  'key-revoked-served-after-new-key': async (a, server) => {
    const gone = json<{ api_key: { id: string; key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'gone', permissions: ['read'] }),
    ).api_key;
    expect((await a.call('DELETE', `/account/api-keys/${gone.id}`)).status).toBe(204);
    expect((await api(server, gone.key, false).call('GET', '/account')).status).toBe(401);
    await a.call('POST', '/account/api-keys', { name: 'other', permissions: ['read'] });
    expect((await api(server, gone.key, false).call('GET', '/account')).status).toBe(200);
    // Only the authentication: the revoked key stays unlisted.
    expect(
      json<{ api_keys: Array<{ id: string }> }>(await a.call('GET', '/account/api-keys')).api_keys.map((k) => k.id),
    ).not.toContain(gone.id);
  },
  'key-new-refused-briefly': async (a, server) => {
    const created = json<{ api_key: { key: string } }>(
      await a.call('POST', '/account/api-keys', { name: 'k', permissions: ['read'] }),
    ).api_key;
    expect((await api(server, created.key, false).call('GET', '/account')).status).toBe(401);
  },
};

const FAULTS = [...billingArea.faults, ...projectsArea.faults, ...apiKeysArea.faults];

test('every fault has a check here and names a MUST or SHOULD requirement of the catalogue', () => {
  expect(FAULTS.map((f) => f.name).sort()).toEqual(Object.keys(CHECKS).sort());
  const catalogue = parse(readFileSync(new URL('../../spec/requirements.yaml', import.meta.url), 'utf8')) as Array<{
    id: string;
    level: string;
  }>;
  const levels = new Map(catalogue.map((r) => [r.id, r.level]));
  for (const fault of FAULTS)
    expect(['MUST', 'SHOULD'], `${fault.name} → ${fault.requirement}`).toContain(levels.get(fault.requirement));
});

for (const fault of FAULTS) {
  test(`fault ${fault.name} is observable (${fault.requirement})`, async () => {
    const server = await startReferenceServer({ delays: SHORT_DELAYS, faults: [fault.name] });
    try {
      const { key, accountId } = newAccount(server);
      const check = CHECKS[fault.name];
      if (!check) throw new Error(`no check for ${fault.name}`);
      await check(api(server, key, false), server, accountId);
    } finally {
      await server.close();
    }
  });
}
