/**
 * The suite index: every check the suites define (file, title, tags, class), so that
 * `cloudcheck run` can hand Playwright only the spec files its selection reaches. Playwright's
 * runner loads every file it is given to list the tests, and for a run of a few checks that was
 * a fifth of the run's wall time (bench: "fixed cost").
 *
 * The index is written by a run that loaded every file (the definitions record themselves here,
 * selected or not, see check.ts) and kept in the content-keyed cache of src/util/disk-cache.ts. Its key
 * covers every file a definition can depend on (suites, harness, generators, specification,
 * Playwright config and lock file) and the variables that change which checks exist, so an
 * edit means a full load again, never a stale file list.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedValue, contentKey, packageVersion, storeValue } from '../util/disk-cache.ts';
import { type Candidate, type Selection, isSelected } from './selection.ts';
import { processSettings } from './settings.ts';
import type { SelectedWork } from './settings.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE_NAME = 'suite-index';

/** Variables that change which checks the suites define. */
const DEFINING_ENV = ['CLOUDCHECK_SELFTEST'] as const;

export function suiteIndexKey(env: NodeJS.ProcessEnv): string {
  const inputs = ['suites', 'src', 'spec', 'playwright.config.ts', 'package-lock.json']
    .map((p) => join(ROOT, p))
    .filter(existsSync);
  const salt = [packageVersion('@playwright/test'), ...DEFINING_ENV.map((name) => `${name}=${env[name] ?? ''}`)].join(
    ' ',
  );
  return contentKey(inputs, salt);
}

/** The cached candidates for `key`, or null when no run has indexed these sources yet. */
export function cachedCandidates(key: string): Candidate[] | null {
  const value = cachedValue<Candidate[]>(CACHE_NAME, key);
  return Array.isArray(value) ? value : null;
}

/** Stores what the run wrote to `file` (see recordCandidate) under `key`, then removes the file. */
export function storeCandidates(key: string, file: string): void {
  try {
    if (!existsSync(file)) return;
    const candidates = JSON.parse(readFileSync(file, 'utf8')) as Candidate[];
    if (Array.isArray(candidates) && candidates.length > 0) storeValue(CACHE_NAME, key, candidates);
  } catch {
    // The index is an optimisation only: the next run loads every file again.
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * The suite files (relative to the project root) holding a check the selection selects, as
 * Playwright file filters: escaped, anchored at the end.
 */
/** The candidates a selection selects. */
export function selectedCandidates(selection: Selection, candidates: readonly Candidate[]): Candidate[] {
  return candidates.filter((c) => isSelected(selection, c));
}

/** Playwright file filters for the suite files of the selected candidates. */
export function fileFilters(selected: readonly Candidate[]): string[] {
  const files = new Set(selected.map((c) => c.file));
  return [...files].sort().map((file) => `suites/${file}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
}

/**
 * What the selected candidates give the workers to share: the checks outside flows, and the
 * flows, each once (its steps run in turn in one worker; a selected step brings its earlier steps).
 */
export function selectedWork(selected: readonly Candidate[]): SelectedWork {
  const inFlow = (c: Candidate): boolean => c.describe?.startsWith('[flow]') ?? false;
  const flows = new Set(selected.filter(inFlow).map((c) => `${c.file}|${c.describe}`));
  return { checks: selected.filter((c) => !inFlow(c)).length, flows: flows.size };
}

const seen: Candidate[] = [];
let indexOut: string | undefined;

/**
 * Records a definition for the index (check.ts calls it for every check and flow step, selected
 * or not). Only in the process that lists the tests, and only when the run asked for an index.
 */
export function recordCandidate(candidate: Candidate): void {
  // Where a run that loads every file writes the candidates it saw (one JSON array); read once.
  indexOut ??= processSettings().suiteIndexOut ?? '';
  const out = indexOut;
  if (!out || process.env.TEST_WORKER_INDEX !== undefined) return;
  if (seen.length === 0) process.once('exit', () => writeFileSync(out, JSON.stringify(seen)));
  seen.push(candidate);
}
