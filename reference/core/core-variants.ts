/**
 * Legal variants of the shared pipeline (`cloudcheck serve --variant NAME`): choices that concern
 * every area at once. Each names the specification line that leaves the choice open and the
 * SHOULD requirements (docs/conventions.md) it departs from; the variant matrix
 * (docs/variant-matrix.md) proves the suite passes each of them.
 */
import type { VariantDefinition } from './variants.ts';

const SUCCESS_GAP = 'Errors / Gaps: "Success status code of each endpoint: not shown"';
const BODY_GAP = 'Endpoints: "Response bodies not shown for: ..." (every area)';
const HEADERS_GAP =
  'Limits: "Rate-limit response headers (messaging and compute): X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (integer timestamp)"';
const LIMITS_GAP = 'Limits: "1000 requests per hour per API key", "Burst: 100 requests per minute"';

export const CORE_VARIANTS = [
  {
    name: 'create-200',
    departsFrom: ['ERR-OK-002', 'MSG-BULK-007', 'MSG-SID-006', 'MSG-CON-004', 'HOOK-CFG-003', 'PROJ-WRAP-001'],
    allowedBy: SUCCESS_GAP,
    description: 'A POST that creates a resource answers 200 instead of 201.',
  },
  {
    name: 'delete-200-body',
    departsFrom: ['ERR-OK-005', 'KEY-REVOKE-002', 'PROJ-WRAP-001'],
    allowedBy: `${SUCCESS_GAP}; "Response bodies not shown for: ... delete ..."`,
    description: 'A DELETE answers 200 with a small JSON body ({"deleted": true, "id": ...}) instead of 204 with none.',
  },
  {
    name: 'action-201',
    departsFrom: ['ERR-OK-003', 'VPS-ACT-005', 'VPS-ACT-006', 'VPS-ACT-007', 'WAL-TOP-002'],
    allowedBy: SUCCESS_GAP,
    description:
      'A POST that performs an action (VPS action, volume resize/attach/detach, top-up, CDN, presign, multipart) answers 201 instead of 200.',
  },
  {
    name: 'unauth-403',
    departsFrom: ['AUTH-KEY-004', 'KEY-REVOKE-002'],
    allowedBy: 'Authentication: "Status code for a missing or invalid key: not shown"',
    description: 'A missing, malformed, unknown, revoked or expired key answers 403 instead of 401.',
  },
  {
    name: 'error-codes-other',
    departsFrom: [
      'AUTH-KEY-004',
      'AUTH-IP-001',
      'AUTH-PERM-001',
      'ERR-MAP-003',
      'ERR-MAP-010',
      'ERR-MAP-013',
      'ISO-READ-001',
      'ISO-WRITE-001',
      'KEY-REVOKE-002',
      'PRE-URL-009',
    ],
    allowedBy: 'Errors / Gaps: "Complete error code lists per area beyond the codes above: not shown"',
    description:
      'Every error code the specification does not list is spelled differently (not_found → resource_not_found, unauthorized → authentication_required, ...); the eight listed codes stay.',
  },
  {
    name: 'validation-400',
    departsFrom: [
      'ERR-MAP-004',
      'ERR-MAP-005',
      'ERR-MAP-006',
      'ERR-MAP-010',
      'MSG-TPL-009',
      'MSG-SEND-010',
      'AUTH-PERM-002',
      'PAGE-SIZE-004',
      'VOL-SIZE-001',
      'MPU-CMP-004',
      'ACCT-UPD-002',
      'SSH-KEY-004',
      'HOOK-CFG-004',
    ],
    allowedBy: 'Errors / Gaps: "Mapping of each error code to an HTTP status: not shown"',
    description: 'Every error answered 422 under the conventions (validation, listed codes) answers 400 instead.',
  },
  {
    name: 'ids-other-format',
    departsFrom: [],
    allowedBy:
      'Resources and their fields: "identifiers are strings whose type prefix varies by resource" (format not shown)',
    description: 'Ids are UUIDs without a type prefix instead of `<prefix>_<16 hex>`.',
  },
  {
    name: 'extra-fields',
    departsFrom: [],
    allowedBy: 'Resources and their fields: only the fields of each resource are listed; nothing forbids others',
    description:
      'Every JSON object of every response (the error envelope and `meta` included) carries fields the specification does not name.',
  },
  {
    name: 'timestamps-offset',
    departsFrom: [],
    allowedBy: 'Resources and their fields: "timestamps are ISO 8601 UTC strings" (which ISO 8601 form: not shown)',
    description: 'Timestamps are written `2026-01-02T03:04:05+00:00` (offset, no fraction) instead of `...05.678Z`.',
  },
  {
    name: 'json-charset',
    departsFrom: [],
    allowedBy: 'What the service does: "bodies are JSON" (media type parameters: not shown)',
    description:
      'JSON responses are labelled `application/json;charset=UTF-8` (another spelling of the media type and its parameter).',
  },
  {
    name: 'flat-bodies',
    departsFrom: [
      'BILL-ALR-004',
      'BILL-PM-005',
      'BKT-CDN-003',
      'BKT-POL-003',
      'BKT-WRAP-001',
      'HOOK-CFG-003',
      'INV-GET-002',
      'MPU-CMP-004',
      'MPU-PART-003',
      'MSG-CMP-006',
      'MSG-CON-004',
      'MSG-OPT-003',
      'MSG-SID-006',
      'MSG-TPL-007',
      'OBJ-WRAP-001',
      'PROJ-WRAP-001',
      'SNAP-LIST-002',
      'SSH-KEY-004',
      'STO-KEY-004',
      'VOL-WRAP-001',
      'VPS-ACT-005',
      'VPS-ACT-006',
      'VPS-ACT-007',
    ],
    allowedBy: BODY_GAP,
    description:
      'Where the specification shows no response body, the resource comes unwrapped (a list as a bare array) instead of under its name.',
  },
  {
    name: 'wrapped-bodies',
    departsFrom: [
      'BILL-ALR-004',
      'BILL-PM-005',
      'BILL-TRD-003',
      'BKT-CDN-003',
      'BKT-POL-003',
      'BKT-WRAP-001',
      'HOOK-CFG-003',
      'INV-GET-002',
      'MPU-CMP-004',
      'MPU-PART-003',
      'MSG-CMP-006',
      'MSG-CON-004',
      'MSG-OPT-003',
      'MSG-SID-006',
      'MSG-TPL-007',
      'OBJ-WRAP-001',
      'PROJ-WRAP-001',
      'SNAP-LIST-002',
      'SSH-KEY-004',
      'STO-KEY-004',
      'VOL-WRAP-001',
      'VPS-ACT-005',
      'VPS-ACT-006',
      'VPS-ACT-007',
      'WAL-TOP-002',
    ],
    allowedBy: BODY_GAP,
    description: 'Where the specification shows no response body, the body is `{"data": <the resource or list>}`.',
  },
  {
    name: 'list-oldest-first',
    departsFrom: [],
    allowedBy: 'Pagination envelope and Limits: the order of list items is not shown',
    description: 'Paginated lists are ordered oldest first (across pages).',
  },
  {
    name: 'per-page-clamp',
    departsFrom: ['PAGE-SIZE-004'],
    allowedBy: 'Limits: "Page size: default 25, maximum 100" (what happens above the maximum: not shown)',
    description: 'A `per_page` above 100 is served as 100 instead of being refused.',
  },
  {
    name: 'ratelimit-headers-everywhere',
    departsFrom: [],
    allowedBy: 'Limits: "Rate-limit response headers (messaging and compute)" (other areas: not shown)',
    description: 'Storage, billing and projects responses carry the X-RateLimit-* headers too.',
  },
  {
    name: 'latency',
    departsFrom: [],
    allowedBy: 'nothing in the specification bounds response times',
    description: 'Every REST response is delayed by MS milliseconds (default 80), as across a network.',
    defaultMs: 80,
  },
  {
    name: 'accept-honoured',
    departsFrom: [],
    allowedBy:
      'What the service does: "bodies are JSON" (content negotiation, the Accept header: not shown; HTTP lets a server answer 406)',
    description:
      'A request whose Accept header rules out the media type of the success answer (a PDF asked for as application/json) gets 406 with the error envelope.',
  },
  {
    name: 'webhook-signature-other',
    departsFrom: ['HOOK-SIG-001'],
    allowedBy: 'Events / Gaps: "Signature scheme and header used with the webhook secret: not shown"',
    description:
      'Deliveries carry `X-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` instead of the assumed header.',
  },
  {
    name: 'ratelimit-headers-hourly',
    departsFrom: ['RATE-HEADERS-005'],
    allowedBy: `${HEADERS_GAP} (which of the key's limits they describe: not shown)`,
    description:
      "The X-RateLimit-* headers of messaging and compute describe the key's hourly window (Limit 1000, Reset the hour's end) even while the per-minute burst is the one that refuses, as GitHub's primary limit does.",
  },
  {
    name: 'ratelimit-anchored-windows',
    departsFrom: ['RATE-WIN-001'],
    allowedBy: `${LIMITS_GAP}; how a window is counted: not shown`,
    description:
      "A key's windows open with its first request and last a minute or an hour from there, instead of being aligned to the epoch's minutes and hours.",
  },
  {
    name: 'ratelimit-after-handler',
    departsFrom: ['RATE-CNT-001'],
    allowedBy: `${LIMITS_GAP}; what a refused request may have done: not shown`,
    description:
      'The limiter answers after the handler: a request over the limit is carried out, then answered 429 (as a limiter in the response path does).',
  },
  {
    name: 'sms-volume-per-send',
    departsFrom: ['RATE-CNT-002'],
    allowedBy: `${LIMITS_GAP}; how a bulk send counts against "SMS volume 10000 messages per hour": not shown`,
    description: 'A send counts one against the hourly SMS volume, whatever the number of its recipients.',
  },
  {
    name: 'ratelimit-headers-elsewhere-delta',
    departsFrom: ['RATE-HEADERS-007'],
    allowedBy: `${HEADERS_GAP} (other areas: not shown)`,
    description:
      'Storage, billing and project responses carry X-RateLimit-* too, with Reset as the seconds left in the window (the IETF draft RateLimit-Reset form) rather than a timestamp.',
  },
] as const satisfies readonly VariantDefinition[];

export type CoreVariant = (typeof CORE_VARIANTS)[number]['name'];
