/** Legal variants of the API-key endpoints (`cloudcheck serve --variant NAME`), see core/variants.ts. */
import type { VariantDefinition } from '../../core/variants.ts';

export const API_KEY_VARIANTS = [
  {
    name: 'key-prefix-8',
    departsFrom: ['KEY-PFX-001'],
    allowedBy: 'Resources and their fields / API key: `prefix` (its length: not shown)',
    description: 'The listing shows the first 8 characters of each key as its `prefix` instead of 12.',
  },
] as const satisfies readonly VariantDefinition[];
