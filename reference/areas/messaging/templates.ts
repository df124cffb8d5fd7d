/**
 * Template placeholders, written `{{name}}` as the specification says ("double-brace variable
 * names"). Whitespace inside the braces is tolerated, as most template languages do.
 */
import { fieldError } from '../../core/errors.ts';
import type { TemplateRecord } from './store.ts';

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** Placeholder names of `content`, each once, in order of first appearance. */
export function placeholdersOf(content: string): string[] {
  return [...new Set([...content.matchAll(PLACEHOLDER)].map((match) => match[1] ?? ''))];
}

/**
 * Fills every placeholder. A placeholder without a value is `invalid_template`: sending literal
 * braces to a customer is worse than refusing (docs/conventions.md, Errors). Values are text, as
 * the document types them; a number or anything else is a `validation_error` naming the variable.
 */
export function renderTemplate(template: TemplateRecord, variables: Record<string, unknown>): string {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value !== 'string')
      throw fieldError('messaging', `variables.${name}`, `variables.${name} must be a string.`);
    values.set(name, value);
  }
  const missing = template.variables.filter((name) => !values.has(name));
  if (missing.length > 0) {
    throw fieldError(
      'messaging',
      'variables',
      `No value for placeholder(s) ${missing.join(', ')}.`,
      'invalid_template',
      { missing },
    );
  }
  return template.content.replace(PLACEHOLDER, (_match, name: string) => values.get(name) ?? '');
}
