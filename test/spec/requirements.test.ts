/**
 * Tests of the requirement catalogue (spec/requirements.yaml) and its loader.
 * Run: npx playwright test -c test/playwright.config.ts test/spec/requirements.test.ts
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from '../base.ts';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { CONFORMANCE_CLASSES } from '../../spec/classes.ts';
import {
  loadCatalogue,
  loadRequirements,
  parseRequirements,
  requirementById,
  RequirementCatalogueError,
} from '../../spec/requirements.ts';

const CATALOGUE_PATH = fileURLToPath(new URL('../../spec/requirements.yaml', import.meta.url));
const SCHEMA_PATH = fileURLToPath(new URL('../../spec/requirements.schema.json', import.meta.url));
const INVENTORY_URL = new URL('../../spec/endpoint-inventory.ts', import.meta.url);

/**
 * The 88 rows of the specification's Endpoints tables, kept here independently of
 * spec/endpoint-inventory.ts so that each list checks the other. The three multipart rows keep
 * their query; requirements name them by the path without it.
 */
const SPEC_ROWS: readonly string[] = [
  // Messaging (18)
  'POST /sms/send',
  'POST /sms/bulk',
  'GET /sms/status/{message_id}',
  'GET /sms/messages',
  'GET /sms/campaigns',
  'GET /sms/campaigns/{campaign_id}',
  'GET /messaging/sender-ids',
  'POST /messaging/sender-ids',
  'GET /messaging/templates',
  'POST /messaging/templates',
  'POST /sms/send-template',
  'GET /messaging/contacts/lists',
  'POST /messaging/contacts/lists',
  'POST /messaging/contacts/lists/{list_id}/contacts',
  'GET /messaging/opt-outs',
  'POST /messaging/opt-outs',
  'POST /messaging/webhooks',
  'GET /messaging/analytics/delivery',
  // Compute (14)
  'GET /vps',
  'POST /vps',
  'GET /vps/{vps_id}',
  'PUT /vps/{vps_id}',
  'DELETE /vps/{vps_id}',
  'POST /vps/{vps_id}/actions',
  'GET /vps/{vps_id}/metrics',
  'GET /images',
  'GET /sizes',
  'GET /regions',
  'GET /ssh-keys',
  'POST /ssh-keys',
  'GET /snapshots',
  'DELETE /snapshots/{snapshot_id}',
  // Storage (30)
  'GET /storage/buckets',
  'POST /storage/buckets',
  'GET /storage/buckets/{bucket_name}',
  'DELETE /storage/buckets/{bucket_name}',
  'GET /storage/buckets/{bucket_name}/objects',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}',
  'GET /storage/buckets/{bucket_name}/objects/{object_key}',
  'HEAD /storage/buckets/{bucket_name}/objects/{object_key}',
  'DELETE /storage/buckets/{bucket_name}/objects/{object_key}',
  'POST /storage/buckets/{bucket_name}/objects/{object_key}?uploads',
  'PUT /storage/buckets/{bucket_name}/objects/{object_key}?partNumber={part_number}&uploadId={upload_id}',
  'POST /storage/buckets/{bucket_name}/objects/{object_key}?uploadId={upload_id}',
  'POST /storage/buckets/{bucket_name}/objects/{object_key}/presigned-url',
  'GET /storage/volumes',
  'POST /storage/volumes',
  'GET /storage/volumes/{volume_id}',
  'POST /storage/volumes/{volume_id}/resize',
  'POST /storage/volumes/{volume_id}/attach',
  'POST /storage/volumes/{volume_id}/detach',
  'DELETE /storage/volumes/{volume_id}',
  'GET /storage/snapshots',
  'POST /storage/snapshots',
  'POST /storage/volumes/restore',
  'POST /storage/buckets/{bucket_name}/cdn',
  'POST /storage/buckets/{bucket_name}/cdn/purge',
  'GET /storage/buckets/{bucket_name}/policy',
  'PUT /storage/buckets/{bucket_name}/policy',
  'GET /storage/access-keys',
  'POST /storage/access-keys',
  'GET /storage/usage',
  // Billing and projects (26)
  'GET /account',
  'PUT /account',
  'GET /account/wallets',
  'POST /account/wallets/topup',
  'GET /account/billing/history',
  'GET /account/usage',
  'GET /account/payment-methods',
  'POST /account/payment-methods',
  'DELETE /account/payment-methods/{payment_method_id}',
  'GET /account/invoices',
  'GET /account/invoices/{invoice_id}',
  'GET /account/invoices/{invoice_id}/pdf',
  'GET /projects',
  'POST /projects',
  'GET /projects/{project_id}',
  'PUT /projects/{project_id}',
  'DELETE /projects/{project_id}',
  'GET /projects/{project_id}/resources',
  'GET /projects/{project_id}/usage',
  'GET /account/api-keys',
  'POST /account/api-keys',
  'DELETE /account/api-keys/{key_id}',
  'GET /account/analytics/costs',
  'GET /account/analytics/trends',
  'GET /account/alerts',
  'POST /account/alerts',
];

/** `METHOD /path` without the query: how requirements name an operation. */
const withoutQuery = (row: string): string => row.replace(/\?.*$/, '');
const SPEC_OPERATIONS = new Set(SPEC_ROWS.map(withoutQuery));

/** Top-level sections of the specification: every `source` starts with one of them. */
const TOP_SECTIONS = [
  'What the service does',
  'Resources and their fields',
  'States and transitions',
  'Endpoints',
  'Authentication',
  'Events',
  'Errors',
  'Limits',
  'Versioning',
];

/** Sections (and subsections) that must each be the source, or a source prefix, of some requirement. */
const SECTIONS_TO_COVER = [
  'What the service does',
  'Resources and their fields',
  'Resources and their fields / Message',
  'Resources and their fields / Campaign',
  'Resources and their fields / Sender ID',
  'Resources and their fields / Webhook configuration (request fields)',
  'Resources and their fields / VPS',
  'Resources and their fields / Image',
  'Resources and their fields / Size',
  'Resources and their fields / Region',
  'Resources and their fields / VPS metrics',
  'Resources and their fields / Bucket',
  'Resources and their fields / Object (listing entry)',
  'Resources and their fields / Multipart upload handle',
  'Resources and their fields / Presigned URL result',
  'Resources and their fields / Volume',
  'Resources and their fields / Storage usage',
  'Resources and their fields / Account',
  'Resources and their fields / Wallet (one per currency)',
  'Resources and their fields / Transaction',
  'Resources and their fields / Payment method',
  'Resources and their fields / Invoice',
  'Resources and their fields / Project',
  'Resources and their fields / Project resource',
  'Resources and their fields / API key',
  'Resources and their fields / Analytics shapes',
  'Resources and their fields / Pagination envelope',
  'Resources and their fields / Gaps in fields',
  'States and transitions',
  'Endpoints / Messaging',
  'Endpoints / Compute',
  'Endpoints / Storage',
  'Endpoints / Billing and projects',
  'Authentication',
  'Events',
  'Events / Messaging events',
  'Events / Compute events',
  'Events / Gaps',
  'Errors',
  'Errors / Gaps',
  'Limits',
  'Limits / Gaps',
  'Versioning',
];

const isUnder = (source: string, section: string): boolean => source === section || source.startsWith(`${section} / `);

test.describe('requirement catalogue', () => {
  test('the file validates against requirements.schema.json', () => {
    // Independently of the loader: a bug there must not hide a broken file.
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object;
    const validate = new Ajv2020({ allErrors: true }).compile(schema);
    const doc: unknown = parseYaml(readFileSync(CATALOGUE_PATH, 'utf8'));
    const ok = validate(doc);
    expect(validate.errors ?? [], 'schema errors').toEqual([]);
    expect(ok).toBe(true);
    expect(() => loadCatalogue()).not.toThrow();
  });

  test('the schema enumerates exactly the conformance classes of spec/classes.ts', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as {
      $defs: { requirement: { properties: { class: { enum: string[] } } } };
    };
    expect([...schema.$defs.requirement.properties.class.enum].sort()).toEqual([...CONFORMANCE_CLASSES].sort());
  });

  test('ids are unique and well-formed (AREA-TOPIC-NNN)', () => {
    const ids = loadCatalogue().map((r) => r.id);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
    const malformed = ids.filter((id) => !/^[A-Z][A-Z0-9]*-[A-Z][A-Z0-9]*-\d{3}$/.test(id));
    expect(malformed).toEqual([]);
  });

  test('every class is a conformance class, and every conformance class has a requirement', () => {
    const requirements = loadRequirements();
    const known = new Set<string>(CONFORMANCE_CLASSES);
    expect(requirements.filter((r) => !known.has(r.class)).map((r) => r.id)).toEqual([]);
    const used = new Set(requirements.map((r) => r.class));
    expect(CONFORMANCE_CLASSES.filter((c) => !used.has(c))).toEqual([]);
  });

  test('SHOULD requirements say which convention they assume; MUST requirements assume nothing', () => {
    const requirements = loadRequirements();
    const shouldWithout = requirements.filter((r) => r.level === 'SHOULD' && !r.assumption?.trim());
    const mustWith = requirements.filter((r) => r.level === 'MUST' && r.assumption !== undefined);
    expect(shouldWithout.map((r) => r.id)).toEqual([]);
    expect(mustWith.map((r) => r.id)).toEqual([]);
    // Each assumption points at the document that fixes the convention.
    const uncited = requirements.filter((r) => r.level === 'SHOULD' && !r.assumption?.includes('conventions.md'));
    expect(uncited.map((r) => r.id)).toEqual([]);
  });

  test('every operation named is one of the specification endpoint rows', () => {
    expect(SPEC_ROWS).toHaveLength(88);
    expect(new Set(SPEC_ROWS).size).toBe(88);
    const unknown = loadRequirements().flatMap((r) =>
      (r.operations ?? []).filter((op) => !SPEC_OPERATIONS.has(op)).map((op) => `${r.id}: ${op}`),
    );
    expect(unknown).toEqual([]);
  });

  test('the endpoint list agrees with spec/endpoint-inventory.ts when it exists', async () => {
    test.skip(!existsSync(fileURLToPath(INVENTORY_URL)), 'spec/endpoint-inventory.ts not written yet');
    const inventory = (await import(INVENTORY_URL.href)) as Record<string, unknown>;
    const rows = inventory.ENDPOINTS;
    expect(Array.isArray(rows), 'endpoint-inventory.ts exports an ENDPOINTS array').toBe(true);
    const labels = (rows as { method: string; path: string; query?: string | null }[]).map(
      (row) => `${row.method} ${row.path}${row.query ?? ''}`,
    );
    expect(labels).toHaveLength(88);
    expect([...labels].sort()).toEqual([...SPEC_ROWS].sort());
  });

  test('coverage: every endpoint row is named by a requirement, and by a MUST one', () => {
    const requirements = loadRequirements();
    const named = new Set(requirements.flatMap((r) => r.operations ?? []));
    const namedByMust = new Set(requirements.filter((r) => r.level === 'MUST').flatMap((r) => r.operations ?? []));
    expect(SPEC_ROWS.filter((row) => !named.has(withoutQuery(row)))).toEqual([]);
    expect(SPEC_ROWS.filter((row) => !namedByMust.has(withoutQuery(row)))).toEqual([]);
  });

  test('coverage: more than 150 MUST requirements, and a substantial set of SHOULD ones', () => {
    const requirements = loadRequirements();
    expect(requirements.filter((r) => r.level === 'MUST').length).toBeGreaterThan(150);
    expect(requirements.filter((r) => r.level === 'SHOULD').length).toBeGreaterThanOrEqual(60);
  });

  test('coverage: every section of the specification is the source of some requirement', () => {
    const sources = loadRequirements().map((r) => r.source);
    const uncovered = SECTIONS_TO_COVER.filter((section) => !sources.some((s) => isUnder(s, section)));
    expect(uncovered).toEqual([]);
    const stray = loadRequirements()
      .filter((r) => !TOP_SECTIONS.some((section) => isUnder(r.source, section)))
      .map((r) => `${r.id}: ${r.source}`);
    expect(stray).toEqual([]);
  });

  test('statements are written out, not copied fragments', () => {
    // A statement is a sentence of its own; a bare field list or an empty string is not testable.
    const short = loadRequirements().filter((r) => r.statement.trim().split(/\s+/).length < 6);
    expect(short.map((r) => r.id)).toEqual([]);
  });
});

test.describe('requirement loader', () => {
  test('loadRequirements caches, and requirementById finds entries', () => {
    expect(loadRequirements()).toBe(loadRequirements());
    const first = loadRequirements()[0];
    expect(first).toBeDefined();
    expect(requirementById(first!.id)).toBe(first);
    expect(requirementById('NOPE-NOPE-000')).toBeUndefined();
  });

  test('retired entries stay in the catalogue but are not in force', () => {
    const text = [
      '- id: OLD-TOPIC-001',
      '  level: MUST',
      '  class: auth',
      '  statement: "A statement that no longer applies to the service."',
      '  source: "Authentication"',
      '  retired: true',
    ].join('\n');
    const entries = parseRequirements(text, 'inline');
    expect(entries[0]?.retired).toBe(true);
  });

  const valid = (id: string, extra: string[] = [], level = 'MUST'): string[] => [
    `- id: ${id}`,
    `  level: ${level}`,
    '  class: messaging',
    '  statement: "POST /sms/send refuses a message longer than the limit."',
    '  source: "Limits"',
    ...extra,
  ];

  const problemsOf = (text: string): string[] => {
    try {
      parseRequirements(text, 'inline');
    } catch (error) {
      expect(error).toBeInstanceOf(RequirementCatalogueError);
      return (error as RequirementCatalogueError).problems;
    }
    throw new Error('expected the catalogue to be rejected');
  };

  test('a broken entry is reported with its id and the problem', () => {
    const problems = problemsOf(
      [
        ...valid('MSG-SEND-901', ['  assumption: "conventions.md says so, for a reason."']),
        ...valid('MSG-SEND-902', [], 'SHOULD'),
        ...valid('MSG-SEND-903', ['  operations: ["POST /sms/send?x=1"]']),
        ...valid('MSG-SEND-904', ['  colour: blue']),
        '- id: msg-send-1',
        '  level: MAY',
        '  class: sms',
        '  statement: "A statement with a lower-case id and bad level."',
        '  source: "Limits"',
      ].join('\n'),
    );
    const text = problems.join('\n');
    expect(text).toContain('entry MSG-SEND-901: a MUST requirement must not have "assumption"');
    expect(text).toContain('entry MSG-SEND-902: a SHOULD requirement needs "assumption"');
    expect(text).toMatch(/entry MSG-SEND-903, field "operations\.0"/);
    expect(text).toContain('entry MSG-SEND-904: unknown field "colour"');
    expect(text).toMatch(/entry msg-send-1, field "id"/);
    expect(text).toMatch(/entry msg-send-1, field "level": must be one of MUST, SHOULD/);
    expect(text).toMatch(/entry msg-send-1, field "class": must be one of auth,/);
  });

  test('duplicate ids and invalid YAML are rejected with a clear message', () => {
    const dup = problemsOf([...valid('MSG-SEND-901'), ...valid('MSG-SEND-901')].join('\n'));
    expect(dup).toEqual(['entry MSG-SEND-901: duplicate id (entries #1 and #2)']);
    const yaml = problemsOf('- id: [unterminated');
    expect(yaml[0]).toMatch(/^not valid YAML/);
    const notList = problemsOf('id: MSG-SEND-901');
    expect(notList[0]).toMatch(/must be a YAML list/);
  });
});
