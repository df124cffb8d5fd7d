/**
 * Renders an invoice as a PDF with pdfkit: a maintained library with no native dependencies that
 * writes the document as a stream, so the reply starts before the whole file exists. Content
 * streams are left uncompressed and the invoice number is also the document title, so a client
 * (or a test) can find the number in the raw bytes without a PDF parser.
 */
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type PDFDocumentClass from 'pdfkit';
import type { Account } from '../../core/accounts.ts';
import { fromUnits } from './money.ts';
import type { InvoiceRecord } from './store.ts';

/**
 * pdfkit and its fonts take about 0.1 s of CPU to load: loaded with the first invoice PDF, not with
 * every start of the server (every `cloudcheck run` against the embedded server starts one).
 */
let pdfDocument: typeof PDFDocumentClass | undefined;
const loadPdfKit = (): typeof PDFDocumentClass =>
  (pdfDocument ??= createRequire(import.meta.url)('pdfkit') as typeof PDFDocumentClass);

/**
 * The built-in PDF fonts only cover Latin-1 (WinAnsi); anything else a user typed into the
 * account name is shown as '?' instead of breaking the document.
 */
const printable = (text: string): string => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const money = (units: number, currency: string): string => `${fromUnits(units).toFixed(2)} ${currency}`;

export function renderInvoicePdf(invoice: InvoiceRecord, account: Account): Readable {
  const PDFDocument = loadPdfKit();
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    compress: false,
    info: {
      Title: `Invoice ${invoice.number}`,
      Author: 'Cloud Platform',
      Subject: printable(`Invoice ${invoice.number} for ${account.name}`),
    },
  });
  doc.fontSize(22).text(`Invoice ${invoice.number}`);
  doc.moveDown(0.5).fontSize(11);
  doc.text(printable(`Billed to: ${account.name}${account.company ? `, ${account.company}` : ''} <${account.email}>`));
  doc.text(`Period: ${day(invoice.periodStartMs)} to ${day(invoice.periodEndMs)}`);
  doc.text(`Issued: ${day(invoice.createdMs)}    Due: ${day(invoice.dueMs)}`);
  doc.text(`Status: ${invoice.status}${invoice.paidMs !== null ? ` (paid ${day(invoice.paidMs)})` : ''}`);
  doc.moveDown();
  for (const item of invoice.lineItems) {
    doc.text(
      `${item.description}  -  ${item.quantity} x ${fromUnits(item.unitPrice)}  =  ${money(item.amount, invoice.currency)}`,
    );
  }
  doc
    .moveDown()
    .fontSize(14)
    .text(`Total: ${money(invoice.amount, invoice.currency)}`);
  doc.end();
  return doc;
}
