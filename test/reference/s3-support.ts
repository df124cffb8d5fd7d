/**
 * Helpers of the S3 endpoint tests: a running reference server, storage access keys made through
 * the REST API, and S3 clients configured the usual way (path-style, a region slug).
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import type { RunningReference } from '../../reference/server.ts';
import { client } from './helpers.ts';

export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

export async function accessKey(
  server: RunningReference,
  input: { permissions?: string[]; bucket_access?: string[]; alt?: boolean; headers?: Record<string, string> } = {},
): Promise<KeyPair> {
  const body = {
    name: `s3-test-${randomBytes(3).toString('hex')}`,
    permissions: input.permissions ?? ['read', 'write'],
    ...(input.bucket_access ? { bucket_access: input.bucket_access } : {}),
  };
  const res = await client(server.baseUrl, input.alt ? server.altApiKey : server.apiKey).call(
    'POST',
    '/storage/access-keys',
    body,
    { headers: input.headers },
  );
  if (res.status !== 201) throw new Error(`access key: ${res.status} ${res.text}`);
  const key = (res.body as { access_key: { access_key_id: string; secret_access_key: string } }).access_key;
  return { accessKeyId: key.access_key_id, secretAccessKey: key.secret_access_key };
}

export type ChecksumSetting = 'default' | 'when-required';

export function s3Client(
  server: RunningReference,
  credentials: KeyPair,
  checksums: ChecksumSetting = 'default',
  extra: Partial<S3ClientConfig> = {},
): S3Client {
  return new S3Client({
    endpoint: server.s3Url,
    forcePathStyle: true,
    region: 'nyc1',
    credentials,
    maxAttempts: 1,
    ...(checksums === 'when-required'
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
    ...extra,
  });
}

export function uniqueBucket(label: string): string {
  return `s3t-${label}-${randomBytes(4).toString('hex')}`;
}

/** The S3 error code of a rejected SDK call (`name` is the code for modelled and unmodelled errors). */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { name?: string; Code?: string }).Code ?? (error as { name?: string }).name ?? 'unknown';
  }
  return 'no error';
}
