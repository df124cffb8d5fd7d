/**
 * Request templates. Strings in a profile's path, headers and body may hold placeholders:
 * `{{uuid}}`, `{{e164}}`, `{{runPrefix}}`, `{{requestId}}` (a token unique to the request, used to
 * find its side effects), `{{index}}`, `{{faker.<module>.<method>}}` (any argument-less faker
 * method, e.g. `{{faker.phone.number}}`), and, as a whole string only, `{{e164List:N}}` which
 * becomes an array of N distinct E.164 numbers (bulk sends).
 */
import { faker } from '@faker-js/faker';
import { randomUUID } from 'node:crypto';

export interface TemplateContext {
  runPrefix: string;
  requestId: string;
  index: number;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.:]+)\s*\}\}/g;
const LIST = /^\{\{\s*e164List:(\d+)\s*\}\}$/;

/** An E.164 number (+1 and ten digits, area code not starting with 0/1), never a test number. */
export function e164(): string {
  const area = faker.number.int({ min: 201, max: 989 });
  const rest = faker.string.numeric({ length: 7, allowLeadingZeros: true });
  return `+1${area}${rest}`;
}

type FakerFn = () => unknown;

function fakerFunction(path: string): FakerFn | undefined {
  const parts = path.split('.');
  let cur: unknown = faker;
  let owner: unknown = faker;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object') return undefined;
    owner = cur;
    cur = (cur as Record<string, unknown>)[part];
  }
  if (typeof cur !== 'function') return undefined;
  const fn = cur as (...args: unknown[]) => unknown;
  return () => fn.call(owner);
}

/** Names of unknown placeholders in a template value (checked when the profile loads). */
export function unknownPlaceholders(value: unknown): string[] {
  const out: string[] = [];
  walkStrings(value, (s) => {
    if (LIST.test(s)) return;
    for (const m of s.matchAll(PLACEHOLDER)) {
      const name = m[1] ?? '';
      if (['uuid', 'e164', 'runPrefix', 'requestId', 'index'].includes(name)) continue;
      if (name.startsWith('faker.') && fakerFunction(name.slice('faker.'.length))) continue;
      out.push(name);
    }
  });
  return out;
}

function walkStrings(value: unknown, f: (s: string) => void): void {
  if (typeof value === 'string') f(value);
  else if (Array.isArray(value)) value.forEach((v) => walkStrings(v, f));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => walkStrings(v, f));
}

export function expandString(s: string, ctx: TemplateContext): string {
  return s.replace(PLACEHOLDER, (_m, name: string) => {
    switch (name) {
      case 'uuid':
        return randomUUID();
      case 'e164':
        return e164();
      case 'runPrefix':
        return ctx.runPrefix;
      case 'requestId':
        return ctx.requestId;
      case 'index':
        return String(ctx.index);
      default: {
        const fn = name.startsWith('faker.') ? fakerFunction(name.slice('faker.'.length)) : undefined;
        return fn ? String(fn()) : `{{${name}}}`;
      }
    }
  });
}

export function expandValue(value: unknown, ctx: TemplateContext): unknown {
  if (typeof value === 'string') {
    const list = LIST.exec(value);
    if (list) {
      const n = Number(list[1]);
      const seen = new Set<string>();
      while (seen.size < n) seen.add(e164());
      return [...seen];
    }
    return expandString(value, ctx);
  }
  if (Array.isArray(value)) return value.map((v) => expandValue(v, ctx));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandValue(v, ctx)]));
  }
  return value;
}
