import { expect, test } from '../base.ts';
import { type RunningReference, startReferenceServer } from '../../reference/server.ts';
import { SHORT_DELAYS, api, expectError, json, newAccount } from './billing-fixtures.ts';

type Invoice = {
  id: string;
  number: string;
  status: string;
  amount: number;
  currency: string;
  period_start: string;
  period_end: string;
  due_date: string;
  paid_at: string | null;
  created_at: string;
};

let server: RunningReference;
test.beforeAll(async () => {
  server = await startReferenceServer({ delays: SHORT_DELAYS });
});
test.afterAll(async () => {
  await server.close();
});

const fresh = () => api(server, newAccount(server).key);

/** Text shown by the PDF's text operators (pdfkit writes glyphs as hex strings). */
function shownText(pdf: string): string {
  return [...pdf.matchAll(/<([0-9a-f]+)>/g)].map((m) => Buffer.from(m[1] ?? '', 'hex').toString('latin1')).join('');
}

test('three seeded invoices, one per status, with every field', async () => {
  const a = fresh();
  const res = await a.call('GET', '/account/invoices');
  expect(res.status).toBe(200);
  const invoices = json<{ invoices: Invoice[] }>(res).invoices;
  expect(invoices.map((i) => i.status).sort()).toEqual(['overdue', 'paid', 'pending']);
  for (const inv of invoices) {
    expect(inv.id).toMatch(/^inv_/);
    expect(typeof inv.amount).toBe('number');
    expect(Date.parse(inv.period_start)).toBeLessThan(Date.parse(inv.period_end));
    expect(inv.paid_at === null).toBe(inv.status !== 'paid');
  }
  const overdue = invoices.find((i) => i.status === 'overdue');
  expect(Date.parse(overdue?.due_date ?? '')).toBeLessThan(Date.now());
});

test('status and date filters; bad values refused', async () => {
  const a = fresh();
  const all = json<{ invoices: Invoice[] }>(await a.call('GET', '/account/invoices')).invoices;
  for (const status of ['paid', 'pending', 'overdue']) {
    const some = json<{ invoices: Invoice[] }>(await a.call('GET', `/account/invoices?status=${status}`)).invoices;
    expect(some.map((i) => i.status)).toEqual([status]);
  }
  const newest = all[0];
  if (!newest) throw new Error('expected invoices');
  const recent = json<{ invoices: Invoice[] }>(
    await a.call('GET', `/account/invoices?from_date=${newest.period_start.slice(0, 10)}`),
  ).invoices;
  expect(recent.map((i) => i.id)).toEqual([newest.id]);
  const older = json<{ invoices: Invoice[] }>(
    await a.call(
      'GET',
      `/account/invoices?to_date=${encodeURIComponent(new Date(Date.parse(newest.period_start) - 1).toISOString())}`,
    ),
  ).invoices;
  expect(older.map((i) => i.id)).toEqual(all.slice(1).map((i) => i.id));
  expectError(await a.call('GET', '/account/invoices?status=void'), 422, 'validation_error');
  expectError(await a.call('GET', '/account/invoices?from_date=31/12/2024'), 422, 'validation_error');
});

test('invoice details carry line items adding up to the amount', async () => {
  const a = fresh();
  const first = json<{ invoices: Invoice[] }>(await a.call('GET', '/account/invoices')).invoices[0];
  const res = await a.call('GET', `/account/invoices/${first?.id}`);
  expect(res.status).toBe(200);
  const invoice = json<{ invoice: Invoice & { line_items: Array<{ amount: number }> } }>(res).invoice;
  expect(invoice).toMatchObject(first ?? {});
  expect(invoice.line_items.length).toBeGreaterThan(0);
  expect(invoice.line_items.reduce((s, li) => s + li.amount, 0)).toBeCloseTo(invoice.amount, 2);
});

test('the PDF is a real PDF holding the invoice number and total', async () => {
  const a = fresh();
  const invoice = json<{ invoices: Invoice[] }>(await a.call('GET', '/account/invoices')).invoices[0];
  if (!invoice) throw new Error('expected invoices');
  const res = await fetch(`${server.baseUrl}/account/invoices/${invoice.id}/pdf`, {
    headers: { authorization: `Bearer ${a.key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
  const bytes = Buffer.from(await res.arrayBuffer());
  const pdf = bytes.toString('latin1');
  expect(pdf.startsWith('%PDF-1.')).toBe(true);
  expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true);
  // Structure: a cross-reference table whose startxref offset points at it, and a trailer.
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf)?.[1]);
  expect(pdf.slice(startxref, startxref + 4)).toBe('xref');
  expect(pdf).toContain('trailer');
  expect(pdf).toMatch(/\/Type \/Catalog/);
  expect(pdf).toContain(invoice.number);
  const text = shownText(pdf);
  expect(text).toContain(invoice.number);
  expect(text).toContain(invoice.amount.toFixed(2));
});

test("another account's invoice is not found, PDF included", async () => {
  const mine = fresh();
  const theirs = fresh();
  const id = json<{ invoices: Invoice[] }>(await theirs.call('GET', '/account/invoices')).invoices[0]?.id;
  for (const path of [
    `/account/invoices/${id}`,
    `/account/invoices/${id}/pdf`,
    '/account/invoices/inv_0000000000000000',
  ]) {
    const res = await mine.call('GET', path);
    expectError(res, 404, 'not_found');
    expect(json<{ error: { resource: string } }>(res).error.resource).toBe('invoice');
  }
});

test('a PDF for an account with a non-Latin name still renders', async () => {
  const a = fresh();
  await a.call('PUT', '/account', { name: 'Zoë 🚀 株式会社' });
  const invoice = json<{ invoices: Invoice[] }>(await a.call('GET', '/account/invoices')).invoices[0];
  const res = await fetch(`${server.baseUrl}/account/invoices/${invoice?.id}/pdf`, {
    headers: { authorization: `Bearer ${a.key}` },
  });
  const pdf = Buffer.from(await res.arrayBuffer()).toString('latin1');
  expect(res.status).toBe(200);
  expect(pdf.trimEnd().endsWith('%%EOF')).toBe(true);
});
