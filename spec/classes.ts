/** Conformance classes an implementer may claim (README, Reading the report). */
export const CONFORMANCE_CLASSES = [
  'auth',
  'errors',
  'pagination',
  'rate-limits',
  'messaging',
  'test-mode',
  'webhooks',
  'compute',
  'storage-objects',
  'storage-volumes',
  's3',
  'billing',
  'projects',
  'api-keys',
  'isolation',
] as const;

export type ConformanceClass = (typeof CONFORMANCE_CLASSES)[number];

export function isConformanceClass(value: string): value is ConformanceClass {
  return (CONFORMANCE_CLASSES as readonly string[]).includes(value);
}

/** MUST: the specification states it. SHOULD: a convention cloudcheck assumes to fill a gap. */
export type Level = 'MUST' | 'SHOULD';

/** The four areas of the API, as the OpenAPI document tags its operations. */
export const AREAS = ['messaging', 'compute', 'storage', 'billing'] as const;
export type Area = (typeof AREAS)[number];
