/**
 * The 88 rows of the specification's Endpoints tables, as data. Paths are written exactly as the
 * specification writes them; the three storage rows that differ from another row only by query
 * keep that query in `query` (and in `row`), and share `path` with the row they fold into, because
 * the OpenAPI document describes each such group as one operation with `x-variants`.
 */
import type { Area } from './classes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

export interface EndpointRow {
  method: HttpMethod;
  /** The path without the query part, as in the OpenAPI document's `paths`. */
  path: string;
  area: Area;
  /** The query part the specification writes after the path (`?uploads`), or null. */
  query: string | null;
  /** Name of the `x-variants` entry that documents this row, for rows of a collapsed operation. */
  variant: string | null;
  /** The row as the specification writes it, `METHOD /path?query` (report coverage keys on it). */
  operation: string;
}

type RowTuple = readonly [HttpMethod, string, string | null, string | null];

const OBJECT = '/storage/buckets/{bucket_name}/objects/{object_key}';

const MESSAGING: readonly RowTuple[] = [
  ['POST', '/sms/send', null, null],
  ['POST', '/sms/bulk', null, null],
  ['GET', '/sms/status/{message_id}', null, null],
  ['GET', '/sms/messages', null, null],
  ['GET', '/sms/campaigns', null, null],
  ['GET', '/sms/campaigns/{campaign_id}', null, null],
  ['GET', '/messaging/sender-ids', null, null],
  ['POST', '/messaging/sender-ids', null, null],
  ['GET', '/messaging/templates', null, null],
  ['POST', '/messaging/templates', null, null],
  ['POST', '/sms/send-template', null, null],
  ['GET', '/messaging/contacts/lists', null, null],
  ['POST', '/messaging/contacts/lists', null, null],
  ['POST', '/messaging/contacts/lists/{list_id}/contacts', null, null],
  ['GET', '/messaging/opt-outs', null, null],
  ['POST', '/messaging/opt-outs', null, null],
  ['POST', '/messaging/webhooks', null, null],
  ['GET', '/messaging/analytics/delivery', null, null],
];

const COMPUTE: readonly RowTuple[] = [
  ['GET', '/vps', null, null],
  ['POST', '/vps', null, null],
  ['GET', '/vps/{vps_id}', null, null],
  ['PUT', '/vps/{vps_id}', null, null],
  ['DELETE', '/vps/{vps_id}', null, null],
  ['POST', '/vps/{vps_id}/actions', null, null],
  ['GET', '/vps/{vps_id}/metrics', null, null],
  ['GET', '/images', null, null],
  ['GET', '/sizes', null, null],
  ['GET', '/regions', null, null],
  ['GET', '/ssh-keys', null, null],
  ['POST', '/ssh-keys', null, null],
  ['GET', '/snapshots', null, null],
  ['DELETE', '/snapshots/{snapshot_id}', null, null],
];

const STORAGE: readonly RowTuple[] = [
  ['GET', '/storage/buckets', null, null],
  ['POST', '/storage/buckets', null, null],
  ['GET', '/storage/buckets/{bucket_name}', null, null],
  ['DELETE', '/storage/buckets/{bucket_name}', null, null],
  ['GET', '/storage/buckets/{bucket_name}/objects', null, null],
  ['PUT', OBJECT, null, 'upload'],
  ['GET', OBJECT, null, null],
  ['HEAD', OBJECT, null, null],
  ['DELETE', OBJECT, null, null],
  ['POST', OBJECT, '?uploads', 'initiate'],
  ['PUT', OBJECT, '?partNumber={part_number}&uploadId={upload_id}', 'upload-part'],
  ['POST', OBJECT, '?uploadId={upload_id}', 'complete'],
  ['POST', `${OBJECT}/presigned-url`, null, null],
  ['GET', '/storage/volumes', null, null],
  ['POST', '/storage/volumes', null, null],
  ['GET', '/storage/volumes/{volume_id}', null, null],
  ['POST', '/storage/volumes/{volume_id}/resize', null, null],
  ['POST', '/storage/volumes/{volume_id}/attach', null, null],
  ['POST', '/storage/volumes/{volume_id}/detach', null, null],
  ['DELETE', '/storage/volumes/{volume_id}', null, null],
  ['GET', '/storage/snapshots', null, null],
  ['POST', '/storage/snapshots', null, null],
  ['POST', '/storage/volumes/restore', null, null],
  ['POST', '/storage/buckets/{bucket_name}/cdn', null, null],
  ['POST', '/storage/buckets/{bucket_name}/cdn/purge', null, null],
  ['GET', '/storage/buckets/{bucket_name}/policy', null, null],
  ['PUT', '/storage/buckets/{bucket_name}/policy', null, null],
  ['GET', '/storage/access-keys', null, null],
  ['POST', '/storage/access-keys', null, null],
  ['GET', '/storage/usage', null, null],
];

const BILLING: readonly RowTuple[] = [
  ['GET', '/account', null, null],
  ['PUT', '/account', null, null],
  ['GET', '/account/wallets', null, null],
  ['POST', '/account/wallets/topup', null, null],
  ['GET', '/account/billing/history', null, null],
  ['GET', '/account/usage', null, null],
  ['GET', '/account/payment-methods', null, null],
  ['POST', '/account/payment-methods', null, null],
  ['DELETE', '/account/payment-methods/{payment_method_id}', null, null],
  ['GET', '/account/invoices', null, null],
  ['GET', '/account/invoices/{invoice_id}', null, null],
  ['GET', '/account/invoices/{invoice_id}/pdf', null, null],
  ['GET', '/projects', null, null],
  ['POST', '/projects', null, null],
  ['GET', '/projects/{project_id}', null, null],
  ['PUT', '/projects/{project_id}', null, null],
  ['DELETE', '/projects/{project_id}', null, null],
  ['GET', '/projects/{project_id}/resources', null, null],
  ['GET', '/projects/{project_id}/usage', null, null],
  ['GET', '/account/api-keys', null, null],
  ['POST', '/account/api-keys', null, null],
  ['DELETE', '/account/api-keys/{key_id}', null, null],
  ['GET', '/account/analytics/costs', null, null],
  ['GET', '/account/analytics/trends', null, null],
  ['GET', '/account/alerts', null, null],
  ['POST', '/account/alerts', null, null],
];

function rows(area: Area, tuples: readonly RowTuple[]): EndpointRow[] {
  return tuples.map(([method, path, query, variant]) => ({
    method,
    path,
    area,
    query,
    variant,
    operation: `${method} ${path}${query ?? ''}`,
  }));
}

/** All 88 rows, in the specification's order (messaging, compute, storage, billing and projects). */
export const ENDPOINTS: readonly EndpointRow[] = Object.freeze([
  ...rows('messaging', MESSAGING),
  ...rows('compute', COMPUTE),
  ...rows('storage', STORAGE),
  ...rows('billing', BILLING),
]);

/** `METHOD /path?query` exactly as the specification's row reads. */
export function rowLabel(row: EndpointRow): string {
  return `${row.method} ${row.path}${row.query ?? ''}`;
}

/** `METHOD /path`: the key of the OpenAPI operation a row belongs to (variants share it). */
export function operationKey(row: Pick<EndpointRow, 'method' | 'path'>): string {
  return `${row.method} ${row.path}`;
}

/** The distinct operations (86: the three query rows fold into the PUT and POST on an object key). */
export function operationKeys(): string[] {
  return [...new Set(ENDPOINTS.map(operationKey))];
}
