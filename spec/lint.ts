/**
 * Checks the OpenAPI document two independent ways and prints what they find:
 *  1. structural validity against the official OpenAPI 3.1 JSON Schema, with
 *     @seriousme/openapi-schema-validator on the bundled document;
 *  2. Redocly's `recommended` ruleset (configured in redocly.yaml) on the split document.
 * Exit code 1 when either reports an error (Redocly warnings are printed, not fatal).
 *
 *   node --import tsx spec/lint.ts
 */
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getLineColLocation, lint, loadConfig } from '@redocly/openapi-core';
import type { NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPENAPI_ENTRY, bundleOpenApi } from './model.ts';

export const REDOCLY_CONFIG = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface LintProblem {
  severity: 'error' | 'warn';
  rule: string;
  message: string;
  /** `file:line:col` relative to the project, when Redocly gives a location. */
  where: string;
}

function describeLocation(problem: NormalizedProblem): string {
  const loc = problem.location[0];
  if (!loc) return '';
  const file = relative(PROJECT_ROOT, loc.source.absoluteRef);
  try {
    const { start } = getLineColLocation(loc);
    return `${file}:${start.line}:${start.col}`;
  } catch {
    return `${file}${loc.pointer ?? ''}`;
  }
}

/** Redocly lint of the entry document with the project's redocly.yaml. */
export async function lintOpenApi(entry: string = OPENAPI_ENTRY): Promise<LintProblem[]> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const problems = await lint({ ref: entry, config });
  return problems
    .filter((p) => !p.ignored)
    .map((p) => ({ severity: p.severity, rule: p.ruleId, message: p.message, where: describeLocation(p) }));
}

/** Validation of the bundled document against the OpenAPI 3.1 schema, by an independent validator. */
export async function validateOpenApiDocument(document?: unknown): Promise<{ valid: boolean; errors: string[] }> {
  const bundled = document ?? (await bundleOpenApi());
  const validator = new Validator();
  // The validator may annotate what it is given; hand it a copy.
  const result = await validator.validate(structuredClone(bundled) as Record<string, unknown>);
  const raw = result.errors;
  const errors =
    raw === undefined
      ? []
      : typeof raw === 'string'
        ? [raw]
        : raw.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  return { valid: result.valid, errors: result.valid ? [] : errors };
}

async function main(): Promise<number> {
  let failed = false;
  const schema = await validateOpenApiDocument();
  if (schema.valid) {
    console.log('openapi-schema-validator: valid OpenAPI 3.1');
  } else {
    failed = true;
    console.log(`openapi-schema-validator: INVALID (${schema.errors.length} errors)`);
    for (const e of schema.errors) console.log(`  ${e}`);
  }
  const problems = await lintOpenApi();
  const errors = problems.filter((p) => p.severity === 'error');
  const warnings = problems.filter((p) => p.severity === 'warn');
  for (const p of problems)
    console.log(
      `  ${p.severity === 'error' ? 'error' : 'warning'} ${p.rule}: ${p.message}${p.where ? `  (${p.where})` : ''}`,
    );
  console.log(`redocly lint (recommended): ${errors.length} errors, ${warnings.length} warnings`);
  if (errors.length > 0) failed = true;
  return failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
}
