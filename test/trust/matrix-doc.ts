/**
 * Renders docs/fault-matrix.md from the fault plans, their outcomes and the check catalogue. Pure:
 * the generator writes what this returns, and the test compares parts of it with the committed file.
 */
import { loadRequirements, type Requirement } from '../../spec/requirements.ts';
import { CONFORMANCE_CLASSES } from '../../spec/classes.ts';
import type { ConformanceClass } from '../../spec/classes.ts';
import type { CatalogueCheck, CauseFigures, FaultPlan, Outcome } from './matrix.ts';
import { CAUSE_EXCEPTIONS, FIRST_CAUSE_SHARE, KNOWN_UNDETECTED, MAX_CAUSES, REGENERATE, flowsOf } from './matrix.ts';

/** Detecting checks shown per row; the rest are counted. */
const SHOWN = 4;

const TABLE_HEADER = [
  '| fault | requirement (level, class) | detected by | flows | exit code | causes |',
  '|---|---|---|---|---|---|',
];

const percent = (f: CauseFigures): number => Math.round((100 * f.first) / f.checks);

/** A row's causes cell: "1 (1 check)", "2 (first 5 of 6 checks, 83 %)", or – (a load run, nothing failed). */
export function renderCauses(f: CauseFigures | undefined): string {
  if (!f || f.checks === 0) return '–';
  if (f.checks === 1) return `${f.causes} (1 check)`;
  return `${f.causes} (first ${f.first} of ${f.checks} checks, ${percent(f)} %)`;
}

function parseCauses(cell: string): CauseFigures | undefined {
  const m = /^(\d+) \((?:(1) check|first (\d+) of (\d+) checks, \d+ %)\)$/.exec(cell.trim());
  if (!m) return undefined;
  return m[2]
    ? { causes: Number(m[1]), first: 1, checks: 1 }
    : { causes: Number(m[1]), first: Number(m[3]), checks: Number(m[4]) };
}

/** Whether a fault's causes are within issue 36's bound (trivially so when it fails one check or none). */
export function withinCauseBound(f: CauseFigures | undefined): boolean {
  return !f || f.checks <= 1 || (f.first >= FIRST_CAUSE_SHARE * f.checks && f.causes <= MAX_CAUSES);
}

/** The table row of one fault (the test compares it with the committed row). */
export function renderRow(plan: FaultPlan, outcome: Outcome, catalogue: readonly CatalogueCheck[]): string {
  const ids = outcome.detectedBy;
  const flows = flowsOf(ids, catalogue);
  const by =
    ids.length === 0
      ? KNOWN_UNDETECTED[plan.fault]
        ? `**undetected**: ${KNOWN_UNDETECTED[plan.fault]}`
        : '**undetected**'
      : ids
          .slice(0, SHOWN)
          .map((id) => `\`${id}\``)
          .join(', ') + (ids.length > SHOWN ? ` and ${ids.length - SHOWN} more` : '');
  const args = plan.args.length ? ` (\`${plan.args.join(' ')}\`)` : '';
  const how =
    plan.mode === 'load'
      ? ` (\`cloudcheck load ${plan.load!.profile}\`)`
      : plan.mode === 'explore'
        ? ` (\`cloudcheck explore --families ${plan.family ?? ''}\`)`
        : plan.strict
          ? ` (\`--strict\`)${args}`
          : args;
  return `| \`${plan.fault}\` | ${plan.requirement} (${plan.level}, ${plan.class}) | ${by} | ${flows.map((f) => `\`${f}\``).join(', ') || '–'} | ${outcome.exit ?? 'none'}${how} | ${renderCauses(outcome.causes)} |`;
}

export interface Row {
  fault: string;
  flows: string[];
  /** Absent for a row without failed checks of the target (a load run), or an old row without the column. */
  causes?: CauseFigures;
}

/** Fault, detecting flows and causes of every row of the committed fault table (the lines after its header, up to a blank line). */
export function parseRows(doc: string): Row[] {
  const lines = doc.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| fault | '));
  if (header < 0) return [];
  const end = lines.indexOf('', header);
  return lines
    .slice(header + 2, end < 0 ? undefined : end)
    .filter((l) => /^\| `[^`]+` \|/.test(l))
    .map((l) => {
      const cells = l.split(' | ');
      const causes = parseCauses((cells[5] ?? '').replace(/ \|$/, ''));
      return {
        fault: /^\| `([^`]+)`/.exec(l)![1]!,
        flows: [...(cells[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
        ...(causes ? { causes } : {}),
      };
    });
}

/**
 * The "Causes" section: the faults by how many causes their failed checks form in the report
 * (src/report/clusters.ts, over the fault's own failed checks), and how many of those failing
 * more than one check stay within issue 36's bound; the exceptions with their reasons.
 */
export function renderCauseSection(rows: readonly Row[]): string {
  const counted = rows.filter((r) => r.causes && r.causes.checks > 0);
  const buckets = [
    ['1', (n: number) => n === 1],
    ['2', (n: number) => n === 2],
    ['3', (n: number) => n === 3],
    [`>3`, (n: number) => n > 3],
  ] as const;
  const several = counted.filter((r) => r.causes!.checks > 1);
  const firstOk = several.filter((r) => r.causes!.first >= FIRST_CAUSE_SHARE * r.causes!.checks);
  const within = several.filter((r) => withinCauseBound(r.causes));
  const exceptions = rows.filter((r) => CAUSE_EXCEPTIONS[r.fault] !== undefined);
  const lines = [
    '## Causes',
    '',
    'The "causes" column: how many causes the report shows for the fault\'s own failed checks (failed checks',
    'grouped by what the target did, `src/report/clusters.ts`; in a shared run, only the checks of its',
    "requirement), and how many of those checks the first cause covers. Issue 36's bound: for every fault",
    `that fails more than one check, the first cause covers at least ${Math.round(FIRST_CAUSE_SHARE * 100)} % of them and at most ${MAX_CAUSES} causes are shown.`,
    '',
    '| causes | faults |',
    '|---|---:|',
    ...buckets.map(([label, test]) => `| ${label} | ${counted.filter((r) => test(r.causes!.causes)).length} |`),
    '',
    `**${several.length} faults fail more than one check: ${firstOk.length} with a first cause of at least ${Math.round(FIRST_CAUSE_SHARE * 100)} %, ${within.length} within the bound.**`,
    '',
    ...(exceptions.length
      ? [
          'Outside the bound, and why (CAUSE_EXCEPTIONS in `test/trust/matrix.ts`):',
          '',
          ...exceptions.map((r) => `- \`${r.fault}\`: ${CAUSE_EXCEPTIONS[r.fault]}`),
          '',
        ]
      : []),
  ];
  return lines.join('\n');
}

/** The "Flows" section: which faults each flow of suites/flows/ detects (from the table's rows). */
export function renderFlows(rows: ReadonlyArray<{ fault: string; flows: string[] }>, flows: readonly string[]): string {
  const lines = [
    '## Flows',
    '',
    `Each of the ${flows.length} flows of \`suites/flows/\` runs whole in the run of every fault whose requirement it`,
    'checks, and must fail there on that requirement and on nothing else; each detects at least one fault.',
    'That the flows pass against the correct server is proved by `test/flows/flows.test.ts`.',
    '',
    '| flow | faults it detects |',
    '|---|---|',
    ...flows.map(
      (f) =>
        `| \`${f}\` | ${
          rows
            .filter((r) => r.flows.includes(f))
            .map((r) => `\`${r.fault}\``)
            .join(', ') || '**none**'
        } |`,
    ),
    '',
  ];
  return lines.join('\n');
}

export function rowPrefix(fault: string): string {
  return `| \`${fault}\` |`;
}

type Category = 'unchecked' | 'not-checkable' | 'hand-written' | 'response-shape' | 'input-validation' | 'generic';

const CATEGORY_ORDER: Category[] = [
  'unchecked',
  'not-checkable',
  'hand-written',
  'input-validation',
  'response-shape',
  'generic',
];

/** One line per group: why these MUST requirements have no fault (yet). */
const REASONS: Record<Category, string> = {
  unchecked: 'no check of `cloudcheck run` verifies them; a fault would go unnoticed, so a check must come first',
  'not-checkable':
    'marked `not_checkable` in spec/requirements.yaml, with the reason (listed below), and checked by no load profile either; the report lists them as not checkable, never as passed',
  'hand-written':
    'verified by hand-written checks or flow steps that have no fault of their own yet: candidates for the next faults',
  'input-validation':
    'verified only by generated negative checks (one per field and constraint); faults on a sample of them (`msg-sender-type-unchecked`, `usage-service-unchecked`, `volume-min-size-unchecked`, ...) prove the generator, a fault per constraint would be noise',
  'response-shape':
    'verified only by schema validation of the generated positive request of each operation; faults on a sample (`wallet-balance-strings`, `vps-list-meta-missing`, ...) prove it, a fault per field would be noise',
  generic:
    'verified only by generated per-operation checks (auth, unknown id, use after delete); faults on a sample (`auth-ignored`, `errors-envelope-renamed`, `key-revoke-ignored`, ...) prove them',
};

function categoryOf(requirement: Requirement, checks: readonly CatalogueCheck[]): Category {
  if (checks.length === 0) return requirement.not_checkable ? 'not-checkable' : 'unchecked';
  if (checks.some((c) => c.kind !== 'contract')) return 'hand-written';
  if (checks.some((c) => /\.negative\./.test(c.id))) return 'input-validation';
  if (checks.some((c) => /\.positive(-|$)/.test(c.id))) return 'response-shape';
  return 'generic';
}

/** MUST requirements without a fault, by category (the section below and the header's counts). */
export function unfaultedCategories(
  plans: readonly FaultPlan[],
  catalogue: readonly CatalogueCheck[],
): Map<Category, string[]> {
  const faulted = new Set(plans.map((p) => p.requirement));
  const byReq = new Map<string, CatalogueCheck[]>();
  for (const c of catalogue) byReq.set(c.requirement, [...(byReq.get(c.requirement) ?? []), c]);
  const out = new Map<Category, string[]>();
  for (const r of loadRequirements()) {
    if (r.level !== 'MUST' || faulted.has(r.id)) continue;
    const cat = categoryOf(r, byReq.get(r.id) ?? []);
    out.set(cat, [...(out.get(cat) ?? []), r.id]);
  }
  return out;
}

/** The header's one line of MUST coverage counts. */
export function coverageLine(plans: readonly FaultPlan[], catalogue: readonly CatalogueCheck[]): string {
  const cats = unfaultedCategories(plans, catalogue);
  const marked = loadRequirements().filter((r) => r.level === 'MUST' && r.not_checkable);
  const byLoad = marked.filter((r) => r.not_checkable!.checked_by).length;
  return `**MUST requirements: ${cats.get('unchecked')?.length ?? 0} unchecked, ${marked.length} not checkable by \`cloudcheck run\` (${byLoad} of them checked by a load profile, ${marked.length - byLoad} by nothing), ${cats.get('hand-written')?.length ?? 0} hand-written without a fault.**`;
}

/** The "MUST requirements without a fault" section (pure; compared as a whole by the test). */
export function renderUnfaulted(plans: readonly FaultPlan[], catalogue: readonly CatalogueCheck[]): string {
  const faulted = new Set(plans.map((p) => p.requirement));
  const must = loadRequirements().filter((r) => r.level === 'MUST' && !faulted.has(r.id));
  const reasons = new Map(must.map((r) => [r.id, r.not_checkable?.reason.replace(/\s+/g, ' ') ?? '']));
  const byReq = new Map<string, CatalogueCheck[]>();
  for (const c of catalogue) byReq.set(c.requirement, [...(byReq.get(c.requirement) ?? []), c]);
  const groups = new Map<ConformanceClass, Map<Category, string[]>>();
  for (const r of must) {
    const cat = categoryOf(r, byReq.get(r.id) ?? []);
    const cls = groups.get(r.class) ?? new Map<Category, string[]>();
    cls.set(cat, [...(cls.get(cat) ?? []), r.id]);
    groups.set(r.class, cls);
  }
  const lines: string[] = [];
  const totalMust = loadRequirements().filter((r) => r.level === 'MUST').length;
  lines.push('## MUST requirements without a fault', '');
  lines.push(`${must.length} of ${totalMust} MUST requirements have no fault. Why, per group:`, '');
  for (const cat of CATEGORY_ORDER) lines.push(`- **${cat}**: ${REASONS[cat]}.`);
  lines.push(
    '',
    `| class | ${CATEGORY_ORDER.join(' | ')} | total |`,
    `|---|${CATEGORY_ORDER.map(() => '---:|').join('')}---:|`,
  );
  const totals = new Map<Category, number>();
  for (const cls of CONFORMANCE_CLASSES) {
    const g = groups.get(cls);
    if (!g) continue;
    const counts = CATEGORY_ORDER.map((c) => g.get(c)?.length ?? 0);
    CATEGORY_ORDER.forEach((c, i) => totals.set(c, (totals.get(c) ?? 0) + counts[i]!));
    lines.push(`| ${cls} | ${counts.join(' | ')} | ${counts.reduce((a, b) => a + b, 0)} |`);
  }
  lines.push(`| **all** | ${CATEGORY_ORDER.map((c) => totals.get(c) ?? 0).join(' | ')} | ${must.length} |`, '');
  for (const cls of CONFORMANCE_CLASSES) {
    const g = groups.get(cls);
    if (!g) continue;
    lines.push(`### ${cls}`, '');
    for (const cat of CATEGORY_ORDER) {
      const ids = g.get(cat);
      if (ids) lines.push(`- ${cat} (${ids.length}): ${ids.join(', ')}`);
    }
    for (const id of g.get('not-checkable') ?? []) lines.push(`  - ${id}: ${reasons.get(id)}`);
    lines.push('');
  }
  return lines.join('\n');
}

export function renderDoc(
  plans: readonly FaultPlan[],
  outcomes: ReadonlyMap<string, Outcome>,
  catalogue: readonly CatalogueCheck[],
  flows: readonly string[],
): string {
  const all = plans.map((p) => outcomes.get(p.fault)!);
  const detected = all.filter((o) => o.detected).length;
  const load = plans.filter((p) => p.mode === 'load').length;
  const explore = plans.filter((p) => p.mode === 'explore').length;
  const strict = plans.filter((p) => p.strict).length;
  const examples = plans.filter((p) => p.args.includes('--examples')).length;
  const rows = plans.map((p) => renderRow(p, outcomes.get(p.fault)!, catalogue));
  const parsed = parseRows([...TABLE_HEADER, ...rows].join('\n'));
  const lines = [
    '# Fault matrix',
    '',
    `<!-- Generated by \`${REGENERATE}\`; test/trust/fault-matrix.test.ts fails when this file is stale. Do not edit by hand. -->`,
    '',
    'Every deliberate fault of the reference server (`cloudcheck serve --fault NAME`, `listFaults()` in',
    '`reference/server.ts`) against the suite: `cloudcheck run --grep` restricted to the checks of the',
    "fault's requirement (flows holding one of them run whole), against the embedded server with only",
    'that fault. A fault is **detected** when the run exits 1 and a failed (non-environment) check names',
    "the fault's requirement; the table lists those checks. Faults only a load profile can observe run",
    'through `cloudcheck load` and are detected when it exits 1 naming the invariant. Faults only a',
    "sequence of operations reveals run through `cloudcheck explore --families` with the fault's family",
    "(default budget, seed 1) and are detected when it exits 1 with its shrunk sequence failing the fault's",
    'requirement. Faults only inputs drawn from the schemas reveal run with `cloudcheck run --examples 20`',
    '(EXAMPLES_FAULTS in `test/trust/matrix.ts`). "Flows" are the flows among those checks; "causes" how',
    "many causes the report shows for the fault's failed checks (see Causes below).",
    '',
    `**${plans.length} faults: ${detected} detected, ${plans.length - detected} undetected** (${load} through a load profile, ${explore} through \`cloudcheck explore\`, ${examples} through \`cloudcheck run --examples\`, ${strict} on a SHOULD requirement and so with \`--strict\`).`,
    '',
    coverageLine(plans, catalogue),
    '',
    ...TABLE_HEADER,
    ...rows,
    '',
    // parseRows reads a table: give it the header the rows sit under.
    renderCauseSection(parsed),
    renderFlows(parsed, flows),
    renderUnfaulted(plans, catalogue),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
