/**
 * A package loaded on first use (src/harness/errors.ts, loadDependency) that does not load is
 * cloudcheck's own error, which the reporter classifies as such (exit 2), never the target's defect.
 */
import { createRequire } from 'node:module';
import { expect, test } from '../base.ts';
import {
  CloudcheckError,
  NetworkError,
  isEnvironmentError,
  isSuiteError,
  loadDependency,
} from '../../src/harness/errors.ts';

test('a dependency that does not load is a cloudcheck error naming it; one that loads is returned', () => {
  const require = createRequire(import.meta.url);
  let thrown: unknown;
  try {
    loadDependency('no-such-package', () => require('cloudcheck-no-such-package-zz'));
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CloudcheckError);
  expect(isSuiteError(thrown)).toBe(true);
  expect((thrown as Error).message).toContain('cannot load no-such-package');
  expect(loadDependency('node:path', () => require('node:path') as { sep: string }).sep).toBe('/');
});

test('a network failure wrapped with what the check last saw is still the environment, not a defect', () => {
  const lost = new NetworkError('GET /v1/vps/vps_1 failed without a response: SocketError: other side closed');
  const wrapped = new Error(`${lost.message}; last seen: status "creating"`, { cause: lost });
  expect(isEnvironmentError(wrapped)).toBe(true);
  expect(isEnvironmentError(new Error('status', { cause: new Error('expected running') }))).toBe(false);
});
