/** The registered kinds of generated contract checks, in the order each operation declares them. */
import { afterDelete } from './after-delete.ts';
import { auth } from './auth.ts';
import { negative } from './negative.ts';
import { positive } from './positive.ts';
import { registry } from './registry.ts';
import { unknownId } from './unknown-id.ts';

export const CONTRACT_CHECK_KINDS = registry([positive, auth, unknownId, negative, afterDelete]);
