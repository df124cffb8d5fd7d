/**
 * Errors that say "not the target's fault". A check that fails with one of these is classified
 * `environment` (README, Reading the report), never `defect`, so it can never fail the gate.
 *
 * The reporter runs in another process than the check, so the class cannot travel with the error;
 * the check wrapper (check.ts) and the fixtures recognise these errors and add a classification
 * annotation, which the reporter reads as data. `name` is also set, so the message says what failed.
 */
export class EnvironmentError extends Error {
  override readonly name: string = 'EnvironmentError';
  readonly environment = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The request could not be sent or no response came (connection refused, reset, DNS, timeout). */
export class NetworkError extends EnvironmentError {
  override readonly name: string = 'NetworkError';
}

/** The suite's own request budget ran out (429s the suite caused, not the ones a check provokes). */
export class BudgetExhaustedError extends EnvironmentError {
  override readonly name: string = 'BudgetExhaustedError';
}

/** A prerequisite the run does not have: no alt key, no webhook URL, charges not allowed... */
export class PrerequisiteMissingError extends EnvironmentError {
  override readonly name: string = 'PrerequisiteMissingError';
}

/**
 * Whether an error, or an error it wraps (`cause`), says the environment stopped the check: a
 * helper that adds what it last saw to a poll's network failure ("last seen: creating") still
 * reports a request that got no answer, never the target's defect.
 */
export function isEnvironmentError(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (e instanceof EnvironmentError) return true;
    // Instances created by another copy of this module (e.g. loaded through a different loader).
    if ((e as { environment?: unknown }).environment === true) return true;
  }
  return false;
}

/**
 * cloudcheck's own failure, detected by the suite: a request path built from a value an earlier
 * step should have produced, a state a flow step needs and does not have. Classified
 * `cloudcheck-error`: never the target's fault, and the run exits 2 (the requirement went unchecked).
 */
export class CloudcheckError extends Error {
  override readonly name: string = 'CloudcheckError';
  readonly suiteError = true;
}

/**
 * A package loaded on first use (inside a check, or a fixture): one that does not load is
 * cloudcheck's error (exit 2), never the target's defect, as it was when the import failed.
 */
export function loadDependency<T>(name: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw new CloudcheckError(`cannot load ${name}: ${(error as Error).message}`, { cause: error });
  }
}

/** Errors thrown by the check's own code rather than by an assertion about the target. */
const CODE_ERRORS = [TypeError, ReferenceError, SyntaxError, RangeError];

export function isSuiteError(error: unknown): boolean {
  if (error instanceof CloudcheckError || CODE_ERRORS.some((type) => error instanceof type)) return true;
  return typeof error === 'object' && error !== null && (error as { suiteError?: unknown }).suiteError === true;
}
