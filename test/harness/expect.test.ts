/**
 * The fast `expect` (src/harness/expect.ts; the suite's checks and, through test/base.ts, these
 * tests use it) passes an assertion on its own only where Playwright's `expect` passes it too, and
 * fails exactly as Playwright's: for every matcher with a fast path, on values drawn to hit the
 * edges (NaN and -0, undefined properties, class instances, strings against arrays, regular
 * expressions with state), both verdicts agree and a failure has Playwright's message.
 */
import { expect as playwrightExpect } from '@playwright/test';
import { test } from '../base.ts';
import fc from 'fast-check';
import { expect as fastExpect } from '../../src/harness/expect.ts';

type Verdict = { pass: true; returned: unknown } | { pass: false; message: string };

function verdict(run: () => unknown): Verdict {
  try {
    return { pass: true, returned: run() };
  } catch (error) {
    return { pass: false, message: (error as Error).message };
  }
}

type Call = (e: typeof playwrightExpect) => unknown;

/** Both verdicts of one call (and what it returns, for state it reads back), for the property to compare. */
function agree(call: Call): void {
  const fast = verdict(() => call(fastExpect));
  const real = verdict(() => call(playwrightExpect));
  // Not Playwright's expect here: this compares it with itself, and a failure must name the call.
  if (fast.pass !== real.pass)
    throw new Error(
      `fast ${fast.pass ? 'passes' : 'fails'} where Playwright ${real.pass ? 'passes' : 'fails'}: ${call.toString()}`,
    );
  if (!fast.pass && !real.pass && fast.message !== real.message)
    throw new Error(`another message than Playwright's:\n${fast.message}\n---\n${real.message}`);
  if (fast.pass && real.pass && !Object.is(fast.returned, real.returned))
    throw new Error(
      `another state afterwards (${String(fast.returned)} against ${String(real.returned)}): ${call.toString()}`,
    );
}

class Point {
  constructor(
    public x: number,
    public y?: number,
  ) {}
}

const edges = fc.constantFrom<unknown>(
  NaN,
  0,
  -0,
  1,
  '',
  '0',
  'a',
  null,
  undefined,
  [],
  [undefined],
  {},
  { a: undefined },
  { a: 1 },
  new Point(1),
  new Date(0),
  /a/,
  0n,
  false,
  true,
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: edges, weight: 3 },
  fc.anything({ withDate: true, withMap: true, withSet: true, withBigInt: true, withNullPrototype: true }),
  fc.double(),
  fc.string(),
);
// Each Playwright assertion costs about a millisecond (what the fast path saves): enough runs to
// meet every edge above several times, no more.

/** A value and a second one that is often the same, a copy or a near miss of it. */
const pair = fc.tuple(value, value, fc.integer({ min: 0, max: 3 })).map(([a, b, how]): [unknown, unknown] => {
  if (how === 0) return [a, a];
  if (how === 1) {
    try {
      return [a, structuredClone(a)];
    } catch {
      return [a, b];
    }
  }
  if (how === 2 && a !== null && typeof a === 'object' && !Array.isArray(a)) return [a, { ...a, extra: undefined }];
  // 0 and -0, NaN and NaN: equal to ===, not to Object.is.
  if (how === 2 && typeof a === 'number') return [a, -a];
  return [a, b];
});

const RUNS = { numRuns: 80 };

test('toBe, toEqual and their negations agree with Playwright', () => {
  fc.assert(
    fc.property(pair, ([a, e]) => {
      agree((x) => x(a).toBe(e));
      agree((x) => x(a).not.toBe(e));
      agree((x) => x(a).toEqual(e));
      agree((x) => x([a]).toEqual([e]));
      agree((x) => x({ k: a }).toEqual({ k: e }));
    }),
    // The pairs where equality tells its kinds apart, every time.
    {
      ...RUNS,
      examples: [
        [[0, -0]],
        [[NaN, NaN]],
        [[{ a: undefined }, {}]],
        [[new Point(1), { x: 1 }]],
        [[[undefined], []]],
        [['1', 1]],
      ],
    },
  );
});

test('the unary matchers agree with Playwright', () => {
  fc.assert(
    fc.property(value, (a) => {
      for (const name of ['toBeTruthy', 'toBeFalsy', 'toBeNull', 'toBeUndefined', 'toBeDefined'] as const) {
        agree((x) => x(a)[name]());
        agree((x) => x(a).not[name]());
      }
    }),
    RUNS,
  );
});

test('the number comparisons agree with Playwright, numbers or not', () => {
  const operand = fc.oneof(fc.double(), fc.integer({ min: -3, max: 3 }), fc.bigInt({ min: -3n, max: 3n }), edges);
  fc.assert(
    fc.property(operand, operand, (a, e) => {
      for (const name of [
        'toBeGreaterThan',
        'toBeGreaterThanOrEqual',
        'toBeLessThan',
        'toBeLessThanOrEqual',
      ] as const) {
        agree((x) => x(a)[name](e as number));
      }
    }),
    RUNS,
  );
});

test('toContain, toMatch and toHaveLength agree with Playwright on strings, arrays and others', () => {
  const container = fc.oneof(
    fc.constantFrom<unknown>([NaN, 1], [0, 'a'], [undefined], 'abab'),
    fc.string({ maxLength: 6 }),
    fc.array(value, { maxLength: 4 }),
    value,
  );
  fc.assert(
    fc.property(
      container,
      value,
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom('', 'g', 'y', 'i'),
      (a, other, how, flags) => {
        // A part of the container (a substring, an element) half of the time.
        const part =
          typeof a === 'string' ? a.slice(how, how + 2) : Array.isArray(a) && a.length > 0 ? a[how % a.length] : other;
        const needle = how % 2 === 0 ? part : other;
        agree((x) => x(a).toContain(needle));
        agree((x) => x(a).not.toContain(needle));
        const text = typeof needle === 'string' ? needle : typeof needle === 'number' ? String(needle) : 'a';
        agree((x) => x(a).toMatch(text));
        // A global or sticky expression keeps state (lastIndex): the assertion must leave it alone.
        const source = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        agree((x) => {
          const pattern = new RegExp(source, flags);
          x(a).toMatch(pattern);
          return pattern.lastIndex;
        });
        const length = typeof a === 'string' || Array.isArray(a) ? a.length + (how === 3 ? 1 : 0) : how;
        agree((x) => x(a).toHaveLength(length));
      },
    ),
    RUNS,
  );
});

test('a failing assertion is Playwright failure, message and all; matchers without a fast path are its own', () => {
  playwrightExpect(verdict(() => fastExpect({ a: 1 }, 'the body').toEqual({ a: 2 }))).toEqual(
    verdict(() => playwrightExpect({ a: 1 }, 'the body').toEqual({ a: 2 })),
  );
  playwrightExpect(verdict(() => fastExpect([1, 2]).toContain(3))).toMatchObject({ pass: false });
  // toMatchObject has no fast path: Playwright decides, both ways.
  playwrightExpect(verdict(() => fastExpect({ a: 1, b: 2 }).toMatchObject({ a: 1 }))).toEqual({ pass: true });
  playwrightExpect(verdict(() => fastExpect({ a: 1 }).toMatchObject({ a: 2 }))).toMatchObject({ pass: false });
});
