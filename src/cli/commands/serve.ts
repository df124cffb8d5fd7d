/**
 * `cloudcheck serve`: the embedded reference server as a process. Prints one `name=value` line
 * per fact once listening (base_url, s3_url, api_key, alt_api_key), so scripts can read them, and
 * stops cleanly on SIGINT/SIGTERM.
 */
import { UsageError, helpText, resolveOptions, suggest } from '../../config/resolve.ts';
import type { HelpSpec } from '../../config/resolve.ts';
import { onInterrupt } from '../../harness/session.ts';
import { out, outText, outUnredacted } from '../output.ts';

export const SERVE_HELP: HelpSpec = {
  synopsis: 'cloudcheck serve [options]',
  summary:
    'Runs the embedded reference server until SIGINT/SIGTERM; prints base_url=, s3_url=, api_key= and alt_api_key= lines once it listens.',
  examples: [
    ['cloudcheck serve --port 8080 --s3-port 8081 --api-key K1 --alt-api-key K2', 'a reference server with known keys'],
    [
      'cloudcheck serve --port 0 --fault auth-ignored',
      'a free port, with a deliberate non-conformance (--list-faults lists them)',
    ],
    [
      'cloudcheck serve --variant create-200 --variant vps-boot-slow=60000',
      'other legal choices where the specification is silent',
    ],
  ],
  exitCodes: [
    ['0', 'stopped by SIGINT/SIGTERM, or a list printed'],
    ['2', 'usage error, unknown fault or variant, or the address cannot be listened on'],
  ],
};

export async function serveCommand(argv: string[], signal?: AbortSignal): Promise<number> {
  const resolved = resolveOptions('serve', argv, process.env, process.cwd());
  if (resolved.help) {
    outText(helpText('serve', SERVE_HELP));
    return 0;
  }
  if (resolved.positionals.length)
    throw new UsageError(`serve takes no positional arguments (got "${resolved.positionals[0]}")`);
  const v = resolved.values;
  if ((v['api-key']?.length ?? 0) > 1)
    throw new UsageError('serve takes one --api-key: the bootstrap key of the first account');
  const { listFaults, listVariants, startReferenceServer } = await import('../../../reference/server.ts');
  const faults = listFaults();
  if (v['list-faults']) {
    const width = Math.max(4, ...faults.map((f) => f.name.length));
    for (const f of faults) outText(`${f.name.padEnd(width)}  ${(f.requirement ?? '').padEnd(16)}  ${f.description}`);
    return 0;
  }
  const variants = listVariants();
  if (v['list-variants']) {
    const width = Math.max(4, ...variants.map((variant) => variant.name.length));
    for (const variant of variants) outText(`${variant.name.padEnd(width)}  ${variant.description}`);
    return 0;
  }
  const variantNames = variants.map((variant) => variant.name);
  for (const entry of v.variant ?? []) {
    const name = entry.split('=')[0]!;
    if (!variantNames.includes(name)) {
      const hint = suggest(name, variantNames);
      throw new UsageError(
        `unknown variant "${name}"${hint ? `; did you mean "${hint}"?` : ''} (cloudcheck serve --list-variants lists them)`,
      );
    }
  }
  const names = faults.map((f) => f.name);
  for (const fault of v.fault ?? []) {
    if (!names.includes(fault)) {
      const hint = suggest(fault, names);
      throw new UsageError(
        `unknown fault "${fault}"${hint ? `; did you mean "${hint}"?` : ''} (cloudcheck serve --list-faults lists them)`,
      );
    }
  }
  let running: Awaited<ReturnType<typeof startReferenceServer>>;
  try {
    running = await startReferenceServer({
      host: v.host,
      port: v.port,
      s3Port: v['s3-port'],
      apiKey: v['api-key']?.[0],
      altApiKey: v['alt-api-key'],
      faults: v.fault,
      variants: v.variant,
      seed: v.seed,
      testNumbers: { succeed: v['test-number-succeed'], fail: v['test-number-fail'], random: v['test-number-random'] },
      carrierNumbers: { reject: v['carrier-number-reject'], expire: v['carrier-number-expire'] },
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e instanceof Error && /^variant /.test(e.message)) throw new UsageError(e.message);
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      throw new UsageError(`cannot listen on ${v.host} (port ${v.port} / s3 port ${v['s3-port']}): ${e.code}`);
    }
    throw error;
  }
  outUnredacted(`base_url=${running.baseUrl}`);
  outUnredacted(`s3_url=${running.s3Url}`);
  outUnredacted(`api_key=${running.apiKey}`);
  outUnredacted(`alt_api_key=${running.altApiKey}`);
  if (v.fault && v.fault.length) out(`faults=${v.fault.join(',')}`);
  if (v.variant && v.variant.length) out(`variants=${v.variant.join(',')}`);
  await new Promise<void>((resolve) => {
    // The one listener of SIGINT and SIGTERM (src/harness/session.ts): either stops the server.
    const stopListening = onInterrupt(() => stop());
    const stop = (): void => {
      stopListening();
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    signal?.addEventListener('abort', stop);
  });
  await running.close();
  return 0;
}
