/**
 * Legal variants of the messaging area (`cloudcheck serve --variant NAME[=MS]`), see core/variants.ts.
 */
import type { VariantDefinition } from '../../core/variants.ts';

export const MESSAGING_VARIANTS = [
  {
    name: 'sms-delivery-slow',
    departsFrom: [],
    allowedBy: 'States and transitions: "Message states: transitions between them not shown beyond the initial row"',
    description:
      'A message stays `sent` for MS milliseconds (default 8000) before its final state, as a real carrier takes seconds.',
    defaultMs: 8_000,
  },
  {
    name: 'test-mode-unpriced',
    departsFrom: ['TEST-MODE-003'],
    allowedBy:
      'Limits: "with header X-Test-Mode: true no real SMS is delivered" (whether a test send is priced: not shown)',
    description: 'A test-mode send answers `cost` 0: nothing is sent, so nothing is priced.',
  },
] as const satisfies readonly VariantDefinition[];
