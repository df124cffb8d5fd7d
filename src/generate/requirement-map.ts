/**
 * Which requirement each generated check verifies: an explicit table (operation + check kind →
 * requirement id), written from spec/requirements.yaml. test/generate/requirement-map.test.ts
 * asserts that every id exists, is not retired, and has the level of the check that uses it.
 *
 * Rules of thumb used to fill it:
 * - positive MUST: the requirement that states the response of the operation (its fields, its
 *   wrapper where the specification shows it); where none states more than "answers success with
 *   JSON", the area's general requirement (`MSG-GEN-001`, `VPS-GEN-001`, ...);
 * - positive SHOULD (status): `ERR-OK-001..005`, by kind of operation (derived from the
 *   `operations` those requirements list);
 * - positive SHOULD (body): the wrapper convention of the operation (`...-WRAP-...`), used when
 *   the response schema contains `x-assumed` parts;
 * - negative MUST: the requirement that says the operation refuses that field problem, else the
 *   general `ERR-CODE-007` (validation_error); none when the constraint is a convention;
 * - negative SHOULD: `ERR-MAP-004` (422 validation_error) or a more specific mapping.
 */
import type { Level } from '../../spec/classes.ts';
import { loadRequirements } from '../../spec/requirements.ts';

/** Positive MUST requirement per operation. */
export const POSITIVE_MUST: Record<string, string> = {
  'POST /sms/send': 'MSG-FLD-001',
  'POST /sms/bulk': 'MSG-BULK-003',
  'GET /sms/status/{message_id}': 'MSG-FLD-002',
  'GET /sms/messages': 'MSG-LIST-005',
  'GET /sms/campaigns': 'MSG-CMP-002',
  'GET /sms/campaigns/{campaign_id}': 'MSG-CMP-005',
  'GET /messaging/sender-ids': 'MSG-SID-001',
  'POST /messaging/sender-ids': 'MSG-GEN-001',
  'GET /messaging/templates': 'MSG-TPL-003',
  'POST /messaging/templates': 'MSG-TPL-002',
  'POST /sms/send-template': 'MSG-GEN-001',
  'GET /messaging/contacts/lists': 'MSG-CON-002',
  'POST /messaging/contacts/lists': 'MSG-CON-001',
  'POST /messaging/contacts/lists/{list_id}/contacts': 'MSG-CON-003',
  'GET /messaging/opt-outs': 'MSG-OPT-002',
  'POST /messaging/opt-outs': 'MSG-OPT-001',
  'POST /messaging/webhooks': 'HOOK-CFG-002',
  'GET /messaging/analytics/delivery': 'MSG-ANA-001',
  'GET /vps': 'VPS-LIST-001',
  'POST /vps': 'VPS-CRT-003',
  'GET /vps/{vps_id}': 'VPS-GET-001',
  'PUT /vps/{vps_id}': 'VPS-UPD-001',
  'DELETE /vps/{vps_id}': 'VPS-GEN-001',
  'POST /vps/{vps_id}/actions': 'VPS-ACT-001',
  'GET /vps/{vps_id}/metrics': 'VPS-MET-001',
  'GET /images': 'IMG-LIST-001',
  'GET /sizes': 'IMG-SIZE-001',
  'GET /regions': 'IMG-REG-001',
  'GET /ssh-keys': 'SSH-KEY-002',
  'POST /ssh-keys': 'SSH-KEY-001',
  'GET /snapshots': 'SNAP-LIST-001',
  'DELETE /snapshots/{snapshot_id}': 'VPS-GEN-001',
  'GET /storage/buckets': 'BKT-LIST-001',
  'POST /storage/buckets': 'BKT-CRT-001',
  'GET /storage/buckets/{bucket_name}': 'BKT-GET-001',
  'DELETE /storage/buckets/{bucket_name}': 'STO-GEN-001',
  'GET /storage/buckets/{bucket_name}/objects': 'OBJ-LIST-001',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}': 'STO-GEN-001',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key} upload-part': 'MPU-PART-001',
  'GET /storage/buckets/{bucket_name}/objects/{object_key}': 'OBJ-GET-001',
  'HEAD /storage/buckets/{bucket_name}/objects/{object_key}': 'OBJ-HEAD-001',
  'DELETE /storage/buckets/{bucket_name}/objects/{object_key}': 'STO-GEN-001',
  'POST /storage/buckets/{bucket_name}/objects/{object_key} initiate': 'MPU-INIT-001',
  'POST /storage/buckets/{bucket_name}/objects/{object_key} complete': 'MPU-CMP-001',
  'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url': 'PRE-URL-002',
  'GET /storage/volumes': 'VOL-LIST-001',
  'POST /storage/volumes': 'VOL-GEN-001',
  'GET /storage/volumes/{volume_id}': 'VOL-GET-001',
  'POST /storage/volumes/{volume_id}/resize': 'VOL-RSZ-002',
  'POST /storage/volumes/{volume_id}/attach': 'VOL-ATT-001',
  'POST /storage/volumes/{volume_id}/detach': 'VOL-DET-001',
  'DELETE /storage/volumes/{volume_id}': 'VOL-GEN-001',
  'GET /storage/snapshots': 'VOL-SNAP-002',
  'POST /storage/snapshots': 'VOL-SNAP-001',
  'POST /storage/volumes/restore': 'VOL-RST-001',
  'POST /storage/buckets/{bucket_name}/cdn': 'BKT-CDN-001',
  'POST /storage/buckets/{bucket_name}/cdn/purge': 'BKT-CDN-002',
  'GET /storage/buckets/{bucket_name}/policy': 'STO-GEN-001',
  'PUT /storage/buckets/{bucket_name}/policy': 'BKT-POL-001',
  'GET /storage/access-keys': 'STO-KEY-003',
  'POST /storage/access-keys': 'STO-KEY-002',
  'GET /storage/usage': 'STO-USE-001',
  'GET /account': 'ACCT-GET-001',
  'PUT /account': 'ACCT-UPD-001',
  'GET /account/wallets': 'WAL-LIST-001',
  'POST /account/wallets/topup': 'WAL-TOP-001',
  'GET /account/billing/history': 'BILL-HIST-001',
  'GET /account/usage': 'BILL-USE-001',
  'GET /account/payment-methods': 'BILL-PM-001',
  'POST /account/payment-methods': 'BILL-PM-002',
  'DELETE /account/payment-methods/{payment_method_id}': 'BILL-GEN-001',
  'GET /account/invoices': 'INV-LIST-001',
  'GET /account/invoices/{invoice_id}': 'INV-GET-001',
  'GET /account/invoices/{invoice_id}/pdf': 'INV-PDF-001',
  'GET /projects': 'PROJ-LIST-001',
  'POST /projects': 'PROJ-CRT-001',
  'GET /projects/{project_id}': 'PROJ-GET-001',
  'PUT /projects/{project_id}': 'PROJ-UPD-001',
  'DELETE /projects/{project_id}': 'PROJ-GEN-001',
  'GET /projects/{project_id}/resources': 'PROJ-RES-001',
  'GET /projects/{project_id}/usage': 'PROJ-USE-001',
  'GET /account/api-keys': 'KEY-LIST-001',
  'POST /account/api-keys': 'KEY-CRT-003',
  'DELETE /account/api-keys/{key_id}': 'KEY-GEN-001',
  'GET /account/analytics/costs': 'BILL-ANA-001',
  'GET /account/analytics/trends': 'BILL-TRD-001',
  'GET /account/alerts': 'BILL-ALR-003',
  'POST /account/alerts': 'BILL-ALR-001',
};

/** Positive SHOULD requirement for the whole body where the response schema holds conventions (`x-assumed`). */
export const POSITIVE_BODY_SHOULD: Record<string, string> = {
  'GET /sms/campaigns/{campaign_id}': 'MSG-CMP-006',
  'POST /messaging/sender-ids': 'MSG-SID-006',
  'GET /messaging/sender-ids': 'MSG-SID-006',
  'GET /messaging/templates': 'MSG-TPL-007',
  'POST /messaging/templates': 'MSG-TPL-007',
  'POST /sms/send-template': 'MSG-TPL-008',
  'GET /messaging/contacts/lists': 'MSG-CON-004',
  'POST /messaging/contacts/lists': 'MSG-CON-004',
  'POST /messaging/contacts/lists/{list_id}/contacts': 'MSG-CON-004',
  'GET /messaging/opt-outs': 'MSG-OPT-003',
  'POST /messaging/opt-outs': 'MSG-OPT-003',
  'POST /messaging/webhooks': 'HOOK-CFG-003',
  'GET /vps/{vps_id}': 'VPS-WRAP-001',
  'PUT /vps/{vps_id}': 'VPS-WRAP-001',
  'POST /vps/{vps_id}/actions': 'VPS-ACT-005',
  'GET /vps/{vps_id}/metrics': 'VPS-UNIT-001',
  'GET /ssh-keys': 'SSH-KEY-004',
  'POST /ssh-keys': 'SSH-KEY-004',
  'GET /snapshots': 'SNAP-LIST-002',
  'POST /storage/buckets': 'BKT-WRAP-001',
  'GET /storage/buckets/{bucket_name}': 'BKT-WRAP-001',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}': 'OBJ-WRAP-001',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key} upload-part': 'MPU-PART-003',
  'POST /storage/buckets/{bucket_name}/objects/{object_key} complete': 'MPU-CMP-004',
  'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url': 'PRE-URL-009',
  'POST /storage/buckets/{bucket_name}/cdn': 'BKT-CDN-003',
  'POST /storage/buckets/{bucket_name}/cdn/purge': 'BKT-CDN-003',
  'GET /storage/buckets/{bucket_name}/policy': 'BKT-POL-003',
  'PUT /storage/buckets/{bucket_name}/policy': 'BKT-POL-003',
  'GET /storage/access-keys': 'STO-KEY-004',
  'POST /storage/access-keys': 'STO-KEY-004',
  'POST /storage/volumes': 'VOL-WRAP-001',
  'GET /storage/volumes/{volume_id}': 'VOL-WRAP-001',
  'POST /storage/volumes/{volume_id}/resize': 'VOL-WRAP-001',
  'POST /storage/volumes/{volume_id}/attach': 'VOL-WRAP-001',
  'POST /storage/volumes/{volume_id}/detach': 'VOL-WRAP-001',
  'POST /storage/volumes/restore': 'VOL-WRAP-001',
  'POST /storage/snapshots': 'VOL-WRAP-001',
  'GET /storage/snapshots': 'VOL-WRAP-001',
  'PUT /account': 'ACCT-UPD-002',
  'POST /account/wallets/topup': 'WAL-TOP-002',
  'POST /account/payment-methods': 'BILL-PM-005',
  'GET /account/invoices/{invoice_id}': 'INV-GET-002',
  'POST /projects': 'PROJ-WRAP-001',
  'GET /projects/{project_id}': 'PROJ-WRAP-001',
  'PUT /projects/{project_id}': 'PROJ-WRAP-001',
  'GET /projects/{project_id}/usage': 'PROJ-WRAP-001',
  'GET /account/analytics/trends': 'BILL-TRD-003',
  'GET /account/alerts': 'BILL-ALR-004',
  'POST /account/alerts': 'BILL-ALR-004',
};

/**
 * Where the ids of a success body sit and the type prefix each one carries (the `*-ID-001`
 * conventions, docs/conventions.md "Ids"): the single resource `name` (as `resourceOf` reads it)
 * or each item of the list `list`, at `field` (default `id`).
 */
export interface IdLocation {
  name?: string;
  list?: string;
  field?: string;
  prefix: string;
}

/**
 * Positive SHOULD check of the ids of an operation's success body: the requirement and where its
 * ids are. Creations and single reads only: a listing's first page may hold none of the ids the
 * run made, so whether it could judge would depend on what ran before it.
 */
export const ID_PREFIX_SHOULD: Record<string, { requirement: string; ids: IdLocation[] }> = {
  'POST /sms/send': { requirement: 'MSG-ID-001', ids: [{ name: 'message', field: 'message_id', prefix: 'msg_' }] },
  'POST /sms/bulk': {
    requirement: 'MSG-ID-001',
    ids: [
      { name: 'campaign', field: 'campaign_id', prefix: 'cmp_' },
      { list: 'messages', field: 'message_id', prefix: 'msg_' },
    ],
  },
  'POST /messaging/templates': { requirement: 'MSG-ID-001', ids: [{ name: 'template', prefix: 'tpl_' }] },
  'POST /messaging/contacts/lists': { requirement: 'MSG-ID-001', ids: [{ name: 'contact_list', prefix: 'cl_' }] },
  'POST /messaging/webhooks': { requirement: 'MSG-ID-001', ids: [{ name: 'webhook', prefix: 'wh_' }] },
  'POST /vps': { requirement: 'VPS-ID-001', ids: [{ name: 'vps', prefix: 'vps_' }] },
  'POST /vps/{vps_id}/actions': { requirement: 'VPS-ID-001', ids: [{ name: 'action', prefix: 'act_' }] },
  'POST /ssh-keys': { requirement: 'VPS-ID-001', ids: [{ name: 'ssh_key', prefix: 'ssh_' }] },
  'POST /storage/volumes': { requirement: 'VOL-ID-001', ids: [{ name: 'volume', prefix: 'vol_' }] },
  'POST /storage/snapshots': { requirement: 'VOL-ID-001', ids: [{ name: 'snapshot', prefix: 'vsnap_' }] },
  'GET /account': { requirement: 'WAL-ID-001', ids: [{ name: 'account', prefix: 'acct_' }] },
  'POST /account/alerts': { requirement: 'WAL-ID-001', ids: [{ name: 'alert', prefix: 'alert_' }] },
  'POST /projects': { requirement: 'PROJ-ID-001', ids: [{ name: 'project', prefix: 'proj_' }] },
  'POST /account/api-keys': { requirement: 'KEY-ID-001', ids: [{ name: 'api_key', prefix: 'key_' }] },
};

/** The success-status conventions: one SHOULD per kind of operation. */
export const STATUS_SHOULD_IDS = ['ERR-OK-001', 'ERR-OK-002', 'ERR-OK-003', 'ERR-OK-004', 'ERR-OK-005'] as const;

export const AUTH = {
  /** No Authorization header. */
  noKey: 'AUTH-KEY-001',
  /** A bearer value that is no key of any account (garbage, or well-formed but unknown). */
  badKey: 'AUTH-KEY-002',
  /** Exactly 401 `unauthorized` for all of these, and for another scheme. */
  status: 'AUTH-KEY-004',
} as const;

/** Unknown path id: MUST (refused with the envelope) per operation where a requirement says so, else the envelope requirement. */
export const UNKNOWN_ID_MUST: Record<string, string> = {
  'GET /sms/status/{message_id}': 'MSG-STAT-001',
};
export const UNKNOWN_ID_MUST_DEFAULT = 'ERR-ENVELOPE-001';
/** Storage errors about a named resource carry `error.resource` (MUST). */
export const UNKNOWN_ID_MUST_STORAGE = 'ERR-ENVELOPE-004';
export const UNKNOWN_ID_SHOULD = 'ERR-MAP-003';

/** Use after delete: MUST as the delete requirement states it (gone from GET or from the list). */
export const AFTER_DELETE_MUST: Record<string, string> = {
  'DELETE /vps/{vps_id}': 'VPS-DEL-001',
  'DELETE /snapshots/{snapshot_id}': 'SNAP-DEL-001',
  'DELETE /storage/buckets/{bucket_name}': 'BKT-DEL-002',
  'DELETE /storage/buckets/{bucket_name}/objects/{object_key}': 'OBJ-DEL-001',
  'DELETE /storage/volumes/{volume_id}': 'VOL-DEL-001',
  'DELETE /account/payment-methods/{payment_method_id}': 'BILL-PM-004',
  'DELETE /projects/{project_id}': 'PROJ-DEL-001',
  'DELETE /account/api-keys/{key_id}': 'KEY-DEL-001',
};
export const AFTER_DELETE_SHOULD = 'ERR-MAP-003';

export type ViolationKind =
  | 'missing'
  | 'type'
  | 'enum'
  | 'minimum'
  | 'maximum'
  | 'maxLength'
  | 'minLength'
  | 'minItems'
  | 'pattern'
  | 'format'
  | 'custom';

export interface NegativeTarget {
  /** MUST requirement and the error code it names (absent: the constraint is a convention, SHOULD only). */
  must?: { id: string; code?: string };
  should: { id: string; code: string };
}

/**
 * Negative MUST requirements, keyed `METHOD /path field kind`, `METHOD /path field` (any kind)
 * or `METHOD /path * kind`. A `null` entry says the constraint is a convention: SHOULD only.
 */
export const NEGATIVE_MUST: Record<string, { id: string; code?: string } | null> = {
  'POST /sms/send to missing': { id: 'MSG-SEND-001' },
  'POST /sms/send message missing': { id: 'MSG-SEND-001' },
  'POST /sms/send to type': { id: 'MSG-SEND-009' },
  'POST /sms/send message type': { id: 'MSG-SEND-009' },
  'POST /sms/send to pattern': { id: 'MSG-SEND-002', code: 'invalid_phone_number' },
  'POST /sms/send message maxLength': { id: 'MSG-SEND-004', code: 'message_too_long' },
  'POST /sms/send from type': { id: 'MSG-SEND-007' },
  'POST /sms/send callback_url type': { id: 'MSG-SEND-007' },
  'POST /sms/send callback_url format': null,
  'POST /sms/bulk recipients': { id: 'MSG-BULK-001' },
  'POST /sms/bulk message missing': { id: 'MSG-BULK-001' },
  'POST /sms/bulk recipients pattern': { id: 'ERR-CODE-001', code: 'invalid_phone_number' },
  'POST /sms/bulk recipients minItems': null,
  'POST /sms/bulk message maxLength': { id: 'ERR-CODE-004', code: 'message_too_long' },
  'POST /sms/bulk callback_url format': null,
  'POST /messaging/sender-ids * missing': { id: 'MSG-SID-003' },
  'POST /messaging/sender-ids type enum': { id: 'MSG-SID-004' },
  'POST /messaging/sender-ids countries pattern': null,
  'POST /messaging/sender-ids countries minItems': null,
  'POST /messaging/templates * missing': { id: 'MSG-TPL-001' },
  'POST /sms/send-template * missing': { id: 'MSG-TPL-004' },
  'POST /sms/send-template to pattern': { id: 'ERR-CODE-001', code: 'invalid_phone_number' },
  'POST /messaging/contacts/lists name missing': { id: 'MSG-CON-001' },
  'POST /messaging/contacts/lists/{list_id}/contacts contacts missing': { id: 'MSG-CON-003' },
  'POST /messaging/contacts/lists/{list_id}/contacts contacts type': { id: 'MSG-CON-003' },
  'POST /messaging/contacts/lists/{list_id}/contacts contacts minItems': null,
  'POST /messaging/opt-outs phone missing': { id: 'MSG-OPT-001' },
  'POST /messaging/opt-outs phone pattern': null,
  'POST /messaging/webhooks * missing': { id: 'HOOK-CFG-001' },
  'POST /messaging/webhooks events enum': null,
  'POST /messaging/webhooks events minItems': null,
  'POST /messaging/webhooks url format': null,
  'POST /vps * missing': { id: 'VPS-CRT-001' },
  'POST /vps ssh_keys type': { id: 'VPS-CRT-002' },
  'POST /vps private_networking type': { id: 'VPS-CRT-002' },
  'POST /vps backups type': { id: 'VPS-CRT-002' },
  'POST /vps monitoring type': { id: 'VPS-CRT-002' },
  'POST /vps user_data type': { id: 'VPS-CRT-002' },
  'POST /vps tags type': { id: 'VPS-CRT-002' },
  'PUT /vps/{vps_id} * type': { id: 'VPS-UPD-002' },
  'POST /vps/{vps_id}/actions type': { id: 'VPS-ACT-001' },
  'POST /vps/{vps_id}/actions size missing': { id: 'VPS-ACT-002' },
  'POST /vps/{vps_id}/actions name missing': { id: 'VPS-ACT-003' },
  'POST /vps/{vps_id}/actions image missing': { id: 'VPS-ACT-004' },
  'POST /ssh-keys * missing': { id: 'SSH-KEY-001' },
  'POST /ssh-keys public_key custom': null,
  'POST /storage/buckets * missing': { id: 'BKT-CRT-001' },
  'POST /storage/buckets public type': { id: 'BKT-CRT-002' },
  'POST /storage/buckets versioning type': { id: 'BKT-CRT-002' },
  'POST /storage/buckets encryption': { id: 'BKT-CRT-002' },
  'POST /storage/buckets name minLength': null,
  'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url method': { id: 'PRE-URL-001' },
  'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url expires_in minimum': null,
  'POST /storage/volumes * missing': { id: 'VOL-CRT-001' },
  'POST /storage/volumes size minimum': { id: 'VOL-CRT-002' },
  'POST /storage/volumes size maximum': null,
  'POST /storage/volumes filesystem enum': { id: 'VOL-CRT-003' },
  'POST /storage/volumes tags type': { id: 'VOL-CRT-004' },
  'POST /storage/volumes/{volume_id}/resize size missing': { id: 'VOL-RSZ-001' },
  'POST /storage/volumes/{volume_id}/resize size minimum': { id: 'VOL-RSZ-001' },
  'POST /storage/volumes/{volume_id}/resize size maximum': null,
  'POST /storage/volumes/{volume_id}/attach vps_id missing': { id: 'VOL-ATT-001' },
  'POST /storage/snapshots * missing': { id: 'VOL-SNAP-001' },
  'POST /storage/volumes/restore * missing': { id: 'VOL-RST-001' },
  'POST /storage/volumes/restore size minimum': { id: 'VOL-RST-002' },
  'POST /storage/volumes/restore size maximum': null,
  'POST /storage/buckets/{bucket_name}/cdn * type': { id: 'BKT-CDN-001' },
  'POST /storage/buckets/{bucket_name}/cdn cache_ttl minimum': null,
  'POST /storage/buckets/{bucket_name}/cdn/purge paths type': { id: 'BKT-CDN-002' },
  'PUT /storage/buckets/{bucket_name}/policy * missing': { id: 'BKT-POL-001' },
  'POST /storage/access-keys * missing': { id: 'STO-KEY-001' },
  'POST /storage/access-keys permissions minItems': null,
  'PUT /account timezone custom': null,
  'POST /account/wallets/topup * missing': { id: 'WAL-TOP-001' },
  'POST /account/wallets/topup amount type': { id: 'WAL-TOP-001' },
  'POST /account/wallets/topup currency pattern': null,
  'POST /account/payment-methods * missing': { id: 'BILL-PM-002' },
  'POST /account/payment-methods type enum': { id: 'BILL-PM-002' },
  'POST /projects name missing': { id: 'PROJ-CRT-001' },
  'POST /projects budget_limit type': { id: 'PROJ-CRT-001' },
  'POST /projects budget_limit minimum': null,
  'PUT /projects/{project_id} budget_limit minimum': null,
  'POST /account/alerts * missing': { id: 'BILL-ALR-001' },
  'POST /account/alerts threshold type': { id: 'BILL-ALR-001' },
  'POST /account/alerts * enum': { id: 'BILL-ALR-001' },
  'POST /account/alerts notification_methods minItems': null,
  'POST /account/api-keys * missing': { id: 'KEY-CRT-001' },
  'POST /account/api-keys permissions type': { id: 'KEY-CRT-001' },
  'POST /account/api-keys permissions minItems': null,
  'POST /account/api-keys expires_at format': null,
  // Query parameters
  'GET /images type enum': { id: 'IMG-LIST-002' },
  'GET /account/billing/history type enum': { id: 'BILL-HIST-003' },
  'GET /account/usage service enum': { id: 'BILL-USE-003' },
  'GET /account/invoices status enum': { id: 'INV-LIST-002' },
  'GET /account/analytics/costs group_by enum': { id: 'BILL-ANA-002' },
  'GET /account/analytics/trends metric': { id: 'BILL-TRD-001' },
  'GET /account/analytics/trends interval enum': { id: 'BILL-TRD-002' },
  'GET /messaging/analytics/delivery group_by enum': { id: 'MSG-ANA-004' },
  'GET /vps/{vps_id}/metrics interval enum': { id: 'VPS-MET-002' },
};

/** Negative SHOULD requirement (and code) per key, same key forms as NEGATIVE_MUST; default ERR-MAP-004 validation_error. */
export const NEGATIVE_SHOULD: Record<string, { id: string; code: string }> = {
  'POST /sms/send to pattern': { id: 'ERR-MAP-005', code: 'invalid_phone_number' },
  'POST /sms/bulk recipients pattern': { id: 'ERR-MAP-005', code: 'invalid_phone_number' },
  'POST /sms/send-template to pattern': { id: 'ERR-MAP-005', code: 'invalid_phone_number' },
  'POST /messaging/opt-outs phone pattern': { id: 'MSG-SEND-010', code: 'invalid_phone_number' },
  'POST /sms/send message maxLength': { id: 'ERR-MAP-006', code: 'message_too_long' },
  'POST /sms/bulk message maxLength': { id: 'ERR-MAP-006', code: 'message_too_long' },
  'POST /messaging/webhooks events enum': { id: 'HOOK-CFG-004', code: 'validation_error' },
  'POST /ssh-keys public_key custom': { id: 'SSH-KEY-004', code: 'validation_error' },
  'POST /storage/volumes size maximum': { id: 'VOL-SIZE-001', code: 'validation_error' },
  'POST /storage/volumes/{volume_id}/resize size maximum': { id: 'VOL-SIZE-001', code: 'validation_error' },
  'POST /storage/volumes/restore size maximum': { id: 'VOL-SIZE-001', code: 'validation_error' },
  'PUT /account timezone custom': { id: 'ACCT-UPD-002', code: 'validation_error' },
  'POST /account/api-keys permissions enum': { id: 'AUTH-PERM-002', code: 'validation_error' },
  'GET /sms/messages page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
  'GET /sms/messages per_page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
  'GET /vps page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
  'GET /vps per_page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
  'GET /account/billing/history page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
  'GET /account/billing/history per_page': { id: 'PAGE-SIZE-004', code: 'validation_error' },
};
export const NEGATIVE_MUST_DEFAULT = { id: 'ERR-CODE-007', code: 'validation_error' } as const;
export const NEGATIVE_SHOULD_DEFAULT = { id: 'ERR-MAP-004', code: 'validation_error' } as const;

/** Kinds whose MUST defaults to the general validation requirement; limits and formats need an explicit entry (they may be the document's assumption). */
const MUST_BY_DEFAULT: ReadonlySet<ViolationKind> = new Set(['missing', 'type', 'enum']);

function lookup<T>(table: Record<string, T>, op: string, field: string, kind: ViolationKind): T | undefined {
  for (const key of [`${op} ${field} ${kind}`, `${op} ${field}`, `${op} * ${kind}`]) {
    if (key in table) return table[key];
  }
  return undefined;
}

/**
 * The requirements of one negative case. `assumed`: the violated constraint is marked `x-assumed`
 * in the document (a convention), so there is no MUST; `query`: query-parameter types and limits
 * are conventions unless the table names a requirement.
 */
export function negativeTarget(
  op: string,
  field: string,
  kind: ViolationKind,
  options: { assumed?: boolean; query?: boolean } = {},
): NegativeTarget {
  const should = lookup(NEGATIVE_SHOULD, op, field, kind) ?? NEGATIVE_SHOULD_DEFAULT;
  const explicit = lookup(NEGATIVE_MUST, op, field, kind);
  if (explicit === null || options.assumed) return { should };
  if (explicit) return { must: explicit, should };
  if (options.query || !MUST_BY_DEFAULT.has(kind)) return { should };
  return { must: { ...NEGATIVE_MUST_DEFAULT }, should };
}

/** The success-status SHOULD of an operation (`ERR-OK-00x` listing it), from the catalogue. */
export function statusRequirement(opKey: string): string | undefined {
  for (const req of loadRequirements()) {
    if ((STATUS_SHOULD_IDS as readonly string[]).includes(req.id) && req.operations?.includes(opKey)) return req.id;
  }
  return undefined;
}

/** Every (id, level) pair the table uses, for the unit test. */
export function tableEntries(): Array<{ where: string; id: string; level: Level }> {
  const out: Array<{ where: string; id: string; level: Level }> = [];
  for (const [k, id] of Object.entries(POSITIVE_MUST)) out.push({ where: `POSITIVE_MUST ${k}`, id, level: 'MUST' });
  for (const [k, id] of Object.entries(POSITIVE_BODY_SHOULD))
    out.push({ where: `POSITIVE_BODY_SHOULD ${k}`, id, level: 'SHOULD' });
  for (const [k, { requirement }] of Object.entries(ID_PREFIX_SHOULD))
    out.push({ where: `ID_PREFIX_SHOULD ${k}`, id: requirement, level: 'SHOULD' });
  for (const id of STATUS_SHOULD_IDS) out.push({ where: 'STATUS_SHOULD_IDS', id, level: 'SHOULD' });
  out.push(
    { where: 'AUTH.noKey', id: AUTH.noKey, level: 'MUST' },
    { where: 'AUTH.badKey', id: AUTH.badKey, level: 'MUST' },
    { where: 'AUTH.status', id: AUTH.status, level: 'SHOULD' },
  );
  for (const [k, id] of Object.entries(UNKNOWN_ID_MUST)) out.push({ where: `UNKNOWN_ID_MUST ${k}`, id, level: 'MUST' });
  out.push({ where: 'UNKNOWN_ID_MUST_DEFAULT', id: UNKNOWN_ID_MUST_DEFAULT, level: 'MUST' });
  out.push({ where: 'UNKNOWN_ID_MUST_STORAGE', id: UNKNOWN_ID_MUST_STORAGE, level: 'MUST' });
  out.push({ where: 'UNKNOWN_ID_SHOULD', id: UNKNOWN_ID_SHOULD, level: 'SHOULD' });
  for (const [k, id] of Object.entries(AFTER_DELETE_MUST))
    out.push({ where: `AFTER_DELETE_MUST ${k}`, id, level: 'MUST' });
  out.push({ where: 'AFTER_DELETE_SHOULD', id: AFTER_DELETE_SHOULD, level: 'SHOULD' });
  for (const [k, v] of Object.entries(NEGATIVE_MUST))
    if (v) out.push({ where: `NEGATIVE_MUST ${k}`, id: v.id, level: 'MUST' });
  for (const [k, v] of Object.entries(NEGATIVE_SHOULD))
    out.push({ where: `NEGATIVE_SHOULD ${k}`, id: v.id, level: 'SHOULD' });
  out.push({ where: 'NEGATIVE_MUST_DEFAULT', id: NEGATIVE_MUST_DEFAULT.id, level: 'MUST' });
  out.push({ where: 'NEGATIVE_SHOULD_DEFAULT', id: NEGATIVE_SHOULD_DEFAULT.id, level: 'SHOULD' });
  return out;
}
