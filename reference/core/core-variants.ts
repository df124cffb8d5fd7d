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
    departsFrom: ['AUTH-KEY-004', 'AUTH-KEY-005', 'KEY-REVOKE-002'],
    allowedBy: 'Authentication: "Status code for a missing or invalid key: not shown"',
    description: 'A missing, malformed, unknown, revoked or expired key answers 403 instead of 401.',
  },
  {
    name: 'error-codes-other',
    departsFrom: [
      'AUTH-KEY-004',
      'AUTH-KEY-005',
      'AUTH-IP-001',
      'AUTH-PERM-001',
      'ERR-MAP-001',
      'ERR-MAP-002',
      'ERR-MAP-003',
      'ERR-MAP-010',
      'ERR-MAP-013',
      'ISO-READ-001',
      'ISO-WRITE-001',
      'KEY-REVOKE-002',
      'PRE-URL-009',
      'VER-PATH-002',
      'ERR-MAP-011',
      'ERR-MAP-014',
      'VPS-ACT-008',
      'ISO-BKT-001',
      'MPU-CMP-003',
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
      'ERR-MAP-007',
      'ERR-MAP-008',
      'ERR-MAP-011',
      'VOL-ATT-002',
      'VPS-ACT-008',
      'MPU-PART-002',
    ],
    allowedBy: 'Errors / Gaps: "Mapping of each error code to an HTTP status: not shown"',
    description: 'Every error answered 422 under the conventions (validation, listed codes) answers 400 instead.',
  },
  {
    name: 'ids-other-format',
    departsFrom: ['MSG-ID-001', 'VPS-ID-001', 'VOL-ID-001', 'WAL-ID-001', 'PROJ-ID-001', 'KEY-ID-001'],
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
      'VPS-WRAP-001',
      'ACCT-UPD-002',
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
      'VPS-WRAP-001',
      'MSG-TPL-008',
      'ACCT-UPD-002',
    ],
    allowedBy: BODY_GAP,
    description: 'Where the specification shows no response body, the body is `{"data": <the resource or list>}`.',
  },
  {
    name: 'list-oldest-first',
    departsFrom: ['PAGE-ORD-001'],
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
    name: 'error-resource-names-instance',
    departsFrom: ['ERR-MAP-012', 'ERR-MAP-013', 'ERR-MAP-014'],
    allowedBy:
      'Errors: "resource | string | storage: name of the resource concerned" (the kind or the instance: not shown)',
    description:
      'A storage error names the resource concerned by its own name in `error.resource` (the bucket name, the volume id) rather than by its kind (`bucket`, `volume`).',
  },
  {
    name: 'foreign-resources-403',
    departsFrom: ['ISO-READ-001', 'ISO-WRITE-001', 'ISO-BKT-001', 'ISO-VOL-001'],
    allowedBy:
      "Authentication and Errors: how another account's resources are refused is not shown (the specification is silent on isolation)",
    description:
      "Another account's bucket (in a path) and VPS or volume snapshot (named in a body) answer 403 `forbidden`: they exist, but not for the caller, as Google Cloud Storage answers.",
  },
  {
    name: 's3-list-buckets-global',
    departsFrom: ['ISO-S3-001'],
    allowedBy:
      'Limits: "Bucket name: globally unique" (what ListBuckets of the S3 endpoint lists: not shown; the names are public through their uniqueness)',
    description:
      "ListBuckets of the S3 endpoint lists every bucket of the endpoint, other accounts' included (their objects stay refused).",
  },
  {
    name: 'webhook-single-attempt',
    departsFrom: ['HOOK-DLV-002'],
    allowedBy: 'Events / Gaps: "Retries, ordering and timeouts of delivery: not shown"',
    description: 'A webhook delivery is attempted once: one answered with a non-2xx status is not retried.',
  },
  {
    name: 'versions-plain-404',
    departsFrom: ['VER-PATH-002'],
    allowedBy: 'Versioning: "how new versions are announced: not shown"; outside the base URL nothing is specified',
    description:
      'A path outside the /v1 tree (another version, the root) answers the plain `404 Not Found` of a front server (text/plain) instead of the error envelope.',
  },
  {
    name: 'auth-token-scheme',
    departsFrom: ['AUTH-KEY-005'],
    allowedBy: 'Authentication: "Authorization: Bearer <key>" (whether other schemes are refused: not shown)',
    description: 'An Authorization header `token <key>` is accepted like `Bearer <key>`, as GitHub accepts both.',
  },
  {
    name: 'details-unshown-swapped',
    departsFrom: ['ERR-ENVELOPE-006'],
    allowedBy:
      'Errors: "details: messaging and billing: object; compute validation: array" (storage and projects: not shown)',
    description:
      'Validation errors of storage carry `details` as one {field, message} object, those of projects as an array of them.',
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
