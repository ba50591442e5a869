import { randomUUID } from 'node:crypto';

/** An incoming X-Request-Id is kept when it is printable ASCII of at most 128 characters. */
const SANE_REQUEST_ID = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/**
 * The id of a request: the client's `X-Request-Id` when it is printable ASCII of at most 128
 * characters, otherwise a new UUID. It goes back in the response's `X-Request-Id`, in every
 * problem's `requestId`, and on every log line of the request.
 *
 * @example
 * ```ts
 * requestIdFrom(req.headers['x-request-id']); // 'checkout-retry-2', or a new UUID
 * ```
 */
export function requestIdFrom(incoming: string | readonly string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
