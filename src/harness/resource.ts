/**
 * Reading what a success answer carries, the way a client of an unknown server must.
 *
 * Where the specification shows a response body (`object vps`, `vps_instances` plus `meta`, the
 * flat message of POST /sms/send) a check reads exactly that shape. Where it says "Response bodies
 * not shown", a conformant target may answer the resource flat, wrapped in its singular name (the
 * convention of docs/conventions.md, a SHOULD), or under a generic envelope key such as `data`.
 * MUST checks and flow steps read such bodies through these helpers, so a target's legal choice
 * never turns into a TypeError or a MUST failure; the exact wrapper is checked by SHOULD checks.
 */
import { expect } from './expect.ts';
import type { ApiResponse } from './client.ts';

import { isObject, resourceOf, shortText } from './body-shape.ts';
import type { Json } from './body-shape.ts';

export { listOf, resourceOf } from './body-shape.ts';

/**
 * Asserts a success answer (any 2xx: the specification lists 200, 201 and 204 and does not say
 * which operation uses which) and returns the resource under `name` as `resourceOf` finds it.
 * Fails with the request line and body when there is no such object.
 */
export function expectResource<T = Json>(res: ApiResponse, name: string, key = 'id'): T {
  expectSuccess(res);
  const resource = resourceOf<T>(res.body, name, key);
  expect(
    resource !== undefined && isObject(resource) && key in resource,
    `${line(res)} answered ${res.status} without a ${name} carrying "${key}": ${short(res.text)}`,
  ).toBe(true);
  return resource!;
}

/** Asserts a success answer: any 2xx status (the exact one is a SHOULD, docs/conventions.md). */
export function expectSuccess(res: ApiResponse, hint?: string): void {
  expect(
    res.status >= 200 && res.status < 300,
    `${line(res)} should succeed (2xx)${hint ? ` (${hint})` : ''}, got ${res.status}: ${short(res.text)}`,
  ).toBe(true);
}

/**
 * Asserts a refusal: a 4xx status (the specification lists 400, 401, 403, 404, 409 and 422 but
 * maps none to a condition, so which one is a SHOULD check's business).
 */
export function expectRefused(
  res: { status: number; text: string; exchange?: ApiResponse['exchange'] },
  what: string,
): void {
  const request = res.exchange ? ` (${line({ exchange: res.exchange })})` : '';
  expect(
    res.status >= 400 && res.status < 500,
    `${what}${request} should be refused with a 4xx status, got ${res.status}: ${short(res.text)}`,
  ).toBe(true);
}

function line(res: Pick<ApiResponse, 'exchange'>): string {
  const r = res.exchange.request;
  try {
    const url = new URL(r.url);
    return `${r.method} ${url.pathname}`;
  } catch {
    return `${r.method} ${r.url}`;
  }
}

const short = (text: string): string => shortText(text, 300);

/** A field's type as the specification's resource tables give it. */
export type FieldType = 'string' | 'integer' | 'number' | 'timestamp' | 'timestamp|null' | 'string[]' | 'string|null';

function fieldIs(record: Json, name: string, type: FieldType): boolean {
  if (!(name in record)) return false;
  const value = record[name];
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'timestamp':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'timestamp|null':
      return value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
  }
}

/**
 * Asserts that a record carries each field with its type (Resources and their fields); fields it
 * carries beyond these are its business. The message lists every wrong or absent field at once.
 */
export function expectFields(record: unknown, fields: Record<string, FieldType>, what: string): void {
  expect(isObject(record), `${what} should be a JSON object`).toBe(true);
  const r = record as Json;
  const wrong = Object.entries(fields)
    .filter(([name, type]) => !fieldIs(r, name, type))
    .map(([name, type]) => `${name} should be ${type}, is ${name in r ? JSON.stringify(r[name]) : 'absent'}`);
  expect(wrong, `${what}: fields absent or of another type`).toEqual([]);
}
