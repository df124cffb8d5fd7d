import type { ConformanceClass, Level } from './classes.ts';

/** One entry of spec/requirements.yaml. */
export interface Requirement {
  /** Stable id, `AREA-TOPIC-NNN`, e.g. `MSG-SEND-005`. Never reused once published. */
  id: string;
  level: Level;
  class: ConformanceClass;
  /** The statement, in cloudcheck's own words. */
  statement: string;
  /** Section of the specification it comes from (e.g. "Endpoints / Messaging"). */
  source: string;
  /** Operations it concerns, as `METHOD /path` exactly as the specification writes the path. */
  operations?: string[];
  /** SHOULD only: the convention assumed and why. */
  assumption?: string;
  /**
   * Why `cloudcheck run` cannot check it (a window of an hour, a bandwidth no routine run should
   * spend), and the load profile that does, if one does. Reported as not checkable, never passed.
   */
  not_checkable?: { reason: string; checked_by?: string };
}
