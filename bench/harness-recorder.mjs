// Preloaded (NODE_OPTIONS=--import) into every process of a `cloudcheck run` by
// bench/harness-vs-raw.ts: records each HTTP request undici sends to the run's target, so the
// benchmark can replay the same sequence raw. Plain JavaScript because it loads before any
// TypeScript loader. It reads undici's diagnostics channel: no change to the harness, and it
// sees exactly what went on the wire. Inert unless CLOUDCHECK_BENCH_RECORD names a directory.
//
// Keys are never written: the Authorization header becomes a marker (main / run-key / alt /
// other / none) that the replay maps to keys of its own server.
import { Buffer } from 'node:buffer';
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';

const dir = process.env.CLOUDCHECK_BENCH_RECORD;

/** @param {string | undefined} authorization */
function keyMarker(authorization) {
  if (!authorization) return 'none';
  const key = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const env = process.env;
  if (key && key === env.CLOUDCHECK_API_KEY) return 'main';
  if (key && key === env.CLOUDCHECK_ALT_API_KEY) return 'alt';
  if (key && (env.CLOUDCHECK_BUDGET_KEYS ?? '').split(',').includes(key)) return 'run-key';
  return 'other';
}

if (dir) {
  const file = join(dir, `requests-${process.pid}.jsonl`);
  let seq = 0;
  subscribe('undici:request:create', (message) => {
    const target = process.env.CLOUDCHECK_TARGET;
    const s3 = process.env.CLOUDCHECK_S3_URL;
    const request = message.request;
    const origin = String(request.origin);
    let role = null;
    if (target && new URL(target).origin === new URL(origin).origin) role = 'api';
    else if (s3 && new URL(s3).origin === new URL(origin).origin) role = 's3';
    if (!role) return; // webhook deliveries, anything else
    const raw = Array.isArray(request.headers) ? request.headers : [];
    /** @type {Record<string, string>} */
    const headers = {};
    for (let i = 0; i + 1 < raw.length; i += 2) headers[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
    const auth = keyMarker(headers.authorization);
    delete headers.authorization;
    let body = null;
    let bodyKind = 'none';
    if (typeof request.body === 'string' || request.body instanceof Uint8Array) {
      body = Buffer.from(request.body).toString('base64');
      bodyKind = 'bytes';
    } else if (request.body != null) {
      bodyKind = 'stream';
    }
    const line = {
      seq: ++seq,
      at: performance.timeOrigin + performance.now(),
      pid: process.pid,
      role,
      method: request.method,
      path: request.path,
      headers,
      auth,
      bodyKind,
      body,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // A benchmark aid: never break the run.
    }
  });
}
