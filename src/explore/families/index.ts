/**
 * Every family `cloudcheck explore` knows, in the order sequences take turns (sequence i draws its
 * commands from family i mod n, so each family's sequences are as dense as if it were alone).
 */
import type { ExploreCommand, ExploreFamily } from '../family.ts';
import type { StepRecord } from '../model.ts';
import { apiKeys } from './api-keys.ts';
import { compute } from './compute.ts';
import { messaging } from './messaging.ts';
import { objects } from './objects.ts';
import { projects } from './projects.ts';
import { volumeSnapshots, vpsSnapshots } from './snapshots.ts';
import { templates } from './templates.ts';
import { volumes } from './volumes.ts';

export const FAMILIES: readonly ExploreFamily[] = [
  objects,
  projects,
  compute,
  volumes,
  messaging,
  apiKeys,
  volumeSnapshots,
  vpsSnapshots,
  templates,
];

/** The families named (`--families`), in the table's order; an unknown name is an error naming the known ones. */
export function familiesNamed(names: readonly string[] | undefined): ExploreFamily[] {
  if (!names?.length) return [...FAMILIES];
  const unknown = names.find((n) => !FAMILIES.some((f) => f.name === n));
  if (unknown !== undefined)
    throw new Error(`unknown family "${unknown}" (families: ${FAMILIES.map((f) => f.name).join(', ')})`);
  return FAMILIES.filter((f) => names.includes(f.name));
}

/** Requirement → what the model checks of it, across the families given. */
export function rulesOf(families: readonly ExploreFamily[]): Record<string, string> {
  return Object.assign({}, ...families.map((f) => f.rules)) as Record<string, string>;
}

/** A replay file's step back into its command (any family's); an unknown operation is an error naming it. */
export function commandOf(step: StepRecord): { family: ExploreFamily; command: ExploreCommand } {
  for (const family of FAMILIES) {
    const command = family.commandOf(step);
    if (command) return { family, command };
  }
  throw new Error(`unknown operation "${step.op}"`);
}
