/**
 * Playwright's `expect`, with a fast path for assertions that pass.
 *
 * Every call of Playwright's `expect(...)` builds its whole matcher table (about 240 closures),
 * captures a 50-frame stack through source maps and records a test step that crosses to the
 * runner process. Profiling a run showed that to be about a third of a worker's CPU: a check
 * makes a handful of assertions and its requests cost well under a millisecond.
 *
 * Here the common matchers first decide with a cheap predicate that is strictly narrower than
 * Playwright's own (`toEqual` passes here only when the values are deep-strict-equal, numbers are
 * compared only when both are numbers, and so on). When the predicate holds, the assertion
 * passes without Playwright; otherwise Playwright's `expect` runs with the same arguments and
 * decides: every failure (message, diff, step) is Playwright's, and so is any pass the predicate
 * was too narrow to see. Matchers without a predicate always go to Playwright.
 */
import { expect as playwrightExpect } from '@playwright/test';
import { isDeepStrictEqual } from 'node:util';

type Predicate = (actual: unknown, ...args: unknown[]) => boolean;

const isNumber = (v: unknown): v is number => typeof v === 'number';

/** `true` only where Playwright's matcher of the same name certainly passes. */
const PASSES: Record<string, Predicate> = {
  toBe: (a, e) => Object.is(a, e),
  toEqual: (a, e) => isDeepStrictEqual(a, e),
  toBeTruthy: (a) => !!a,
  toBeFalsy: (a) => !a,
  toBeNull: (a) => a === null,
  toBeUndefined: (a) => a === undefined,
  toBeDefined: (a) => a !== undefined,
  toBeGreaterThan: (a, e) => isNumber(a) && isNumber(e) && a > e,
  toBeGreaterThanOrEqual: (a, e) => isNumber(a) && isNumber(e) && a >= e,
  toBeLessThan: (a, e) => isNumber(a) && isNumber(e) && a < e,
  toBeLessThanOrEqual: (a, e) => isNumber(a) && isNumber(e) && a <= e,
  toContain: (a, e) =>
    typeof a === 'string' && typeof e === 'string' ? a.includes(e) : Array.isArray(a) && a.indexOf(e) !== -1,
  toMatch: (a, e) =>
    typeof a === 'string' &&
    (typeof e === 'string' ? a.includes(e) : e instanceof RegExp && !e.global && !e.sticky && e.test(a)),
  toHaveLength: (a, e) => (Array.isArray(a) || typeof a === 'string' ? a.length === e : false),
};

/** The same for `.not`: `true` only where Playwright's negated matcher certainly passes. */
const NOT_PASSES: Record<string, Predicate> = {
  toBe: (a, e) => !Object.is(a, e),
  toBeNull: (a) => a !== null,
  toBeUndefined: (a) => a !== undefined,
  toBeDefined: (a) => a === undefined,
  toBeTruthy: (a) => !a,
  toContain: (a, e) =>
    typeof a === 'string' && typeof e === 'string' ? !a.includes(e) : Array.isArray(a) && !a.includes(e),
};

type Message = Parameters<typeof playwrightExpect>[1];

function matchers(actual: unknown, message: Message, negated: boolean): object {
  const table = negated ? NOT_PASSES : PASSES;
  const real = (): Record<string | symbol, unknown> => {
    const all = playwrightExpect(actual, message) as unknown as Record<string | symbol, unknown>;
    return negated ? (all.not as Record<string | symbol, unknown>) : all;
  };
  return new Proxy(
    {},
    {
      get(_target, prop) {
        if (prop === 'not' && !negated) return matchers(actual, message, true);
        const passes = typeof prop === 'string' ? table[prop] : undefined;
        if (!passes) return real()[prop];
        return (...args: unknown[]): unknown => {
          if (passes(actual, ...args)) return undefined;
          return (real()[prop] as (...a: unknown[]) => unknown)(...args);
        };
      },
    },
  );
}

function fastExpect(actual: unknown, message?: Message): unknown {
  return matchers(actual, message, false);
}

/**
 * Drop-in for Playwright's `expect`: same type, same failures. Properties of `expect` itself
 * (`expect.soft`, `expect.poll`, `expect.any`, ...) are Playwright's.
 */
export const expect = new Proxy(fastExpect, {
  get: (_target, prop) => (playwrightExpect as unknown as Record<string | symbol, unknown>)[prop],
}) as unknown as typeof playwrightExpect;
