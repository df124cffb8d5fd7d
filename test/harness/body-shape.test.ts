import { expect, test } from '../base.ts';
import fc from 'fast-check';
import { shortText } from '../../src/harness/body-shape.ts';

/** The definition: the first `max` code points and an ellipsis, or the text when it has no more. */
function byDefinition(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}

test('shortText cuts at max code points, never inside a surrogate pair, whatever the text', () => {
  // Texts mixing ASCII, astral characters (two UTF-16 units each) and lone surrogates.
  const unit = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.constantFrom('😀', '\ud83d', '\ude00', 'é'),
  );
  fc.assert(
    fc.property(
      fc.array(unit, { maxLength: 40 }).map((parts) => parts.join('')),
      fc.integer({ min: 0, max: 30 }),
      (text, max) => {
        expect(shortText(text, max)).toBe(byDefinition(text, max));
      },
    ),
    { numRuns: 2000 },
  );
  // At the boundary: the pair that would be split by a cut at 2 × max units stays whole or out.
  expect(shortText('😀'.repeat(4), 3)).toBe('😀😀😀…');
  expect(shortText(`${'a'.repeat(5)}😀`, 6)).toBe(`${'a'.repeat(5)}😀`);
  expect(shortText(`${'a'.repeat(5)}😀b`, 6)).toBe(`${'a'.repeat(5)}😀…`);
});

test('shortText of a huge body reads only its head', () => {
  const huge = ' '.repeat(64 * 1024 * 1024);
  expect(shortText(huge, 300)).toBe(`${' '.repeat(300)}…`);
});
