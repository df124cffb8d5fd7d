/**
 * The executable model `cloudcheck explore` checks a target against: what the specification
 * states about the state behind the API after any sequence of operations, written apart from the
 * reference server's code (a model that shared it would only ever agree with it).
 *
 * The model knows only what the sequence itself did, inside its own namespace (object keys under
 * the sequence's prefix, projects it created). Every expectation cites the requirement it
 * enforces, so a failed sequence becomes a finding on that requirement; where the specification
 * is silent (status codes, wrappers, order) the model asks nothing.
 */

/** Thrown by a command when the target's answer contradicts the model. */
export class ModelViolation extends Error {
  override readonly name = 'ModelViolation';
  constructor(
    readonly requirement: string,
    /** What was asked ("GET /projects"), without the verdict. */
    readonly what: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`[${requirement}] ${what}: expected ${expected}, got ${actual}`);
  }
}

/** The requirements the model enforces, with what each rule checks (report: one check per rule). */
export const MODEL_RULES = {
  'OBJ-PUT-001': 'an uploaded object is downloaded with the bytes last uploaded, and appears in the listing',
  'OBJ-DEL-001': 'a deleted object is no longer downloaded nor listed',
  'OBJ-LIST-003': 'a listing with a prefix holds only keys with that prefix, on every page',
  'OBJ-LIST-004': 'a listing page holds at most max_keys objects, and is_truncated is true while objects remain',
  'OBJ-LIST-005': 'a listing with a marker holds only keys after it: walking the pages gives each key once',
  'PROJ-LIST-001': 'GET /projects lists every project the sequence created and did not delete',
  'PROJ-UPD-001': 'after PUT /projects/{id}, a following GET reports the new values',
  'PROJ-GET-001': 'GET /projects/{id} of an existing project answers success with it',
  'PROJ-DEL-001': 'a deleted project is no longer found nor listed',
} as const;

export type ModelRule = keyof typeof MODEL_RULES;

export interface ProjectState {
  /** The target's id, known once the create ran. */
  id: string;
  name: string;
  description: string;
}

/** The state one sequence created, as the specification says the target must see it. */
export class ExploreModel {
  /** Object key (inside the sequence's prefix) → the bytes last uploaded, as text. */
  readonly objects = new Map<string, string>();
  /** Keys deleted and not uploaded again since. */
  readonly deletedObjects = new Set<string>();
  /** Projects in creation order; a deleted one stays here with `deleted`, so commands can aim at it by index. */
  readonly projects: Array<ProjectState & { deleted: boolean }> = [];

  liveProjects(): Array<ProjectState & { deleted: boolean }> {
    return this.projects.filter((p) => !p.deleted);
  }

  /** The keys a complete walk of the listing with `prefix` must give, in the order S3-style listings use (byte order). */
  keysWithPrefix(prefix: string): string[] {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort(compareKeys);
  }
}

/** Keys compare as the listing orders them: by UTF-8 bytes (as S3 does), which for ASCII keys is code-unit order. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** One command of a sequence as data: what a replay file holds and what a report shows. */
export interface StepRecord {
  op: string;
  args: Record<string, string | number>;
}
