/**
 * The catalogue against the suite, without a run: every requirement in force, SHOULD as much as
 * MUST, has a check of `cloudcheck run` unless it is marked not checkable (with its reason); at
 * most five SHOULD requirements are so marked; and every SHOULD names the section of
 * docs/conventions.md whose convention it assumes. (That each check is also reported by a run of
 * its requirement alone is the grep walk's business, grep-walk.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '../base.ts';
import { loadRequirements } from '../../spec/requirements.ts';
import { ROOT, listSuiteChecks } from './matrix.ts';

/** SHOULD requirements that may be marked not checkable at most (issue: every convention checked). */
const MAX_SHOULD_NOT_CHECKABLE = 5;

test('every requirement in force that is not marked not checkable has a check of cloudcheck run', async () => {
  const checked = new Set((await listSuiteChecks()).map((c) => c.requirement));
  const unchecked = loadRequirements()
    .filter((r) => !r.not_checkable && !checked.has(r.id))
    .map((r) => `${r.id} (${r.level})`);
  expect(unchecked, 'requirements without a check: add one, or mark them not_checkable with the reason').toEqual([]);
});

test(`at most ${MAX_SHOULD_NOT_CHECKABLE} SHOULD requirements are marked not checkable, each with its reason`, () => {
  const marked = loadRequirements().filter((r) => r.level === 'SHOULD' && r.not_checkable);
  expect(marked.length, marked.map((r) => r.id).join(', ')).toBeLessThanOrEqual(MAX_SHOULD_NOT_CHECKABLE);
  for (const r of marked) expect(r.not_checkable!.reason.length, `${r.id}: the reason`).toBeGreaterThan(40);
});

test('every SHOULD requirement names the section of docs/conventions.md whose convention it assumes', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'conventions.md'), 'utf8');
  const sections = [...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  const unnamed = loadRequirements()
    .filter((r) => r.level === 'SHOULD')
    .filter((r) => {
      const named = /^conventions\.md, (.+)/s.exec(r.assumption ?? '')?.[1] ?? '';
      return !sections.some((section) => named.startsWith(section));
    })
    .map((r) => `${r.id}: ${(r.assumption ?? '').slice(0, 60)}`);
  expect(unnamed, `the assumption starts "conventions.md, <${sections.join(' | ')}>"`).toEqual([]);
});
