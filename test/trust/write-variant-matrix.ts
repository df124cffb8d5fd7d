/** Writes docs/variant-matrix.md from the variant catalogue and the matrix's runs (variant-matrix.ts). */
import { writeFileSync } from 'node:fs';
import { VARIANT_DOC_PATH, renderVariantDoc } from './variant-matrix.ts';

writeFileSync(VARIANT_DOC_PATH, renderVariantDoc());
process.stdout.write(`wrote ${VARIANT_DOC_PATH}\n`);
