// Test support of the plugin's tests: a client's headers, and what tells the API's answers from
// the host's. The records come from @workforce-kit/core/testing, the tokens and the API's options
// from @workforce-kit/http/testing.
import type { World } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER } from '@workforce-kit/http/testing';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** The headers of a client holding `token` and acting for the world's restaurant, and `more`. */
export function clientHeaders(
  token: string,
  world: World,
  more: Record<string, string> = {},
): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    [RESTAURANT_HEADER]: world.restaurant.guid,
    ...more,
  };
}

/** The status, the problem+json media type, the code, and the request id in body and header. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
}

/** The host's answer: no problem details, none of the API's headers. */
export function expectHostAnswer(res: LightMyRequestResponse, status: number): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type'] ?? '').not.toMatch(/problem\+json/);
  expect(res.headers['x-request-id']).toBeUndefined();
  expect(res.headers['cache-control']).toBeUndefined();
}
