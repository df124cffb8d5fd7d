/** The one place that lists the areas of the reference server. */
import type { AreaModule } from './area.ts';
import { apiKeysArea } from './api-keys/index.ts';
import { billingArea } from './billing/index.ts';
import { computeArea } from './compute/index.ts';
import { messagingArea } from './messaging/index.ts';
import { projectsArea } from './projects/index.ts';
import { storageObjectsArea } from './storage-objects/index.ts';
import { storageVolumesArea } from './storage-volumes/index.ts';

export const AREAS: readonly AreaModule[] = [
  messagingArea,
  computeArea,
  storageObjectsArea,
  storageVolumesArea,
  billingArea,
  projectsArea,
  apiKeysArea,
];
