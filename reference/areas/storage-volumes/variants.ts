/** Legal variants of block storage (`cloudcheck serve --variant NAME`), see core/variants.ts. */
import type { VariantDefinition } from '../../core/variants.ts';

export const VOLUME_VARIANTS = [
  {
    name: 'volume-snapshot-size-omitted',
    departsFrom: ['VOL-SNAP-003', 'VOL-WRAP-001'],
    allowedBy: 'Resources and their fields: "Record fields not shown: ... volume snapshot"',
    description: "A volume snapshot record carries no `size`; a restore without size still takes its volume's size.",
  },
] as const satisfies readonly VariantDefinition[];
