/** Payment methods and invoices (with the PDF download). */
import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { authOf } from '../../core/http.ts';
import { newId } from '../../core/ids.ts';
import { Fields } from '../../core/validation.ts';
import { BILLING_FAULTS } from './faults.ts';
import { renderInvoicePdf } from './invoice-pdf.ts';
import { describeToken } from './payment-methods.ts';
import { readRange } from './periods.ts';
import { billingState } from './store.ts';
import { invoiceView, paymentMethodView } from './views.ts';

/** Tokens are opaque strings from a client-side form: printable, no spaces, bounded. */
const TOKEN = /^[A-Za-z0-9_-]+$/;
const INVOICE_STATUSES = ['paid', 'pending', 'overdue'] as const;

export function registerPaymentRoutes(app: FastifyInstance, ctx: ReferenceContext): void {
  app.get('/account/payment-methods', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    const listed = state.paymentMethods.map(paymentMethodView);
    if (ctx.faults.has(BILLING_FAULTS.paymentMethodLast4Number))
      for (const pm of listed) Object.assign(pm, { last4: Number(pm.last4) });
    return { payment_methods: listed };
  });

  app.post('/account/payment-methods', async (request, reply) => {
    const state = billingState(ctx, authOf(request).account.id);
    const fields = new Fields('billing', request.body);
    const type = fields.string('type', { required: true, oneOf: ['card', 'bank_account'] }) as 'card' | 'bank_account';
    const token = fields.string('token', { required: true, max: 200, pattern: TOKEN });
    // Fault: set_default is read but ignored (only the first method on file becomes the default).
    const setDefault =
      (fields.boolean('set_default') ?? false) && !ctx.faults.has(BILLING_FAULTS.paymentMethodSetDefaultIgnored);
    const { brand, last4 } = describeToken(type, token);
    const now = ctx.clock.now();
    // The first method on file becomes the default: top-ups always have something to charge.
    const isDefault = setDefault || state.paymentMethods.length === 0;
    if (isDefault) for (const pm of state.paymentMethods) pm.isDefault = false;
    const method = {
      id: newId('pm'),
      type,
      brand,
      last4,
      // Only cards expire; a bank account has no expiry (the fields are null for it).
      expMonth: type === 'card' ? 12 : null,
      expYear: type === 'card' ? new Date(now).getUTCFullYear() + 4 : null,
      isDefault,
      createdMs: now,
    };
    state.paymentMethods.push(method);
    return reply.status(201).send({ payment_method: paymentMethodView(method) });
  });

  app.delete<{ Params: { payment_method_id: string } }>(
    '/account/payment-methods/:payment_method_id',
    async (request, reply) => {
      const state = billingState(ctx, authOf(request).account.id);
      const index = state.paymentMethods.findIndex((pm) => pm.id === request.params.payment_method_id);
      const method = state.paymentMethods[index];
      if (!method) throw notFound('payment_method');
      // Fault: answer 204 but keep the method.
      if (!ctx.faults.has(BILLING_FAULTS.paymentMethodDeleteIgnored)) {
        state.paymentMethods.splice(index, 1);
        // Keep exactly one default while any method is left: the newest takes over.
        const newest = state.paymentMethods.at(-1);
        if (method.isDefault && newest) newest.isDefault = true;
      }
      return reply.status(204).send();
    },
  );

  app.get('/account/invoices', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    const query = new Fields('billing', request.query);
    const status = query.string('status', { oneOf: INVOICE_STATUSES });
    const range = readRange('billing', request.query, { fromMs: -Infinity, toMs: Infinity });
    // An invoice matches a date range when its billing period overlaps it.
    const invoices = state.invoices
      .filter(
        (inv) =>
          (status === undefined || inv.status === status) &&
          inv.periodEndMs >= range.fromMs &&
          inv.periodStartMs <= range.toMs,
      )
      .sort((a, b) => b.periodStartMs - a.periodStartMs)
      .map((inv) => invoiceView(inv));
    return { invoices };
  });

  app.get<{ Params: { invoice_id: string } }>('/account/invoices/:invoice_id', async (request) => {
    const state = billingState(ctx, authOf(request).account.id);
    const invoice = state.invoices.find((inv) => inv.id === request.params.invoice_id);
    if (!invoice) throw notFound('invoice');
    return { invoice: invoiceView(invoice, true) };
  });

  app.get<{ Params: { invoice_id: string } }>('/account/invoices/:invoice_id/pdf', async (request, reply) => {
    const { account } = authOf(request);
    const invoice = billingState(ctx, account.id).invoices.find((inv) => inv.id === request.params.invoice_id);
    if (!invoice) throw notFound('invoice');
    reply.type('application/pdf').header('content-disposition', `attachment; filename="${invoice.number}.pdf"`);
    // Fault: the right content type over a body that is not a PDF.
    if (ctx.faults.has(BILLING_FAULTS.invoicePdfNotPdf))
      return reply.send(`Invoice ${invoice.number}\nTotal: ${invoice.amount}\n`);
    return reply.send(renderInvoicePdf(invoice, account));
  });
}
