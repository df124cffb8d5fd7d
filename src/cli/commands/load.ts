/**
 * `cloudcheck load [PROFILE...]`: options resolve exactly as for `run` (flag > env > config file),
 * then the load runner (load/command.ts) does the work and decides the exit code.
 */
import { UsageError, helpText, resolveOptions } from '../../config/resolve.ts';
import { runLoadCommand } from '../../../load/command.ts';
import { addSecret } from '../../harness/redact.ts';
import { err, out } from '../output.ts';

const SYNOPSIS = 'cloudcheck load [PROFILE...] [--target URL] [--api-key KEY] [--report-dir DIR] [--max-wait SECONDS] [--config FILE]';

export async function loadCommand(argv: string[]): Promise<number> {
  let options;
  try {
    options = resolveOptions('load', argv);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`cloudcheck load: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    out(helpText('load', SYNOPSIS));
    return 0;
  }
  const values = options.values;
  const target = values.target as string | undefined;
  const apiKey = values['api-key'] as string | undefined;
  if (apiKey) addSecret(apiKey);
  if (target && !apiKey) {
    err('cloudcheck load: --target needs --api-key (or CLOUDCHECK_API_KEY)');
    return 2;
  }
  return runLoadCommand({
    profiles: options.positionals,
    target,
    apiKey,
    reportDir: values['report-dir'] as string | undefined,
    maxWait: values['max-wait'] as number | undefined,
  });
}
