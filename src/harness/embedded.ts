/**
 * Starting the embedded reference server for a run with no target (README, Quick start):
 * free loopback ports, fresh random keys. Used by `cloudcheck run`, `cloudcheck load` and the
 * Playwright global setup.
 */
import { randomBytes } from 'node:crypto';

export interface EmbeddedTarget {
  target: string;
  s3Url: string;
  apiKey: string;
  altApiKey: string;
  close(): Promise<void>;
}

export function randomKey(label: string): string {
  return `cc_${label}_${randomBytes(24).toString('base64url')}`;
}

/** A comma-separated list from the environment, or undefined when empty. */
function namesFromEnv(value: string | undefined): string[] | undefined {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 ? names : undefined;
}

/**
 * Hidden switch for the suite's own tests (the fault matrix, test/trust): `CLOUDCHECK_EMBEDDED_FAULTS=a,b` starts the
 * embedded server with those deliberate faults, so a test can prove a check fails against them
 * through the real `cloudcheck run`. Not a documented option: users never want a faulty server.
 */
export function faultsFromEnv(env: NodeJS.ProcessEnv): string[] | undefined {
  return namesFromEnv(env.CLOUDCHECK_EMBEDDED_FAULTS);
}

/**
 * Its companion for the fault matrix's shared runs: `CLOUDCHECK_EMBEDDED_FAULT_SCOPES` is a JSON
 * object, fault → the checks it bends (check ids, or the prefix of a flow's or an operation's),
 * so that faults of one plugin can share a run, each seen only by its own checks through the
 * check header every request carries (reference/core/faults.ts).
 */
export function faultScopesFromEnv(env: NodeJS.ProcessEnv): Record<string, string[]> | undefined {
  const text = env.CLOUDCHECK_EMBEDDED_FAULT_SCOPES?.trim();
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`CLOUDCHECK_EMBEDDED_FAULT_SCOPES is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every(
      (units) => Array.isArray(units) && units.every((unit) => typeof unit === 'string' && unit !== ''),
    );
  if (!valid)
    throw new Error('CLOUDCHECK_EMBEDDED_FAULT_SCOPES must be a JSON object of fault name → non-empty check ids');
  return parsed as Record<string, string[]>;
}

/**
 * The twin switch for legal variants: `CLOUDCHECK_EMBEDDED_VARIANTS=create-200,latency=40` starts
 * the embedded server with those choices (reference/core/variants.ts), so the variant matrix
 * (test/trust/variant-matrix.test.ts) can prove the suite passes them.
 */
export function variantsFromEnv(env: NodeJS.ProcessEnv): string[] | undefined {
  return namesFromEnv(env.CLOUDCHECK_EMBEDDED_VARIANTS);
}

export interface EmbeddedOptions {
  seed?: number;
  testNumbers?: { succeed?: string; fail?: string; random?: string };
  apiKey?: string;
  /** The test switches above, read from the environment by the caller (faultsFromEnv, ...). */
  faults?: string[];
  faultScopes?: Record<string, string[]>;
  variants?: string[];
}

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<EmbeddedTarget> {
  // Imported lazily: a run against a real target never loads the server (and its dependencies).
  const { startReferenceServer } = await import('../../reference/server.ts');
  const running = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    s3Port: 0,
    apiKey: options.apiKey ?? randomKey('main'),
    altApiKey: randomKey('alt'),
    seed: options.seed,
    faults: options.faults,
    faultScopes: options.faultScopes,
    variants: options.variants,
    testNumbers: options.testNumbers,
  });
  return {
    target: running.baseUrl,
    s3Url: running.s3Url,
    apiKey: running.apiKey,
    altApiKey: running.altApiKey,
    close: () => running.close(),
  };
}
