/**
 * Standard S3 command-line tools against the endpoint: aws cli, rclone and s3cmd copy a small
 * file and a 10 MiB file (three parts at the 5 MiB part size each tool is configured with here)
 * in and out recursively, list and delete (what the delete left is read with the suite's own S3
 * client). Each tool is configured only through environment variables and files in a temp dir of
 * its own (never the user's ~/.aws, ~/.config or ~/.s3cfg), and skipped with the reason when it
 * is not installed or does not run.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defineCheck, expect } from '../../src/harness/check.ts';
import type { CheckContext } from '../../src/harness/check.ts';
import { createBucket, deterministicBytes, sha256, storageRegion } from '../flows/_storage.ts';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { type KeyPair, createAccessKey, s3Client, trackObject } from './_s3.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : 127
        : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The tool's version line, or undefined when it is absent or does not run (a pyenv shim without the tool, ...). */
async function available(command: string, versionArgs: string[]): Promise<string | undefined> {
  const result = await run(command, versionArgs, process.env, 30_000);
  return result.code === 0 ? (result.stdout || result.stderr).trim().split('\n')[0] : undefined;
}

interface Tool {
  name: string;
  command: string;
  versionArgs: string[];
  /** Environment (and files in `dir`) that configure the tool for this endpoint and key. */
  setup(dir: string, endpoint: string, region: string, pair: KeyPair): Promise<NodeJS.ProcessEnv>;
  /** Copies the files under `local` (a directory, keys relative to it) into the bucket. */
  putAll(local: string, bucket: string): string[];
  /** Copies every object of the bucket into the directory `local`. */
  getAll(bucket: string, local: string): string[];
  list(bucket: string): string[];
  /** Deletes every object of the bucket. */
  removeAll(bucket: string): string[];
}

const base = (): NodeJS.ProcessEnv => {
  // Nothing of the user's own S3 configuration may leak into the tool.
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/^(AWS_|RCLONE_|S3CMD)/.test(name)) delete env[name];
  return env;
};

const TOOLS: Tool[] = [
  {
    name: 'aws cli',
    command: 'aws',
    versionArgs: ['--version'],
    async setup(dir, endpoint, region, pair) {
      await writeFile(
        join(dir, 'config'),
        `[default]\nregion = ${region}\ns3 =\n  addressing_style = path\n  multipart_threshold = 5MB\n  multipart_chunksize = 5MB\n`,
      );
      await writeFile(join(dir, 'credentials'), '');
      return {
        ...base(),
        AWS_CONFIG_FILE: join(dir, 'config'),
        AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
        AWS_ACCESS_KEY_ID: pair.accessKeyId,
        AWS_SECRET_ACCESS_KEY: pair.secretAccessKey,
        AWS_DEFAULT_REGION: region,
        AWS_ENDPOINT_URL: endpoint,
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_PAGER: '',
      };
    },
    putAll: (local, bucket) => ['s3', 'cp', '--only-show-errors', '--recursive', local, `s3://${bucket}/`],
    getAll: (bucket, local) => ['s3', 'cp', '--only-show-errors', '--recursive', `s3://${bucket}/`, local],
    list: (bucket) => ['s3', 'ls', '--recursive', `s3://${bucket}/`],
    removeAll: (bucket) => ['s3', 'rm', '--only-show-errors', '--recursive', `s3://${bucket}/`],
  },
  {
    name: 'rclone',
    command: 'rclone',
    versionArgs: ['version'],
    async setup(dir, endpoint, region, pair) {
      await writeFile(join(dir, 'rclone.conf'), '');
      return {
        ...base(),
        RCLONE_CONFIG: join(dir, 'rclone.conf'),
        RCLONE_CONFIG_CC_TYPE: 's3',
        RCLONE_CONFIG_CC_PROVIDER: 'Other',
        RCLONE_CONFIG_CC_ACCESS_KEY_ID: pair.accessKeyId,
        RCLONE_CONFIG_CC_SECRET_ACCESS_KEY: pair.secretAccessKey,
        RCLONE_CONFIG_CC_ENDPOINT: endpoint,
        RCLONE_CONFIG_CC_REGION: region,
        RCLONE_CONFIG_CC_FORCE_PATH_STYLE: 'true',
        // Multipart above 5 MiB, so the 10 MiB file goes up in parts.
        RCLONE_S3_UPLOAD_CUTOFF: '5M',
        RCLONE_S3_CHUNK_SIZE: '5M',
        RCLONE_S3_NO_CHECK_BUCKET: 'true',
        RCLONE_CACHE_DIR: join(dir, 'cache'),
      };
    },
    putAll: (local, bucket) => ['copy', local, `cc:${bucket}`],
    getAll: (bucket, local) => ['copy', `cc:${bucket}`, local],
    list: (bucket) => ['lsf', '-R', `cc:${bucket}`],
    removeAll: (bucket) => ['delete', `cc:${bucket}`],
  },
  {
    name: 's3cmd',
    command: 's3cmd',
    versionArgs: ['--version'],
    async setup(dir, endpoint, region, pair) {
      const host = new URL(endpoint).host;
      await writeFile(
        join(dir, 's3cfg'),
        [
          '[default]',
          `access_key = ${pair.accessKeyId}`,
          `secret_key = ${pair.secretAccessKey}`,
          `host_base = ${host}`,
          // No %(bucket)s in host_bucket: path-style addressing.
          `host_bucket = ${host}`,
          `use_https = ${endpoint.startsWith('https:') ? 'True' : 'False'}`,
          `bucket_location = ${region}`,
          'signature_v2 = False',
          'multipart_chunk_size_mb = 5',
          'check_ssl_certificate = True',
          '',
        ].join('\n'),
      );
      return { ...base(), S3CMD_CONFIG: join(dir, 's3cfg') };
    },
    // A trailing slash on the source: its contents, not the directory itself.
    putAll: (local, bucket) => ['-c', '$CFG', 'put', '--recursive', `${local}/`, `s3://${bucket}/`],
    getAll: (bucket, local) => ['-c', '$CFG', 'get', '--recursive', '--force', `s3://${bucket}/`, `${local}/`],
    list: (bucket) => ['-c', '$CFG', 'ls', '--recursive', `s3://${bucket}/`],
    removeAll: (bucket) => ['-c', '$CFG', 'del', '--recursive', '--force', `s3://${bucket}/`],
  },
];

async function withTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'cloudcheck-s3tool-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const tool of TOOLS) {
  defineCheck(
    {
      id: `s3.tool.${tool.command}`,
      requirement: 'S3-TOOL-001',
      level: 'MUST',
      class: 's3',
      title: `${tool.name}: copy in and out (small and 10 MiB multipart), list, delete`,
      tags: ['slow'],
    },
    async ({ api, ledger, ctx }, testInfo) => {
      const endpoint = ctx.requireS3();
      testInfo.setTimeout(Math.max(testInfo.timeout, ctx.scaled(240_000)));
      // The version is asked only when a step fails, to tell "not installed here" (skipped) from
      // a failure: a tool's start-up costs more than its requests (a Python interpreter for two).
      const unavailable = async (): Promise<void> => {
        testInfo.skip(
          (await available(tool.command, tool.versionArgs)) === undefined,
          `${tool.name} is not installed or does not run here (\`${tool.command} ${tool.versionArgs.join(' ')}\` failed)`,
        );
      };
      await exercise(
        tool,
        endpoint,
        await storageRegion(api),
        await createAccessKey(api, ledger, ctx),
        await createBucket(api, ledger, ctx, 'tool'),
        ctx,
        ledger,
        unavailable,
      );
    },
  );
}

async function exercise(
  tool: Tool,
  endpoint: string,
  region: string,
  pair: KeyPair,
  bucket: string,
  ctx: CheckContext,
  ledger: Parameters<typeof trackObject>[0],
  skipIfUnavailable: () => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const env = await tool.setup(dir, endpoint, region, pair);
    const args = (list: string[]) => list.map((a) => (a === '$CFG' ? join(dir, 's3cfg') : a));
    const step = async (what: string, list: string[]) => {
      const result = await run(tool.command, args(list), env);
      if (result.code !== 0) await skipIfUnavailable();
      expect(
        result.code,
        `${tool.name} ${what} (exit ${result.code}): ${(result.stderr || result.stdout).slice(-800)}`,
      ).toBe(0);
      return result;
    };
    const files = [
      ['small.txt', deterministicBytes(1234, ctx.seed + 10)],
      ['dir/big.bin', deterministicBytes(10 * 1024 * 1024 + 17, ctx.seed + 11)],
    ] as const;
    // Both files in one invocation each way: a tool's start-up (a Python interpreter for two of
    // them) costs more than its requests, and a recursive copy is what these tools are used for.
    const up = join(dir, 'up');
    const down = join(dir, 'down');
    for (const [key, bytes] of files) {
      await mkdir(dirname(join(up, key)), { recursive: true });
      await writeFile(join(up, key), bytes);
      trackObject(ledger, bucket, key);
    }
    await mkdir(down);
    await step(
      `upload of ${files.map(([key, bytes]) => `${key} (${bytes.length} bytes)`).join(' and ')}`,
      tool.putAll(up, bucket),
    );
    const listing = await step('listing', tool.list(bucket));
    for (const [key] of files) expect(listing.stdout, `${tool.name} listing names ${key}`).toContain(key);
    await step('download of the bucket', tool.getAll(bucket, down));
    for (const [key, bytes] of files) {
      const back = await readFile(join(down, key));
      expect(back.length, `${tool.name}: ${key} length downloaded`).toBe(bytes.length);
      expect(sha256(back), `${tool.name}: ${key} downloaded bytes are the uploaded bytes`).toBe(sha256(bytes));
    }
    await step('delete of the objects', tool.removeAll(bucket));
    for (const [key] of files) ledger.deleted('object', `${bucket}/${key}`);
    // The tool's own listing was checked above; a fifth start-up of it (most of its cost: a Python
    // interpreter for two of them) would show nothing the suite's S3 client does not.
    const after = await s3Client(endpoint, region, pair).send(new ListObjectsV2Command({ Bucket: bucket }));
    const left = (after.Contents ?? []).map((object) => object.Key);
    for (const [key] of files)
      expect(left, `objects left in the bucket after the ${tool.name} delete`).not.toContain(key);
  });
}
