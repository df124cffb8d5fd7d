/**
 * Legal variants of object storage (`cloudcheck serve --variant NAME`), see core/variants.ts:
 * choices the specification leaves open about keys, multipart uploads and presigned URLs.
 */
import type { VariantDefinition } from '../../core/variants.ts';

const STORAGE_GAP = 'Limits / Gaps: "Limits on ... object size, part size and count: not shown"';

export const STORAGE_OBJECT_VARIANTS = [
  {
    name: 'object-keys-nfc',
    departsFrom: ['OBJ-KEY-001'],
    allowedBy: 'Endpoints / Storage: `{object_key}` (its syntax and encoding: not shown)',
    description:
      'An object key is Unicode-normalised (NFC) after percent-decoding: `e` followed by a combining acute accent is stored as `é`.',
  },
  {
    name: 'object-presigned-suffix-reserved',
    departsFrom: ['OBJ-KEY-002'],
    allowedBy:
      'Endpoints / Storage: `POST .../objects/{object_key}/presigned-url` (how it is told from a key ending so: not shown)',
    description:
      'Object keys ending in `/presigned-url` are refused on upload (422 `validation_error`): the segment is reserved.',
  },
  {
    name: 'multipart-complete-idempotent',
    departsFrom: ['MPU-CMP-003'],
    allowedBy: 'Endpoints / Storage: completion by `?uploadId=` (a second completion: not shown)',
    description:
      'Completing an upload that was already completed answers 200 with its object again, as S3 does for a while.',
  },
  {
    name: 'multipart-min-part-none',
    departsFrom: ['MPU-PART-002'],
    allowedBy: STORAGE_GAP,
    description:
      'Parts of any size complete an upload (no 5 MiB minimum for parts but the last), as a block list does.',
  },
  {
    name: 'absolute-urls-configured-host',
    departsFrom: ['PRE-URL-008'],
    allowedBy: 'Presigned URL result: `url` (which host it names: not shown)',
    description:
      'Presigned URLs name the host the server is configured with (`localhost`, another name of the loopback address the run reaches) rather than the one the client used.',
  },
] as const satisfies readonly VariantDefinition[];
