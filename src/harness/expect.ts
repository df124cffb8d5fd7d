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
import type { ExpectCall } from './failure.ts';

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

/**
 * Runs Playwright's matcher; a failure leaves with the call as the check made it
 * (`cloudcheckCall`: matcher, negation, actual, arguments, message), so the check wrapper records
 * what was expected and what came as data (failure.ts), never by reading the message.
 */
function withCall(matcher: (...a: unknown[]) => unknown, call: Omit<ExpectCall, 'args'>, args: unknown[]): unknown {
  const note = (error: unknown): never => {
    if (error instanceof Error) Object.assign(error, { cloudcheckCall: { ...call, args } satisfies ExpectCall });
    throw error;
  };
  try {
    const result = matcher(...args);
    return result instanceof Promise ? result.catch(note) : result;
  } catch (error) {
    return note(error);
  }
}

function matchers(actual: unknown, message: Message, negated: boolean): object {
  const table = negated ? NOT_PASSES : PASSES;
  const real = (): Record<string | symbol, unknown> => {
    const all = playwrightExpect(actual, message) as unknown as Record<string | symbol, unknown>;
    return negated ? (all.not as Record<string | symbol, unknown>) : all;
  };
  const custom = typeof message === 'string' ? message : undefined;
  return new Proxy(
    {},
    {
      get(_target, prop) {
        if (prop === 'not' && !negated) return matchers(actual, message, true);
        if (typeof prop !== 'string') return real()[prop];
        const call = { matcher: prop, negated, actual, ...(custom !== undefined ? { message: custom } : {}) };
        const passes = table[prop];
        if (!passes) {
          const matcher = real()[prop];
          if (typeof matcher !== 'function') return matcher;
          return (...args: unknown[]): unknown => withCall(matcher as (...a: unknown[]) => unknown, call, args);
        }
        // The fast path: Playwright's matcher table is built only when the predicate cannot decide.
        return (...args: unknown[]): unknown =>
          passes(actual, ...args) ? undefined : withCall(real()[prop] as (...a: unknown[]) => unknown, call, args);
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
