/**
 * The fault matrix: for every deliberate fault of the reference server (`listFaults()`), how the
 * suite is run to detect it and what counts as detected. Shared by the test
 * (test/trust/fault-matrix.test.ts) and the generator of docs/fault-matrix.md
 * (test/trust/write-fault-matrix.ts), so the table documents exactly what the test proves.
 *
 * A fault is detected when a `cloudcheck run` against the embedded server with that fault (hidden
 * switch CLOUDCHECK_EMBEDDED_FAULTS, src/harness/embedded.ts), restricted with `--grep` to the
 * checks of the fault's requirement, exits 1 with a failed, non-environment check whose
 * `requirement` is the fault's requirement. Faults only a load profile can see are run through
 * `runLoadCommand` and detected when it exits 1 naming the profile's invariant.
 *
 * The runs also prove the flows: a flow holding a check of the fault's requirement runs whole, and
 * must fail on that requirement (unless FLOWS_BLIND says why it cannot) and on nothing else.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoadCommand } from '../../src/cli/commands/load.ts';
import type { LoadReport } from '../../src/model/load.ts';
import { inUnit } from '../../reference/core/faults.ts';
import { faultOrigins, listFaults } from '../../reference/server.ts';
import { loadRequirements } from '../../spec/requirements.ts';
import { CONFORMANCE_CLASSES } from '../../spec/classes.ts';
import type { ConformanceClass, Level } from '../../spec/classes.ts';
import type { CheckResult } from '../../src/model/finding.ts';
import type { ConformanceReport } from '../../src/model/report.ts';
import { RUN_CHECKS } from '../../src/report/rate-invariants.ts';
import { clusterChecks } from '../../src/report/clusters.ts';
import {
  REPETITIONS_VARIABLE,
  isSelected,
  parsePattern,
  repeatedId,
  repetitionOfId,
  repetitionSuffix,
} from '../../src/harness/selection.ts';
import { suiteIndexKey } from '../../src/harness/suite-index.ts';
import { cachedJson, contentKey } from '../../src/util/disk-cache.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'cloudcheck.mjs');
export const DOC_PATH = join(ROOT, 'docs', 'fault-matrix.md');
export const REGENERATE = 'node --import tsx test/trust/write-fault-matrix.ts';

// ---------------------------------------------------------------------------------------------
// Exceptions to the automatic plan. Each entry says why.

/** Faults only a load profile observes (`cloudcheck run` has no check that can). */
export const LOAD_FAULTS: Record<string, { profile: string; invariant: string; why: string }> = {
  // Needs ~200 truly simultaneous requests on one key; the run's checks send one at a time.
  'ratelimit-non-atomic': {
    profile: 'concurrency-race',
    invariant: 'onset',
    why: 'needs 200 simultaneous requests on one key',
  },
  // Needs 10000 SMS within one hour on one key (80 bulk sends of 125): far beyond a conformance run's budget.
  'ratelimit-sms-volume-ignored': {
    profile: 'sms-volume',
    invariant: 'onset',
    why: 'needs 10000 SMS in one hour on one key',
  },
  // The hourly windows: a key's whole hour (1000), billing's (100), projects' (500) on one key.
  'ratelimit-hourly-ignored': {
    profile: 'hourly-quota',
    invariant: 'onset',
    why: 'needs 1000 requests in one hour on one key',
  },
  'ratelimit-billing-ignored': {
    profile: 'billing-hourly',
    invariant: 'onset',
    why: 'needs 100 billing requests in one hour on one key',
  },
  'ratelimit-projects-ignored': {
    profile: 'projects-hourly',
    invariant: 'onset',
    why: 'needs 500 project requests in one hour on one key',
  },
};

/**
 * Faults only a sequence of operations reveals: proved by `cloudcheck explore --families <family>`
 * (its default budget, seed 1), which must name the fault's requirement. Some a fixed check sees
 * as well; the doc says.
 */
export const EXPLORE_FAULTS: Record<string, { family: string; why: string }> = {
  'object-listing-prefix-first-page-only': {
    family: 'objects',
    why: 'needs keys of two prefixes and a listing by one of them walked page by page',
  },
  'object-listing-truncated-off-by-one': { family: 'objects', why: 'needs exactly one more key than a page holds' },
  'object-get-stale-after-reupload': {
    family: 'objects',
    why: 'needs an upload, a delete and an upload again of one key',
  },
  'object-listing-max-keys-ignored-with-prefix': {
    family: 'objects',
    why: 'needs prefix and max_keys in one listing, with more keys under the prefix than max_keys',
  },
  'object-listing-marker-skips-extension': {
    family: 'objects',
    why: 'needs keys that extend one another, walked a page at a time',
  },
  'project-second-update-lost': { family: 'projects', why: 'needs two updates of one project in a row' },
  'project-deleted-listed-beside-others': {
    family: 'projects',
    why: 'needs a deleted project and another one in the account',
  },
  'project-list-misses-newest-after-delete': {
    family: 'projects',
    why: "needs a delete in the account's history before a listing",
  },
  'msg-list-total-to-skips-bulk': {
    family: 'messaging',
    why: 'needs a bulk send to a number and the message list filtered by that number, walked to the end',
  },
  'msg-list-status-filter-first-page-only': {
    family: 'messaging',
    why: 'needs messages in two statuses and a status-filtered list walked past its first page',
  },
  'msg-campaign-details-newest': {
    family: 'messaging',
    why: 'needs two bulk sends and the details of the older campaign',
  },
  'key-revoked-listed-after-new-key': {
    family: 'api-keys',
    why: 'needs a revocation, then another key created, then the listing',
  },
  'key-revoked-served-after-new-key': {
    family: 'api-keys',
    why: 'needs a revocation, then another key created, then a request with the revoked key',
  },
  'vps-list-total-stale-after-delete': {
    family: 'compute',
    why: 'needs a VPS deleted and no VPS created since, before a listing',
  },
  'vps-list-filter-first-page-only': {
    family: 'compute',
    why: 'needs instances in two regions and a listing by one of them walked page by page',
  },
  'vps-second-update-lost': { family: 'compute', why: 'needs two updates of one VPS in a row' },
  'volume-attached-filter-sticky': {
    family: 'volumes',
    why: 'needs a volume attached and detached before a listing by attachment',
  },
  'object-listing-stale-after-overwrite': {
    family: 'objects',
    why: 'needs an object overwritten with other bytes, then the listing',
  },
  'object-head-stale-after-overwrite': {
    family: 'objects',
    why: 'needs an object overwritten with other bytes, then a HEAD of it',
  },
  'object-get-type-stale-after-overwrite': {
    family: 'objects',
    why: 'needs an object overwritten with another content type, then a download',
  },
  'project-list-stale-after-update': { family: 'projects', why: 'needs a project updated, then the listing' },
  'project-budget-limit-after-update': {
    family: 'projects',
    why: 'needs an update that sets budget_limit, then a read of the project',
  },
  'project-region-of-previous': { family: 'projects', why: 'needs two projects created with different regions' },
  'project-delete-keeps-later-resources': {
    family: 'projects',
    why: 'needs two instances put into one project, then the project deleted',
  },
  'vps-list-stale-after-update': { family: 'compute', why: 'needs an instance updated, then the listing' },
  'vps-list-pages-unfiltered': {
    family: 'compute',
    why: 'needs instances in two regions and a listing by one of them',
  },
  'key-list-expiry-of-newest': { family: 'api-keys', why: 'needs two keys with different expiries, then the listing' },
  'volume-restore-size-against-volume': {
    family: 'volume-snapshots',
    why: "needs a snapshot, the volume grown, then a restore at the snapshot's size",
  },
  'volume-resize-lost-after-snapshot': {
    family: 'volume-snapshots',
    why: 'needs a snapshot, then the volume grown and read back',
  },
  'volume-snapshot-filter-newest-volume': {
    family: 'volume-snapshots',
    why: 'needs snapshots of two volumes and a listing by the older one',
  },
  'volume-restore-reuses-volume': { family: 'volume-snapshots', why: 'needs one snapshot restored twice' },
  'volume-restore-default-current-size': {
    family: 'volume-snapshots',
    why: 'needs a snapshot, the volume grown, then a restore without a size',
  },
  'snapshot-delete-removes-newest': {
    family: 'vps-snapshots',
    why: 'needs two snapshots of one VPS and the older one deleted',
  },
  'snapshot-list-newest-per-vps': { family: 'vps-snapshots', why: 'needs two snapshots of one VPS, then the listing' },
  'vps-second-snapshot-ignored': { family: 'vps-snapshots', why: 'needs a second snapshot action on one VPS' },
  'msg-campaign-list-names-reversed': {
    family: 'messaging',
    why: 'needs two campaigns of different names, then the list of campaigns',
  },
  'msg-campaign-total-by-name': { family: 'messaging', why: 'needs two bulk sends under one campaign name' },
  'msg-template-variables-stale': { family: 'templates', why: 'needs one template sent twice with other values' },
  'msg-template-id-case-insensitive': {
    family: 'templates',
    why: "needs a template, then a send naming its id in other letters' case",
  },
  'msg-template-unknown-cached-not-found': { family: 'templates', why: 'needs one unknown template id sent to twice' },
  'msg-template-list-drops-used': {
    family: 'templates',
    why: 'needs a send from a template, then the list of templates',
  },
  'msg-list-leaves-out-template-sends': {
    family: 'templates',
    why: 'needs a send from a template, then the message list by recipient',
  },
  'msg-list-template-text-raw': {
    family: 'templates',
    why: 'needs a send from a template, then the message list by recipient',
  },
};

/**
 * Faults only inputs drawn by `cloudcheck run --examples N` reveal (src/generate/examples.ts): a
 * boundary the single seeded example of each operation never reaches. Their run gets these
 * arguments besides the usual grep; `cloudcheck run` without them misses the fault.
 */
export const EXAMPLES_FAULTS: Record<string, { args: string[]; why: string }> = {
  'msg-length-in-bytes': {
    args: ['--examples', '20'],
    why: 'needs a text beyond ASCII whose UTF-8 bytes exceed 1600 while its characters do not; the fixed checks send ASCII',
  },
};

/**
 * Narrower greps. The automatic grep selects every check of the requirement; where that is dozens
 * of generated checks seeing the same fault, a sample is enough, and cheaper: every failed check
 * makes Playwright replace the inner run's worker (a few seconds of CPU each).
 */
export const GREP_OVERRIDES: Record<string, { grep: string; why: string }> = {
  // 86 generated `auth-bad-key` checks, one per operation: two (billing, compute) prove it.
  'auth-ignored': {
    grep: '\\[AUTH-KEY-002\\] GET /(account|regions) with',
    why: 'two of the 86 generated bad-key checks',
  },
  // 18 checks (unknown route, unknown ids): the unknown route and one unknown id prove it.
  'errors-envelope-renamed': {
    grep: '\\[ERR-ENVELOPE-001\\] (an unknown route|GET /vps/\\{vps_id\\} with an unknown)',
    why: 'two of the 18 envelope checks',
  },
  // 86 generated `auth-no-key` checks plus the smoke one: the smoke check and two generated ones prove it.
  'auth-missing-header-served': {
    grep: '\\[AUTH-KEY-001\\] (a request without an API key|GET /(account|regions) without)',
    why: 'the smoke check and two of the 86 generated no-key checks',
  },
};

/** Extra environment for one fault's run. */
export const RUN_ENV: Record<string, Record<string, string>> = {
  // The use-after-delete steps poll until the deleted resource disappears; against a ghost they
  // poll to the deadline. The reference server's delays are far below it.
  'vps-delete-ghost': { CLOUDCHECK_ASYNC_TIMEOUT: '5' },
  // The vps.deleted step waits for an event that never comes under this name; the reference
  // server delivers events within milliseconds.
  'webhook-vps-deleted-renamed': { CLOUDCHECK_ASYNC_TIMEOUT: '5' },
  // The expiry step polls until the key is refused, from its expires_at two seconds on; a key that
  // never expires is polled to the deadline. The reference server refuses it from expires_at on.
  'auth-expired-accepted': { CLOUDCHECK_ASYNC_TIMEOUT: '5' },
  // The retry step waits for a refused delivery to come again (at most 30 s); against a target
  // that never retries it waits that long. The reference server retries after 200 ms.
  'webhook-no-retry': { CLOUDCHECK_ASYNC_TIMEOUT: '5' },
};

/**
 * Checks that must be among a fault's detectors, beyond "a check of the requirement": the run-wide
 * invariants (src/report/rate-invariants.ts, the checker `cloudcheck load` uses too) must see the
 * header faults on the responses of the whole run, not only the burst flows.
 */
export const MUST_DETECT: Record<string, string[]> = {
  'ratelimit-headers-missing-compute': ['rate-limits.run.headers-present'],
  'ratelimit-remaining-frozen': ['rate-limits.run.remaining-decrements'],
  'ratelimit-reset-millis': ['rate-limits.run.reset-epoch'],
};

/**
 * Flows the grep runs whole (they hold a check of the fault's requirement) that cannot see this
 * fault. Every other such flow must fail on the requirement; these must not (so the list cannot rot).
 */
export const FLOWS_BLIND: Record<string, { flows: string[]; why: string }> = {
  'ratelimit-headers-missing-compute': {
    flows: ['rate-limits.burst-messaging'],
    why: 'the fault drops the headers of compute responses only',
  },
  // "Always delivered" is one of the outcomes a single send may have; only the mix over many sends
  // (test-mode.random-number.mix) can tell.
  'msg-random-always-delivered': {
    flows: ['flow.test-mode-numbers'],
    why: 'its random step accepts either outcome of one send',
  },
};

/**
 * Faults the suite does not detect yet, each with the check that is missing. The test asserts every
 * entry really is undetected (so the list cannot rot) instead of failing on it. Keep it empty.
 */
export const KNOWN_UNDETECTED: Record<string, string> = {};

/**
 * Faults that fail more than one check and genuinely show more than one cause, or a first cause
 * under 80 % of their failed checks (issue 36's bound, test/trust/fault-matrix.test.ts), each with
 * the reason. The test asserts each entry really is outside the bound (so the list cannot rot).
 */
export const CAUSE_EXCEPTIONS: Record<string, string> = {
  // 2 causes, the first 1 of 2 checks (50 %), in the full matrix.
  'ratelimit-sms-headers-missing':
    'two judgements of the missing X-SMS-* headers: the burst flow reads them on its sends (a header finding), the run-wide invariant sms-headers-present judges every send of the run at once (src/report/rate-invariants.ts fails any invariant in the same terms); merging them would need that invariant to fail as a header finding',
  // 2 causes, the first 2 of 3 checks (67 %), tried with this fault's run.
  'ratelimit-429-wrong-code':
    "two judgements of the one wrong code: the burst flows read one 429's error envelope (error.code too_many_requests), the run-wide invariant 429-code judges every 429 of the run at once (src/report/rate-invariants.ts fails any invariant in the same terms); merging them would need that invariant to fail as an envelope finding",
};

/** The bound on a fault's causes (issue 36): the first covers at least this share, and at most MAX_CAUSES. */
export const FIRST_CAUSE_SHARE = 0.8;
export const MAX_CAUSES = 3;

// ---------------------------------------------------------------------------------------------
// The check catalogue of the suite (what `playwright test --list` of the conformance suite sees).

export interface CatalogueCheck {
  id: string;
  requirement: string;
  level: Level;
  class: ConformanceClass;
  /** Flow id and the flow's describe title (`[flow] VPS lifecycle`), for flow steps. */
  flow: string | null;
  flowTitle: string | null;
  kind: 'contract' | 'flow' | 'check' | 'run-wide';
  /** The suite file, relative to suites/ (`flows/billing.spec.ts`); '' for run-wide checks. */
  file: string;
  /** The test's title (`[REQ-ID] title`), which `--grep` matches. */
  title: string;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CLOUDCHECK_')) env[k] = v;
  return env;
}

function playwrightCli(): string {
  return createRequire(import.meta.url).resolve('@playwright/test/cli');
}

interface ListSuite {
  title: string;
  /** The file suites (top level) name their spec file; a spec's own `file` is where `test()` was called. */
  file?: string;
  specs?: Array<{ title: string; tests: Array<{ annotations?: Array<{ type: string; description?: string }> }> }>;
  suites?: ListSuite[];
}

let catalogue: Promise<CatalogueCheck[]> | undefined;

/**
 * Every check of the conformance suite: listed once per process (~3 s of CPU), and kept in the
 * content-keyed cache under the suite index's key (suites, harness, specification, config, lock
 * file) and this file's contents, so that the runner of `npm test` and each of its workers that
 * needs it list only once between them.
 */
export function listSuiteChecks(): Promise<CatalogueCheck[]> {
  // This file too: it decides what is read from the listing.
  catalogue ??= cachedJson(
    'suite-catalogue',
    contentKey([fileURLToPath(import.meta.url)], suiteIndexKey(cleanEnv())),
    listChecks,
  );
  return catalogue;
}

async function listChecks(): Promise<CatalogueCheck[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcheck-matrix-list-'));
  try {
    const env = {
      ...cleanEnv(),
      FORCE_COLOR: '0',
      CLOUDCHECK_DRIVEN: '1',
      CLOUDCHECK_CLASSES: CONFORMANCE_CLASSES.join(','),
      CLOUDCHECK_RUN_TMP: join(dir, 'tmp'),
      CLOUDCHECK_REPORT_DIR: join(dir, 'report'),
    };
    const { code, stdout, stderr } = await spawnCollect(
      process.execPath,
      [playwrightCli(), 'test', '-c', join(ROOT, 'playwright.config.ts'), '--list', '--reporter=json'],
      { env, cwd: ROOT },
    );
    if (code !== 0)
      throw new Error(
        `listing the suite's checks failed (exit ${code}):\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`,
      );
    const root = JSON.parse(stdout) as { suites: ListSuite[] };
    const byId = new Map<string, CatalogueCheck>();
    const walk = (suite: ListSuite, flowTitle: string | null, file: string): void => {
      const title = suite.title.startsWith('[flow] ') ? suite.title : flowTitle;
      for (const spec of suite.specs ?? []) {
        for (const t of spec.tests) {
          const a = Object.fromEntries((t.annotations ?? []).map((x) => [x.type, x.description ?? '']));
          const id = a['cc.id'];
          if (!id || byId.has(id)) continue;
          const flow = a['cc.flow'] || null;
          byId.set(id, {
            id,
            requirement: a['cc.requirement']!,
            level: a['cc.level'] as Level,
            class: a['cc.class'] as ConformanceClass,
            flow,
            flowTitle: flow ? title : null,
            kind: flow ? 'flow' : id.startsWith('contract.') ? 'contract' : 'check',
            file,
            title: spec.title,
          });
        }
      }
      for (const child of suite.suites ?? []) walk(child, title, file);
    };
    for (const s of root.suites) walk(s, null, s.file ?? s.title);
    // The run-wide rate-limit checks are made by the reporter, not listed as tests.
    for (const c of Object.values(RUN_CHECKS)) {
      byId.set(c.id, {
        id: c.id,
        requirement: c.requirement,
        level: c.level,
        class: 'rate-limits',
        flow: null,
        flowTitle: null,
        kind: 'run-wide',
        file: '',
        title: `[${c.requirement}] ${c.id}`,
      });
    }
    return [...byId.values()];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The hand-written flows: every flow defined in suites/flows/*.spec.ts, by id (`flow.billing`). */
export function suiteFlows(checks: readonly CatalogueCheck[]): string[] {
  return [...new Set(checks.filter((c) => c.flow && c.file.startsWith('flows/')).map((c) => c.flow!))].sort();
}

/** The spec files of suites/flows/ (each must define a flow: a file that fails to load defines none). */
export function flowSpecFiles(): string[] {
  return readdirSync(join(ROOT, 'suites', 'flows'))
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => `flows/${f}`)
    .sort();
}

/** The flows (ids) among `checkIds`' checks. */
export function flowsOf(checkIds: readonly string[], checks: readonly CatalogueCheck[]): string[] {
  const flowById = new Map(checks.map((c) => [c.id, c.flow]));
  return [...new Set(checkIds.map((id) => flowById.get(id)).filter((f): f is string => !!f))].sort();
}

// ---------------------------------------------------------------------------------------------
// Plans.

export interface FaultPlan {
  fault: string;
  requirement: string;
  level: Level;
  class: ConformanceClass;
  description: string;
  mode: 'run' | 'load' | 'explore';
  /** `cloudcheck run --grep`: the requirement's checks plus every flow holding one of them (whole). */
  grep: string;
  /** The flows (ids) that grep runs whole: each must fail on the requirement. */
  flows: string[];
  /** SHOULD requirements fail the gate only with --strict. */
  strict: boolean;
  /** Extra `cloudcheck run` arguments (EXAMPLES_FAULTS: `--examples 20`); [] for the others. */
  args: string[];
  load?: { profile: string; invariant: string; why: string };
  /** The explore family whose sequences find it (EXPLORE_FAULTS): a shared exploration limits the fault to that family's requests. */
  family?: string;
  env: Record<string, string>;
  /**
   * The checks of the requirement as scope units (reference/core/faults.ts): every flow the grep
   * runs, every generated operation and hand-written check of the requirement ([] outside `run`).
   */
  units: string[];
  /** Whether the fault can be limited to `units` in a shared run (scopable says when not). */
  scopable: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The grep for a requirement. Grepping a flow step alone would run it without the steps that set
 * up its state (a serial describe runs only the selected tests), so every flow holding a check of
 * the requirement is selected whole, by its describe title.
 */
export function grepFor(requirement: string, checks: readonly CatalogueCheck[]): string {
  const flows = [
    ...new Set(checks.filter((c) => c.requirement === requirement && c.flowTitle).map((c) => c.flowTitle!)),
  ].sort();
  return [`\\[${escapeRegExp(requirement)}\\]`, ...flows.map(escapeRegExp)].join('|');
}

export function planFaults(checks: readonly CatalogueCheck[]): FaultPlan[] {
  const reqs = new Map(loadRequirements().map((r) => [r.id, r]));
  return listFaults().map((f) => {
    const req = reqs.get(f.requirement);
    if (!req) throw new Error(`fault ${f.name} points at ${f.requirement}, which is not in spec/requirements.yaml`);
    const load = LOAD_FAULTS[f.name];
    const explore = EXPLORE_FAULTS[f.name];
    const override = GREP_OVERRIDES[f.name];
    const mode = load ? 'load' : explore ? 'explore' : 'run';
    const own = selectedChecks(f.requirement, checks, override?.grep);
    return {
      fault: f.name,
      requirement: f.requirement,
      level: req.level,
      class: req.class,
      description: f.description,
      mode,
      grep: override?.grep ?? grepFor(f.requirement, checks),
      flows:
        load || explore || override
          ? []
          : [...new Set(checks.filter((c) => c.requirement === f.requirement && c.flow).map((c) => c.flow!))].sort(),
      strict: req.level === 'SHOULD',
      args: load || explore ? [] : (EXAMPLES_FAULTS[f.name]?.args ?? []),
      ...(load ? { load } : {}),
      ...(explore ? { family: explore.family } : {}),
      env: RUN_ENV[f.name] ?? {},
      units: mode === 'run' ? unitsOf(own) : [],
      // A run with its own environment shares only with faults of the same (planBatches).
      scopable: mode === 'run' && !EXAMPLES_FAULTS[f.name] && !f.serverWide && scopable(f.requirement, own, checks),
    };
  });
}

/**
 * Checks whose requests a fault limited to checks cannot tell apart: the run-wide invariants
 * read every request of the run, whatever its check. (Every other request names its check: the
 * REST client's and the plain ones by the check header, the S3 clients' through the access key
 * they sign with, which the reference server ties to the check that made it.)
 */
function sendsUntagged(c: CatalogueCheck): boolean {
  return c.kind === 'run-wide';
}

/**
 * The requirement's checks a fault's run selects: every one, or those a narrower grep
 * (GREP_OVERRIDES) matches, by the rule `cloudcheck run --grep` selects with (selection.ts).
 */
function selectedChecks(
  requirement: string,
  checks: readonly CatalogueCheck[],
  grep: string | undefined,
): CatalogueCheck[] {
  const selection = { classes: null, grep: grep ? parsePattern(grep) : null, grepInvert: null };
  return checks.filter(
    (c) =>
      c.requirement === requirement &&
      isSelected(selection, { file: c.file, describe: c.flowTitle, title: c.title, tags: [], class: c.class }),
  );
}

/**
 * The scope units of a fault's checks: a flow step's flow (the grep runs it whole), a generated
 * check's operation (`contract.<operation>`: the checks of one operation share request scenarios,
 * so two faults never split one), a hand-written check itself.
 */
function unitsOf(own: readonly CatalogueCheck[]): string[] {
  const units = new Set<string>();
  for (const c of own) {
    // The header names the step; a flow's id must be the prefix of every step's id.
    if (c.flow && !c.id.startsWith(`${c.flow}.`))
      throw new Error(`flow step ${c.id} does not start with its flow's id`);
    units.add(c.flow ?? (c.kind === 'contract' ? c.id.split('.').slice(0, 2).join('.') : c.id));
  }
  return [...units].sort();
}

/** Whether two scope units share a check, by the server's own rule (one is in the other). */
export function unitsOverlap(a: string, b: string): boolean {
  return inUnit(a, b) || inUnit(b, a);
}

/**
 * Whether every request a fault's checks send names its check, so that a fault limited to them
 * reaches all of them: not where a check of its requirement (the run-wide ones come with any
 * grep) or of a flow its checks run cannot (sendsUntagged).
 */
function scopable(requirement: string, own: readonly CatalogueCheck[], checks: readonly CatalogueCheck[]): boolean {
  const flows = new Set(own.flatMap((c) => (c.flow ? [c.flow] : [])));
  return !checks.some(
    (c) => (c.requirement === requirement || (c.flow !== null && flows.has(c.flow))) && sendsUntagged(c),
  );
}

// ---------------------------------------------------------------------------------------------
// Running.

export interface FailedCheck {
  id: string;
  requirement: string;
  classification?: string;
}

export interface Outcome {
  fault: string;
  exit: number | null;
  /** Failed, non-environment checks naming the fault's requirement (or `load:<profile>:<invariant>`). */
  detectedBy: string[];
  detected: boolean;
  /** Every failed check of the run (empty for load runs). */
  failed: FailedCheck[];
  /** The causes (src/report/clusters.ts) of `failed`; absent for load runs, which have no checks. */
  causes?: CauseFigures;
  /** Resources the run could not delete (`kind id: reason`). */
  leaks: string[];
  /** Short status lines of every check of the run, for failure messages. */
  summary: string;
  durationMs: number;
  reportDir: string;
  error?: string;
}

export interface Handle {
  promise: Promise<Outcome>;
  /** Stops a still-running `cloudcheck run` (SIGINT: it tears down and exits). */
  cancel(): void;
}

function spawnCollect(
  cmd: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string; onChild?: (c: ChildProcess) => void },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    options.onChild?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function summarize(checks: readonly CheckResult[]): string {
  return checks
    .map(
      (c) =>
        `${c.status} ${c.id} [${c.requirement}]${c.classification ? ` (${c.classification})` : ''}${c.message ? `: ${c.message.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
    )
    .join('\n');
}

export function failedOn(checks: readonly CheckResult[], requirement: string): string[] {
  return checks
    .filter((c) => c.status === 'failed' && c.requirement === requirement && c.classification !== 'environment')
    .map((c) => c.id)
    .sort();
}

interface RunOptions {
  grep?: string;
  args?: string[];
  faults: string[];
  strict: boolean;
  reportDir: string;
  env?: Record<string, string>;
  requirement?: string;
  label: string;
  workers?: number;
}

/** What one `cloudcheck run` gave: its exit and report's checks, or why there is no report. */
interface RunResult {
  exit: number | null;
  durationMs: number;
  reportDir: string;
  checks: CheckResult[];
  leaks: string[];
  error?: string;
}

/** One `cloudcheck run` with `--grep`; `faults` empty for a clean run. */
function startRunReport(options: RunOptions): { promise: Promise<RunResult>; cancel(): void } {
  let child: ChildProcess | undefined;
  let cancelled = false;
  const started = Date.now();
  const promise = (async (): Promise<RunResult> => {
    mkdirSync(options.reportDir, { recursive: true });
    const args = [
      BIN,
      'run',
      ...(options.grep ? ['--grep', options.grep] : []),
      ...(options.args ?? []),
      '--report-dir',
      options.reportDir,
      ...(options.strict ? ['--strict'] : []),
      // A fault's run is judged on its defects: a check of it that got no answer (a loaded machine)
      // need not run again (--rerun-unanswered), the run's time stays its own.
      ...(options.faults.length ? ['--rerun-unanswered', '0'] : []),
    ];
    const env = {
      ...cleanEnv(),
      FORCE_COLOR: '0',
      // One inner worker: the grep selects a few checks, and every worker costs a start-up (the
      // runs of the matrix are many and concurrent, so CPU, not wall time, is what to save).
      CLOUDCHECK_WORKERS: String(options.workers ?? 1),
      // The reference server settles in milliseconds (its longest wait in a full run: 2 s, a key
      // or a presigned URL expiring); a fault that never settles (a ghost that stays readable, a
      // project that keeps its resources) is seen at this deadline instead of 300 s. A run waits
      // out the deadline of each such fault it holds, and its group's next tests wait for it.
      CLOUDCHECK_ASYNC_TIMEOUT: '10',
      ...(options.faults.length ? { CLOUDCHECK_EMBEDDED_FAULTS: options.faults.join(',') } : {}),
      ...options.env,
    };
    const { code, stderr } = await spawnCollect(process.execPath, args, {
      env,
      cwd: options.reportDir,
      onChild: (c) => {
        child = c;
        if (cancelled) c.kill('SIGINT');
      },
    });
    const base = { exit: code, durationMs: Date.now() - started, reportDir: options.reportDir, checks: [], leaks: [] };
    let report: ConformanceReport;
    try {
      report = JSON.parse(readFileSync(join(options.reportDir, 'report.json'), 'utf8')) as ConformanceReport;
    } catch {
      return { ...base, error: `cloudcheck run wrote no report (exit ${code}):\n${stderr.slice(-3000)}` };
    }
    if (report.checks.length === 0) {
      return {
        ...base,
        error: `no check ran: --grep '${options.grep ?? ''}' selects nothing (a suite file that failed to load, or a renamed check?)\n${stderr.slice(-2000)}`,
      };
    }
    return { ...base, checks: report.checks, leaks: (report.leaks ?? []).map((l) => `${l.kind} ${l.id}: ${l.reason}`) };
  })();
  return {
    promise,
    cancel() {
      cancelled = true;
      if (child && child.exitCode === null) child.kill('SIGINT');
    },
  };
}

/** A fault's failed checks of the target as causes: how many checks, how many causes, the first's checks. */
export interface CauseFigures {
  checks: number;
  causes: number;
  first: number;
}

/**
 * The causes of a fault's own failed checks (in a shared run, its repetition's checks of its
 * requirement and those of no member's), as the report of a run with that fault alone shows them.
 */
export function causeFigures(failed: readonly CheckResult[]): CauseFigures {
  const clusters = clusterChecks(failed);
  return {
    checks: clusters.reduce((n, c) => n + c.checks.length, 0),
    causes: clusters.length,
    first: clusters[0]?.checks.length ?? 0,
  };
}

function failedChecks(checks: readonly CheckResult[]): FailedCheck[] {
  return checks
    .filter((c) => c.status === 'failed')
    .map((c) => ({
      id: c.id,
      requirement: c.requirement,
      ...(c.classification ? { classification: c.classification } : {}),
    }));
}

/** One `cloudcheck run` with `--grep`; `faults` empty for a clean run. */
export function startRun(options: RunOptions): Handle {
  const handle = startRunReport(options);
  const promise = handle.promise.then(({ checks, ...run }): Outcome => {
    const detectedBy = options.requirement && !run.error ? failedOn(checks, options.requirement) : [];
    return {
      ...run,
      fault: options.label,
      detectedBy,
      detected: run.exit === 1 && detectedBy.length > 0,
      failed: failedChecks(checks),
      causes: causeFigures(checks),
      summary: summarize(checks),
    };
  });
  return { promise, cancel: () => handle.cancel() };
}

/** One load profile against the embedded server with the fault (in this process). */
export function startLoad(plan: FaultPlan, reportDir: string): Handle {
  const started = Date.now();
  const { profile, invariant } = plan.load!;
  const promise = (async (): Promise<Outcome> => {
    mkdirSync(reportDir, { recursive: true });
    let text = '';
    // sms-volume aligns to an hour with 60 s left; give it room for that wait.
    const exit = await runLoadCommand({
      profiles: [profile],
      faults: [plan.fault],
      reportDir,
      maxWait: 70,
      out: (t) => void (text += t),
      err: (t) => void (text += t),
    });
    let load: LoadReport | undefined;
    try {
      load = (JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { load?: LoadReport }).load;
    } catch {
      load = undefined;
    }
    const violations = load?.profiles[0]?.violations ?? [];
    const named = violations.some((v) => v.invariant === invariant);
    return {
      fault: plan.fault,
      exit,
      detectedBy: named ? [`load:${profile}:${invariant}`] : [],
      detected: exit === 1 && named,
      failed: [],
      leaks: [],
      summary: `${text.slice(-3000)}\nviolations: ${violations
        .map((v) => `${v.invariant}: ${v.message}`)
        .join('; ')
        .slice(0, 2000)}`,
      durationMs: Date.now() - started,
      reportDir,
    };
  })();
  // In-process: nothing to stop; it ends on its own within its max wait.
  return { promise, cancel() {} };
}

/**
 * `cloudcheck explore --families` (the members' families; default settings, seed 1) against the
 * embedded server with the faults of `plans`, each of another family: with several, each fault is
 * limited to its family's requests (they name it: explore.<family>), so each family meets its own
 * fault as if it were alone, and a MUST finding ends that family only. Each fault's outcome is
 * read from the one report.
 */
export function startExploration(
  plans: readonly FaultPlan[],
  reportDir: string,
): { promise: Promise<Map<string, Outcome>>; cancel(): void } {
  let child: ChildProcess | undefined;
  let cancelled = false;
  const started = Date.now();
  const scopes = Object.fromEntries(plans.map((p) => [p.fault, [`explore.${p.family ?? ''}`]]));
  const promise = (async (): Promise<Map<string, Outcome>> => {
    mkdirSync(reportDir, { recursive: true });
    const env = {
      ...cleanEnv(),
      FORCE_COLOR: '0',
      CLOUDCHECK_EMBEDDED_FAULTS: plans.map((p) => p.fault).join(','),
      ...(plans.length > 1 ? { CLOUDCHECK_EMBEDDED_FAULT_SCOPES: JSON.stringify(scopes) } : {}),
    };
    const strict = plans.some((p) => p.strict) ? ['--strict'] : [];
    // Only the members' families: a MUST finding ends its family, and with no other family
    // exploring on, the run ends there instead of spending the rest of the budget elsewhere.
    const families = ['--families', [...new Set(plans.map((p) => p.family))].join(',')];
    const { code, stdout, stderr } = await spawnCollect(
      process.execPath,
      [BIN, 'explore', '--report-dir', reportDir, ...families, ...strict],
      {
        env,
        cwd: reportDir,
        onChild: (c) => {
          child = c;
          if (cancelled) c.kill('SIGINT');
        },
      },
    );
    const base = { exit: code, durationMs: Date.now() - started, reportDir, leaks: [] };
    let report: ConformanceReport | undefined;
    try {
      report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as ConformanceReport;
    } catch {
      report = undefined;
    }
    const failed = (report?.checks ?? [])
      .filter((c) => c.status === 'failed')
      .map((c) => ({
        id: c.id,
        requirement: c.requirement,
        ...(c.classification ? { classification: c.classification } : {}),
      }));
    const requirements = new Set(plans.map((p) => p.requirement));
    // A finding on a requirement no member breaks is every member's problem.
    const foreign = failed.filter((c) => !requirements.has(c.requirement));
    const members =
      plans.length > 1 ? `exploration shared by ${plans.map((p) => `${p.fault} (${p.family})`).join(', ')}\n` : '';
    return new Map(
      plans.map((plan): [string, Outcome] => {
        if (!report)
          return [
            plan.fault,
            {
              ...base,
              fault: plan.fault,
              detectedBy: [],
              detected: false,
              failed: [],
              summary: '',
              error: `cloudcheck explore wrote no report (exit ${code}):\n${stderr.slice(-3000)}`,
            },
          ];
        const detectedBy = failedOn(report.checks, plan.requirement);
        return [
          plan.fault,
          {
            ...base,
            fault: plan.fault,
            detectedBy,
            detected: code === 1 && detectedBy.length > 0,
            failed: [...failed.filter((c) => c.requirement === plan.requirement), ...foreign],
            // Only the fault's own checks: its partners' causes are theirs.
            causes: causeFigures(
              report.checks.filter((c) => c.requirement === plan.requirement || !requirements.has(c.requirement)),
            ),
            summary: `${members}${stdout.slice(-2000)}\n${summarize(report.checks)}`,
          },
        ];
      }),
    );
  })();
  return {
    promise,
    cancel() {
      cancelled = true;
      if (child && child.exitCode === null) child.kill('SIGINT');
    },
  };
}

/** One fault's exploration (startExploration). */
export function startExplore(plan: FaultPlan, reportDir: string): Handle {
  const handle = startExploration([plan], reportDir);
  return { promise: handle.promise.then((outcomes) => outcomes.get(plan.fault)!), cancel: () => handle.cancel() };
}

export function startFault(plan: FaultPlan, reportDir: string): Handle {
  if (plan.mode === 'load') return startLoad(plan, reportDir);
  if (plan.mode === 'explore') return startExplore(plan, reportDir);
  return startRun({
    grep: plan.grep,
    args: plan.args,
    faults: [plan.fault],
    strict: plan.strict,
    reportDir,
    env: plan.env,
    requirement: plan.requirement,
    label: plan.fault,
  });
}

// ---------------------------------------------------------------------------------------------
// Shared runs (npm test): faults that cannot interact run together, one run per batch.

/**
 * At most this many faults share one run: each run costs about 2.4 s of CPU to start, and the
 * matrix keeps a few in flight, so fewer but longer runs until the last one ends late.
 */
const BATCH_SIZE = 10;

/**
 * The reference-server plugins (fault origins, `faultOrigins()`) whose routes each flow sends
 * requests to, beyond the one its checks are filed under: measured from the requests of a clean
 * run (the `cc.seen` annotations of a `playwright test --reporter=json` of the suite), plus `s3`
 * for the storage flows (the SDK's requests are not recorded there). A fault of one of these
 * plugins can break the flow, so it never shares a run with a fault whose grep runs the flow.
 * An entry that misses a plugin makes a shared run differ from the committed solo row, which fails
 * the fault's test (it does not pass silently).
 */
export const FLOW_ORIGINS: Record<string, readonly string[]> = {
  'smoke.flow.project': ['projects'],
  'rate-limits.burst-messaging': ['api-keys', 'messaging'],
  'rate-limits.burst-compute': ['api-keys', 'compute'],
  'flow.messaging-consistency': ['messaging'],
  'flow.messaging-lists': ['messaging'],
  'flow.template-send': ['messaging'],
  'flow.test-mode-numbers': ['messaging', 'billing'],
  'flow.compute-events': ['compute', 'messaging'],
  'flow.webhooks': ['messaging'],
  'flow.vps-lifecycle': ['compute'],
  'flow.buckets': ['compute', 'storage-objects', 's3'],
  'flow.multipart-upload': ['compute', 'storage-objects', 's3'],
  'flow.objects-listing': ['compute', 'storage-objects', 's3'],
  'flow.presigned-urls': ['compute', 'storage-objects', 's3'],
  'flow.volumes': ['compute', 'storage-volumes'],
  'flow.billing': ['billing'],
  'flow.projects': ['compute', 'projects'],
  'flow.api-keys': ['billing', 'api-keys', 'projects'],
  'flow.isolation': [
    'billing',
    'api-keys',
    'messaging',
    'projects',
    'compute',
    'storage-objects',
    'storage-volumes',
    's3',
  ],
};

/**
 * Faults that share one `cloudcheck run` in the test (docs/fault-matrix.md is still generated
 * from one run per fault). Members name other requirements (a failure is attributed by its
 * requirement), and each member either:
 * - is limited to its own checks (`scopable`, `units`; reference/core/faults.ts: the run's
 *   requests name their check, and the fault bends only its own), so members of one plugin can
 *   share a run as long as no flow or operation belongs to two of them; or
 * - bends every request of the run (not scopable: a check of its requirement sends requests the
 *   server cannot tell apart), so it joins only where no other member's checks send requests to
 *   its plugin and its own checks send none to the plugin of another such member (FLOW_ORIGINS:
 *   the volumes flow boots a VPS, so a compute fault could break it), never as a fault of the
 *   shared core, which touches every area.
 * The test then holds each fault's row of the batch to the committed row of its own solo run, so
 * an interaction the rule missed still fails it. A batch with a SHOULD fault runs with --strict;
 * that changes nothing for the MUST members, whose runs exit 1 on their own failures either way.
 */
export function planBatches(plans: readonly FaultPlan[]): FaultPlan[][] {
  const origins = faultOrigins();
  interface Batch {
    plans: FaultPlan[];
    requirements: Set<string>;
    /** Scope units of every member: no flow or operation belongs to two. */
    units: string[];
    /** Plugins of the members that bend every request. */
    bending: Set<string>;
    /** Every plugin a member's checks send requests to. */
    touched: Set<string>;
    /** A fault that must run alone: nothing joins it. */
    alone: boolean;
    /** The members' own environment (RUN_ENV), the same for all of them. */
    env: string;
  }
  const batches: Batch[] = [];
  // Explorations share among themselves, one fault a family (startExploration limits each to its family).
  const explorations: FaultPlan[][] = [];
  // The SHOULD ones first, into as few runs as their families allow: a SHOULD finding ends no
  // family, so a --strict exploration spends its whole budget, where a MUST one ends at its finding.
  const byStrict = plans.filter((p) => p.mode === 'explore').sort((a, b) => Number(b.strict) - Number(a.strict));
  for (const plan of byStrict) {
    const fits = (b: FaultPlan[]): boolean =>
      b.every((p) => p.family !== plan.family && p.requirement !== plan.requirement);
    const batch = explorations.find(fits);
    if (batch) batch.push(plan);
    else explorations.push([plan]);
  }
  const others = plans.filter((p) => p.mode !== 'explore');
  // Faults that bend every request first (today only those that run alone: every check the
  // matrix runs names itself to the server): they rarely share with each other, and each then
  // finds room among the limited ones, which share with nearly anything.
  for (const plan of [...others].sort((a, b) => Number(a.scopable) - Number(b.scopable))) {
    const origin = origins.get(plan.fault) ?? 'core';
    const touched = new Set([origin, ...plan.flows.flatMap((f) => FLOW_ORIGINS[f] ?? ['core'])]);
    const limited = plan.scopable && plan.units.length > 0;
    // A run's environment (RUN_ENV: a shorter deadline) is its members' own: they share it.
    const env = envKey(plan.env);
    // A fault that bends every request runs alone when it has extra arguments (--examples) or an
    // environment of its own (they would change its partners' runs), or a narrower grep (its
    // plan names no flows to keep apart).
    const bendsAll =
      !limited &&
      plan.mode === 'run' &&
      plan.args.length === 0 &&
      origin !== 'core' &&
      !touched.has('core') &&
      !RUN_ENV[plan.fault] &&
      !GREP_OVERRIDES[plan.fault];
    const fits = (b: Batch): boolean =>
      !b.alone &&
      b.env === env &&
      b.plans.length < BATCH_SIZE &&
      !b.requirements.has(plan.requirement) &&
      [...b.bending].every((o) => !touched.has(o)) &&
      plan.units.every((u) => b.units.every((v) => !unitsOverlap(u, v))) &&
      (limited || !b.touched.has(origin));
    const batch = limited || bendsAll ? batches.find(fits) : undefined;
    if (batch) {
      batch.plans.push(plan);
      batch.requirements.add(plan.requirement);
      batch.units.push(...plan.units);
      if (!limited) batch.bending.add(origin);
      for (const t of touched) batch.touched.add(t);
    } else {
      const alone = !limited && !bendsAll;
      batches.push({
        plans: [plan],
        requirements: new Set([plan.requirement]),
        units: [...plan.units],
        bending: new Set(limited ? [] : [origin]),
        touched,
        alone,
        env,
      });
    }
  }
  return [...batches.map((b) => b.plans), ...explorations];
}

/**
 * Whether a batch's faults wait out a deadline (their own environment, RUN_ENV, shortens the run's
 * deadline for changes that never settle): such a run mostly waits, like a fault run alone.
 */
export function waitsOut(batch: readonly FaultPlan[]): boolean {
  return batch.some((p) => Object.keys(p.env).length > 0 || p.mode === 'explore');
}

/** One string per environment, whatever the order of its variables: members of a batch share one. */
export function envKey(env: Record<string, string>): string {
  return JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Whether a batch can be one repetition of a run that repeats several (startShared): every member
 * bends its own checks only (a fault that bends every request would reach every repetition), with
 * no environment or arguments of its own.
 */
export function repeatable(batch: readonly FaultPlan[]): boolean {
  return batch.every((p) => p.scopable && p.units.length > 0 && p.args.length === 0 && Object.keys(p.env).length === 0);
}

/**
 * One run for one batch, or for several as repetitions of one run: batch k is repetition k
 * (selection.ts: its own grep selects its checks, under the ids `<id>#k`), each member limited to
 * its units in its own repetition (`<unit>#k`), so the faults of one flow share a run, each seen
 * by its own repetition of the flow, and the run's start-up (two seconds of CPU) is paid once.
 * Each fault's outcome is read from its own repetition, as if it had run alone.
 */
export function startShared(
  batches: readonly (readonly FaultPlan[])[],
  reportDir: string,
): { promise: Promise<Map<string, Outcome>>; cancel(): void } {
  const all = batches.flat();
  if (all.every((p) => p.mode === 'explore')) {
    if (batches.length > 1) throw new Error('explorations do not repeat: one batch a run');
    return startExploration(all, reportDir);
  }
  if (all.length === 1) {
    const handle = startFault(all[0]!, reportDir);
    return { promise: handle.promise.then((o) => new Map([[o.fault, o]])), cancel: () => handle.cancel() };
  }
  const repeated = batches.length > 1;
  if (repeated && !batches.every(repeatable))
    throw new Error(
      `only batches whose faults bend their own checks repeat in one run: ${all.map((p) => p.fault).join(', ')}`,
    );
  // Each scopable member bends its own checks only, in its own repetition (planBatches); the others every request.
  const scopes = Object.fromEntries(
    batches.flatMap((batch, k) =>
      batch.filter((p) => p.scopable).map((p) => [p.fault, p.units.map((u) => u + repetitionSuffix(k))]),
    ),
  );
  const selection = repeatedSelection(batches.map((batch) => batch.map((p) => `(?:${p.grep})`).join('|')));
  const first = batches[0]!;
  const handle = startRunReport({
    grep: selection.grep,
    faults: all.map((p) => p.fault),
    strict: all.some((p) => p.strict),
    reportDir,
    label: all.map((p) => p.fault).join('+'),
    // The members' environment is one (planBatches; repetitions have none).
    env: {
      ...first[0]!.env,
      ...(Object.keys(scopes).length > 0 ? { CLOUDCHECK_EMBEDDED_FAULT_SCOPES: JSON.stringify(scopes) } : {}),
      ...selection.env,
    },
    // Members that wait out a deadline (waitsOut) each get a worker, so that their waits overlap.
    // Repetitions one, in turn: two of them at once would change the account's own state (its
    // profile, its default payment method) under each other, which a run never does.
    workers: waitsOut(first) ? first.length : 1,
  });
  const promise = handle.promise.then(({ checks, ...run }) => {
    const outcomes = new Map<string, Outcome>();
    const repetitions = byRepetition(checks, batches.length);
    batches.forEach((batch, k) => {
      // The repetition's checks under their own ids: as if the batch had run alone.
      const own = repetitions[k]!;
      const failed = failedChecks(own);
      const requirements = new Set(batch.map((p) => p.requirement));
      // A failure on a requirement none of the batch's faults breaks is every member's problem.
      const foreign = failed.filter((c) => !requirements.has(c.requirement));
      const foreignChecks = own.filter((c) => !requirements.has(c.requirement));
      const members = all.map((p) => `${p.fault}${p.scopable ? ' (limited to its checks)' : ''}`).join(', ');
      const where = repeated
        ? `repetition ${k} of ${batches.length} of a shared run of ${members}`
        : `shared run of ${members}`;
      for (const plan of batch) {
        const detectedBy = run.error ? [] : failedOn(own, plan.requirement);
        outcomes.set(plan.fault, {
          ...run,
          fault: plan.fault,
          detectedBy,
          detected: run.exit === 1 && detectedBy.length > 0,
          failed: [...failed.filter((c) => c.requirement === plan.requirement), ...foreign],
          // Only the fault's own checks: its partners' causes are theirs.
          causes: causeFigures([...own.filter((c) => c.requirement === plan.requirement), ...foreignChecks]),
          summary: `${where} (if ${plan.fault} alone gives its committed row, the members interact where planBatches in test/trust/matrix.ts assumes they cannot: a plugin missing from FLOW_ORIGINS, or state one member's fault left for another's checks)\n${summarize(own)}`,
        });
      }
    });
    return outcomes;
  });
  return { promise, cancel: () => handle.cancel() };
}

/**
 * The --grep and environment of a run whose repetition k selects `greps[k]` alone (selection.ts):
 * the grep selects them all (the files a repetition needs), the variable each one's own. One grep
 * is a plain run.
 */
function repeatedSelection(greps: readonly string[]): { grep: string; env: Record<string, string> } {
  return {
    grep: greps.map((g) => `(?:${g})`).join('|'),
    env: greps.length > 1 ? { [REPETITIONS_VARIABLE]: JSON.stringify(greps) } : {},
  };
}

/** The checks of each of a run's `count` repetitions, under the ids they repeat. */
function byRepetition(checks: readonly CheckResult[], count: number): CheckResult[][] {
  return Array.from({ length: count }, (_, k) =>
    checks.filter((c) => repetitionOfId(c.id) === repetitionSuffix(k)).map((c) => ({ ...c, id: repeatedId(c.id) })),
  );
}

/**
 * One clean `cloudcheck run` (no fault) whose repetition k selects `greps[k]` alone
 * (selection.ts): each repetition's checks, under their own ids, as if it had run alone.
 */
export function startRepetitions(
  greps: readonly string[],
  reportDir: string,
  label: string,
  workers = 1,
): Promise<{ exit: number | null; error?: string; repetitions: CheckResult[][] }> {
  // Repetitions take one worker: two at once would change the account's own state under each other.
  if (greps.length > 1 && workers > 1) throw new Error('repetitions run in turn, in one worker');
  return startRunReport({
    ...repeatedSelection(greps),
    faults: [],
    strict: false,
    reportDir,
    label,
    workers,
  }).promise.then((run) => ({
    exit: run.exit,
    ...(run.error ? { error: run.error } : {}),
    repetitions: byRepetition(run.checks, greps.length),
  }));
}

/** Runs every plan with at most `concurrency` at a time (the generator; the test schedules its own). */
export async function runAll(
  plans: readonly FaultPlan[],
  concurrency: number,
  baseDir: string,
  onDone?: (o: Outcome) => void,
): Promise<Map<string, Outcome>> {
  const results = new Map<string, Outcome>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plans.length) {
      const plan = plans[next++]!;
      const outcome = await startFault(plan, join(baseDir, plan.fault)).promise;
      results.set(plan.fault, outcome);
      onDone?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return results;
}
