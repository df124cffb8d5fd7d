/**
 * The connection options of a command's resolved values (target, keys, --ca-cert, -H, --retries,
 * and the variables only a person sets: CLOUDCHECK_REQUEST_TIMEOUT_MS, CLOUDCHECK_TIMEOUT_SCALE),
 * as the session takes them (src/harness/session.ts). Every command that reaches a target reads
 * them here, once.
 */
import { headersFromList } from '../harness/headers.ts';
import type { ConnectionOptions } from '../harness/session.ts';
import { DEFAULT_RETRIES, RUN_VARIABLES, settingsFromEnv } from '../harness/settings.ts';

/** The options of the table (options.ts) a command that reaches a target has; the others are absent. */
export interface ConnectionValues {
  target?: string;
  'api-key'?: string[];
  'alt-api-key'?: string;
  's3-url'?: string;
  header?: string[];
  'ca-cert'?: string;
  retries?: number;
}

export function connectionOf(values: ConnectionValues, env: NodeJS.ProcessEnv): ConnectionOptions {
  // The request deadline and timeout scale are variables only (README): the run contract reads them.
  const fromEnv = settingsFromEnv(
    {
      [RUN_VARIABLES.requestTimeoutMs]: env[RUN_VARIABLES.requestTimeoutMs],
      [RUN_VARIABLES.timeoutScale]: env[RUN_VARIABLES.timeoutScale],
    },
    { requireTarget: false },
  );
  return {
    target: values.target,
    apiKeys: values['api-key'] ?? [],
    altApiKey: values['alt-api-key'] ?? null,
    s3Url: values['s3-url'] ?? null,
    headers: headersFromList(values.header ?? []),
    caCertFile: values['ca-cert'] ?? null,
    retries: values.retries ?? DEFAULT_RETRIES,
    requestTimeoutMs: fromEnv.requestTimeoutMs,
    timeoutScale: fromEnv.timeoutScale,
  };
}
