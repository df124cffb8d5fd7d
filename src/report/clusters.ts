/**
 * Causes: the target's failed checks grouped by a signature of their failure data, so that a run
 * that fails hundreds of checks for three reasons reads as three causes. A cause is what the
 * target did, not what cloudcheck expected of it: the signature is the typed failure's kind,
 * subject, keyword and actual (src/model/failure.ts), never a message, and leaves out the
 * operation and the request, so one cause spans every operation and requirement it breaks; it
 * leaves out the expected value and the check's level too, so one wrong answer that a MUST check
 * and a SHOULD convention both judge (409 where "not 409" is a MUST and 404 a convention) is one
 * cause, of the highest level among its checks, whose words name every expectation it gathers.
 * Of a status it keeps only whether a success or a refusal was asked (see askedFor).
 * A flow step skipped because an earlier step failed belongs to that step's cause (a cascade),
 * not to a cause of its own.
 *
 * Only the target's failures are causes (defects and deviations): environment problems and
 * cloudcheck's own errors judged nothing of the target. Pure.
 */
import { createHash } from 'node:crypto';
import type { Level } from '../../spec/classes.ts';
import type { CheckFailure, CheckResult } from '../model/finding.ts';
import type { Cluster } from '../model/report.ts';
import { classificationOf } from './gate.ts';

/**
 * A failed check's terms with what differs from one request to the next taken out. The signature
 * is made of all but `level` and `expected` (what cloudcheck demanded, which the cause's words show).
 */
export interface CauseParts {
  level: Level;
  kind: Cluster['kind'];
  subject: string;
  keyword?: string;
  expected?: string;
  actual?: string;
  /** Only for failures whose terms say little on their own (a plain `expect`, no data): their requirement. */
  requirement?: string;
}

/** Whether a failed check is the target's (a defect or a deviation), and so part of a cause. */
export function isTargetFailure(check: CheckResult): boolean {
  if (check.status !== 'failed') return false;
  const c = classificationOf(check);
  return c === 'defect' || c === 'spec-gap';
}

// ---------------------------------------------------------------------------------------------
// Normalising

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Prefixed ids (`vps_3f2a9b10c4d5e6f7`, `key_...`) and hex runs of ids and hashes. */
const PREFIXED_ID = /\b[a-z][a-z0-9]*_[0-9a-f]{8,}\b/gi;
const HEX_RUN = /\b[0-9a-f]{16,}\b/gi;
/** Names a run gives what it creates (`cc-<date>-<time>-<run>-...`, settings.ts RUN_PREFIX). */
const RUN_NAME = /\bcc-\d{8}-\d{6}-[a-z0-9]+(?:-[a-z0-9]+)*/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;
const NUMBER = /\d+(?:\.\d+)?/g;

/**
 * Free terms without what one request or run has of its own (ids, names the run gave, times,
 * numbers), cut to a length that still tells causes apart: the same wrong answer reads the same
 * on every resource.
 */
export function neutral(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const out = text
    .replace(RUN_NAME, '{name}')
    .replace(UUID, '{id}')
    .replace(PREFIXED_ID, '{id}')
    .replace(HEX_RUN, '{id}')
    .replace(TIMESTAMP, '{time}')
    .replace(NUMBER, 'N')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > 120 ? `${out.slice(0, 119)}…` : out;
}

/** Whether a text (a request's URL) names something a run made: an id, or a name the run gave. */
export function namesRunValue(text: string): boolean {
  return [RUN_NAME, UUID, PREFIXED_ID, HEX_RUN].some((re) => text.search(re) >= 0);
}

/**
 * A JSON Pointer as a cause sees it: the member it names, without the resource or list around it
 * (`/wallets/* /available_balance` and `/wallet/available_balance` are one field), so a field
 * wrong in every answer that carries it is one cause. The root stays the root.
 */
export function memberOf(pointer: string): string {
  const segments = pointer.split('/').filter((s) => s !== '' && s !== '*');
  return segments.at(-1) ?? '';
}

/** Kinds whose terms name what they judged in the API's own terms: a cause may span requirements. */
const TYPED = new Set(['status', 'schema', 'envelope', 'header', 'body', 'state', 'timing', 'invariant']);

/** The subject as a cause sees it: a member rather than a pointer; words without their particulars. */
function subjectOf(f: CheckFailure): string {
  // Ids without their type prefix are one convention left, whichever id field shows it.
  if (f.keyword === 'prefix') return 'id';
  if (f.kind === 'status' || f.kind === 'header' || f.kind === 'envelope' || f.kind === 'invariant') return f.subject;
  if (f.subject.startsWith('/') && (f.kind === 'schema' || f.kind === 'state' || f.kind === 'body'))
    return memberOf(f.subject);
  return neutral(f.subject) ?? '';
}

/** A failure's signature parts (see the module comment); a failure without data is its requirement's. */
export function causeParts(check: CheckResult): CauseParts {
  const f: CheckFailure | undefined = check.failure;
  const level = check.level;
  if (!f) return { level, kind: 'untyped', subject: '', requirement: check.requirement };
  const weak = !TYPED.has(f.kind);
  const parts: CauseParts = {
    level,
    kind: f.kind,
    subject: subjectOf(f),
    ...(f.keyword !== undefined ? { keyword: f.keyword } : {}),
  };
  // The deadline of a wait is the run's (--async-timeout): one for every wait, never a cause's own.
  if (f.kind !== 'timing') {
    const terms = f.kind === 'status' ? (t: string | undefined) => t : neutral;
    const expected = terms(f.expected);
    const actual = terms(f.actual);
    if (expected !== undefined) parts.expected = expected;
    if (actual !== undefined) parts.actual = actual;
  }
  if (weak) parts.requirement = check.requirement;
  return parts;
}

/**
 * Of a status expectation, whether it asked for a success or a refusal. The same status where a
 * success was asked and where a refusal was are two causes: accepting invalid input with 200 is
 * not creating with 200 where the convention says 201.
 */
function askedFor(expected: string | undefined): string {
  const digit = /\b([1-5])(?:\d\d|xx)\b/.exec(expected ?? '')?.[1];
  return digit === undefined ? '' : digit === '2' ? 'success' : 'refusal';
}

/** What the target did: kind, subject, keyword, actual, for a status whether success or refusal was asked (and the requirement of a weak failure). */
export function signatureOf(parts: CauseParts): string {
  return [
    parts.kind,
    parts.subject,
    parts.keyword ?? '',
    parts.actual ?? '',
    ...(parts.kind === 'status' ? [askedFor(parts.expected)] : []),
    ...(parts.requirement ? [parts.requirement] : []),
  ].join('|');
}

/** A cause's id: from its signature alone, so the same failure has the same id in every run. */
export function clusterId(signature: string): string {
  return `cause-${createHash('sha256').update(signature).digest('hex').slice(0, 10)}`;
}

// ---------------------------------------------------------------------------------------------
// Words

const name = (member: string): string => (member ? `\`${member}\`` : 'the body');

/** One expectation a cause gathers: what a check of that level demanded. */
export interface Expectation {
  level: Level;
  expected: string;
}

/** At most this many expectations are named in a cause's words; the rest are counted. */
const NAMED_EXPECTATIONS = 3;

/**
 * What a cause's checks demanded, in words: "convention 201" or "expected 4xx" for one; for several
 * of one level, the level once ("convention 201 / 204"); else each with its level ("expected not
 * 409 (MUST) / 404 (convention)").
 */
export function demandedWords(expectations: readonly Expectation[]): string {
  if (expectations.length === 0) return 'expected something else';
  if (expectations.length === 1) {
    const [e] = expectations as [Expectation];
    return `${e.level === 'SHOULD' ? 'convention' : 'expected'} ${e.expected}`;
  }
  // Of one level, the level is said once ("convention `volume` / `project` / 20 more").
  const oneLevel = expectations.every((e) => e.level === expectations[0]!.level);
  const named = expectations
    .slice(0, NAMED_EXPECTATIONS)
    .map((e) => (oneLevel ? e.expected : `${e.expected} (${e.level === 'SHOULD' ? 'convention' : 'MUST'})`));
  const more = expectations.length - NAMED_EXPECTATIONS;
  const lead = oneLevel && expectations[0]!.level === 'SHOULD' ? 'convention' : 'expected';
  return `${lead} ${named.join(' / ')}${more > 0 ? ` / ${more} more` : ''}`;
}

/** The distinct expectations of a cause's members, MUST first, then as they read. */
function expectationsOf(parts: readonly CauseParts[]): Expectation[] {
  const seen = new Map<string, Expectation>();
  for (const p of parts)
    if (p.expected !== undefined) seen.set(`${p.level}|${p.expected}`, { level: p.level, expected: p.expected });
  return [...seen.values()].sort(
    (a, b) => (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : 1) || a.expected.localeCompare(b.expected),
  );
}

/**
 * A cause in words, from its parts and the expectations its checks gathered (no operation: it
 * spans them). `context`: the author's words of a representative failure, for a plain `expect`
 * whose parts say little (a matcher, values).
 */
export function causeWords(p: CauseParts, expectations: readonly Expectation[], context?: string): string {
  const demanded = demandedWords(expectations);
  switch (p.kind) {
    case 'status':
      return `answered ${p.actual}, ${demanded}`;
    case 'schema':
    case 'envelope': {
      const member =
        p.kind === 'envelope'
          ? `error envelope ${name(p.subject.replace(/^\//, '').replace(/\//g, '.'))}`
          : name(p.subject);
      if (p.kind === 'envelope' && p.subject === '/error/code') return `error.code ${p.actual}, ${demanded}`;
      if (p.keyword === 'wrapper')
        return `${p.actual === 'none' ? 'resources come unwrapped' : `bodies come under ${p.actual}`}, ${demanded}`;
      if (p.keyword === 'required' || p.actual === 'absent') return `${member} missing`;
      if (p.keyword === 'additionalProperties') return `${member} is not allowed`;
      if (p.keyword === 'type') return `${member} is ${p.actual}, ${demanded}`;
      return `${member} ${p.keyword ? `fails ${p.keyword}` : 'differs'}: ${demanded}, got ${p.actual}`;
    }
    case 'header':
      return p.actual === 'absent' ? `header ${p.subject} missing` : `header ${p.subject} is ${p.actual}, ${demanded}`;
    case 'body':
    case 'state': {
      const what = p.subject.startsWith('/') || /^[a-z_]+$/i.test(p.subject) ? name(p.subject) : p.subject;
      return `${what}: ${demanded}, got ${p.actual}`;
    }
    case 'timing':
      return `waited in vain for ${p.subject}`;
    case 'invariant':
      return `rate-limit invariant ${p.subject} violated`;
    case 'untyped':
      return `${p.requirement} failed (no failure data)`;
    default: {
      const what = context ? neutral(context) : p.subject;
      return `${p.requirement}: ${what}: ${demanded}, got ${p.actual}`;
    }
  }
}

const count = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

/** One line for a cause: its words, how many checks over how many operations, what it skipped. */
export function clusterLine(c: Pick<Cluster, 'cause' | 'checks' | 'operations' | 'cascaded'>): string {
  const over = c.operations.length > 1 ? ` over ${count(c.operations.length, 'operation')}` : '';
  const skipped = c.cascaded.length ? `, ${count(c.cascaded.length, 'flow step')} skipped after it` : '';
  return `${c.cause}: ${count(c.checks.length, 'check')}${over}${skipped}`;
}

// ---------------------------------------------------------------------------------------------
// Grouping

/** The representative of a cause: a check outside a flow with a judged exchange, else the first with any exchange. */
function representativeOf(members: readonly CheckResult[]): CheckResult {
  const score = (c: CheckResult): number =>
    (c.failure?.exchanges?.length ? 0 : c.exchanges?.length ? 2 : 4) + (c.flow ? 1 : 0);
  return [...members].sort((a, b) => score(a) - score(b) || a.id.localeCompare(b.id))[0]!;
}

/**
 * The causes of a report's checks, MUST causes (those with a MUST check) before SHOULD ones, the
 * most checks first (then the most cascades, then by signature: the same run gives the same order).
 */
export function clusterChecks(checks: readonly CheckResult[]): Cluster[] {
  const groups = new Map<string, { parts: CauseParts[]; members: CheckResult[] }>();
  const causeOfCheck = new Map<string, string>();
  for (const check of checks) {
    if (!isTargetFailure(check)) continue;
    const parts = causeParts(check);
    const signature = signatureOf(parts);
    const group = groups.get(signature) ?? { parts: [], members: [] };
    group.parts.push(parts);
    group.members.push(check);
    groups.set(signature, group);
    causeOfCheck.set(check.id, signature);
  }
  const cascades = new Map<string, string[]>();
  for (const check of checks) {
    if (check.status !== 'skipped' || !check.skipped_after) continue;
    const signature = causeOfCheck.get(check.skipped_after);
    if (signature) cascades.set(signature, [...(cascades.get(signature) ?? []), check.id]);
  }
  const clusters = [...groups].map(([signature, { parts: all, members }]): Cluster => {
    const representative = representativeOf(members);
    // The terms of the signature are every member's; level and expectations are the members' own.
    const parts = all[members.indexOf(representative)]!;
    const level: Level = all.some((p) => p.level === 'MUST') ? 'MUST' : 'SHOULD';
    const expectations = expectationsOf(all);
    const ids = [
      representative.id,
      ...members
        .filter((m) => m !== representative)
        .map((m) => m.id)
        .sort(),
    ];
    return {
      id: clusterId(signature),
      signature,
      level,
      cause: causeWords(parts, expectations, representative.failure?.context),
      kind: parts.kind,
      subject: parts.subject,
      ...(parts.keyword !== undefined ? { keyword: parts.keyword } : {}),
      ...(parts.actual !== undefined ? { actual: parts.actual } : {}),
      expectations,
      checks: ids,
      cascaded: (cascades.get(signature) ?? []).sort(),
      requirements: [...new Set(members.map((m) => m.requirement))].sort(),
      operations: [...new Set(members.flatMap((m) => m.failure?.operation ?? m.operation ?? []))].sort(),
      representative: representative.id,
    };
  });
  return clusters.sort(
    (a, b) =>
      (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : 1) ||
      b.checks.length - a.checks.length ||
      b.cascaded.length - a.cascaded.length ||
      a.signature.localeCompare(b.signature),
  );
}

/** The checks with the cause each belongs to (`cluster`), for the writers; the others as they are. */
export function withClusters(checks: readonly CheckResult[], clusters: readonly Cluster[]): CheckResult[] {
  const of = new Map<string, string>();
  for (const c of clusters) for (const id of [...c.checks, ...c.cascaded]) of.set(id, c.id);
  return checks.map((check) => {
    const id = of.get(check.id);
    if (id) return { ...check, cluster: id };
    if (check.cluster === undefined) return check;
    // A cause of an earlier computation that no longer holds (a merge, a re-run) is dropped.
    const { cluster: _dropped, ...rest } = check;
    return rest;
  });
}

/** A report's causes: as computed when it was written, or (an older report) from its checks now. */
export function clustersOf(report: { checks: readonly CheckResult[]; clusters?: Cluster[] }): Cluster[] {
  return report.clusters ?? clusterChecks(report.checks);
}
