/**
 * Small helpers shared by the reference-server tests (test/reference/*.test.ts).
 *
 *   const api = client(server.baseUrl, server.apiKey);
 *   const res = await api.call('POST', '/projects', { name: 'x' });   // JSON body (or a raw string)
 *   expect(res.status).toBe(201);
 *   await expectDocumented('POST /projects', res);                    // OpenAPI check, when spec/model.ts exists
 *
 * `expectDocumented` validates a response against the OpenAPI document through spec/model.ts
 * (`loadOpenApi()`, `compileValidators()` → `validateResponse(operationKey, status, body)`). While
 * that module does not exist yet it does nothing, so the tests run before the document is done.
 * The operation key is `METHOD /path` with the path as the specification writes it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Raw body text ('' for 204). */
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: unknown;
}

export interface CallOptions {
  headers?: Record<string, string>;
}

export interface ApiClient {
  /** `body`: a value is sent as JSON; a string is sent as-is (for malformed-body tests). */
  call(method: string, path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse>;
}

export function client(baseUrl: string, apiKey: string): ApiClient {
  return {
    async call(method, path, body, options = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, ...options.headers };
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
  };
}

/** What we need from spec/model.ts; kept loose because that module is written elsewhere. */
interface ModelModule {
  loadOpenApi(): unknown;
  compileValidators(document: unknown): unknown;
}
type ResponseValidator = (operationKey: string, status: number, body: unknown) => unknown;

let validatorPromise: Promise<ResponseValidator | null> | undefined;

async function loadValidator(): Promise<ResponseValidator | null> {
  const modelUrl = new URL('../../spec/model.ts', import.meta.url);
  if (!existsSync(fileURLToPath(modelUrl))) return null;
  const model = (await import(modelUrl.href)) as ModelModule;
  const compiled = (await model.compileValidators(await model.loadOpenApi())) as
    | { validateResponse?: ResponseValidator }
    | ResponseValidator;
  if (typeof compiled === 'function') return compiled;
  const validate = compiled.validateResponse;
  return validate ? validate.bind(compiled) : null;
}

/** Problems the document reports for this response; [] when it matches (or there is no document yet). */
export async function documentProblems(
  operationKey: string,
  response: Pick<ApiResponse, 'status' | 'body'>,
): Promise<string[]> {
  validatorPromise ??= loadValidator();
  const validate = await validatorPromise;
  if (!validate) return [];
  const result = await validate(operationKey, response.status, response.body);
  // Accept the usual result shapes: boolean, list of errors, or {valid, errors}.
  if (result === true || result === undefined || result === null) return [];
  if (result === false) return [`${operationKey} ${response.status}: does not match the document`];
  if (Array.isArray(result)) return result.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  const shaped = result as { valid?: boolean; ok?: boolean; errors?: unknown[] | null };
  if (shaped.valid === true || shaped.ok === true) return [];
  const errors = shaped.errors ?? [];
  if (errors.length === 0 && shaped.valid !== false && shaped.ok !== false) return [];
  return errors.length > 0
    ? errors.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    : [`${operationKey} ${response.status}: does not match the document`];
}

/** Throws (failing the test) when the response disagrees with the OpenAPI document. */
export async function expectDocumented(
  operationKey: string,
  response: Pick<ApiResponse, 'status' | 'body'>,
): Promise<void> {
  const problems = await documentProblems(operationKey, response);
  if (problems.length > 0) {
    throw new Error(
      `${operationKey} → ${response.status} disagrees with the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(response.body)?.slice(0, 2000)}`,
    );
  }
}
